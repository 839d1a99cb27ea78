package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"calendar/controllers"
	"calendar/models"
)

// retryAfterSeconds is what a client is told to wait when the database is unavailable.
const retryAfterSeconds = "5"

// StatusClientClosedRequest is the status the access log and the metrics record for a request whose client went
// away before its answer was ready (nginx's 499, "client closed request"); no answer is written.
const StatusClientClosedRequest = 499

// Errors renders the last error recorded on the context (by a handler, a later middleware or Recovery) as the
// API's error body {"code","message","data":{"status",…}}. Server errors are logged with the request ID; their
// cause never reaches the client.
func Errors(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if len(c.Errors) == 0 || c.Writer.Written() {
			return
		}
		e := models.AsError(c.Errors.Last().Err)
		status := controllers.ErrorStatus(e, models.UserFrom(c.Request.Context()) != nil)
		if status >= 500 && errors.Is(c.Request.Context().Err(), context.Canceled) {
			// The client went away before its answer was ready, and nobody reads it. Logged and counted as a
			// server error, every client that gives up would page whoever watches the 5xx rate.
			log.Info("request abandoned by the client", "request_id", GetRequestID(c), "error", e.Error())
			c.Status(StatusClientClosedRequest)
			return
		}
		switch {
		case status >= 500:
			log.Error("request failed", "request_id", GetRequestID(c), "code", e.Code, "error", e.Error())
			if status == http.StatusServiceUnavailable && c.Writer.Header().Get("Retry-After") == "" {
				c.Header("Retry-After", retryAfterSeconds)
			}
		case status == http.StatusUnauthorized:
			c.Header("WWW-Authenticate", `Bearer realm="calendar", Basic realm="calendar"`)
		}
		c.JSON(status, controllers.ErrorBody(e, status))
	}
}

// Recovery turns a panic into a logged internal error, rendered by Errors. http.ErrAbortHandler is re-raised so
// the server can drop the connection as that sentinel asks.
func Recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if err, ok := r.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(r)
				}
				log.Error("panic", "request_id", GetRequestID(c), "panic", fmt.Sprint(r), "stack", stack())
				_ = c.Error(&models.Error{Kind: models.KindInternal, Code: "rest_internal_error",
					Message: "An internal error occurred.", Err: fmt.Errorf("panic: %v", r)})
				c.Abort()
			}
		}()
		c.Next()
	}
}
