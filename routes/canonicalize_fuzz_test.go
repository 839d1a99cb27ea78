package routes

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"calendar/middleware"
)

// FuzzRequestLine drives what stands in front of the router with any method, path, query and method override:
// Canonicalize never panics, a rest_route only ever leads into the namespace, the override only turns POST into
// PUT, PATCH or DELETE, and the metrics label every method as one of a fixed few.
func FuzzRequestLine(f *testing.F) {
	for _, seed := range [][4]string{
		{"GET", "/", "rest_route=/calendar/events/v1/events", ""},
		{"GET", "/", "rest_route=/metrics", ""},
		{"GET", "", "rest_route=/calendar/events/v1/../../metrics", ""},
		{"POST", "/calendar/events/v1/events/", "", "delete"},
		{"BREW", "/calendar/events/v1/events///", "rest_route=%2Fcalendar%2Fevents%2Fv1", "PUT"},
		{strings.Repeat("X", 300), "/", "rest_route=calendar/events/v1", "GET"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	allowed := map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
		"OPTIONS": true, middleware.OtherMethod: true}
	f.Fuzz(func(t *testing.T, method, path, query, override string) {
		for _, root := range []string{"/calendar/events/v1", "/wp-json/calendar/events/v1"} {
			u := &url.URL{Path: path, RawQuery: query}
			r := &http.Request{Method: method, URL: u, Header: http.Header{}}
			if override != "" {
				r.Header.Set("X-HTTP-Method-Override", override)
			}
			rootPath := path == "/" || path == ""
			Canonicalize(r, root)
			if !allowed[middleware.MethodLabel(r.Method)] {
				t.Fatalf("method %q labelled %q", r.Method, middleware.MethodLabel(r.Method))
			}
			if r.Method != method && (method != http.MethodPost ||
				(r.Method != http.MethodPut && r.Method != http.MethodPatch && r.Method != http.MethodDelete)) {
				t.Fatalf("%q became %q", method, r.Method)
			}
			if len(r.URL.Path) > 1 && strings.HasSuffix(r.URL.Path, "/") {
				t.Fatalf("%q kept a trailing slash: %q", path, r.URL.Path)
			}
			if rootPath && r.URL.Path != "/" && r.URL.Path != "" && r.URL.Path != root && !strings.HasPrefix(r.URL.Path, root+"/") {
				t.Fatalf("rest_route in %q led outside the namespace: %q", query, r.URL.Path)
			}
			if strings.Contains(r.URL.Path, "/../") || strings.HasSuffix(r.URL.Path, "/..") {
				if !strings.Contains(path, "..") {
					t.Fatalf("a dot segment appeared in %q", r.URL.Path)
				}
			}
		}
	})
}
