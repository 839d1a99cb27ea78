package tests

import (
	"fmt"
	"net/http"
	"testing"

	"calendar/models"
)

// TestAWriteKeepsTheCachedEventsItCannotHaveChanged reads single events anonymously until the cache keeps them,
// then writes on this instance and on another sharing the database: an event whose records a write left alone
// is still served from the cache, byte for byte, and one whose event, venue or category count the write changed
// shows the change at the next read.
func TestAWriteKeepsTheCachedEventsItCannotHaveChanged(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	venue := app.post(t, admin, "/venues", map[string]any{"venue": "Old Hall"})
	category := app.post(t, admin, "/categories", map[string]any{"name": "Jazz"})
	linked := eventPath(app.createEvent(t, admin, eventBody("Linked", 3, "status", "publish", "venue", venue,
		"categories", []any{category})))
	alone := eventPath(app.createEvent(t, admin, eventBody("Alone", 4, "status", "publish")))
	other := eventPath(app.createEvent(t, admin, eventBody("Other", 5, "status", "publish")))
	read := func(path string) map[string]any { return app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t) }
	keep := func(paths ...string) map[string]string {
		bodies := map[string]string{}
		for _, path := range paths {
			read(path)
			bodies[path] = string(app.Get(path).ExpectStatus(t, http.StatusOK).Body) // asked for again: kept
		}
		return bodies
	}

	kept := keep(linked, alone, other)
	if n := cacheMetric(t, app, "kept_answers"); n != 3 {
		t.Fatalf("three events read twice: %d kept answers, want 3", n)
	}
	app.updateEvent(t, http.MethodPost, other, admin, map[string]any{"title": "Other, renamed"})
	if got := read(other)["title"]; got != "Other, renamed" {
		t.Fatalf("after its update the event reads title %v", got)
	}
	for _, path := range []string{linked, alone} {
		if !servedKept(t, app, path, kept[path]) {
			t.Fatalf("%s was built again after a write to another event", path)
		}
	}

	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/venues/%d", venue), Token: admin,
		Body: map[string]any{"venue": "New Hall"}}).ExpectStatus(t, http.StatusOK)
	if got := read(linked)["venue"].(map[string]any)["venue"]; got != "New Hall" {
		t.Fatalf("after its venue was renamed the event shows venue %v", got)
	}
	if !servedKept(t, app, alone, kept[alone]) {
		t.Fatal("an event without a venue was built again after a venue's write")
	}

	app.createEvent(t, admin, eventBody("Second in Jazz", 6, "status", "publish", "categories", []any{category}))
	if got := read(linked)["categories"].([]any)[0].(map[string]any)["count"]; got != float64(2) {
		t.Fatalf("after a second event joined its category the event shows the category's count %v, want 2", got)
	}

	kept = keep(alone)
	twin := app.Twin()
	twin.updateEvent(t, http.MethodPost, alone, admin, map[string]any{"title": "Alone, renamed elsewhere"})
	if got := read(alone)["title"]; got != "Alone, renamed elsewhere" {
		t.Fatalf("after another instance's update the event reads title %v", got)
	}

	app.Do(Request{Method: http.MethodDelete, Path: linked, Token: admin}).ExpectStatus(t, http.StatusOK)
	app.Get(linked).ExpectStatus(t, http.StatusForbidden)
}

// TestACachedOccurrenceShowsWhatItsSeriesChanged keeps occurrences of a series in the cache, then changes what an
// occurrence shows without changing its own record: another occurrence's cancellation adds an EXDATE to the rule
// every occurrence shows, and an edit that sends an occurrence's own title makes it an exception. The next read
// shows each change, a sync from before reports every occurrence it touched, and a write elsewhere leaves a kept
// occurrence in the cache.
func TestACachedOccurrenceShowsWhatItsSeriesChanged(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, admin, weeklyClass("status", "publish", "categories", []string{}, "tags", []string{}))
	occurrences := app.seriesList(t, idOf(t, series), "")
	first, cancelled, edited := eventPath(occurrences[0]), eventPath(occurrences[1]), eventPath(occurrences[2])
	for _, path := range []string{first, edited, first, edited} {
		app.Get(path).ExpectStatus(t, http.StatusOK)
	}
	if n := cacheMetric(t, app, "kept_answers"); n != 2 {
		t.Fatalf("two occurrences read twice: %d kept answers, want 2", n)
	}
	token := app.syncToken(t, "/events", "")

	app.Do(Request{Method: http.MethodDelete, Path: cancelled, Token: admin}).ExpectStatus(t, http.StatusOK)
	rule := "[RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH EXDATE:20270304T180000]"
	for _, path := range []string{first, edited} {
		if got := fmt.Sprint(app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)["recurrence"]); got != rule {
			t.Fatalf("%s after another occurrence was cancelled shows recurrence %s, want %s", path, got, rule)
		}
	}
	synced := app.sync(t, "/events?sync_token="+token, "events", "")
	if len(synced.records) != 9 || synced.records[idOf(t, occurrences[9])] == nil {
		t.Fatalf("a sync across the cancellation lists %v, want the 9 occurrences left, whose rule changed",
			syncedIDs(synced.records))
	}

	app.updateEvent(t, http.MethodPatch, edited, admin, map[string]any{"title": "Evening class"})
	if got := app.Get(edited).ExpectStatus(t, http.StatusOK).JSON(t)["is_exception"]; got != true {
		t.Fatalf("an occurrence edited with its own title shows is_exception %v", got)
	}

	kept := string(app.Get(first).ExpectStatus(t, http.StatusOK).Body)
	app.createEvent(t, admin, eventBody("Elsewhere", 3, "status", "publish"))
	if !servedKept(t, app, first, kept) {
		t.Fatal("an occurrence was built again after a write to another event")
	}
}

// servedKept reads path anonymously and tells whether the response cache answered it, failing unless its body is
// want.
func servedKept(t *testing.T, app *App, path, want string) bool {
	t.Helper()
	hits := cacheMetric(t, app, "hits_total")
	body := string(app.Get(path).ExpectStatus(t, http.StatusOK).Body)
	if body != want {
		t.Fatalf("%s changed though no write touched it:\n%s\nwant\n%s", path, body, want)
	}
	return cacheMetric(t, app, "hits_total") == hits+1
}
