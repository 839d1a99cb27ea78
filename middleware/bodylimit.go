package middleware

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// Request bodies are read only when a handler asks for its parameters, which an endpoint that needs credentials
// does only once the caller is known: an anonymous write is 401 before a byte of its body is read. A body that is
// read is bounded three ways, so that memory is bounded per request and in total:
//
//   - per route: MaxWriteBody for POST, PUT and PATCH, MaxReadBody for every other method (a GET or DELETE takes
//     a few parameters at most); a declared Content-Length over it is 413 before anything is read, and reading
//     stops at the limit (413);
//   - at once: at most MaxBodiesAtOnce requests hold a body, from their first read until they are answered (a
//     request waits up to BodyWait for its turn, then gets 503 with Retry-After);
//   - per process: the listener's connection cap (CALENDAR_MAX_CONNECTIONS) bounds what is held in sockets.
const (
	MaxWriteBody    = 1 << 20
	MaxReadBody     = 64 << 10
	MaxBodiesAtOnce = 16
	BodyWait        = 10 * time.Second
)

// Bodies bounds the request bodies the service reads at once (see MaxBodiesAtOnce).
type Bodies struct{ slots chan struct{} }

// NewBodies lets n requests hold a body at once.
func NewBodies(n int) *Bodies { return &Bodies{slots: make(chan struct{}, n)} }

// Limit is the handler in front of a route: its body may be read only within limit bytes and once a slot is
// free. It reads nothing itself.
func (b *Bodies) Limit(limit int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > limit {
			tooLarge(c, limit)
			return
		}
		if c.Request.Body == nil || c.Request.Body == http.NoBody {
			c.Next()
			return
		}
		body := &heldBody{body: http.MaxBytesReader(c.Writer, c.Request.Body, limit), bodies: b,
			ctx: c.Request.Context(), limit: limit}
		c.Request.Body = body
		defer body.release()
		c.Next()
	}
}

// BodyLimitFor is the body limit of a method (see MaxWriteBody and MaxReadBody).
func BodyLimitFor(method string) int64 {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return MaxWriteBody
	}
	return MaxReadBody
}

// heldBody is a request body that takes a slot of its Bodies at its first read and gives it back when the request
// is answered. Its read errors are the API's errors (413, 503), for the parameter parser to report.
type heldBody struct {
	body   io.ReadCloser
	bodies *Bodies
	ctx    context.Context
	limit  int64

	once sync.Once
	held bool
	err  error
}

func (h *heldBody) Read(p []byte) (int, error) {
	h.once.Do(h.acquire)
	if h.err != nil {
		return 0, h.err
	}
	n, err := h.body.Read(p)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		err = tooLargeError(h.limit)
	}
	return n, err
}

func (h *heldBody) acquire() {
	timer := time.NewTimer(BodyWait)
	defer timer.Stop()
	select {
	case h.bodies.slots <- struct{}{}:
		h.held = true
	case <-timer.C:
		h.err = models.Errorf(models.KindUnavailable, "rest_busy",
			"Too many requests are sending a body at once; try again shortly.")
	case <-h.ctx.Done():
		h.err = h.ctx.Err()
	}
}

func (h *heldBody) Close() error { return h.body.Close() }

// release gives the slot back, once the request is answered.
func (h *heldBody) release() {
	h.once.Do(func() {}) // no read after this takes a slot
	if h.held {
		<-h.bodies.slots
		h.held = false
	}
}

func tooLarge(c *gin.Context, limit int64) {
	c.Header("Connection", "close")
	_ = c.Error(tooLargeError(limit))
	c.Abort()
}

func tooLargeError(limit int64) *models.Error {
	return models.Errorf(models.KindTooLarge, "rest_request_too_large", "The request body is larger than %d bytes.", limit)
}
