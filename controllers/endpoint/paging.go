package endpoint

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// Paging holds the page and per_page parameters of every list; embed it in a list's input struct.
type Paging struct {
	Page    Opt[int64] `param:"page" default:"1" validate:"omitempty,gt=0,max=1000000000" doc:"The page of results to return (1 is the first)."`
	PerPage Opt[int64] `param:"per_page" default:"10" validate:"omitempty,gt=0" doc:"How many results each page holds; larger values than the maximum (50 unless configured) are clamped."`
}

// Resolve returns the page and the page size, clamped to max silently.
func (p Paging) Resolve(max int) models.Page {
	perPage := int(min(p.PerPage.Or(10), int64(max)))
	return models.Page{Number: int(p.Page.Or(1)), Size: perPage}
}

// QueryArgs is a list's effective query, in the order its rest_url echoes it.
type QueryArgs []QueryArg

// QueryArg is one parameter of a rest_url.
type QueryArg struct{ Key, Value string }

// Add appends an argument.
func (q QueryArgs) Add(key, value string) QueryArgs { return append(q, QueryArg{key, value}) }

// Encode writes the arguments as a URL-encoded query, without the leading "?".
func (q QueryArgs) Encode() string {
	var b strings.Builder
	for i, a := range q {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(a.Key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(a.Value))
	}
	return b.String()
}

// WithPage returns the arguments with page set to n (removed for n == 0), keeping the others in order.
func (q QueryArgs) WithPage(n int) QueryArgs {
	out := make(QueryArgs, 0, len(q)+1)
	for _, a := range q {
		if a.Key != "page" {
			out = append(out, a)
		}
	}
	if n > 0 {
		out = append(out, QueryArg{"page", strconv.Itoa(n)})
	}
	return out
}

// URL appends the arguments to base.
func (q QueryArgs) URL(base string) string {
	if len(q) == 0 {
		return base
	}
	return base + "?" + q.Encode()
}

// ListLinks are a list's navigation URLs; empty ones are absent from the body and the Link header.
type ListLinks struct {
	Self, Next, Previous, First, Last string
}

// SetListHeaders writes X-TEC-Total, X-TEC-TotalPages and the RFC 8288 Link header of a list answer.
func SetListHeaders(c *gin.Context, total int64, totalPages int, links ListLinks) {
	c.Header("X-TEC-Total", strconv.FormatInt(total, 10))
	c.Header("X-TEC-TotalPages", strconv.Itoa(totalPages))
	var parts []string
	for _, l := range []struct{ rel, url string }{
		{"next", links.Next}, {"prev", links.Previous}, {"first", links.First}, {"last", links.Last},
	} {
		if l.url != "" {
			parts = append(parts, "<"+l.url+`>; rel="`+l.rel+`"`)
		}
	}
	if len(parts) > 0 {
		c.Header("Link", strings.Join(parts, ", "))
	}
}

// TotalPages is ceil(total / perPage), 0 when there are no results.
func TotalPages(total int64, perPage int) int {
	if total <= 0 || perPage <= 0 {
		return 0
	}
	return int((total + int64(perPage) - 1) / int64(perPage))
}
