// Package ical writes iCalendar (RFC 5545) objects: the calendar's head with a VTIMEZONE per zone, events one at
// a time, and the end, in RFC 5545's line format. golang-ical serialises every property (escaping, folding at 75
// octets, CRLF); this package adds what it lacks: parameter values quoted as RFC 5545 requires, VTIMEZONEs read
// from Go's zone database, and streaming.
package ical

import (
	"fmt"
	"io"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
)

// ContentType is the media type of every iCalendar answer.
const ContentType = "text/calendar; charset=utf-8"

// Serialization is RFC 5545's line format: CRLF, lines folded at 75 octets.
var Serialization = &ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: "\r\n"}

// Layouts of iCalendar dates (RFC 5545 §3.3.4, §3.3.5): a wall-clock date-time (with TZID), and a date.
const (
	localLayout = "20060102T150405"
	dateLayout  = "20060102"
)

// Calendar is a calendar with the properties every iCalendar answer of the service has.
func Calendar() *ics.Calendar {
	cal := ics.NewCalendarFor("calendar")
	cal.SetProductId("-//calendar//Calendar REST API//EN")
	cal.SetCalscale("GREGORIAN")
	return cal
}

// Zone is a time zone that events of an object use, and the first and last instants they cover in it.
type Zone struct {
	TZID        string
	Loc         *time.Location
	First, Last time.Time
}

// Writer writes one iCalendar object part by part: the calendar's properties and time zones, then events one at a
// time, then its end. It keeps the first write error and writes nothing after it.
type Writer struct {
	w   io.Writer
	err error
	// zones are the TZIDs of the VTIMEZONEs written, with the first and last year each covers.
	zones map[string][2]int
}

// NewWriter is a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Err is the first error of a write, or the one Stop set.
func (w *Writer) Err() error { return w.err }

// Stop makes the writer write nothing more and report err.
func (w *Writer) Stop(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Begin writes the head: BEGIN:VCALENDAR, the properties, and a VTIMEZONE for every zone but UTC (whose events
// are written in UTC) that covers the years its events span.
func (w *Writer) Begin(props []ics.CalendarProperty, zones []Zone) {
	w.write(func(out io.Writer) error {
		_, err := io.WriteString(out, "BEGIN:VCALENDAR"+Serialization.NewLine)
		return err
	})
	for i := range props {
		w.write(func(out io.Writer) error { return props[i].SerializeTo(out, Serialization) })
	}
	w.zones = map[string][2]int{}
	for _, z := range zones {
		if z.Loc == time.UTC {
			continue
		}
		years := [2]int{z.First.In(z.Loc).Year(), z.Last.In(z.Loc).Year()}
		w.zones[z.TZID] = years
		tz := vtimezone(z.TZID, z.Loc, years[0], years[1])
		w.write(func(out io.Writer) error { return tz.SerializeTo(out, Serialization) })
	}
}

// Event writes one VEVENT.
func (w *Writer) Event(ev *ics.VEvent) {
	w.write(func(out io.Writer) error { return ev.SerializeTo(out, Serialization) })
}

// End writes END:VCALENDAR.
func (w *Writer) End() {
	w.write(func(out io.Writer) error {
		_, err := io.WriteString(out, "END:VCALENDAR"+Serialization.NewLine)
		return err
	})
}

func (w *Writer) write(part func(io.Writer) error) {
	if w.err == nil {
		w.err = part(w.w)
	}
}

// SetTimes writes DTSTART and DTEND of an event from start to end in zone tzid (loc): dates for all-day events
// (DTEND, exclusive in RFC 5545 §3.6.1, is the day after the last); the wall clock with TZID where the object has
// a VTIMEZONE covering the event (an event written into the database while a feed is read may have none), else
// UTC.
func (w *Writer) SetTimes(ev *ics.VEvent, tzid string, loc *time.Location, startUTC, endUTC time.Time, allDay bool) {
	start, end := startUTC.In(loc), endUTC.In(loc)
	years, zoned := w.zones[tzid]
	switch {
	case allDay:
		ev.SetAllDayStartAt(start)
		ev.SetAllDayEndAt(time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, loc))
	case zoned && start.Year() >= years[0] && end.Year() <= years[1]:
		ev.SetProperty(WithParams(ics.ComponentPropertyDtStart, "TZID", tzid), start.Format(localLayout))
		ev.SetProperty(WithParams(ics.ComponentPropertyDtEnd, "TZID", tzid), end.Format(localLayout))
	default:
		ev.SetStartAt(startUTC)
		ev.SetEndAt(endUTC)
	}
}

// WithParams names a property together with parameters, written as RFC 5545 §3.2 requires. golang-ical writes
// parameter values with backslash escapes, which iCalendar parsers read literally, and quotes none but ALTREP,
// so a CN "Smith, John" or a TZID "UTC+5:30" would break the line. It writes a property's name as given (its own
// REFRESH-INTERVAL;VALUE=DURATION relies on that), then the value and the folding: so the parameters go with
// the name. Only properties whose values need no text escaping (date-times, addresses) are written this way.
func WithParams(name ics.ComponentProperty, kv ...string) ics.ComponentProperty {
	var b strings.Builder
	b.WriteString(string(name))
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(";" + kv[i] + "=" + paramValue(kv[i+1]))
	}
	return ics.ComponentProperty(b.String())
}

// paramValue is a parameter value as RFC 5545 §3.2 writes it: quoted when it holds ':', ';', ',' or non-ASCII
// text; a double quote, which no parameter value may hold, becomes an apostrophe, and control characters go.
func paramValue(v string) string {
	quote := false
	v = strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r < 0x20 || r == 0x7f:
			return -1
		case r == ':' || r == ';' || r == ',' || r > 0x7e:
			quote = true
		}
		return r
	}, v)
	if quote {
		return `"` + v + `"`
	}
	return v
}

// vtimezone is the VTIMEZONE of loc, named tzid, for the years from to to: the observance in effect on 1 January
// of the first year, then a STANDARD or DAYLIGHT for every transition until the end of the last, each with its
// onset (on the wall clock before it), the offsets before and after and the abbreviation, read from Go's zone
// database. Explicit observances rather than RRULEs are exact for every year covered, whatever the zone's
// history: rules change (a zone that drops daylight saving), transitions do not lie.
func vtimezone(tzid string, loc *time.Location, from, to int) *ics.VTimezone {
	tz := ics.NewTimezone(tzid)
	t := time.Date(from, 1, 1, 0, 0, 0, 0, loc)
	end := time.Date(to+1, 1, 1, 0, 0, 0, 0, loc)
	name, offset := t.Zone()
	tz.Components = append(tz.Components, observance(t.IsDST(), t, offset, offset, name))
	for {
		_, next := t.ZoneBounds()
		if next.IsZero() || !next.Before(end) {
			return tz
		}
		_, before := t.Zone()
		name, after := next.Zone()
		onset := next.In(time.FixedZone("", before))
		tz.Components = append(tz.Components, observance(next.IsDST(), onset, before, after, name))
		t = next
	}
}

// observance is one STANDARD or DAYLIGHT component: from onset (a wall-clock time), the offset changes from
// before to after seconds east of UTC, and the zone is called name.
func observance(daylight bool, onset time.Time, before, after int, name string) ics.Component {
	base := ics.ComponentBase{}
	base.SetProperty(ics.ComponentPropertyDtStart, onset.Format(localLayout))
	base.SetProperty(ics.ComponentProperty(ics.PropertyTzoffsetfrom), utcOffset(before))
	base.SetProperty(ics.ComponentProperty(ics.PropertyTzoffsetto), utcOffset(after))
	base.SetProperty(ics.ComponentProperty(ics.PropertyTzname), name)
	if daylight {
		return &ics.Daylight{ComponentBase: base}
	}
	return &ics.Standard{ComponentBase: base}
}

// utcOffset writes seconds east of UTC as an iCalendar UTC offset: "+0100", "-0530", with seconds when not 0.
func utcOffset(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	out := fmt.Sprintf("%s%02d%02d", sign, seconds/3600, seconds/60%60)
	if seconds%60 != 0 {
		out += fmt.Sprintf("%02d", seconds%60)
	}
	return out
}
