package middleware

import (
	"runtime/debug"
	"strings"

	"github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
)

// ExposedHeaders are the response headers browsers on other origins may read: paging, links and the request ID.
var ExposedHeaders = []string{"X-TEC-Total", "X-TEC-TotalPages", "X-Sync-Token", "Link", "X-Request-ID", "ETag", "Last-Modified", "Location", "Retry-After"}

// Headers sets what every answer carries: nosniff (a JSON or text body is never to be sniffed as HTML) and the
// list of headers exposed to cross-origin readers.
func Headers() gin.HandlerFunc {
	exposed := strings.Join(ExposedHeaders, ", ")
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Access-Control-Expose-Headers", exposed)
		c.Next()
	}
}

// CORS allows the configured origins ("*" for any) to call the API from browsers with token credentials.
func CORS(origins []string) gin.HandlerFunc {
	cfg := cors.Config{
		AllowMethods:  []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"},
		AllowHeaders:  []string{"Authorization", "Content-Type", "X-Request-ID", "If-Match", "If-None-Match", "If-Modified-Since", "X-HTTP-Method-Override"},
		ExposeHeaders: ExposedHeaders,
		MaxAge:        600,
	}
	for _, o := range origins {
		if o == "*" {
			cfg.AllowAllOrigins = true
		}
	}
	if cfg.AllowAllOrigins {
		return cors.New(cfg)
	}
	cfg.AllowOrigins = origins
	handler := cors.New(cfg)
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[strings.ToLower(o)] = true
	}
	return func(c *gin.Context) {
		// gin-contrib/cors answers other origins with a bare 403 (no error body), which also breaks same-origin
		// browser writes (browsers send Origin on them), e.g. "Try it out" on /docs. Serve such requests without
		// CORS headers instead: the browser still keeps other origins from reading the answer.
		if origin := c.GetHeader("Origin"); origin != "" && !allowed[strings.ToLower(origin)] {
			c.Next()
			return
		}
		handler(c)
	}
}

func stack() string { return string(debug.Stack()) }
