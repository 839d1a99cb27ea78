package tests

import (
	"cmp"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calendar/models"
)

// The service's pool is small by default (models.DefaultMaxConns: twice the CPUs), which is only safe while no
// request holds one connection and waits for a second. These tests serve every kind of request through a pool of
// one connection: a request that needed two at once would wait for ever, and fail here at its deadline.

// within runs fn and fails the test if it has not returned after a generous deadline.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s got no answer in 20 s: it waits for a second database connection", what)
	}
}

// doWithin sends r and fails the test if the answer takes longer than within allows.
func (a *App) doWithin(t *testing.T, r Request) *Response {
	t.Helper()
	var res *Response
	within(t, cmp.Or(r.Method, "GET")+" "+r.Path, func() { res = a.Do(r) })
	return res
}

// poolSize reads the database pool's limit from /metrics, which publishes the pool's statistics.
func poolSize(t *testing.T, app *App) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^go_sql_max_open_connections\{db_name="calendar"\} (\d+)$`).
		FindStringSubmatch(string(app.Get("//metrics").ExpectStatus(t, http.StatusOK).Body))
	if m == nil {
		t.Fatal("/metrics lacks go_sql_max_open_connections")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestThePoolIsTwiceTheCPUsUnlessConfigured(t *testing.T) {
	app := NewApp(t)
	if got, want := poolSize(t, app), models.DefaultMaxConns(); got != want || want < 4 {
		t.Fatalf("pool of %d connections, want DefaultMaxConns %d (at least 4)", got, want)
	}
	configured := NewApp(t, WithEnv("CALENDAR_DB_MAX_CONNS", "7"))
	if got := poolSize(t, configured); got != 7 {
		t.Fatalf("CALENDAR_DB_MAX_CONNS=7 opened a pool of %d", got)
	}
}

func TestEveryKindOfRequestIsServedThroughOneConnection(t *testing.T) {
	app := NewApp(t, WithEnv("CALENDAR_DB_MAX_CONNS", "1"))
	if got := poolSize(t, app); got != 1 {
		t.Fatalf("pool of %d connections, want 1", got)
	}
	admin := app.Token(models.RoleAdministrator)
	post := func(path string, body any, want int) map[string]any {
		t.Helper()
		return app.doWithin(t, Request{Method: http.MethodPost, Path: path, Token: admin, Body: body}).
			ExpectStatus(t, want).JSON(t)
	}
	get := func(path string) *Response {
		t.Helper()
		return app.doWithin(t, Request{Path: path}).ExpectStatus(t, http.StatusOK)
	}

	venue := post("/venues", map[string]any{"venue": "Hall", "city": "Bristol"}, http.StatusCreated)
	organizer := post("/organizers", map[string]any{"organizer": "Org"}, http.StatusCreated)
	post("/categories", map[string]any{"name": "Jazz"}, http.StatusCreated)
	post("/categories", map[string]any{"name": "Blues"}, http.StatusCreated)
	post("/tags", map[string]any{"name": "Outdoor"}, http.StatusCreated)
	event := post("/events", eventBody("Pool jazz night", 3, "venue", venue["id"], "organizer", []any{organizer["id"]},
		"categories", []string{"jazz"}, "tags", []string{"outdoor"}), http.StatusCreated)
	path := eventPath(event)

	// Creates at once: they share the insert batch, which takes the one connection after their lookups.
	within(t, "six concurrent creates", func() {
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				app.Do(Request{Method: http.MethodPost, Path: "/events", Token: admin, Body: eventBody(
					fmt.Sprintf("Pool concert %d", i), 4, "venue", venue["id"], "categories", []string{"jazz"})})
			})
		}
		wg.Wait()
	})

	if got := get(path).JSON(t)["title"]; got != "Pool jazz night" {
		t.Fatalf("the event reads back titled %v", got)
	}
	get("/events/by-slug/" + event["slug"].(string))
	list := get(fmt.Sprintf("/events?categories=jazz&venue=%v&search=pool", venue["id"])).JSON(t)
	if total := list["total"]; total != float64(7) {
		t.Fatalf("category + venue + search lists %v events, want 7", total)
	}
	if body := string(get("/events.ics").Body); strings.Count(body, "BEGIN:VEVENT") != 7 {
		t.Fatalf("the feed holds %d events, want 7", strings.Count(body, "BEGIN:VEVENT"))
	}
	if venues := get("/venues?only_with_upcoming=true").JSON(t)["venues"].([]any); len(venues) != 1 {
		t.Fatalf("%d venues with upcoming events, want 1", len(venues))
	}
	for _, c := range get("/categories").JSON(t)["categories"].([]any) {
		if c := c.(map[string]any); c["slug"] == "jazz" && c["count"] != float64(7) {
			t.Fatalf("the category counts %v events, want 7", c["count"])
		}
	}

	updated := post(path, map[string]any{"title": "Pool blues night", "tags": []string{}, "categories": []string{"blues"}},
		http.StatusOK)
	if updated["title"] != "Pool blues night" || len(updated["tags"].([]any)) != 0 {
		t.Fatalf("the update answered %v with tags %v", updated["title"], updated["tags"])
	}
	app.doWithin(t, Request{Method: http.MethodDelete, Path: path, Token: admin}).ExpectStatus(t, http.StatusOK)
	app.doWithin(t, Request{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%v?force=true", venue["id"]),
		Token: admin}).ExpectStatus(t, http.StatusOK)
	if total := get(fmt.Sprintf("/events?organizer=%v", organizer["id"])).JSON(t)["total"]; total != float64(0) {
		t.Fatalf("the deleted event is still listed by its organizer (%v events)", total)
	}
}
