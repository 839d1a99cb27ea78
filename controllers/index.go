package controllers

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/config"
	"calendar/controllers/endpoint"
	"calendar/models"
)

// IndexController serves the namespace index, built from the same route table as the router.
type IndexController struct {
	*App
	// Routes is the route table; set by package routes once the table is built.
	Routes []endpoint.Route
}

// IndexInput holds the parameters of GET /.
type IndexInput struct {
	Namespace endpoint.Opt[string] `param:"namespace" default:"calendar/events/v1" doc:"The namespace to describe; only calendar/events/v1 exists."`
	Context   endpoint.Opt[string] `param:"context" default:"view" enum:"view,embed,edit" doc:"Scope under which the request is made; determines the fields present in the response."`
}

// Index handles GET / (the namespace root).
func (ic *IndexController) Index(c *gin.Context, in *IndexInput) error {
	if in.Namespace.Set && in.Namespace.V != config.Namespace {
		return models.Errorf(models.KindNotFound, "rest_invalid_namespace", "The specified namespace could not be found.")
	}
	site := ic.Site(c)
	routes := make(orderedMap, 0, len(ic.Routes))
	for _, r := range ic.Routes {
		routes = append(routes, orderedEntry{Key: "/" + config.Namespace + endpoint.RegexPath(r.Path), Value: ic.describeRoute(site, r)})
	}
	c.JSON(http.StatusOK, orderedMap{
		{"namespace", config.Namespace},
		{"routes", routes},
		{"_links", gin.H{"up": []gin.H{{"href": site.Home + ic.Config.Prefix + "/"}}}},
	})
	return nil
}

func (ic *IndexController) describeRoute(site Site, r endpoint.Route) orderedMap {
	var methods []string
	endpoints := make([]gin.H, 0, len(r.Endpoints))
	for _, e := range r.Endpoints {
		methods = append(methods, e.Methods...)
		endpoints = append(endpoints, gin.H{"methods": e.Methods, "args": indexArgs(e.Args())})
	}
	out := orderedMap{
		{"namespace", config.Namespace},
		{"methods", methods},
		{"endpoints", endpoints},
	}
	if !strings.Contains(r.Path, ":") {
		out = append(out, orderedEntry{"_links", gin.H{"self": []gin.H{{"href": site.Root + strings.TrimSuffix(r.Path, "/")}}}})
	}
	return out
}

// indexArgs maps parameter names to their schemas; an endpoint without parameters has "args": [], as WordPress
// writes an empty PHP array (capture 01_GET_root).
func indexArgs(args []endpoint.Arg) any {
	if len(args) == 0 {
		return []any{}
	}
	out := make(orderedMap, 0, len(args))
	for _, a := range args {
		out = append(out, orderedEntry{Key: a.Name, Value: indexArg(a)})
	}
	return out
}

func indexArg(a endpoint.Arg) orderedMap {
	out := orderedMap{}
	if a.Default != nil {
		out = append(out, orderedEntry{"default", a.Default})
	}
	if a.Description != "" {
		out = append(out, orderedEntry{"description", a.Description})
	}
	if a.Schema.Type != "" {
		out = append(out, orderedEntry{"type", a.Schema.Type})
	}
	if a.Schema.Format != "" {
		out = append(out, orderedEntry{"format", a.Schema.Format})
	}
	if len(a.Schema.Enum) > 0 {
		out = append(out, orderedEntry{"enum", a.Schema.Enum})
	}
	if a.Schema.Items != nil {
		out = append(out, orderedEntry{"items", a.Schema.Items})
	}
	if len(a.Schema.OneOf) > 0 {
		out = append(out, orderedEntry{"oneOf", a.Schema.OneOf})
	}
	return append(out, orderedEntry{"required", a.Required})
}
