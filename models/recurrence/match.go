package recurrence

import (
	"sort"
	"time"
)

// Matching is how a series' stored occurrences meet its occurrences after a change of the series.
type Matching struct {
	// Kept maps the index of a stored occurrence to its new original start (its RECURRENCE-ID): the same instant,
	// or the instant the series' move of its start moved it to.
	Kept map[int]time.Time
	// Added are the new starts no stored occurrence has: occurrences to create, in order.
	Added []time.Time
	// Removed are the indexes of stored occurrences the series no longer produces: occurrences to delete.
	Removed []int
	// Shifted maps each of Removed to its original start moved as the series' start moved: where a cancelled
	// occurrence, which the series no longer produces, follows its moved EXDATE.
	Shifted map[int]time.Time
}

// Match pairs stored occurrences (their original starts, in any order) with the starts a series now produces.
// An occurrence keeps its identity for as long as the series still produces its original start; when the series'
// first occurrence moves from oldStart to newStart (a later time of day, another day), every original start moves
// by the same wall-clock step in the series' time zone first, so that moving a weekly 18:00 series to 19:00 moves
// its occurrences instead of replacing them. An all-day series moves by whole days.
func Match(stored []time.Time, oldStart, newStart time.Time, starts []time.Time) Matching {
	loc := newStart.Location()
	shift := wallShift(oldStart.In(loc), newStart)
	produced := make(map[int64]bool, len(starts))
	for _, t := range starts {
		produced[t.Unix()] = true
	}
	m := Matching{Kept: map[int]time.Time{}, Shifted: map[int]time.Time{}}
	taken := map[int64]bool{}
	for i, rid := range stored {
		moved := shift.apply(rid.In(loc))
		if produced[moved.Unix()] && !taken[moved.Unix()] {
			m.Kept[i] = moved
			taken[moved.Unix()] = true
			continue
		}
		m.Removed = append(m.Removed, i)
		m.Shifted[i] = moved
	}
	for _, t := range starts {
		if !taken[t.Unix()] {
			m.Added = append(m.Added, t)
		}
	}
	sort.Ints(m.Removed)
	return m
}

// step is a move on the wall clock: days, then a time of day.
type step struct {
	days  int
	clock time.Duration
}

// wallShift is the wall-clock step from a to b (both read in b's zone).
func wallShift(a, b time.Time) step {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	days := int(time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC).Sub(time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
	return step{days: days, clock: clockOf(b) - clockOf(a)}
}

// clockOf is the time of day of t on its wall clock.
func clockOf(t time.Time) time.Duration {
	h, m, s := t.Clock()
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second
}

// apply moves t by the step on its own wall clock, as the rules build their occurrences (a time the zone skips or
// repeats that day is read as the rules read it).
func (s step) apply(t time.Time) time.Time {
	y, m, d := t.Date()
	secs := int((clockOf(t) + s.clock) / time.Second)
	return fixAmbiguous(time.Date(y, m, d+s.days, 0, 0, secs, 0, t.Location()))
}

// MoveDates returns s with its RDATE and EXDATE values moved by the wall-clock step that takes oldStart, the
// series' first occurrence before a move, to s's: what the move does to every occurrence (Match), it does to the
// dates the series adds and cancels, so that an occurrence cancelled at 18:00 stays cancelled once the series
// moves to 19:00 instead of coming back, and an added date moves with the others.
func (s *Set) MoveDates(oldStart time.Time) *Set {
	loc := s.start.Location()
	shift := wallShift(oldStart.In(loc), s.start)
	if shift == (step{}) {
		return s
	}
	moved := *s
	moved.rdates = shift.applyAll(s.rdates, loc)
	moved.exdates = shift.applyAll(s.exdates, loc)
	return &moved
}

// applyAll moves each of ts, read in loc, by the step.
func (s step) applyAll(ts []time.Time, loc *time.Location) []time.Time {
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = s.apply(t.In(loc))
	}
	return sortedUnique(out)
}
