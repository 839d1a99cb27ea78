package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"calendar/controllers/input"
)

// icalEvent is what a VEVENT says, in the form the tests compare: times as UTC instants in RFC 3339, dates
// ("2027-06-12") for all-day events; the other properties as text.
type icalEvent struct {
	UID         string   `json:"uid"`
	Summary     string   `json:"summary"`
	Start       string   `json:"start"`
	End         string   `json:"end"`
	Description string   `json:"description"`
	Location    string   `json:"location"`
	Geo         string   `json:"geo"`
	URL         string   `json:"url"`
	Status      string   `json:"status"`
	Categories  []string `json:"categories"`
	OrganizerCN string   `json:"organizer_cn"`
	Organizer   string   `json:"organizer"`
}

// icalAnswer is an iCalendar answer read back: the calendar's properties, its time zones and its events.
type icalAnswer struct {
	Calendar  map[string]string `json:"calendar"`
	Timezones []string          `json:"timezones"`
	Events    []icalEvent       `json:"events"`
}

// readICal checks that an answer is an iCalendar object in RFC 5545's line format (text/calendar, CRLF line
// ends, no line over 75 octets) and reads it back with golang-ical, the library the service writes it with.
func readICal(t *testing.T, res *Response) icalAnswer {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		t.Fatalf("Content-Type %q; body %s", ct, truncate(res.Body, 300))
	}
	lines := strings.Split(string(res.Body), "\r\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("the answer does not end with CRLF: %q", lines[len(lines)-1])
	}
	for i, line := range lines {
		if len(line) > 75 || strings.ContainsAny(line, "\r\n") {
			t.Fatalf("line %d is not a folded content line (%d octets): %q", i+1, len(line), line)
		}
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatalf("golang-ical cannot parse the answer: %v\n%s", err, res.Body)
	}
	out := icalAnswer{Calendar: map[string]string{}}
	for _, p := range cal.CalendarProperties {
		out.Calendar[strings.ToLower(p.IANAToken)] = p.Value
	}
	for _, tz := range cal.Timezones() {
		out.Timezones = append(out.Timezones, tz.GetProperty(ics.ComponentPropertyTzid).Value)
	}
	for _, ev := range cal.Events() {
		out.Events = append(out.Events, goICalEvent(t, ev))
	}
	return out
}

// goICalEvent reads a VEVENT parsed by golang-ical. Times with a TZID are read in that zone of Go's database
// (golang-ical cannot load offset zones such as UTC+5:30, so the service's own parser names the zone).
func goICalEvent(t *testing.T, ev *ics.VEvent) icalEvent {
	t.Helper()
	text := func(p ics.ComponentProperty) string {
		if prop := ev.GetProperty(p); prop != nil {
			return prop.Value
		}
		return ""
	}
	out := icalEvent{UID: text(ics.ComponentPropertyUniqueId), Summary: text(ics.ComponentPropertySummary),
		Start: icalTime(t, ev.GetProperty(ics.ComponentPropertyDtStart)),
		End:   icalTime(t, ev.GetProperty(ics.ComponentPropertyDtEnd)), Description: text(ics.ComponentPropertyDescription),
		Location: text(ics.ComponentPropertyLocation), Geo: text(ics.ComponentPropertyGeo),
		URL: text(ics.ComponentPropertyUrl), Status: text(ics.ComponentPropertyStatus), Categories: []string{}}
	for _, c := range ev.GetProperties(ics.ComponentPropertyCategories) {
		out.Categories = append(out.Categories, c.Value)
	}
	if o := ev.GetProperty(ics.ComponentPropertyOrganizer); o != nil {
		out.Organizer = o.Value
		if cn := o.ICalParameters["CN"]; len(cn) == 1 {
			out.OrganizerCN = cn[0]
		}
	}
	return out
}

// icalTime is a DTSTART or DTEND as icalEvent writes it.
func icalTime(t *testing.T, p *ics.IANAProperty) string {
	t.Helper()
	if p == nil {
		return ""
	}
	if v := p.ICalParameters["VALUE"]; len(v) == 1 && v[0] == "DATE" {
		d, err := time.Parse("20060102", p.Value)
		if err != nil {
			t.Fatalf("a DATE %q: %v", p.Value, err)
		}
		return d.Format("2006-01-02")
	}
	loc := time.UTC
	layout := "20060102T150405Z"
	if tz := p.ICalParameters["TZID"]; len(tz) == 1 {
		var err error
		if loc, _, err = input.ParseTimezone(tz[0]); err != nil {
			t.Fatalf("TZID %q: %v", tz[0], err)
		}
		layout = "20060102T150405"
	}
	at, err := time.ParseInLocation(layout, p.Value, loc)
	if err != nil {
		t.Fatalf("a DATE-TIME %q: %v", p.Value, err)
	}
	return at.UTC().Format(time.RFC3339)
}

// icalJSDir holds ical.js and the script that runs it.
const icalJSDir = "icaljs"

// readICalJS reads an iCalendar body with ical.js (icaljs/parse.mjs, run by node), a parser independent of the
// service's. Without node_modules (npm ci in tests/icaljs) the test skips, unless CALENDAR_TEST_ICALJS=1 (set by
// .ci/run, which installs them) makes that a failure.
func readICalJS(t *testing.T, body []byte) icalAnswer {
	t.Helper()
	if _, err := os.Stat(filepath.Join(icalJSDir, "node_modules", "ical.js")); err != nil {
		if os.Getenv("CALENDAR_TEST_ICALJS") == "1" {
			t.Fatalf("ical.js is not installed (run npm ci in tests/icaljs): %v", err)
		}
		t.Skip("ical.js is not installed: run npm ci in tests/icaljs (CALENDAR_TEST_ICALJS=1 makes this a failure)")
	}
	cmd := exec.Command("node", "parse.mjs")
	cmd.Dir = icalJSDir
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ical.js cannot parse the answer: %v\n%s\n%s", err, stderr.Bytes(), body)
	}
	var answer icalAnswer
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("parse.mjs printed %s: %v", out, err)
	}
	for i := range answer.Events {
		if answer.Events[i].Categories == nil {
			answer.Events[i].Categories = []string{}
		}
	}
	return answer
}
