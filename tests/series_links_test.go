package tests

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"calendar/models"
)

// Trashing or deleting a venue, an organizer or a term a series links to removes it from the series record as
// from its occurrences, in the same write; the horizon job's new occurrences are then not linked to it either.
func TestTrashingOrDeletingALinkedRecordUnlinksItFromTheSeriesRecord(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	v1 := app.post(t, token, "/venues", map[string]any{"venue": "Hall One"})
	v2 := app.post(t, token, "/venues", map[string]any{"venue": "Hall Two"})
	o1 := app.post(t, token, "/organizers", map[string]any{"organizer": "Ann"})
	o2 := app.post(t, token, "/organizers", map[string]any{"organizer": "Bob"})
	o3 := app.post(t, token, "/organizers", map[string]any{"organizer": "Cid"})
	series := app.createEvent(t, token, weeklyClass("venue", []any{v1, v2}, "organizer", []any{o1, o2, o3}))
	id := idOf(t, series)
	other := app.createEvent(t, token, weeklyClass("title", "Other class", "venue", v2, "organizer", []any{o2}))

	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%d", v1), Token: token}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/organizers/%d?force=true", o2), Token: token}).
		ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodDelete, Path: "/tags/" + fmt.Sprint(idOf(t, series["tags"].([]any)[0].(map[string]any))) + "?force=true",
		Token: token}).ExpectStatus(t, http.StatusOK)

	check := func(what string, e map[string]any, venues, organizers []uint64, tags int) {
		t.Helper()
		if got := linkIDs(t, e["venue"]); !slices.Equal(got, venues) {
			t.Errorf("%s: venues %v, want %v", what, got, venues)
		}
		if got := linkIDs(t, e["organizer"]); !slices.Equal(got, organizers) {
			t.Errorf("%s: organizers %v, want %v", what, got, organizers)
		}
		if got := len(e["tags"].([]any)); got != tags {
			t.Errorf("%s: %d tags, want %d", what, got, tags)
		}
	}
	record := app.Get(eventPath(series), token).ExpectStatus(t, http.StatusOK).JSON(t)
	check("series record", record, []uint64{v2}, []uint64{o1, o3}, 0)
	check("occurrence", app.seriesList(t, id, token)[4], []uint64{v2}, []uint64{o1, o3}, 0)
	check("other series record", app.Get(eventPath(other), token).ExpectStatus(t, http.StatusOK).JSON(t),
		[]uint64{v2}, nil, 0)

	// The series' stored lists are what later occurrences get: a new rule re-creates them from the series.
	more := app.updateEvent(t, http.MethodPost, eventPath(series), token,
		map[string]any{"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=14"}})
	check("series record after update", more, []uint64{v2}, []uint64{o1, o3}, 0)
	list := app.seriesList(t, id, token)
	if len(list) != 14 {
		t.Fatalf("%d occurrences, want 14", len(list))
	}
	check("new occurrence", list[13], []uint64{v2}, []uint64{o1, o3}, 0)
}
