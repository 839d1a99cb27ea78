// Package tests holds the black-box suite: every test builds the real router on a fresh, empty database and talks
// to it over HTTP. It runs on SQLite by default and on PostgreSQL when CALENDAR_TEST_DATABASE_URL is set.
package tests

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"calendar/config"
	"calendar/controllers"
	"calendar/models"
	"calendar/routes"
)

// postgresURL selects PostgreSQL for the whole suite when set.
var postgresURL = os.Getenv("CALENDAR_TEST_DATABASE_URL")

// App is the service under test: the real handler on its own empty database.
type App struct {
	t       *testing.T
	Handler http.Handler
	Store   *models.Store
	Config  config.Config
	Table   []controllers.Route
	users   atomic.Int64
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
	store, err := models.Open(cfg.Database.Driver, cfg.Database.DSN)
	if err != nil {
		t.Fatalf("opening the database: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if _, err := store.Migrate(context.Background()); err != nil {
		t.Fatalf("migrating: %v", err)
	}
	app := controllers.NewApp(cfg, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return &App{t: t, Handler: routes.New(app), Store: store, Config: cfg, Table: routes.Table(app)}
}

// freshDatabase returns an empty database of its own for one test: a SQLite file in the test's temporary
// directory, or a new schema in the PostgreSQL database named by CALENDAR_TEST_DATABASE_URL.
func freshDatabase(t *testing.T) config.Database {
	t.Helper()
	if postgresURL == "" {
		return config.Database{Driver: models.SQLite, DSN: filepath.Join(t.TempDir(), "calendar.db")}
	}
	admin := postgresAdmin(t)
	schema := "test_" + randomHex(8)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating schema %s: %v", schema, err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE") })
	u, err := url.Parse(postgresURL)
	if err != nil {
		t.Fatalf("CALENDAR_TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	q.Set("synchronous_commit", "off") // test databases are thrown away; do not wait for the disk
	u.RawQuery = q.Encode()
	return config.Database{Driver: models.Postgres, DSN: u.String()}
}

var (
	adminOnce sync.Once
	adminDB   *sql.DB
	adminErr  error
)

func postgresAdmin(t *testing.T) *sql.DB {
	adminOnce.Do(func() {
		adminDB, adminErr = sql.Open("pgx", postgresURL)
		if adminErr == nil {
			adminErr = adminDB.Ping()
		}
	})
	if adminErr != nil {
		t.Fatalf("CALENDAR_TEST_DATABASE_URL is set but PostgreSQL does not answer: %v", adminErr)
	}
	return adminDB
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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
	return &Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
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
