package ical_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"

	"calendar/controllers/ical"
	"calendar/controllers/input"
)

// FuzzTextFromHTML turns any sanitised HTML into valid UTF-8 text without NUL, carriage returns or surrounding
// space, which golang-ical writes as one DESCRIPTION and reads back unchanged.
func FuzzTextFromHTML(f *testing.F) {
	for _, seed := range []string{"<p>One &amp; two</p><p>Three</p>", "<ul><li>a<li>b</ul>", "a<br>b\r\nc",
		"&lt;b&gt;x&lt;/b&gt;", "<pre>  x\n  y</pre>", "\xff<p>\x00</p>", "text; with, commas\\ and \\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		text := input.TextFromHTML(input.SanitizeHTML(raw))
		if !utf8.ValidString(text) || strings.ContainsAny(text, "\x00\r") || text != strings.TrimSpace(text) {
			t.Fatalf("%q → %q", raw, text)
		}
		ev := ics.NewEvent("fuzz")
		ev.SetDescription(text)
		var b strings.Builder
		if err := ev.SerializeTo(&b, ical.Serialization); err != nil {
			t.Fatal(err)
		}
		cal, err := ics.ParseCalendar(strings.NewReader("BEGIN:VCALENDAR\r\n" + b.String() + "END:VCALENDAR\r\n"))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if text == "" {
			return
		}
		if got := cal.Events()[0].GetProperty(ics.ComponentPropertyDescription).Value; got != text {
			t.Fatalf("DESCRIPTION %q reads back as %q", text, got)
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
		ev.SetProperty(ical.WithParams(ics.ComponentPropertyOrganizer, "CN", name), "mailto:x@example.com")
		var b strings.Builder
		if err := ev.SerializeTo(&b, ical.Serialization); err != nil {
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
