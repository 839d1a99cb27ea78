// Package middleware holds the cross-cutting HTTP layers, applied in this order (routes.New):
//
//  1. Head       – HEAD answers carry GET's status and headers and drop the body
//  2. RequestID  – accept a sane X-Request-ID or make one; echo it on the response
//  3. AccessLog  – one structured log line per request, with the request ID (method, path, user agent capped)
//  4. Metrics    – request counts and latency by route pattern and a fixed set of methods
//  5. Errors     – render the error a handler or a later layer recorded, in the API's error body
//  6. Recovery   – turn a panic into a logged 500 with the API's error body (rendered by Errors)
//  7. Headers    – nosniff and the exposed paging headers on every answer
//  8. CORS       – only when origins are configured
//  9. BodyLimit  – read at most 1 MiB of body, 413 beyond
//  10. Auth      – resolve Bearer or Basic credentials to a user; bad credentials are 401; failed attempts
//     are limited per client address (429)
//  11. RateLimit – optional requests-per-second limit per credential or address (429)
//
// Errors sits outside Recovery so that a recovered panic is rendered like any other error.
package middleware

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"

	"github.com/gin-gonic/gin"
)

// RequestIDHeader carries the request ID in both directions.
const RequestIDHeader = "X-Request-ID"

const requestIDKey = "calendar.request_id"

var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID accepts the caller's X-Request-ID when it is short and plain, else generates one, and returns it.
func RequestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(RequestIDHeader)
		if !saneRequestID.MatchString(id) {
			id = newRequestID()
		}
		c.Set(requestIDKey, id)
		c.Header(RequestIDHeader, id)
		c.Next()
	}
}

// GetRequestID returns the request ID of c.
func GetRequestID(c *gin.Context) string { return c.GetString(requestIDKey) }

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
