// Package tests holds the black-box suite: every test builds the real router on a fresh, empty database and talks
// to it over HTTP. It runs on SQLite by default and on PostgreSQL when CALENDAR_TEST_DATABASE_URL is set.
package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	_ "github.com/jackc/pgx/v5/stdlib"

	"calendar/config"
	"calendar/controllers"
	"calendar/controllers/endpoint"
	"calendar/models"
	"calendar/models/testdb"
	"calendar/routes"
)

func init() {
	// iCalendar answers (text/calendar) are validated against their schema in /doc as text.
	openapi3filter.RegisterBodyDecoder("text/calendar", openapi3filter.PlainBodyDecoder)
}

// postgresURL selects PostgreSQL for the whole suite when set.
var postgresURL = testdb.PostgresURL()

// App is the service under test: the real handler on its own empty database.
type App struct {
	t       *testing.T
	Handler http.Handler
	Store   *models.Store
	Config  config.Config
	Table   []endpoint.Route
	// API is the service itself, for what runs outside requests (the webhook sender).
	API   *controllers.App
	users atomic.Int64

	contractOnce sync.Once
	contract     *Contract
	contractErr  error
}

// Option adjusts the configuration of an App before it starts.
type Option func(*config.Config)

// WithEnv sets configuration variables as the environment would.
func WithEnv(kv ...string) Option {
	return func(c *config.Config) {
		env := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		loaded, _, err := config.Load(nil, func(k string) string { return env[k] }, io.Discard)
		if err != nil {
			panic(err)
		}
		db := c.Database
		*c = loaded
		c.Database = db
	}
}

// NewApp starts the service on a fresh database with the default configuration changed by opts.
func NewApp(t *testing.T, opts ...Option) *App {
	t.Helper()
	cfg, _, err := config.Load(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatalf("default configuration: %v", err)
	}
	cfg.Database = freshDatabase(t)
	for _, o := range opts {
		o(&cfg)
	}
	return startApp(t, cfg, true)
}

// Twin starts a second instance of the service on the same database, as a second server behind a load balancer.
func (a *App) Twin() *App {
	a.t.Helper()
	return startApp(a.t, a.Config, false)
}

func startApp(t *testing.T, cfg config.Config, migrate bool) *App {
	t.Helper()
	store, err := models.Open(cfg.Database.Driver, cfg.Database.DSN, cfg.DBMaxConns)
	if err != nil {
		t.Fatalf("opening the database: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if migrate {
		if _, err := store.Migrate(context.Background()); err != nil {
			t.Fatalf("migrating: %v", err)
		}
		// As the service does at start: radius totals in the default window are then summed from kept counts.
		if _, err := store.KeepVenueWindow(context.Background(), time.Now(), cfg.Timezone); err != nil {
			t.Fatalf("keeping the radius window: %v", err)
		}
		t.Cleanup(func() { expectLinkListsMatchLinks(t, store) })
		t.Cleanup(func() { expectKeptTotalsMatchEvents(t, store) })
	}
	// Server errors (a 500's cause) go to the test's output; everything quieter is dropped.
	errorsOnly := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	app := controllers.NewApp(cfg, store, errorsOnly)
	return &App{t: t, Handler: routes.New(app), Store: store, Config: cfg, Table: routes.Table(app), API: app}
}

// freshDatabase returns an empty database of its own for one test (testdb.Fresh).
func freshDatabase(t *testing.T) config.Database {
	t.Helper()
	driver, dsn := testdb.Fresh(t)
	return config.Database{Driver: driver, DSN: dsn}
}

// User creates a user with the role and returns its login and first token.
func (a *App) User(role models.Role) (login, token string) {
	a.t.Helper()
	login = fmt.Sprintf("%s%d", role, a.users.Add(1))
	token, err := a.Store.CreateUser(context.Background(), login, strings.ToUpper(login[:1])+login[1:], role)
	if err != nil {
		a.t.Fatalf("creating %s: %v", role, err)
	}
	return login, token
}

// Token creates a user with the role and returns its token.
func (a *App) Token(role models.Role) string {
	_, token := a.User(role)
	return token
}

// Request is one HTTP request to send; the zero value is an anonymous GET.
type Request struct {
	Method string
	// Path is relative to the API root ("/events") unless it starts with "//" (then it is the server path
	// without the leading slash, e.g. "//healthz").
	Path string
	// Body is sent as JSON unless it is url.Values (form), a string, []byte or an io.Reader (sent as given).
	Body        any
	ContentType string
	Token       string
	Header      http.Header
	// RemoteAddr is the client's address (default 192.0.2.1:1234, as httptest sets it).
	RemoteAddr string
}

// Response is what the service answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends r to the service.
func (a *App) Do(r Request) *Response {
	a.t.Helper()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	path := r.Path
	if strings.HasPrefix(path, "//") {
		path = path[1:]
	} else {
		path = a.Config.APIRoot() + path
	}
	var body io.Reader
	contentType := r.ContentType
	switch b := r.Body.(type) {
	case nil:
	case url.Values:
		body = strings.NewReader(b.Encode())
		if contentType == "" {
			contentType = "application/x-www-form-urlencoded"
		}
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	case io.Reader:
		body = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatalf("encoding the request body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	if body != nil && contentType == "" {
		contentType = "application/json"
	}
	req := httptest.NewRequest(method, path, body)
	if r.RemoteAddr != "" {
		req.RemoteAddr = r.RemoteAddr
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	a.Handler.ServeHTTP(rec, req)
	res := &Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if err := a.CheckResponse(req, res); err != nil {
		a.t.Errorf("%s %s answered %d, which /doc does not allow: %v\nbody: %s", method, path, res.Status, err,
			truncate(res.Body, 2000))
	}
	return res
}

// Get sends an anonymous GET (or an authenticated one when a token is given).
func (a *App) Get(path string, token ...string) *Response {
	a.t.Helper()
	r := Request{Path: path}
	if len(token) > 0 {
		r.Token = token[0]
	}
	return a.Do(r)
}

// JSON decodes the body as a JSON object.
func (r *Response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// ExpectStatus fails the test unless the status is want.
func (r *Response) ExpectStatus(t *testing.T, want int) *Response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Body)
	}
	return r
}

// ExpectError fails the test unless the answer is the API's error body with this status and code.
func (r *Response) ExpectError(t *testing.T, status int, code string) map[string]any {
	t.Helper()
	r.ExpectStatus(t, status)
	body := r.JSON(t)
	if body["code"] != code {
		t.Fatalf("error code %v, want %s; body: %s", body["code"], code, r.Body)
	}
	if _, ok := body["message"].(string); !ok {
		t.Fatalf("error body without a message: %s", r.Body)
	}
	data, _ := body["data"].(map[string]any)
	if data == nil || data["status"] != float64(status) {
		t.Fatalf("error body data.status is not %d: %s", status, r.Body)
	}
	return body
}

// Contract is the OpenAPI document an app serves at /doc, loaded and validated with kin-openapi, with a router over
// its paths. Every answer the suite receives through Do is checked against it (ENGINEERING.md), so a response that
// drifts from the document fails the test that saw it.
type Contract struct {
	Doc         *openapi3.T
	router      routers.Router
	errorSchema *openapi3.Schema
}

// contracts caches loaded documents by their text: apps with the same configuration serve the same document.
var contracts sync.Map

// Contract loads (once per app, once per distinct document) the document the app serves.
func (a *App) Contract() (*Contract, error) {
	a.contractOnce.Do(func() { a.contract, a.contractErr = loadContract(a.Handler, a.Config.APIRoot()) })
	return a.contract, a.contractErr
}

func loadContract(h http.Handler, root string) (*Contract, error) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, root+"/doc", nil)
	// An address of its own, so that reading the contract never spends the rate limits of the tests' anonymous
	// client (httptest's 192.0.2.1).
	req.RemoteAddr = "203.0.113.254:1"
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /doc answered %d: %s", rec.Code, truncate(rec.Body.Bytes(), 500))
	}
	sum := sha256.Sum256(rec.Body.Bytes())
	if c, ok := contracts.Load(sum); ok {
		return c.(*Contract), nil
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rec.Body.Bytes())
	if err != nil {
		return nil, fmt.Errorf("loading /doc: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("/doc is not a valid OpenAPI document: %w", err)
	}
	if len(doc.Servers) == 0 {
		return nil, fmt.Errorf("/doc has no servers")
	}
	server, err := url.Parse(doc.Servers[0].URL)
	if err != nil {
		return nil, fmt.Errorf("servers[0].url: %w", err)
	}
	// servers[0] names the host one request used; route by path alone so any Host or base URL matches.
	routing := *doc
	routing.Servers = openapi3.Servers{{URL: server.Path}}
	router, err := gorillamux.NewRouter(&routing)
	if err != nil {
		return nil, fmt.Errorf("routing /doc: %w", err)
	}
	errorSchema := doc.Components.Schemas["Error"]
	if errorSchema == nil {
		return nil, fmt.Errorf("/doc has no Error schema")
	}
	c, _ := contracts.LoadOrStore(sum, &Contract{Doc: doc, router: router, errorSchema: errorSchema.Value})
	return c.(*Contract), nil
}

// CheckResponse validates res, the answer to req, against the app's document: the schema and required headers of
// the route's operation for that status (its default, the Error schema, for errors it does not list). An answer to
// a path or method the document lacks must be an error body. Answers outside the namespace (/healthz, /metrics,
// /docs…) and to OPTIONS (CORS preflight) or HEAD are not checked.
func (a *App) CheckResponse(req *http.Request, res *Response) error {
	root := a.Config.APIRoot()
	r := req.Clone(context.Background())
	r.Body = http.NoBody
	routes.Canonicalize(r, root)
	if r.Method == http.MethodOptions || r.Method == http.MethodHead ||
		(r.URL.Path != root && !strings.HasPrefix(r.URL.Path, root+"/")) {
		return nil
	}
	c, err := a.Contract()
	if err != nil {
		return err
	}
	if r.URL.Path == root {
		r.URL.Path = root + "/" // the namespace index is the document's path "/"
	}
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		if res.Status < 400 {
			return fmt.Errorf("the document has no %s %s (%v), yet the service answered it", r.Method, r.URL.Path, err)
		}
		return c.checkError(res)
	}
	options := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	options.WithCustomSchemaErrorFunc(schemaErrorText)
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 res.Status,
		Header:                 res.Header,
		Options:                options,
	}
	input.SetBodyBytes(res.Body)
	return openapi3filter.ValidateResponse(context.Background(), input)
}

// checkError validates an answer that no operation of the document covers: it must be the API's error body.
func (c *Contract) checkError(res *Response) error {
	if mediaType, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mediaType != "application/json" {
		return fmt.Errorf("an error answered with Content-Type %q, not JSON", res.Header.Get("Content-Type"))
	}
	var body any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		return fmt.Errorf("an error body that is not JSON: %w", err)
	}
	return c.errorSchema.VisitJSON(body, openapi3.MultiErrors(),
		openapi3.SetSchemaErrorMessageCustomizer(schemaErrorText))
}

// schemaErrorText is a schema violation as a JSON pointer and a reason (kin-openapi's default message also dumps
// the whole schema and value, which buries the point).
func schemaErrorText(err *openapi3.SchemaError) string {
	return "/" + strings.Join(err.JSONPointer(), "/") + ": " + err.Reason
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// concurrently runs fn(0) … fn(n-1) in goroutines released all at once, so that their transactions overlap, and
// waits for them.
func concurrently(t *testing.T, app *App, n int, fn func(i int)) {
	t.Helper()
	warmPool(t, app, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			fn(i)
		}(i)
	}
	close(start)
	wg.Wait()
}

// warmPool opens n PostgreSQL connections ahead of a concurrency test, so that its transactions overlap instead of
// the first finishing while the others still connect. (SQLite's pool is small and its writers serial anyway.)
func warmPool(t *testing.T, app *App, n int) {
	t.Helper()
	if app.Store.Dialect() != models.Postgres {
		return
	}
	// More than the pool's limit would wait forever for a connection this loop itself holds.
	if limit := app.Store.SQLDB().Stats().MaxOpenConnections; limit > 0 && n > limit {
		n = limit
	}
	conns := make([]*sql.Conn, 0, n)
	for i := 0; i < n; i++ {
		c, err := app.Store.SQLDB().Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		_ = c.Close()
	}
}
