package middleware

import (
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics counts requests and observes their latency by method, route pattern and status, in its own registry
// (one per service instance, so tests can build many). Handler serves the registry at /metrics.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewMetrics registers the request metrics, the database pool statistics of db, and the Go runtime collectors.
func NewMetrics(db *sql.DB) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "calendar_http_requests_total", Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "calendar_http_request_duration_seconds", Help: "HTTP request latency by method and route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewDBStatsCollector(db, "calendar"),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WatchCache exports the response cache's hit and miss counts, its size and its dictionary's.
func (m *Metrics) WatchCache(r *Responses) {
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "calendar_response_cache_hits_total", Help: "Anonymous GET answers served from the response cache.",
		}, func() float64 { h, _ := r.Stats(); return float64(h) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "calendar_response_cache_misses_total", Help: "Anonymous GET answers built by their handler.",
		}, func() float64 { _, m := r.Stats(); return float64(m) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "calendar_response_cache_answers", Help: "Answers the response cache holds.",
		}, func() float64 { n, _ := r.Size(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "calendar_response_cache_kept_answers",
			Help: "Answers the response cache keeps across the writes that cannot change them (single events and occurrences), of all it holds.",
		}, func() float64 { return float64(r.Kept()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "calendar_response_cache_bytes", Help: "Weight of the answers the response cache holds (compressed).",
		}, func() float64 { _, b := r.Size(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "calendar_response_cache_dictionary_bytes",
			Help: "Size of the dictionary the response cache compresses answers with, learned from its first answers (0 until then).",
		}, func() float64 { return float64(r.DictionarySize()) }))
}

// Register adds collectors of other parts of the service (the webhook sender's) to the registry.
func (m *Metrics) Register(cs ...prometheus.Collector) { m.registry.MustRegister(cs...) }

// Middleware records each request under its route pattern and its method (MethodLabel, RouteLabel): never the raw
// path or an invented method, so the number of series is bounded by the route table, whatever clients send.
func (m *Metrics) Middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route, method := RouteLabel(c.FullPath()), MethodLabel(c.Request.Method)
		m.requests.WithLabelValues(method, route, strconv.Itoa(c.Writer.Status())).Inc()
		m.latency.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	}
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
