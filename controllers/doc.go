package controllers

import (
	"net/http"
	"reflect"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/controllers/openapi"
)

// DocController serves GET /doc: the OpenAPI 3 document of the whole interface, generated from the same route table
// that the router serves, so it cannot drift from what the service does.
type DocController struct {
	*App
	// Routes is the route table; set by package routes once the table is built.
	Routes []endpoint.Route

	once sync.Once
	doc  *openapi3.T
}

// DocInput is the (empty) parameter set of GET /doc.
type DocInput struct{}

// Doc handles GET /doc. The document is built once; only servers[0].url, the API root as this request reaches it,
// changes per request.
func (dc *DocController) Doc(c *gin.Context, _ *DocInput) error {
	dc.once.Do(func() { dc.doc = openapi.NewDocument(dc.Routes, dc.Config, APIShapes()) })
	doc := *dc.doc
	doc.Servers = openapi3.Servers{{URL: dc.Site(c).Root + "/", Description: "This service's API root."}}
	c.JSON(http.StatusOK, &doc)
	return nil
}

// APIShapes are the API types the OpenAPI document derives the schemas of the records and their parts from, by
// component name.
func APIShapes() openapi.Shapes {
	return openapi.Shapes{
		"Event":        reflect.TypeFor[EventRecord](),
		"Venue":        reflect.TypeFor[VenueRecord](),
		"Organizer":    reflect.TypeFor[OrganizerRecord](),
		"Category":     reflect.TypeFor[Term](),
		"Tag":          reflect.TypeFor[Term](),
		"EmbeddedTerm": reflect.TypeFor[EmbeddedTerm](),
		"TermURLs":     reflect.TypeFor[TermURLs](),
		"DateDetails":  reflect.TypeFor[DateDetails](),
		"CostDetails":  reflect.TypeFor[input.CostDetails](),
	}
}

// NewDocsUIController serves GET /docs and its assets for app: the page renders the document of GET /doc.
func NewDocsUIController(app *App) *openapi.DocsPage {
	return openapi.NewDocsPage(app.Config, func(c *gin.Context) string { return app.Site(c).Home })
}
