// Package recurrence reads, checks, normalises, expands and describes the recurrence lines of a series: RFC 5545
// RRULE, RDATE and EXDATE content lines, read in the time zone of the series' first occurrence.
//
// The rules themselves are expanded by github.com/teambition/rrule-go; this package parses the lines strictly (so
// that every mistake is reported with a reason a person can act on), enforces the service's limits, merges several
// rules with their extra and excluded dates, and corrects the library where it departs from RFC 5545.
package recurrence

import (
	"fmt"
	"strings"
	"time"
)

// MaxOccurrences is the most occurrences a series may have up to the horizon.
const MaxOccurrences = 5000

// MaxRules is the most RRULE lines a series may have.
const MaxRules = 5

// MaxLineLength bounds one content line, so that a hostile line cannot make parsing expensive.
const MaxLineLength = 64 << 10

// Error is a recurrence line that cannot be accepted. Line is the line's position in the input (1-based), or 0 when
// the problem concerns the lines together; Reason says what is wrong and how to put it right.
type Error struct {
	Line   int
	Text   string
	Reason string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Reason
	}
	return fmt.Sprintf("line %d (%s): %s", e.Line, clip(e.Text), e.Reason)
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// Input is what a series is made of: its lines, its first occurrence and whether it is all-day.
type Input struct {
	// Lines are the recurrence content lines as the client sent them.
	Lines []string
	// Start is the series' first occurrence (DTSTART), in the event's time zone: every naive date-time in the
	// lines, and the rules themselves, are read in Start's location. For an all-day series only its date counts.
	Start time.Time
	// AllDay makes the series' dates DATE values (VALUE=DATE) instead of date-times.
	AllDay bool
	// Horizon is how far an open-ended series is expanded; the series may have at most MaxOccurrences up to it.
	Horizon time.Time
}

// Set is a checked, normalised series definition.
type Set struct {
	start   time.Time
	allDay  bool
	rules   []rule
	rdates  []time.Time
	exdates []time.Time
}

// Parse reads and checks a series' lines. Every failure is an *Error.
func Parse(in Input) (*Set, error) {
	if len(in.Lines) == 0 {
		return nil, &Error{Reason: "give at least one RRULE line, e.g. RRULE:FREQ=WEEKLY;COUNT=10"}
	}
	start := in.Start.Truncate(time.Second)
	if in.AllDay {
		y, m, d := start.Date()
		start = time.Date(y, m, d, 0, 0, 0, 0, start.Location())
	}
	s := &Set{start: start, allDay: in.AllDay}
	for i, raw := range in.Lines {
		if err := s.addLine(i+1, raw); err != nil {
			return nil, err
		}
	}
	if len(s.rules) == 0 {
		return nil, &Error{Reason: "a series needs an RRULE line, e.g. RRULE:FREQ=WEEKLY;COUNT=10; RDATE and EXDATE only add to or remove from its occurrences"}
	}
	if len(s.rules) > MaxRules {
		return nil, &Error{Reason: fmt.Sprintf("at most %d RRULE lines are accepted", MaxRules)}
	}
	s.rdates = sortedUnique(s.rdates)
	s.exdates = sortedUnique(s.exdates)
	if err := s.check(in.Horizon); err != nil {
		return nil, err
	}
	return s, nil
}

// addLine parses one content line into s.
func (s *Set) addLine(n int, raw string) error {
	text := strings.TrimSpace(raw)
	fail := func(reason string) error { return &Error{Line: n, Text: text, Reason: reason} }
	if len(text) > MaxLineLength {
		return fail(fmt.Sprintf("the line is longer than %d bytes", MaxLineLength))
	}
	cl, err := splitContentLine(text)
	if err != nil {
		return fail(err.Error())
	}
	switch cl.name {
	case "RRULE":
		if len(cl.params) > 0 {
			return fail("RRULE takes no parameters: write RRULE:FREQ=…")
		}
		r, err := parseRule(cl.value, s.start, s.allDay)
		if err != nil {
			return fail(err.Error())
		}
		s.rules = append(s.rules, r)
	case "RDATE", "EXDATE":
		ts, err := parseDateList(cl, s.start.Location(), s.allDay)
		if err != nil {
			return fail(err.Error())
		}
		if cl.name == "RDATE" {
			s.rdates = append(s.rdates, ts...)
		} else {
			s.exdates = append(s.exdates, ts...)
		}
		if len(s.rdates) > MaxOccurrences || len(s.exdates) > MaxOccurrences {
			return fail(fmt.Sprintf("at most %d RDATE and %d EXDATE values are accepted", MaxOccurrences, MaxOccurrences))
		}
	case "DTSTART":
		return fail("DTSTART is not a recurrence line: the series starts at the event's start_date")
	case "EXRULE":
		return fail("EXRULE is not supported (RFC 5545 deprecates it): list the dates to leave out in an EXDATE line")
	default:
		return fail(fmt.Sprintf("unknown line %s: only RRULE, RDATE and EXDATE lines are accepted", cl.name))
	}
	return nil
}

// check applies the rules that concern the lines together.
func (s *Set) check(horizon time.Time) error {
	for _, t := range s.rdates {
		if t.Before(s.start) {
			return &Error{Reason: fmt.Sprintf("RDATE %s is before the series' start %s: start_date is the first occurrence, so move start_date or drop the RDATE",
				s.formatValue(t), s.formatValue(s.start))}
		}
	}
	if s.excluded(s.start) {
		return &Error{Reason: fmt.Sprintf("an EXDATE excludes the series' first occurrence %s: move start_date to the first occurrence you want instead",
			s.formatValue(s.start))}
	}
	if !s.producesStart() {
		return &Error{Reason: fmt.Sprintf("the series' start %s (a %s) is not an occurrence of its RRULE: start_date must be the first occurrence, so move it to a date the rule produces or change the rule",
			s.formatValue(s.start), s.start.Weekday())}
	}
	if horizon.Before(s.start) {
		horizon = s.start
	}
	if n := len(s.Until(horizon, MaxOccurrences+1)); n > MaxOccurrences {
		return &Error{Reason: fmt.Sprintf("the series would have more than %d occurrences up to %s: add a COUNT or an UNTIL, or repeat less often",
			MaxOccurrences, horizon.Format("2006-01-02"))}
	}
	return nil
}

// producesStart reports whether some rule yields the start itself. RFC 5545 leaves the set undefined when DTSTART
// is not synchronised with the rule (and the library then skips it); this service requires it.
func (s *Set) producesStart() bool {
	for _, r := range s.rules {
		if !r.couldProduce(s.start) {
			continue
		}
		if first, ok := r.iterator()(); ok && first.Equal(s.start) {
			return true
		}
	}
	return false
}

// excluded reports whether t is one of the EXDATE values.
func (s *Set) excluded(t time.Time) bool {
	for _, x := range s.exdates {
		if x.Equal(t) {
			return true
		}
	}
	return false
}

// Start is the series' first occurrence.
func (s *Set) Start() time.Time { return s.start }

// AllDay reports whether the series' values are dates.
func (s *Set) AllDay() bool { return s.allDay }

// Finite reports whether every rule ends by itself (COUNT or UNTIL), so the series does not need the horizon.
func (s *Set) Finite() bool {
	for _, r := range s.rules {
		if r.opt.Count == 0 && r.opt.Until.IsZero() {
			return false
		}
	}
	return true
}
