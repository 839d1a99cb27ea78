package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"calendar/controllers"
	"calendar/middleware"
	"calendar/models"
	"calendar/routes"
)

// seriesOf counts the samples of a metric family in /metrics.
func seriesOf(t *testing.T, app *App, name string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(string(app.Get("//metrics").ExpectStatus(t, http.StatusOK).Body), "\n") {
		if strings.HasPrefix(line, name+"{") {
			n++
		}
	}
	return n
}

func TestInventedMethodsAndPathsDoNotGrowTheMetrics(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/events").ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: "BREW", Path: "/events"}).ExpectError(t, http.StatusNotFound, "rest_no_route")
	app.Get("/nowhere").ExpectError(t, http.StatusNotFound, "rest_no_route")
	before := seriesOf(t, app, "calendar_http_requests_total")
	long := strings.Repeat("M", 2000)
	for i := 0; i < 10000; i++ {
		method := fmt.Sprintf("X%dINVENTED", i)
		if i%10 == 0 {
			method = long + fmt.Sprint(i)
		}
		path := fmt.Sprintf("/invented/%d", i)
		if i%2 == 0 {
			path = "/events"
		}
		rec := httptest.NewRecorder()
		app.Handler.ServeHTTP(rec, httptest.NewRequest(method, app.Config.APIRoot()+path, nil))
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%.20s %s answered %d", method, path, rec.Code)
		}
	}
	after := seriesOf(t, app, "calendar_http_requests_total")
	if after > before+1 { // at most the one series of /metrics itself
		t.Fatalf("10,000 invented methods and paths took calendar_http_requests_total from %d to %d series", before, after)
	}
	metrics := string(app.Get("//metrics").Body)
	for _, want := range []string{`method="OTHER",route="unmatched",status="404"`, `method="GET",route="unmatched",status="404"`} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("/metrics lacks a series with %s", want)
		}
	}
	if strings.Contains(metrics, "INVENTED") || strings.Contains(metrics, "/invented/") {
		t.Fatal("/metrics names an invented method or path")
	}
	if latency := seriesOf(t, app, "calendar_http_request_duration_seconds_bucket"); latency > 200*14 {
		t.Fatalf("%d latency buckets", latency)
	}
}

// loggedApp is an app whose access log is kept, as JSON lines, for the test to read.
func loggedApp(t *testing.T) (*App, func() []map[string]any) {
	t.Helper()
	app := NewApp(t)
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
	store, err := models.Open(app.Config.Database.Driver, app.Config.Database.DSN, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	logged := &App{t: t, Handler: routes.New(controllers.NewApp(app.Config, store, log)), Store: store, Config: app.Config}
	return logged, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		var lines []map[string]any
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			lines = append(lines, m)
		}
		return lines
	}
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestTheAccessLogCapsMethodPathAndUserAgent(t *testing.T) {
	t.Parallel()
	app, lines := loggedApp(t)
	method := strings.Repeat("Q", 100_000)
	path := app.Config.APIRoot() + "/" + strings.Repeat("p", 100_000)
	agent := strings.Repeat("é", 50_000)
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("User-Agent", agent)
	rec := httptest.NewRecorder()
	app.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d", rec.Code)
	}
	var line map[string]any
	for _, l := range lines() {
		if l["msg"] == "request" {
			line = l
		}
	}
	if line == nil {
		t.Fatal("no access log line")
	}
	for field, limit := range map[string]int{"method": middleware.MaxLoggedMethod, "path": middleware.MaxLoggedPath,
		"user_agent": middleware.MaxLoggedUserAgent} {
		v, _ := line[field].(string)
		if len(v) > limit+len("…") || !strings.HasSuffix(v, "…") {
			t.Fatalf("%s logged as %d bytes (%.40q), want at most %d and the cut marked", field, len(v), v, limit)
		}
		if line[field+"_bytes"] == nil {
			t.Fatalf("%s_bytes missing: %v", field, line)
		}
	}
	if !strings.HasPrefix(agent, strings.TrimSuffix(line["user_agent"].(string), "…")) {
		t.Fatal("the user agent was not cut on a character boundary")
	}
}

// A client that goes away before its answer is ready has not met a server error: the request is logged and counted
// as 499 (client closed request), at the info level, and the service logs no failure.
func TestARequestTheClientAbandonsIsNotAServerError(t *testing.T) {
	t.Parallel()
	app, lines := loggedApp(t)
	token := app.Token(models.RoleAdministrator)
	app.createEvent(t, token, map[string]any{"title": "Abandoned", "start_date": at(1, 10, 0), "end_date": at(1, 11, 0)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, app.Config.APIRoot()+"/events?per_page=3", nil)
	app.Handler.ServeHTTP(httptest.NewRecorder(), req)
	var access map[string]any
	for _, l := range lines() {
		if l["level"] == "ERROR" {
			t.Fatalf("logged as an error: %v", l)
		}
		if l["msg"] == "request" && l["path"] == app.Config.APIRoot()+"/events" {
			access = l
		}
	}
	if access == nil || access["status"] != float64(499) || access["level"] != "INFO" {
		t.Fatalf("access log line %v, want status 499 at INFO", access)
	}
	metrics := string(app.Get("//metrics").ExpectStatus(t, http.StatusOK).Body)
	if want := `route="/calendar/events/v1/events",status="499"`; !strings.Contains(metrics, want) {
		t.Fatalf("/metrics lacks %s", want)
	}
	if strings.Contains(metrics, `status="500"`) {
		t.Fatal("/metrics counts a server error")
	}
}
