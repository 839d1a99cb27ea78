package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"calendar/models"
)

func TestRestRouteReachesOnlyTheNamespace(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"", "/wp-json"} {
		app := NewApp(t, WithEnv("CALENDAR_PREFIX", prefix))
		app.Get("//metrics").ExpectStatus(t, http.StatusOK)
		for _, route := range []string{"/metrics", "/healthz", "/readyz", "/docs", "/wp-json/metrics",
			"/calendar/events/v1/../../metrics", "/calendar/events/v1/..%2F..%2Fmetrics", "/calendar/events/v10",
			"/calendar/events/v1x/events", "metrics", "//metrics", "/calendar/events/../events/v1/../../../healthz"} {
			for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
				res := app.Do(Request{Method: method, Path: "//?rest_route=" + strings.ReplaceAll(route, "%", "%25")})
				if res.Status != http.StatusNotFound || strings.Contains(string(res.Body), "go_goroutines") ||
					strings.Contains(string(res.Body), `"status":"ok"`) {
					t.Fatalf("prefix %q: %s /?rest_route=%s answered %d: %.200s", prefix, method, route, res.Status, res.Body)
				}
				if method != http.MethodHead {
					res.ExpectError(t, http.StatusNotFound, "rest_no_route")
				}
			}
		}
		// The namespace stays reachable, dot segments inside it included.
		body := app.Get("//?rest_route=/calendar/events/v1/").ExpectStatus(t, http.StatusOK).JSON(t)
		if body["namespace"] != "calendar/events/v1" {
			t.Fatalf("prefix %q: the namespace index through rest_route: %v", prefix, body)
		}
		app.Get("//?rest_route=/calendar/events/v1/doc/../events").ExpectStatus(t, http.StatusOK)
		app.Get("//?rest_route=/calendar/events/v1/events&per_page=1").ExpectStatus(t, http.StatusOK)
	}
}

// getRoutePaths are request paths for every GET route of the table, for records that exist (or not).
func getRoutePaths(t *testing.T, app *App) []string {
	t.Helper()
	editor := app.Token(models.RoleEditor)
	event := app.createEvent(t, editor, eventBody("Heads up", 3))
	venue := app.create(t, editor, "/venues", map[string]any{"venue": "Hall"})
	organizer := app.create(t, editor, "/organizers", map[string]any{"organizer": "Org"})
	category := app.create(t, editor, "/categories", map[string]any{"name": "Cat"})
	tag := app.create(t, editor, "/tags", map[string]any{"name": "Tag"})
	records := map[string]map[string]any{"events": event, "venues": venue, "organizers": organizer,
		"categories": category, "tags": tag}
	var paths []string
	for _, r := range app.Table {
		get := false
		for _, e := range r.Endpoints {
			for _, m := range e.Methods {
				get = get || m == http.MethodGet
			}
		}
		if !get {
			continue
		}
		kind, _, _ := strings.Cut(strings.TrimPrefix(r.Path, "/"), "/")
		kind = strings.TrimSuffix(kind, ".ics")
		rec := records[kind]
		path := r.Path
		if rec != nil {
			path = strings.Replace(path, ":id", fmt.Sprint(rec["id"]), 1)
			path = strings.Replace(path, ":slug", fmt.Sprint(rec["slug"]), 1)
		}
		paths = append(paths, path)
		if strings.Contains(r.Path, ":") {
			paths = append(paths, strings.NewReplacer(":id", "999999", ":slug", "no-such-slug").Replace(r.Path))
		}
	}
	return append(paths, "/events?per_page=1", "/events?per_page=nonsense", "/nowhere",
		"//healthz", "//readyz", "//metrics", "//docs", "//docs/nowhere.js")
}

func TestHeadAnswersEveryGetRouteWithoutABody(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	for _, path := range getRoutePaths(t, app) {
		for _, accept := range []string{"", "text/calendar"} {
			header := http.Header{}
			if accept != "" {
				header.Set("Accept", accept)
			}
			head := app.Do(Request{Method: http.MethodHead, Path: path, Header: header})
			get := app.Do(Request{Path: path, Header: header})
			again := app.Do(Request{Method: http.MethodHead, Path: path, Header: header})
			for _, h := range []*Response{head, again} {
				if h.Status != get.Status {
					t.Fatalf("HEAD %s answered %d, GET %d", path, h.Status, get.Status)
				}
				if len(h.Body) != 0 {
					t.Fatalf("HEAD %s answered a body of %d bytes", path, len(h.Body))
				}
				for name := range mergedHeaderNames(h.Header, get.Header) {
					if name == "X-Request-Id" || (name == "Date" && path == "//metrics") {
						continue
					}
					if path == "//metrics" && name == "Content-Length" {
						continue // the scrape itself changes the counters
					}
					if name == "X-Sync-Token" && len(h.Header.Values(name)) == len(get.Header.Values(name)) {
						// Each build takes the position of its own snapshot, which the service's background
						// transactions move between two builds at one data version (the answer asked for once
						// is built, not taken from the response cache).
						continue
					}
					if fmt.Sprint(h.Header.Values(name)) != fmt.Sprint(get.Header.Values(name)) {
						t.Fatalf("HEAD %s (Accept %q): %s is %q, GET's %q", path, accept, name,
							h.Header.Values(name), get.Header.Values(name))
					}
				}
			}
		}
	}
	// A conditional HEAD is answered as a conditional GET.
	get := app.Get("/events")
	res := app.Do(Request{Method: http.MethodHead, Path: "/events", Header: http.Header{"If-None-Match": {get.Header.Get("ETag")}}})
	if res.Status != http.StatusNotModified {
		t.Fatalf("HEAD with the current ETag answered %d", res.Status)
	}
}

func mergedHeaderNames(a, b http.Header) map[string]bool {
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	return names
}

// A HEAD over a real connection gets no body from the server either (the recorder above keeps whatever is written).
func TestHeadOverAConnection(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	srv := httptest.NewServer(app.Handler)
	t.Cleanup(srv.Close)
	res, err := http.Head(srv.URL + app.Config.APIRoot() + "/events")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == "" || res.Header.Get("X-TEC-Total") != "0" {
		t.Fatalf("HEAD /events: %d %v", res.StatusCode, res.Header)
	}
}

// A long path value is not echoed back whole: an error answer stays small whatever the request's size.
func TestNotFoundAnswersDoNotEchoLongSlugs(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	long := strings.Repeat("s", 100_000)
	for _, path := range []string{"/events/by-slug/", "/venues/by-slug/", "/organizers/by-slug/"} {
		res := app.Get(path + long)
		if res.Status != http.StatusNotFound || len(res.Body) > 2000 {
			t.Fatalf("GET %s<100,000 characters>: %d with %d bytes", path, res.Status, len(res.Body))
		}
	}
}

// create POSTs body to a collection (/venues, /organizers, /categories, /tags) as token and returns the record
// created (201).
func (a *App) create(t *testing.T, token, collection string, body map[string]any) map[string]any {
	t.Helper()
	return a.Do(Request{Method: http.MethodPost, Path: collection, Token: token, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
}
