package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calendar/models"
)

// expandedOccurrence is one occurrence of a feed as ical.js expands it (icaljs/expand.mjs).
type expandedOccurrence struct {
	UID          string `json:"uid"`
	RecurrenceID string `json:"recurrence_id"`
	Start        string `json:"start"`
	End          string `json:"end"`
	Summary      string `json:"summary"`
}

// seriesFeedDays are the days of the occurrences ical.js expands series' own feed to, in order (YYYY-MM-DD).
func (a *App) seriesFeedDays(t *testing.T, series map[string]any) []string {
	t.Helper()
	feed := a.Get(eventPath(series)+".ics").ExpectStatus(t, http.StatusOK).Body
	var days []string
	for _, e := range expandICalJS(t, feed, "2028-01-01") {
		days = append(days, e.Start[:10])
	}
	return days
}

// expandICalJS expands an iCalendar body with ical.js up to until (YYYY-MM-DD); it skips or fails as readICalJS
// does without ical.js.
func expandICalJS(t *testing.T, body []byte, until string) []expandedOccurrence {
	t.Helper()
	if _, err := os.Stat(filepath.Join(icalJSDir, "node_modules", "ical.js")); err != nil {
		if os.Getenv("CALENDAR_TEST_ICALJS") == "1" {
			t.Fatalf("ical.js is not installed (run npm ci in tests/icaljs): %v", err)
		}
		t.Skip("ical.js is not installed: run npm ci in tests/icaljs (CALENDAR_TEST_ICALJS=1 makes this a failure)")
	}
	cmd := exec.Command("node", "expand.mjs", until)
	cmd.Dir = icalJSDir
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ical.js cannot expand the answer: %v\n%s\n%s", err, stderr.Bytes(), body)
	}
	var occ []expandedOccurrence
	if err := json.Unmarshal(out, &occ); err != nil {
		t.Fatalf("expand.mjs printed %s: %v", out, err)
	}
	return occ
}

// utcInstant turns the API's UTC date ("2027-03-02 17:00:00") into RFC 3339.
func utcInstant(t *testing.T, s string) string {
	t.Helper()
	tm, err := time.Parse(dateTimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.Format(time.RFC3339)
}

func TestAFeedExpandedByICalJSEqualsTheListOccurrenceByOccurrence(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass("recurrence", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12",
		"RDATE:20270306T110000"}))
	occ := app.seriesList(t, idOf(t, series), "")
	// One occurrence edited alone (moved an hour and retitled), one cancelled, and the series retitled.
	app.updateEvent(t, http.MethodPatch, eventPath(occ[3]), token, map[string]any{"title": "Guest teacher",
		"start_date": "2027-03-09 19:00", "end_date": "2027-03-09 20:30"})
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(occ[5]), Token: token}).ExpectStatus(t, http.StatusOK)
	app.updateEvent(t, http.MethodPatch, eventPath(series), token, map[string]any{"title": "Dance class"})
	list := app.seriesList(t, idOf(t, series), "")

	for _, path := range []string{
		fmt.Sprintf("/events.ics?series=%d&start_date=2027-01-01&end_date=2028-12-31", idOf(t, series)),
		"/events.ics?start_date=2027-01-01&end_date=2028-12-31",
		eventPath(series) + ".ics",
	} {
		res := app.Get(path).ExpectStatus(t, http.StatusOK)
		if n := bytes.Count(res.Body, []byte("BEGIN:VEVENT")); n != 2 {
			t.Errorf("%s: %d VEVENTs, want the series' and its one exception's", path, n)
		}
		if !bytes.Contains(res.Body, []byte("RRULE:FREQ=WEEKLY;COUNT=12;BYDAY=TU,TH")) ||
			!bytes.Contains(res.Body, []byte("EXDATE;TZID=Europe/Paris:20270316T180000")) {
			t.Errorf("%s: the rule or its EXDATE is missing:\n%s", path, res.Body)
		}
		expanded := expandICalJS(t, res.Body, "2029-01-01")
		if len(expanded) != len(list) {
			t.Fatalf("%s: ical.js expands %d occurrences, the list has %d", path, len(expanded), len(list))
		}
		for i, e := range expanded {
			o := list[i]
			want := expandedOccurrence{UID: fmt.Sprintf("event-%d@example.com", idOf(t, series)),
				Start: utcInstant(t, o["utc_start_date"].(string)), End: utcInstant(t, o["utc_end_date"].(string)),
				Summary: o["title"].(string)}
			e.RecurrenceID = ""
			if e != want {
				t.Errorf("%s: occurrence %d: ical.js %+v, list %+v", path, i, e, want)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(list[3]["title"]), "Guest teacher") {
		t.Errorf("the edited occurrence is titled %v", list[3]["title"])
	}
}

// TestAFeedLeavesOutTheOccurrencesItsReaderMayNotSee: an occurrence made a draft on its own is excluded (EXDATE)
// from the series' VEVENT in the feeds an anonymous reader gets, so a calendar application shows exactly the
// occurrences the reader's JSON list shows; an administrator's feed still has it, as an exception.
func TestAFeedLeavesOutTheOccurrencesItsReaderMayNotSee(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, admin, weeklyClass("status", "publish"))
	id := idOf(t, series)
	occ := app.seriesList(t, id, "")
	app.updateEvent(t, http.MethodPatch, eventPath(occ[2]), admin, map[string]any{"status": "draft"})
	for _, c := range []struct {
		reader string
		token  string
		want   int
	}{{"anonymous", "", len(occ) - 1}, {"administrator", admin, len(occ)}} {
		list := app.seriesList(t, id, c.token)
		if len(list) != c.want {
			t.Fatalf("%s: %d occurrences listed, want %d", c.reader, len(list), c.want)
		}
		for _, path := range []string{eventPath(series) + ".ics",
			fmt.Sprintf("/events.ics?series=%d&start_date=2027-01-01&end_date=2028-12-31", id)} {
			body := app.Get(path, c.token).ExpectStatus(t, http.StatusOK).Body
			expanded := expandICalJS(t, body, "2029-01-01")
			if len(expanded) != len(list) {
				t.Fatalf("%s, %s: ical.js expands %d occurrences, the list has %d:\n%s", c.reader, path,
					len(expanded), len(list), body)
			}
			for i, e := range expanded {
				if want := utcInstant(t, list[i]["utc_start_date"].(string)); e.Start != want {
					t.Errorf("%s, %s: occurrence %d starts %s in the feed, %s in the list", c.reader, path, i, e.Start, want)
				}
			}
		}
	}
}
