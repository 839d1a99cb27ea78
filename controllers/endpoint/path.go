package endpoint

import (
	"regexp"
	"strings"
)

// OpenAPIPath turns a route table path into an OpenAPI path template: "/events/:id" → "/events/{id}",
// "/events/:id.ics" → "/events/{id}.ics".
func OpenAPIPath(path string) string {
	if path == "/" || path == "" {
		return "/"
	}
	parts := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for i, part := range parts {
		if strings.HasPrefix(part, ":") || strings.HasPrefix(part, "*") {
			name, suffix := SplitParam(part[1:])
			parts[i] = "{" + name + "}" + suffix
		}
	}
	return strings.Join(parts, "/")
}

// SplitParam splits a path parameter of the route table into its name and a literal suffix: "id.ics" → "id",
// ".ics". The router cannot hold /events/:id and /events/:id.ics side by side; it serves both from the bare
// parameter's route and tells them apart by the suffix (routes.New).
func SplitParam(param string) (name, suffix string) {
	if i := strings.IndexByte(param, '.'); i > 0 {
		return param[:i], param[i:]
	}
	return param, ""
}

// RegexPath turns a route table path into the WordPress route pattern the index uses as its key:
// "/events/:id" → "/events/(?P<id>\d+)", "/events/by-slug/:slug" → "/events/by-slug/(?P<slug>[^/]+)",
// "/events/:id.ics" → "/events/(?P<id>\d+)\.ics", "/events.ics" → "/events\.ics".
func RegexPath(path string) string {
	parts := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ":") {
			parts[i] = regexp.QuoteMeta(p)
			continue
		}
		name, suffix := SplitParam(p[1:])
		pattern := `[^/]+`
		if name == "id" {
			pattern = `\d+`
		}
		parts[i] = "(?P<" + name + ">" + pattern + ")" + regexp.QuoteMeta(suffix)
	}
	return strings.Join(parts, "/")
}
