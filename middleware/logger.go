package middleware

import (
	"log/slog"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// AccessLog writes one structured line per request: method, path, route, status, size, duration, client and user.
func AccessLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		attrs := []any{
			"request_id", GetRequestID(c),
			"method", c.Request.Method,
			"path", c.Request.URL.Path,
			"route", c.FullPath(),
			"status", c.Writer.Status(),
			"bytes", c.Writer.Size(),
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
			"client", c.ClientIP(),
		}
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
