package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"
)

// FuzzAcceptQuality reads any Accept header: a quality between 0 and 1 from a rank between -1 and 2, 0 when no
// range matches, and the same answer whatever the case of the media types.
func FuzzAcceptQuality(f *testing.F) {
	for _, seed := range []string{"text/calendar", "text/calendar;q=0.5, application/json", "*/*;q=0", "text/*",
		"application/json;q=abc, text/calendar;q=2", ";;,,/", "TEXT/Calendar", `text/calendar;x="a,b";q=0.3`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		q, rank := acceptQuality(header, "text", "calendar")
		if q < 0 || q > 1 || rank < -1 || rank > 2 || (rank == -1 && q != 0) {
			t.Fatalf("%q: quality %v, rank %d", header, q, rank)
		}
		if q2, rank2 := acceptQuality(strings.ToUpper(header), "text", "calendar"); q2 != q || rank2 != rank {
			t.Fatalf("%q: upper case gives %v/%d, not %v/%d", header, q2, rank2, q, rank)
		}
	})
}

// FuzzParamValue quotes any name as a CN parameter that golang-ical parses back to the name, less what no
// parameter value may hold (control characters; a double quote becomes an apostrophe). Names with a backslash are
// written as RFC 5545 has it (a backslash is an ordinary character of a parameter value, as ical.js reads it), but
// golang-ical's parser takes it for an escape, so they cannot be compared here.
func FuzzParamValue(f *testing.F) {
	for _, seed := range []string{"O'Brien, Pat", `The "Blue" Note`, "Gallery: Friends; and more", "UTC+5:30",
		"Zoë", "a\r\nb", `back\slash`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) || strings.Contains(name, `\`) {
			return // names are valid UTF-8 (PlainText); see above for backslashes
		}
		want := strings.Map(func(r rune) rune {
			switch {
			case r == '"':
				return '\''
			case r < 0x20 || r == 0x7f:
				return -1
			}
			return r
		}, name)
		ev := ics.NewEvent("fuzz")
		ev.SetProperty(withParams(ics.ComponentPropertyOrganizer, "CN", name), "mailto:x@example.com")
		var b strings.Builder
		if err := ev.SerializeTo(&b, icalSerialization); err != nil {
			t.Fatal(err)
		}
		cal, err := ics.ParseCalendar(strings.NewReader("BEGIN:VCALENDAR\r\n" + b.String() + "END:VCALENDAR\r\n"))
		if err != nil {
			t.Fatalf("%q: %v\n%s", name, err, b.String())
		}
		o := cal.Events()[0].GetProperty(ics.ComponentPropertyOrganizer)
		if o == nil || o.Value != "mailto:x@example.com" || len(o.ICalParameters["CN"]) != 1 || o.ICalParameters["CN"][0] != want {
			t.Fatalf("CN %q reads back as %+v\n%s", want, o, b.String())
		}
	})
}
