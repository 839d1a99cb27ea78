package tests

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"calendar/controllers/jobs"
	"calendar/models"
)

// The totals that writes keep for the lists (the per-day event counts, the latest start of each venue and
// organizer, the term counts) must equal a fresh count after every kind of write. Every test checks them when it
// ends (startApp); the tests here check them after each write, for the writes of series, whose occurrences are
// written in sets, and under concurrent writers of every kind. TestListTotalsFromKeptDayCountsEqualAFreshCount…
// does the same for single events.

// termID is the ID of the term of the collection with this slug.
func (a *App) termID(t *testing.T, collection, slug string) uint64 {
	t.Helper()
	terms := a.Get(fmt.Sprintf("/%s?slug=%s&hide_empty=false", collection, slug)).ExpectStatus(t, http.StatusOK).
		JSON(t)[collection].([]any)
	if len(terms) != 1 {
		t.Fatalf("%d %s with the slug %s", len(terms), collection, slug)
	}
	return idOf(t, terms[0].(map[string]any))
}

func TestKeptTotalsEqualAFreshCountAfterEverySeriesWrite(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_RECURRENCE_HORIZON", "30d"))
	admin := app.Token(models.RoleAdministrator)
	hall := app.post(t, admin, "/venues", map[string]any{"venue": "Series Hall"})
	annex := app.post(t, admin, "/venues", map[string]any{"venue": "Series Annex"})
	ann := app.post(t, admin, "/organizers", map[string]any{"organizer": "Ann"})
	bob := app.post(t, admin, "/organizers", map[string]any{"organizer": "Bob"})
	series := idOf(t, app.createEvent(t, admin, weeklyClass("venue", hall, "organizer", []any{ann}, "status", "publish")))
	seriesPath := fmt.Sprintf("/events/%d", series)
	var occurrences []map[string]any // the series' occurrences as the rule change leaves them
	var tail uint64                  // the series the split makes
	patch := func(t *testing.T, path string, body map[string]any) map[string]any {
		t.Helper()
		return app.updateEvent(t, http.MethodPatch, path, admin, body)
	}
	remove := func(t *testing.T, path string) {
		t.Helper()
		app.Do(Request{Method: http.MethodDelete, Path: path, Token: admin}).ExpectStatus(t, http.StatusOK)
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"the series created", func(t *testing.T) {}},
		{"the series moved", func(t *testing.T) {
			patch(t, seriesPath, map[string]any{"start_date": "2027-03-02 19:00", "end_date": "2027-03-02 21:00"})
		}},
		{"its plain fields changed", func(t *testing.T) { patch(t, seriesPath, map[string]any{"title": "Dance class"}) }},
		{"its links changed", func(t *testing.T) {
			patch(t, seriesPath, map[string]any{"venue": annex, "organizer": []any{bob, ann},
				"categories": []string{"Classes", "Dance"}, "tags": []string{"dance", "evening"}})
		}},
		{"unpublished", func(t *testing.T) { patch(t, seriesPath, map[string]any{"status": "draft"}) }},
		{"published again", func(t *testing.T) { patch(t, seriesPath, map[string]any{"status": "publish"}) }},
		{"an occurrence edited alone", func(t *testing.T) {
			o := app.seriesList(t, series, admin)[2] // Tuesday 9 March, moved to the Wednesday
			patch(t, eventPath(o), map[string]any{"start_date": "2027-03-10 08:00", "end_date": "2027-03-10 09:00",
				"status": "private", "categories": []string{"Solo"}, "venue": hall})
		}},
		{"the rule changed", func(t *testing.T) {
			patch(t, seriesPath, map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6"}})
			occurrences = app.seriesList(t, series, admin)
			if len(occurrences) != 6 {
				t.Fatalf("%d occurrences after the rule change, want 6", len(occurrences))
			}
		}},
		{"split at an occurrence", func(t *testing.T) {
			split := patch(t, eventPath(occurrences[3])+"?scope=following", map[string]any{"title": "Advanced class",
				"venue": hall, "tags": []string{"advanced"}})
			tail = uint64(split["series_id"].(float64))
		}},
		{"an occurrence cancelled", func(t *testing.T) { remove(t, eventPath(occurrences[1])) }},
		{"an occurrence deleted for good", func(t *testing.T) { remove(t, eventPath(occurrences[2])+"?force=true") }},
		{"the occurrences from one on deleted", func(t *testing.T) { remove(t, eventPath(occurrences[4])+"?scope=following") }},
		{"a venue deleted", func(t *testing.T) { remove(t, fmt.Sprintf("/venues/%d?force=true", annex)) }},
		{"an organizer deleted", func(t *testing.T) { remove(t, fmt.Sprintf("/organizers/%d?force=true", bob)) }},
		{"a category deleted", func(t *testing.T) {
			remove(t, fmt.Sprintf("/categories/%d", app.termID(t, "categories", "dance")))
		}},
		{"a tag deleted", func(t *testing.T) { remove(t, fmt.Sprintf("/tags/%d", app.termID(t, "tags", "evening"))) }},
		{"the series trashed", func(t *testing.T) { remove(t, seriesPath) }},
		{"its record restored", func(t *testing.T) { patch(t, seriesPath, map[string]any{"status": "publish"}) }},
		{"a series ended", func(t *testing.T) { patch(t, fmt.Sprintf("/events/%d", tail), map[string]any{"recurrence": nil}) }},
		{"an event made a series", func(t *testing.T) {
			patch(t, fmt.Sprintf("/events/%d", tail), map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=3"}})
		}},
		{"an open-ended series created", func(t *testing.T) {
			app.createEvent(t, admin, eventBody("Daily standup", 1, "recurrence", []string{"RRULE:FREQ=DAILY"},
				"status", "publish", "venue", hall, "organizer", []any{ann}, "categories", []string{"Meetings"}))
		}},
		{"the horizon job extended it", func(t *testing.T) {
			if n, err := jobs.ExtendSeries(t.Context(), app.Store, app.Config.RecurrenceHorizon, time.Now().AddDate(0, 0, 10)); err != nil || n != 1 {
				t.Fatalf("the horizon job extended %d series (%v), want 1", n, err)
			}
		}},
		{"the series deleted for good", func(t *testing.T) { remove(t, seriesPath+"?force=true") }},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do(t)
			expectKeptTotalsMatchEvents(t, app.Store)
		})
	}
	expectTermCounts(t, app)
}

// TestConcurrentSeriesAndEventWritesKeepTheKeptTotalsExact mixes, at once, every kind of write that moves a kept
// total: series moved, unpublished, split, occurrences cancelled, deleted and edited alone, events created,
// relinked, trashed and deleted, and the venue, organizer and category they share deleted, with a compaction of
// the term counts among them, round after round. Afterwards every kept total equals a fresh count.
func TestConcurrentSeriesAndEventWritesKeepTheKeptTotalsExact(t *testing.T) {
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	hall := app.post(t, admin, "/venues", map[string]any{"venue": "Shared Hall"})
	rounds := concurrencyRounds(t)
	var failed atomic.Int64
	for r := 0; r < rounds; r++ {
		venue := app.post(t, admin, "/venues", map[string]any{"venue": fmt.Sprintf("Round %d Hall", r)})
		organizer := app.post(t, admin, "/organizers", map[string]any{"organizer": fmt.Sprintf("Round %d Org", r)})
		category := app.post(t, admin, "/categories", map[string]any{"name": fmt.Sprintf("Round %d", r)})
		links := []any{"venue", []any{venue, hall}, "organizer", []any{organizer}, "status", "publish",
			"categories", []any{category, "Classes"}, "tags", []string{"dance"}}
		series := app.createEvent(t, admin, weeklyClass(append([]any{"title", fmt.Sprintf("Class %d", r)}, links...)...))
		occ := app.seriesList(t, idOf(t, series), admin)
		events := make([]map[string]any, 3)
		for i := range events {
			events[i] = app.createEvent(t, admin, eventBody(fmt.Sprintf("Single %d-%d", r, i), 2+i, links...))
		}
		writes := []Request{
			{Method: http.MethodPatch, Path: eventPath(series), Body: map[string]any{
				"start_date": "2027-03-02 19:00", "end_date": "2027-03-02 20:00"}},
			{Method: http.MethodPatch, Path: eventPath(series), Body: map[string]any{"status": "draft"}},
			{Method: http.MethodPatch, Path: eventPath(occ[6]) + "?scope=following", Body: map[string]any{"title": "Split"}},
			{Method: http.MethodDelete, Path: eventPath(occ[1])},
			{Method: http.MethodDelete, Path: eventPath(occ[8]) + "?force=true"},
			{Method: http.MethodPatch, Path: eventPath(occ[2]), Body: map[string]any{"categories": []string{"Solo"},
				"start_date": "2027-03-05 08:00", "end_date": "2027-03-05 09:00"}},
			{Method: http.MethodPost, Path: "/events", Body: eventBody(fmt.Sprintf("New %d", r), 4, links...)},
			{Method: http.MethodPatch, Path: eventPath(events[0]), Body: map[string]any{"venue": hall, "status": "draft"}},
			{Method: http.MethodDelete, Path: eventPath(events[1])},
			{Method: http.MethodDelete, Path: eventPath(events[2]) + "?force=true"},
			{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%d?force=true", venue)},
			{Method: http.MethodDelete, Path: fmt.Sprintf("/organizers/%d?force=true", organizer)},
			{Method: http.MethodDelete, Path: fmt.Sprintf("/categories/%d", category)},
		}
		concurrently(t, app, len(writes)+1, func(i int) {
			if i == len(writes) { // the server's housekeeping folds the term counts among the writers
				if _, err := app.Store.CompactTermCounts(t.Context()); err != nil {
					t.Errorf("round %d: compacting: %v", r, err)
				}
				return
			}
			w := writes[i]
			w.Token = admin
			res := app.Do(w)
			// A write may find its record gone or changed by another (404, 410, 400 for an occurrence no longer
			// in a series): fair answers. None may fail.
			if res.Status >= 500 {
				t.Errorf("round %d: %s %s answered %d: %s", r, w.Method, w.Path, res.Status, res.Body)
			}
			if res.Status >= 300 {
				failed.Add(1)
			}
		})
		expectKeptTotalsMatchEvents(t, app.Store)
		expectTermCounts(t, app)
	}
	t.Logf("%d rounds of simultaneous writes of series, events and their links (%d refused after another write, "+
		"none 5xx): every kept total equalled a fresh count", rounds, failed.Load())
}

// A category list's total comes from category links kept by the writes, not from a count of its events: each
// write that moves an event into or out of the categories, the date window, the statuses a visitor reads or the
// listings changes the total the next list reports; a child category's events count for its parent, and an event
// in two of the categories asked for counts once.
func TestCategoryTotalsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	jazz := app.post(t, token, "/categories", map[string]any{"name": "Jazz", "parent": music})
	rock := app.post(t, token, "/categories", map[string]any{"name": "Rock"})
	create := func(title string, days int, categories ...uint64) string {
		t.Helper()
		return eventPath(app.createEvent(t, token, eventBody(title, days, "categories", categories)))
	}
	update := func(path string, body map[string]any) { app.updateEvent(t, http.MethodPost, path, token, body) }
	// per_page=1 keeps the first page full, so that the total is the one counted for the whole list.
	expectTotals := func(what string, want map[string]int) {
		t.Helper()
		for categories, n := range want {
			res := app.Get("/events?per_page=1&categories="+categories).ExpectStatus(t, http.StatusOK)
			whole := idsOf(app.Get("/events?per_page=50&categories="+categories).ExpectStatus(t, http.StatusOK).
				JSON(t)["events"])
			if got := res.Header.Get("X-TEC-Total"); got != fmt.Sprint(n) || res.JSON(t)["total"] != float64(n) ||
				len(whole) != n {
				t.Fatalf("after %s, categories=%s: X-TEC-Total %s and %d events listed, want %d", what, categories,
					got, len(whole), n)
			}
		}
	}
	ids := fmt.Sprintf("%d,%d", music, rock)
	first := create("First", 2, music)
	create("Second", 3, jazz)
	both := create("Both", 4, jazz, rock)
	rocky := create("Rocky", 5, rock)
	app.createEvent(t, token, eventBody("Hidden", 2, "categories", []uint64{music}, "hide_from_listings", true))
	expectTotals("the creates", map[string]int{"music": 3, ids: 4, "rock": 2})

	update(first, map[string]any{"start_date": daysFromNow(3*365, 10), "end_date": daysFromNow(3*365, 12)})
	expectTotals("moving an event past the window", map[string]int{"music": 2, ids: 3})
	update(rocky, map[string]any{"categories": []uint64{music}})
	expectTotals("moving an event to another category", map[string]int{"music": 3, ids: 3, "rock": 1})
	update(both, map[string]any{"hide_from_listings": true})
	expectTotals("hiding an event", map[string]int{"music": 2, ids: 2, "rock": 0})
	update(both, map[string]any{"hide_from_listings": false})
	expectTotals("listing it again", map[string]int{"music": 3, ids: 3, "rock": 1})
	update(both, map[string]any{"hide_from_listings": true})
	expectTotals("hiding it again", map[string]int{"music": 2, ids: 2, "rock": 0})
	update(rocky, map[string]any{"status": "draft"})
	expectTotals("making an event a draft", map[string]int{"music": 1, ids: 1})
	app.Do(Request{Method: http.MethodDelete, Path: first, Token: token}).ExpectStatus(t, http.StatusOK)
	series := app.createEvent(t, token, eventBody("Weekly", 1, "categories", []uint64{jazz},
		"recurrence", []string{"RRULE:FREQ=WEEKLY;COUNT=3"}))
	expectTotals("a series of three", map[string]int{"music": 4, ids: 4, "jazz": 4})
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(series), Token: token}).ExpectStatus(t, http.StatusOK)
	expectTotals("trashing the series", map[string]int{"music": 1, ids: 1})
}
