package recurrence

import (
	"strings"
	"testing"
	"time"
)

func TestSplitLeavesBothHalvesWithTheRightOccurrences(t *testing.T) {
	for _, lines := range [][]string{
		{"RRULE:FREQ=WEEKLY;COUNT=6", "EXDATE:20260112T180000", "RDATE:20260128T120000"},
		{"RRULE:FREQ=WEEKLY;UNTIL=20260209T180000", "EXDATE:20260126T180000"},
		{"RRULE:FREQ=WEEKLY"},
	} {
		s, err := parse(lines, monday1800, false)
		if err != nil {
			t.Fatal(err)
		}
		end := monday1800.AddDate(0, 3, 0)
		all := s.Occurrences(end, 100)
		at := time.Date(2026, 1, 19, 18, 0, 0, 0, paris)
		head, err := s.EndBefore(at)
		if err != nil {
			t.Fatal(err)
		}
		tail, err := s.From(at)
		if err != nil {
			t.Fatal(err)
		}
		got := append(head.Occurrences(end, 100), tail.Occurrences(end, 100)...)
		if len(got) != len(all) {
			t.Fatalf("%v: split into %d occurrences, want %d", lines, len(got), len(all))
		}
		for i := range all {
			if !got[i].Equal(all[i]) {
				t.Errorf("%v: occurrence %d is %v, want %v", lines, i, got[i], all[i])
			}
		}
		// Both halves are series the parser accepts as they are written.
		for _, half := range []*Set{head, tail} {
			if _, err := parse(half.Lines(), half.Start(), false); err != nil {
				t.Errorf("%v: half %v refused: %v", lines, half.Lines(), err)
			}
		}
		if !strings.Contains(strings.Join(head.Lines(), " "), "UNTIL=20260119T165959Z") {
			t.Errorf("%v: the first half ends %v", lines, head.Lines())
		}
		if !tail.Start().Equal(at) {
			t.Errorf("the second half starts at %v", tail.Start())
		}
	}
}

func TestWithExdate(t *testing.T) {
	s, _ := parse([]string{"RRULE:FREQ=WEEKLY;COUNT=3"}, monday1800, false)
	c, err := s.WithExdate(monday1800.AddDate(0, 0, 7))
	if err != nil || strings.Join(c.Lines(), "|") != "RRULE:FREQ=WEEKLY;COUNT=3|EXDATE:20260112T180000" {
		t.Fatalf("%v %v", c, err)
	}
	if len(s.Lines()) != 1 {
		t.Error("WithExdate changed the series it was called on")
	}
	if _, err := s.WithExdate(monday1800); err == nil {
		t.Error("the first occurrence was excluded")
	}
}
