package middleware

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Head answers HEAD requests (routed like GET: routes.New registers HEAD beside every GET route) with what GET
// would answer, status and headers, without the body: whatever the handlers write is counted, for the size the
// access log reports, and dropped. The server would drop it too, but only on a real connection, and only after it
// had been copied into its buffers.
func Head() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Method == http.MethodHead {
			c.Writer = &headWriter{ResponseWriter: c.Writer}
		}
		c.Next()
	}
}

// headWriter is a response writer that keeps status and headers and drops the body.
type headWriter struct {
	gin.ResponseWriter
	size int
}

func (w *headWriter) Write(b []byte) (int, error) {
	w.WriteHeaderNow()
	w.size += len(b)
	return len(b), nil
}

func (w *headWriter) WriteString(s string) (int, error) {
	w.WriteHeaderNow()
	w.size += len(s)
	return len(s), nil
}

func (w *headWriter) Size() int { return w.size }
