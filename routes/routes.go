// Package routes lists the whole API surface in one table and wires it, with the middleware, into one handler.
package routes

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/config"
	"calendar/controllers"
	"calendar/middleware"
	"calendar/models"
)

// Table is every route under the namespace {prefix}/calendar/events/v1, in the order the index lists them.
// The router, the namespace index and the OpenAPI document are all built from it.
func Table(app *controllers.App) []controllers.Route {
	index := &controllers.IndexController{App: app}
	table := []controllers.Route{
		{Path: "/", Endpoints: []controllers.Endpoint{
			controllers.Get(index.Index).
				Doc("Namespace index", "The routes of the namespace with their methods and parameters.").
				Respond(http.StatusOK, "NamespaceIndex", "The namespace index").
				Respond(http.StatusNotFound, "Error", "Unknown namespace (rest_invalid_namespace)"),
		}},
	}
	table = append(table, controllers.VenueRoutes(app)...)
	table = append(table, controllers.OrganizerRoutes(app)...)
	index.Routes = table
	return table
}

// New builds the HTTP handler of the whole service: probes and metrics at the server root, the API under its
// namespace, and the middleware in the order documented in package middleware.
func New(app *controllers.App) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = false
	r.ContextWithFallback = true
	// The client address (rate limits, logs) is the peer's unless a configured proxy vouches for another.
	if err := r.SetTrustedProxies(app.Config.TrustedProxies); err != nil {
		panic(err) // validated by config.Load
	}

	metrics := middleware.NewMetrics(app.Store.SQLDB())
	r.Use(middleware.RequestID(), middleware.AccessLog(app.Log), metrics.Middleware(),
		middleware.Errors(app.Log), middleware.Recovery(app.Log), middleware.Headers())
	if len(app.Config.CORSOrigins) > 0 {
		r.Use(middleware.CORS(app.Config.CORSOrigins))
	}
	r.Use(middleware.BodyLimit(), middleware.Auth(app.Store, middleware.NewAuthFailures(app.Config.AuthFailuresPerMinute)),
		middleware.RateLimit(app.Config.RateLimit))

	health := controllers.HealthController{App: app}
	r.GET("/healthz", health.Live)
	r.GET("/readyz", health.Ready)
	r.GET("/metrics", gin.WrapH(metrics.Handler()))

	api := r.Group(app.Config.APIRoot())
	for _, route := range Table(app) {
		path := strings.TrimSuffix(route.Path, "/")
		for _, e := range route.Endpoints {
			for _, m := range e.Methods {
				api.Handle(m, path, e.Handler())
			}
		}
	}
	noRoute := func(c *gin.Context) { _ = c.Error(models.NoRoute()) }
	r.NoRoute(noRoute)
	r.NoMethod(noRoute)
	return compat{engine: r, root: app.Config.APIRoot()}
}

// compat adapts requests the way WordPress's REST server reads them before routing: a trailing slash is ignored
// (list links end in "/events/"), "?rest_route=/calendar/events/v1/…" on the site root addresses a route, and
// X-HTTP-Method-Override lets clients behind restrictive proxies send PUT, PATCH and DELETE as POST.
type compat struct {
	engine http.Handler
	root   string
}

func (h compat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if route := r.URL.Query().Get("rest_route"); route != "" && (r.URL.Path == "/" || r.URL.Path == "") {
		r.URL.Path = strings.TrimSuffix(h.root, "/"+config.Namespace) + route
		r.URL.RawPath = ""
	}
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		if r.URL.Path == "" {
			r.URL.Path = "/"
		}
		r.URL.RawPath = ""
	}
	if r.Method == http.MethodPost {
		switch m := strings.ToUpper(r.Header.Get("X-HTTP-Method-Override")); m {
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			r.Method = m
		}
	}
	h.engine.ServeHTTP(w, r)
}
