package middleware

import "net/http"

// knownMethods are the methods the service labels and logs by name. Go's server accepts any token as a method, so a
// label or log field taken from the request as sent would let a client create as many metric series (each kept
// until a restart) and as long log lines as it likes.
var knownMethods = map[string]string{
	http.MethodGet: http.MethodGet, http.MethodHead: http.MethodHead, http.MethodPost: http.MethodPost,
	http.MethodPut: http.MethodPut, http.MethodPatch: http.MethodPatch, http.MethodDelete: http.MethodDelete,
	http.MethodOptions: http.MethodOptions,
}

// OtherMethod is the label of every method outside knownMethods.
const OtherMethod = "OTHER"

// MethodLabel is the method as metrics label it: one of GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS, else
// OTHER.
func MethodLabel(method string) string {
	if m, ok := knownMethods[method]; ok {
		return m
	}
	return OtherMethod
}

// unmatchedRoute is the route label of requests no route took (any path, any method): one series for all of them.
const unmatchedRoute = "unmatched"

// RouteLabel is the route pattern as metrics and the access log name it: the pattern the router matched, never the
// raw path, so there is one series per route whatever the paths asked for.
func RouteLabel(fullPath string) string {
	if fullPath == "" {
		return unmatchedRoute
	}
	return fullPath
}
