package recurrence

import (
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// iterator returns the rule's occurrences in order, starting at the series' start.
func (r rule) iterator() rrule.Next {
	rr, err := rrule.NewRRule(r.opt)
	if err != nil {
		// parseRule checked every bound NewRRule checks; reaching this is a defect of this package.
		panic("recurrence: a checked rule was refused: " + err.Error())
	}
	next := rr.Iterator()
	return func() (time.Time, bool) {
		t, ok := next()
		return fixAmbiguous(t), ok
	}
}

// fixAmbiguous corrects an occurrence whose wall-clock time happens twice (the hour repeated when daylight saving
// ends). RFC 5545 (3.3.5) takes the first of the two; the library builds occurrences with time.Date, which may pick
// either. Failing case without this: FREQ=WEEKLY from 2026-10-18 02:30 Europe/Paris gave 2026-10-25 02:30 CET
// (01:30Z), one hour after the RFC's 02:30 CEST (00:30Z).
func fixAmbiguous(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	earlier := t.Add(-time.Hour)
	if earlier.Hour() == t.Hour() && earlier.Minute() == t.Minute() && earlier.Day() == t.Day() {
		return earlier
	}
	return t
}

// Occurrences returns the series' occurrences in order: the start, the rules' dates and the RDATE values, without
// repeats or EXDATE values. It stops after the last one at or before end, or after limit occurrences.
func (s *Set) Occurrences(end time.Time, limit int) []time.Time {
	var out []time.Time
	next := s.iterator()
	for len(out) < limit {
		t, ok := next()
		if !ok || t.After(end) {
			break
		}
		out = append(out, t)
	}
	return out
}

// Until returns the occurrences at or before end, at most limit of them.
func (s *Set) Until(end time.Time, limit int) []time.Time {
	return s.Occurrences(end, limit)
}

// Between returns the occurrences from (inclusive) up to to (exclusive), at most limit of them.
func (s *Set) Between(from, to time.Time, limit int) []time.Time {
	var out []time.Time
	next := s.iterator()
	for len(out) < limit {
		t, ok := next()
		if !ok || !t.Before(to) {
			break
		}
		if !t.Before(from) {
			out = append(out, t)
		}
	}
	return out
}

// head is the next value of one source of occurrences.
type head struct {
	t    time.Time
	ok   bool
	next rrule.Next
}

// iterator merges the rules and the RDATE values in order, dropping repeats and EXDATE values.
func (s *Set) iterator() rrule.Next {
	heads := make([]head, 0, len(s.rules)+1)
	for _, r := range s.rules {
		next := r.iterator()
		t, ok := next()
		heads = append(heads, head{t, ok, next})
	}
	rdates := s.rdates
	rnext := func() (time.Time, bool) {
		if len(rdates) == 0 {
			return time.Time{}, false
		}
		t := rdates[0]
		rdates = rdates[1:]
		return t, true
	}
	t, ok := rnext()
	heads = append(heads, head{t, ok, rnext})
	excluded := make(map[int64]bool, len(s.exdates))
	for _, x := range s.exdates {
		excluded[x.Unix()] = true
	}
	var last time.Time
	return func() (time.Time, bool) {
		for {
			min := -1
			for i, h := range heads {
				if h.ok && (min < 0 || h.t.Before(heads[min].t)) {
					min = i
				}
			}
			if min < 0 {
				return time.Time{}, false
			}
			t := heads[min].t
			heads[min].t, heads[min].ok = heads[min].next()
			if !last.IsZero() && !t.After(last) {
				continue
			}
			last = t
			if excluded[t.Unix()] {
				continue
			}
			return t, true
		}
	}
}

// Lines returns the normalised lines: the RRULE lines as given (parts in a fixed order), then one RDATE and one
// EXDATE line with their values sorted, naive in the series' time zone (or dates for an all-day series).
func (s *Set) Lines() []string {
	out := make([]string, 0, len(s.rules)+2)
	seen := map[string]bool{}
	for _, r := range s.rules {
		if line := r.String(); !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	if len(s.rdates) > 0 {
		out = append(out, s.dateLine("RDATE", s.rdates))
	}
	if len(s.exdates) > 0 {
		out = append(out, s.dateLine("EXDATE", s.exdates))
	}
	return out
}

// dateLine writes an RDATE or EXDATE line.
func (s *Set) dateLine(name string, ts []time.Time) string {
	var b strings.Builder
	b.WriteString(name)
	if s.allDay {
		b.WriteString(";VALUE=DATE")
	}
	b.WriteByte(':')
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatFor(t.In(s.start.Location()), s.allDay))
	}
	return b.String()
}

// formatValue writes an instant for a person reading an error message.
func (s *Set) formatValue(t time.Time) string {
	t = t.In(s.start.Location())
	if s.allDay {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05")
}
