package middleware

import (
	"bytes"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// MaxBodyBytes is the request body limit: larger bodies get 413.
const MaxBodyBytes = 1 << 20

// BodyLimit reads the whole body (at most MaxBodyBytes) before any handler runs, answering 413 beyond the limit.
// Reading it up front keeps the limit in one place and makes a slow upload count as an in-flight request.
func BodyLimit() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > MaxBodyBytes {
			c.Header("Connection", "close")
			_ = c.Error(tooLarge())
			c.Abort()
			return
		}
		if c.Request.Body == nil || c.Request.Body == http.NoBody {
			c.Next()
			return
		}
		body, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxBodyBytes+1))
		if err != nil {
			_ = c.Error(models.Errorf(models.KindInvalid, "rest_invalid_body", "The request body could not be read."))
			c.Abort()
			return
		}
		if len(body) > MaxBodyBytes {
			c.Header("Connection", "close")
			_ = c.Error(tooLarge())
			c.Abort()
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		c.Next()
	}
}

func tooLarge() *models.Error {
	return models.Errorf(models.KindTooLarge, "rest_request_too_large", "The request body is larger than %d bytes.", MaxBodyBytes)
}
