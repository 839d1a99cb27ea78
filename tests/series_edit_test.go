package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"calendar/models"
)

// categoryCount is the count of the only category.
func (a *App) categoryCount(t *testing.T) any {
	t.Helper()
	cats := a.Get("/categories?hide_empty=false").ExpectStatus(t, http.StatusOK).JSON(t)["categories"].([]any)
	if len(cats) == 0 {
		t.Fatal("no category listed")
	}
	return cats[0].(map[string]any)["count"]
}

func TestAnOccurrenceEditedAloneKeepsItsChangeThroughSeriesEdits(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	series := app.createEvent(t, token, weeklyClass())
	before := app.seriesList(t, idOf(t, series), "")
	own := app.updateEvent(t, http.MethodPatch, eventPath(before[2]), token, map[string]any{"title": "Special class"})
	if own["is_exception"] != true || own["recurrence_id"] != before[2]["recurrence_id"] || own["title"] != "Special class" {
		t.Fatalf("edited occurrence: %v %v %v", own["is_exception"], own["recurrence_id"], own["title"])
	}
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"title": "Dance class",
		"description": "<p>Bring shoes</p>"})
	after := app.seriesList(t, idOf(t, series), "")
	if !slices.Equal(idsIn(t, before), idsIn(t, after)) {
		t.Fatalf("occurrence IDs changed: %v then %v", idsIn(t, before), idsIn(t, after))
	}
	for i, o := range after {
		wantTitle := "Dance class"
		if i == 2 {
			wantTitle = "Special class"
		}
		if o["title"] != wantTitle || o["description"] != "<p>Bring shoes</p>" {
			t.Errorf("occurrence %d: title %v, description %v", i, o["title"], o["description"])
		}
		if o["is_exception"] != (i == 2) {
			t.Errorf("occurrence %d: is_exception %v", i, o["is_exception"])
		}
	}
}

func TestMovingASeriesMovesItsOccurrencesAndKeepsTheirIDs(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	before := app.seriesList(t, idOf(t, series), "")
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"start_date": "2027-03-02 19:00",
		"end_date": "2027-03-02 21:00"})
	after := app.seriesList(t, idOf(t, series), "")
	if !slices.Equal(idsIn(t, before), idsIn(t, after)) {
		t.Fatalf("occurrence IDs changed: %v then %v", idsIn(t, before), idsIn(t, after))
	}
	for i, o := range after {
		day := strings.Fields(before[i]["start_date"].(string))[0]
		if o["start_date"] != day+" 19:00:00" || o["end_date"] != day+" 21:00:00" || o["recurrence_id"] != day+" 19:00:00" {
			t.Errorf("occurrence %d: %v – %v (recurrence_id %v)", i, o["start_date"], o["end_date"], o["recurrence_id"])
		}
	}
}

func TestChangingTheRuleKeepsOnlyTheOccurrencesItStillProduces(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	before := app.seriesList(t, idOf(t, series), "")
	updated := app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{
		"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6"}})
	if updated["recurrence_text"] != "Every week on Tuesday at 18:00, 6 times" {
		t.Errorf("recurrence_text = %v", updated["recurrence_text"])
	}
	after := app.seriesList(t, idOf(t, series), "")
	// Tuesdays 2, 9, 16, 23 and 30 March are kept; 6 April is new; the Thursdays are gone.
	want := []uint64{idOf(t, before[0]), idOf(t, before[2]), idOf(t, before[4]), idOf(t, before[6]), idOf(t, before[8])}
	if len(after) != 6 || !slices.Equal(idsIn(t, after)[:5], want) || after[5]["start_date"] != "2027-04-06 18:00:00" {
		t.Fatalf("after the change: %v, want %v and a new 6 April", idsIn(t, after), want)
	}
	app.Get(eventPath(before[1])).ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	if n := app.categoryCount(t); n != 6.0 {
		t.Errorf("the category counts %v, want 6", n)
	}
}

func TestSeriesParametersInTheWrongPlaceAreRefused(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	single := app.createEvent(t, token, eventBody("Single", 3))
	occ := app.seriesList(t, idOf(t, series), "")[1]
	for _, c := range []struct {
		path, param string
		body        map[string]any
	}{
		{eventPath(occ), "recurrence", map[string]any{"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=2"}}},
		{eventPath(single) + "?scope=following", "scope", map[string]any{"title": "x"}},
		{eventPath(series) + "?scope=following", "scope", map[string]any{"title": "x"}},
		{eventPath(occ) + "?scope=all", "scope", map[string]any{"title": "x"}},
	} {
		res := app.Do(Request{Method: http.MethodPatch, Path: c.path, Token: token, Body: c.body})
		e := res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if _, ok := e["data"].(map[string]any)["params"].(map[string]any)[c.param]; !ok {
			t.Errorf("%s: the error does not name %s: %s", c.path, c.param, res.Body)
		}
	}
	res := app.Do(Request{Method: http.MethodDelete, Path: eventPath(single) + "?scope=following", Token: token})
	res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	if got := app.seriesList(t, idOf(t, series), ""); len(got) != 10 || got[1]["title"] != "Evening class" {
		t.Errorf("a refused write changed the series")
	}
}

func TestDeletingAnOccurrenceCancelsIt(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	before := app.seriesList(t, idOf(t, series), "")
	trashed := app.Do(Request{Method: http.MethodDelete, Path: eventPath(before[1]), Token: token}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if trashed["status"] != "trash" {
		t.Errorf("the cancelled occurrence has status %v", trashed["status"])
	}
	record := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	if got := fmt.Sprint(record["recurrence"]); got != "[RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH EXDATE:20270304T180000]" {
		t.Errorf("recurrence after the cancellation: %s", got)
	}
	// The series record's next occurrences leave the cancelled one out, and a draft for readers who may not see it.
	app.updateEvent(t, http.MethodPatch, eventPath(before[3]), token, map[string]any{"status": "draft"})
	upcoming := []uint64{idOf(t, before[0]), idOf(t, before[2]), idOf(t, before[3]), idOf(t, before[4]), idOf(t, before[5])}
	for _, reader := range []struct {
		token string
		want  []uint64
	}{
		{token, upcoming}, {"", append(upcoming[:2:2], idOf(t, before[4]), idOf(t, before[5]), idOf(t, before[6]))},
	} {
		next := linkIDs(t, app.Get(eventPath(series), reader.token).ExpectStatus(t, http.StatusOK).JSON(t)["next_occurrences"])
		if fmt.Sprint(next) != fmt.Sprint(reader.want) {
			t.Errorf("next occurrences for %q: %v, want %v", reader.token, next, reader.want)
		}
	}
	app.updateEvent(t, http.MethodPatch, eventPath(before[3]), token, map[string]any{"status": "publish"})
	if n := len(app.seriesList(t, idOf(t, series), "")); n != 9 {
		t.Errorf("%d occurrences listed after one was cancelled, want 9", n)
	}
	if n := app.categoryCount(t); n != 9.0 {
		t.Errorf("the category counts %v, want 9", n)
	}
	// A later edit of the series neither brings it back nor removes it from the trash.
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"title": "Dance class"})
	if n := len(app.seriesList(t, idOf(t, series), "")); n != 9 {
		t.Errorf("%d occurrences after a series edit, want 9", n)
	}
	app.Get(eventPath(before[1]), token).ExpectStatus(t, http.StatusOK)
	// Cancelling the first occurrence starts the series at the next one.
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(before[0]), Token: token}).ExpectStatus(t, http.StatusOK)
	record = app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	if record["start_date"] != "2027-03-09 18:00:00" {
		t.Errorf("the series starts %v after its first two occurrences were cancelled", record["start_date"])
	}
	if n := len(app.seriesList(t, idOf(t, series), "")); n != 8 {
		t.Errorf("%d occurrences, want 8", n)
	}
}

func TestSplittingASeriesAtAnOccurrence(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	before := app.seriesList(t, idOf(t, series), "")
	moved := app.updateEvent(t, http.MethodPatch, eventPath(before[4])+"?scope=following", token,
		map[string]any{"title": "Advanced class"})
	newSeries := uint64(moved["series_id"].(float64))
	if idOf(t, moved) != idOf(t, before[4]) || newSeries == idOf(t, series) || moved["title"] != "Advanced class" {
		t.Fatalf("split occurrence: id %v, series %v, title %v", moved["id"], moved["series_id"], moved["title"])
	}
	head := app.seriesList(t, idOf(t, series), "")
	tail := app.seriesList(t, newSeries, "")
	if !slices.Equal(idsIn(t, head), idsIn(t, before[:4])) || !slices.Equal(idsIn(t, tail), idsIn(t, before[4:])) {
		t.Fatalf("after the split: %v and %v, want %v and %v", idsIn(t, head), idsIn(t, tail), idsIn(t, before[:4]), idsIn(t, before[4:]))
	}
	for _, o := range tail {
		if o["title"] != "Advanced class" {
			t.Errorf("occurrence %v of the new series is titled %v", o["id"], o["title"])
		}
	}
	for _, o := range head {
		if o["title"] != "Evening class" {
			t.Errorf("occurrence %v of the first series is titled %v", o["id"], o["title"])
		}
	}
	first := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	second := app.Get(fmt.Sprintf("/events/%d", newSeries)).ExpectStatus(t, http.StatusOK).JSON(t)
	if fmt.Sprint(first["recurrence"]) != "[RRULE:FREQ=WEEKLY;UNTIL=20270316T165959Z;BYDAY=TU,TH]" ||
		fmt.Sprint(second["recurrence"]) != "[RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TU,TH]" ||
		second["start_date"] != "2027-03-16 18:00:00" {
		t.Errorf("the halves: %v and %v from %v", first["recurrence"], second["recurrence"], second["start_date"])
	}
	// Deleting from an occurrence on ends the series before it.
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(tail[2]) + "?scope=following", Token: token}).
		ExpectStatus(t, http.StatusOK)
	if got := app.seriesList(t, newSeries, ""); !slices.Equal(idsIn(t, got), idsIn(t, tail[:2])) {
		t.Errorf("after deleting from the third on: %v, want %v", idsIn(t, got), idsIn(t, tail[:2]))
	}
}

func TestDeletingASeriesTrashesOrDeletesAllItsOccurrences(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	occ := app.seriesList(t, idOf(t, series), "")
	trashed := app.Do(Request{Method: http.MethodDelete, Path: eventPath(series), Token: token}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if trashed["status"] != "trash" {
		t.Errorf("series status %v", trashed["status"])
	}
	if got := app.listIDs(t, "per_page=50&start_date=2027-01-01&end_date=2028-12-31", ""); len(got) != 0 {
		t.Errorf("trashed occurrences listed: %v", got)
	}
	if n := app.categoryCount(t); n != 0.0 {
		t.Errorf("the category counts %v, want 0", n)
	}
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(series) + "?force=true", Token: token}).
		ExpectStatus(t, http.StatusOK)
	for _, o := range append(occ, series) {
		app.Get(eventPath(o), token).ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	}
}

func TestASeriesCanBeEndedAndAnEventMadeASeries(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	occ := app.seriesList(t, idOf(t, series), "")
	single := app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"recurrence": nil})
	if fmt.Sprint(single["recurrence"]) != "[]" || single["recurrence_text"] != "" ||
		len(single["categories"].([]any)) != 1 {
		t.Errorf("ended series: %v %v %v", single["recurrence"], single["recurrence_text"], single["categories"])
	}
	for _, o := range occ {
		app.Get(eventPath(o), token).ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	}
	listed := app.listIDs(t, "per_page=50&start_date=2027-01-01&end_date=2028-12-31", "")
	if !slices.Equal(listed, []uint64{idOf(t, series)}) {
		t.Errorf("listed %v, want the former series record alone", listed)
	}
	if n := app.categoryCount(t); n != 1.0 {
		t.Errorf("the category counts %v, want 1", n)
	}
	again := app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{
		"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=3"}})
	if again["recurrence_text"] != "Every week on Tuesday at 18:00, 3 times" || len(again["next_occurrences"].([]any)) != 3 {
		t.Errorf("made a series: %v %v", again["recurrence_text"], again["next_occurrences"])
	}
	if n := app.categoryCount(t); n != 3.0 {
		t.Errorf("the category counts %v, want 3", n)
	}
	if got := app.listIDs(t, "per_page=50&start_date=2027-01-01&end_date=2028-12-31", ""); len(got) != 3 {
		t.Errorf("listed %v, want the 3 occurrences", got)
	}
}

// TestMovingASeriesMovesItsAddedAndCancelledDates: the dates a series adds (RDATE) and cancels (EXDATE, given or
// made by deleting an occurrence) move with its occurrences when its start moves, in the list, in the record's
// recurrence and in the feed: a cancelled date does not come back.
func TestMovingASeriesMovesItsAddedAndCancelledDates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass("recurrence", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10",
		"RDATE:20270306T180000", "EXDATE:20270309T180000"}))
	id := idOf(t, series)
	occ := app.seriesList(t, id, "")
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(occ[5]), Token: token}).ExpectStatus(t, http.StatusOK)
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"start_date": "2027-03-02 19:00",
		"end_date": "2027-03-02 20:30"})

	var days []string
	for _, o := range app.seriesList(t, id, "") {
		day, clock, _ := strings.Cut(o["start_date"].(string), " ")
		if clock != "19:00:00" {
			t.Errorf("occurrence %v starts at %s", o["id"], clock)
		}
		days = append(days, day)
	}
	want := "2027-03-02 2027-03-04 2027-03-06 2027-03-11 2027-03-16 2027-03-23 2027-03-25 2027-03-30 2027-04-01"
	if got := strings.Join(days, " "); got != want {
		t.Errorf("occurrences after the move on %s, want %s", got, want)
	}
	record := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	wantLines := "[RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH RDATE:20270306T190000 EXDATE:20270309T190000,20270318T190000]"
	if got := fmt.Sprint(record["recurrence"]); got != wantLines {
		t.Errorf("recurrence after the move: %s, want %s", got, wantLines)
	}
	expanded := app.seriesFeedDays(t, series)
	if got := strings.Join(expanded, " "); got != want {
		t.Errorf("ical.js expands the feed to %s, want %s", got, want)
	}
}

func TestACancelledOccurrenceRestoredAfterItsSeriesMovedComesBackAtTheNewTime(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	id := idOf(t, series)
	occ := app.seriesList(t, id, "")
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(occ[5]), Token: token}).ExpectStatus(t, http.StatusOK)
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"start_date": "2027-03-02 19:00",
		"end_date": "2027-03-02 20:30"})
	restored := app.updateEvent(t, http.MethodPatch, eventPath(occ[5]), token, map[string]any{"status": "publish"})
	if restored["start_date"] != "2027-03-18 19:00:00" || restored["recurrence_id"] != "2027-03-18 19:00:00" {
		t.Errorf("the restored occurrence starts %v (original start %v), want the series' new time",
			restored["start_date"], restored["recurrence_id"])
	}
	record := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	if got := fmt.Sprint(record["recurrence"]); got != "[RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH]" {
		t.Errorf("recurrence after the restore: %s, want the cancellation gone", got)
	}
	// A later edit of the series keeps it, and the feed expands to the list.
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"title": "Dance class"})
	var listed []string
	for _, o := range app.seriesList(t, id, "") {
		listed = append(listed, o["start_date"].(string)[:10])
	}
	if len(listed) != 10 || listed[5] != "2027-03-18" {
		t.Fatalf("listed after a series edit: %v", listed)
	}
	expanded := app.seriesFeedDays(t, series)
	if strings.Join(expanded, " ") != strings.Join(listed, " ") {
		t.Errorf("ical.js expands the feed to %v, the list has %v", expanded, listed)
	}
}
