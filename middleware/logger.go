package middleware

import (
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// What the access log writes of a request's own text is capped, so that a client cannot make log lines of any
// length (a method may be any token, a path and a User-Agent up to the header limit): the method at
// MaxLoggedMethod bytes, the path at MaxLoggedPath, the User-Agent at MaxLoggedUserAgent. A capped value ends in
// "…" and its field "<name>_bytes" gives its full length.
const (
	MaxLoggedMethod    = 16
	MaxLoggedPath      = 1024
	MaxLoggedUserAgent = 256
)

// AccessLog writes one structured line per request: method, path, route, status, size, duration, client, user
// agent and user.
func AccessLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		attrs := []any{"request_id", GetRequestID(c)}
		attrs = appendCapped(attrs, "method", c.Request.Method, MaxLoggedMethod)
		attrs = appendCapped(attrs, "path", c.Request.URL.Path, MaxLoggedPath)
		attrs = append(attrs,
			"route", c.FullPath(),
			"status", c.Writer.Status(),
			"bytes", c.Writer.Size(),
			"duration_ms", float64(time.Since(start).Microseconds())/1000,
			"client", c.ClientIP(),
		)
		attrs = appendCapped(attrs, "user_agent", c.Request.UserAgent(), MaxLoggedUserAgent)
		if u := models.UserFrom(c.Request.Context()); u != nil {
			attrs = append(attrs, "user", u.Login)
		}
		level := slog.LevelInfo
		if c.Writer.Status() >= 500 {
			level = slog.LevelError
		}
		log.Log(c.Request.Context(), level, "request", attrs...)
	}
}

// appendCapped appends key and value, the value cut to at most limit bytes (on a character boundary) and marked
// with "…" when it was longer, with key_bytes then giving its length.
func appendCapped(attrs []any, key, value string, limit int) []any {
	if len(value) <= limit {
		return append(attrs, key, value)
	}
	return append(attrs, key, CapText(value, limit), key+"_bytes", strconv.Itoa(len(value)))
}

// CapText returns s cut to at most limit bytes without splitting a character, followed by "…" when it was cut.
func CapText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
