package endpoint

import (
	"net/http"
	"reflect"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// Route is one path of the API (gin syntax, relative to the namespace, e.g. "/events/:id") with its endpoints.
// The route table in package routes is the single source of the router, the namespace index and /doc.
type Route struct {
	Path      string
	Endpoints []Endpoint
}

// Endpoint is one operation: the methods it answers, its parameters (the fields of its input struct), which of
// them are required, whether anonymous callers are turned away, and the responses it documents.
type Endpoint struct {
	Methods     []string
	Summary     string
	Description string
	// Input is the request struct type; nil when the endpoint takes no parameters.
	Input    reflect.Type
	Required []string
	// Auth turns anonymous callers away with 401 before their parameters are looked at.
	Auth bool
	// Clock says how a GET answer depends on the current time: it returns "" when this request's answer does
	// not, else a key naming the period the answer holds for (a day, a second). Nil means never.
	Clock func(c *gin.Context) string
	// Streams says, for a GET endpoint, that this request's answer is an iCalendar feed: written as it is produced,
	// never buffered or cached, with a weak ETag computed before the handler runs. Nil means never.
	Streams func(c *gin.Context) bool
	// IfMatch marks item writes that honour If-Match (412 when the record changed since the caller read it).
	IfMatch bool
	// LastModified marks single-record reads that carry Last-Modified and answer If-Modified-Since.
	LastModified bool
	// Responses maps HTTP statuses to what the endpoint answers with them.
	Responses map[int]Response
	run       func(*gin.Context, *Endpoint) error
}

// Response documents one answer of an endpoint: Schema names a component of the OpenAPI document for a JSON
// body ("" for none); Media maps further media types (text/calendar) to the components of their bodies.
type Response struct {
	Description string
	Schema      string
	Media       map[string]string
}

// Op builds an endpoint for methods from a handler that takes its bound, validated input.
func Op[In any](methods []string, fn func(c *gin.Context, in *In) error) Endpoint {
	e := Endpoint{Methods: methods, Responses: map[int]Response{}}
	if t := reflect.TypeOf((*In)(nil)).Elem(); t.Kind() == reflect.Struct && t.NumField() > 0 {
		e.Input = t
	}
	e.run = func(c *gin.Context, e *Endpoint) error {
		if e.Auth && models.UserFrom(c.Request.Context()) == nil {
			return models.Unauthorized("")
		}
		in := new(In)
		if err := Bind(c, in, e.Required); err != nil {
			return err
		}
		return fn(c, in)
	}
	return e
}

// Get, Post, Delete and Update build endpoints for the usual method sets; Update answers POST, PUT and PATCH,
// which take identical fields.
func Get[In any](fn func(*gin.Context, *In) error) Endpoint { return Op([]string{http.MethodGet}, fn) }

// Post builds a POST endpoint.
func Post[In any](fn func(*gin.Context, *In) error) Endpoint {
	return Op([]string{http.MethodPost}, fn)
}

// Delete builds a DELETE endpoint.
func Delete[In any](fn func(*gin.Context, *In) error) Endpoint {
	return Op([]string{http.MethodDelete}, fn)
}

// Update builds an endpoint answering POST, PUT and PATCH.
func Update[In any](fn func(*gin.Context, *In) error) Endpoint {
	return Op([]string{http.MethodPost, http.MethodPut, http.MethodPatch}, fn)
}

// Require marks parameters as required (reported together, in this order, when absent).
func (e Endpoint) Require(names ...string) Endpoint {
	e.Required = append(append([]string(nil), e.Required...), names...)
	return e
}

// Authenticated turns anonymous callers away with 401.
func (e Endpoint) Authenticated() Endpoint {
	e.Auth = true
	return e
}

// ClockedBy marks a GET endpoint whose answers may change with the clock (see Clock).
func (e Endpoint) ClockedBy(clock func(c *gin.Context) string) Endpoint {
	e.Clock = clock
	return e
}

// StreamedWhen marks a GET endpoint whose answers are iCalendar feeds when streams says so (see Streams).
func (e Endpoint) StreamedWhen(streams func(c *gin.Context) bool) Endpoint {
	e.Streams = streams
	return e
}

// Conditional marks an item write that honours If-Match and If-Unmodified-Since, and documents its 412.
func (e Endpoint) Conditional() Endpoint {
	e.IfMatch = true
	return e.Respond(http.StatusPreconditionFailed, "Error", "If-Match names an ETag that is not the record's "+
		"current one, or (without If-Match) If-Unmodified-Since gives a date before the record's last change, its "+
		"Last-Modified (rest_precondition_failed); nothing was changed")
}

// Dated marks a single-record read that carries Last-Modified.
func (e Endpoint) Dated() Endpoint {
	e.LastModified = true
	return e
}

// Doc sets the summary and description shown in the index and /doc.
func (e Endpoint) Doc(summary, description string) Endpoint {
	e.Summary, e.Description = summary, description
	return e
}

// Respond documents an answer of the endpoint.
func (e Endpoint) Respond(status int, schema, description string) Endpoint {
	responses := make(map[int]Response, len(e.Responses)+1)
	for k, v := range e.Responses {
		responses[k] = v
	}
	responses[status] = Response{Description: description, Schema: schema}
	e.Responses = responses
	return e
}

// RespondAs documents an answer whose body is of another media type than JSON; for a status documented already
// it adds the media type as an alternative (content negotiation).
func (e Endpoint) RespondAs(status int, mediaType, schema, description string) Endpoint {
	r, ok := e.Responses[status]
	if !ok {
		r = Response{Description: description}
	}
	media := map[string]string{mediaType: schema}
	for k, v := range r.Media {
		media[k] = v
	}
	r.Media = media
	e = e.Respond(status, r.Schema, r.Description)
	e.Responses[status] = r
	return e
}

// Handler is the gin handler of the endpoint as built so far.
func (e Endpoint) Handler() gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := e.run(c, &e); err != nil {
			_ = c.Error(err)
			c.Abort()
		}
	}
}

// Args lists the endpoint's declared parameters.
func (e Endpoint) Args() []Arg { return Describe(e.Input, e.Required) }
