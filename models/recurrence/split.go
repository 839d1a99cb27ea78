package recurrence

import (
	"fmt"
	"slices"
	"time"
)

// WithExdate returns the series with t excluded (a cancelled occurrence). The series' first occurrence cannot be
// excluded: a series starts with an occurrence, so cancelling the first one means starting the series later.
func (s *Set) WithExdate(t time.Time) (*Set, error) {
	if t.Equal(s.start) {
		return nil, &Error{Reason: "the first occurrence of a series cannot be excluded: move the series' start_date instead"}
	}
	c := s.clone()
	c.exdates = sortedUnique(append(c.exdates, t.In(s.start.Location())))
	return c, nil
}

// Including returns the series with t among its occurrences again: t is no longer an EXDATE, and when no rule or
// RDATE produces it then, it becomes an RDATE. It is what restoring a cancelled occurrence does to its series.
func (s *Set) Including(t time.Time) *Set {
	c := s.clone()
	c.exdates = slices.DeleteFunc(c.exdates, t.Equal)
	if got := c.Between(t, t.Add(time.Second), 1); len(got) == 0 || !got[0].Equal(t) {
		c.rdates = sortedUnique(append(c.rdates, t.In(s.start.Location())))
	}
	return c
}

// EndBefore returns the series cut just before t: every rule gets an UNTIL before t (a COUNT becomes that UNTIL),
// and the RDATE and EXDATE values from t on are dropped. It is the series that remains when an occurrence and
// everything after it go elsewhere (split) or away. t must be after the series' start.
func (s *Set) EndBefore(t time.Time) (*Set, error) {
	if !t.After(s.start) {
		return nil, &Error{Reason: "a series cannot end before its first occurrence"}
	}
	c := s.clone()
	until := t.Add(-time.Second)
	if s.allDay {
		y, m, d := t.In(s.start.Location()).Date()
		until = time.Date(y, m, d-1, 0, 0, 0, 0, s.start.Location())
	}
	for i := range c.rules {
		r := &c.rules[i]
		if r.opt.Count > 0 {
			r.opt.Count = 0
		} else if !r.opt.Until.IsZero() && r.opt.Until.Before(until) {
			continue
		}
		r.opt.Until, r.untilDate = until, s.allDay
	}
	c.rdates = before(c.rdates, t)
	c.exdates = before(c.exdates, t)
	return c, nil
}

// From returns the series that starts at t, one of s's occurrences produced by a rule, and goes on as s does: each
// rule's COUNT is what is left of it at t, and the RDATE and EXDATE values from t on are kept. With EndBefore it
// splits a series in two.
func (s *Set) From(t time.Time) (*Set, error) {
	t = t.In(s.start.Location())
	c := s.clone()
	c.start = t
	produced := false
	for i := range c.rules {
		r := &c.rules[i]
		next := s.rules[i].iterator()
		used := 0
		for {
			o, ok := next()
			if !ok || !o.Before(t) {
				produced = produced || ok && o.Equal(t)
				break
			}
			used++
		}
		if r.opt.Count > 0 {
			if r.opt.Count-used <= 0 {
				return nil, &Error{Reason: fmt.Sprintf("rule %d has no occurrence left at %s", i+1, s.formatValue(t))}
			}
			r.opt.Count -= used
		}
		r.opt.Dtstart = t
	}
	if !produced {
		return nil, &Error{Reason: fmt.Sprintf("%s is not an occurrence of the series' rules, so a series cannot start there", s.formatValue(t))}
	}
	c.rdates = atOrAfter(c.rdates, t)
	c.exdates = atOrAfter(c.exdates, t)
	return c, nil
}

// clone copies the series, so that changing the copy leaves s as it is.
func (s *Set) clone() *Set {
	c := *s
	c.rules = append([]rule(nil), s.rules...)
	c.rdates = append([]time.Time(nil), s.rdates...)
	c.exdates = append([]time.Time(nil), s.exdates...)
	return &c
}

// before keeps the instants before t.
func before(ts []time.Time, t time.Time) []time.Time {
	out := ts[:0]
	for _, x := range ts {
		if x.Before(t) {
			out = append(out, x)
		}
	}
	return out
}

// atOrAfter keeps the instants at or after t.
func atOrAfter(ts []time.Time, t time.Time) []time.Time {
	out := ts[:0]
	for _, x := range ts {
		if !x.Before(t) {
			out = append(out, x)
		}
	}
	return out
}
