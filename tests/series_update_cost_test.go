package tests

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"calendar/models"
)

// A series update that changes its title, or moves its start, writes its occurrences in a number of statements
// that does not grow with theirs; an exception keeps its own title and dates, and every occurrence its ID.
func TestASeriesUpdateCostsTheSameStatementsWhateverItsOccurrences(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	cost := func(count int) (title, move int) {
		series := app.createEvent(t, token, weeklyClass("recurrence", []string{fmt.Sprintf("RRULE:FREQ=DAILY;COUNT=%d", count)},
			"title", fmt.Sprintf("Class of %d", count)))
		id := idOf(t, series)
		before := app.seriesList(t, id, "")
		app.updateEvent(t, http.MethodPatch, eventPath(before[1]), token, map[string]any{"title": "Own title",
			"start_date": "2027-03-03 20:00", "end_date": "2027-03-03 21:00"})
		title = app.statementsDuring(func() {
			app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"title": "Renamed"})
		})
		move = app.statementsDuring(func() {
			app.updateEvent(t, http.MethodPatch, eventPath(series), token,
				map[string]any{"start_date": "2027-03-02 19:00", "end_date": "2027-03-02 20:30"})
		})
		after := app.seriesList(t, id, "")
		if !slices.Equal(idsIn(t, before), idsIn(t, after)) {
			t.Fatalf("%d occurrences: IDs changed: %v then %v", count, idsIn(t, before), idsIn(t, after))
		}
		for i, o := range after {
			title, start := "Renamed", fmt.Sprintf("2027-03-%02d 19:00:00", 2+i)
			if i == 1 {
				title, start = "Own title", "2027-03-03 20:00:00"
			}
			if o["title"] != title || o["start_date"] != start {
				t.Errorf("%d occurrences: occurrence %d: %v at %v, want %v at %v", count, i, o["title"],
					o["start_date"], title, start)
			}
			if o["recurrence_id"] != fmt.Sprintf("2027-03-%02d 19:00:00", 2+i) {
				t.Errorf("%d occurrences: occurrence %d: recurrence_id %v", count, i, o["recurrence_id"])
			}
		}
		return title, move
	}
	title3, move3 := cost(3)
	title20, move20 := cost(20)
	if title3 != title20 || move3 != move20 {
		t.Errorf("statements of a title change: %d for 3 occurrences, %d for 20; of a move: %d, then %d",
			title3, title20, move3, move20)
	}
}
