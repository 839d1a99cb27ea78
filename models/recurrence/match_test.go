package recurrence

import (
	"testing"
	"time"
)

func weekly(t *testing.T, start time.Time, lines ...string) []time.Time {
	t.Helper()
	s, err := parse(lines, start, false)
	if err != nil {
		t.Fatal(err)
	}
	return s.Occurrences(start.AddDate(1, 0, 0), MaxOccurrences)
}

func TestMatchKeepsWhatTheRuleStillProduces(t *testing.T) {
	old := weekly(t, monday1800, "RRULE:FREQ=WEEKLY;COUNT=5")
	// The series now ends a week earlier and skips its second week.
	now := weekly(t, monday1800, "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20260112T180000")
	m := Match(old, monday1800, monday1800, now)
	if len(m.Kept) != 3 || len(m.Added) != 0 || len(m.Removed) != 2 || m.Removed[0] != 1 || m.Removed[1] != 4 {
		t.Fatalf("%+v", m)
	}
	for i, rid := range m.Kept {
		if !rid.Equal(old[i]) {
			t.Errorf("occurrence %d kept as %v, was %v", i, rid, old[i])
		}
	}
	// Lengthened: the stored ones stay, the new ones are added.
	longer := weekly(t, monday1800, "RRULE:FREQ=WEEKLY;COUNT=7")
	m = Match(old, monday1800, monday1800, longer)
	if len(m.Kept) != 5 || len(m.Added) != 2 || !m.Added[0].Equal(longer[5]) || len(m.Removed) != 0 {
		t.Fatalf("%+v", m)
	}
}

func TestMatchMovesOccurrencesWithTheStart(t *testing.T) {
	// Weekly at 18:00 in Paris across the spring change, moved to 19:00 and then to the Tuesday.
	start := time.Date(2026, 3, 16, 18, 0, 0, 0, paris)
	old := weekly(t, start, "RRULE:FREQ=WEEKLY;COUNT=4")
	later := start.Add(time.Hour)
	now := weekly(t, later, "RRULE:FREQ=WEEKLY;COUNT=4")
	m := Match(old, start, later, now)
	if len(m.Kept) != 4 || len(m.Added) != 0 || len(m.Removed) != 0 {
		t.Fatalf("moved an hour: %+v", m)
	}
	for i := range old {
		if !m.Kept[i].Equal(now[i]) || m.Kept[i].In(paris).Hour() != 19 {
			t.Errorf("occurrence %d moved to %v, want %v", i, m.Kept[i], now[i])
		}
	}
	tuesday := start.AddDate(0, 0, 1)
	now = weekly(t, tuesday, "RRULE:FREQ=WEEKLY;COUNT=4")
	m = Match(old, start, tuesday, now)
	if len(m.Kept) != 4 || !m.Kept[1].Equal(time.Date(2026, 3, 24, 18, 0, 0, 0, paris)) {
		t.Fatalf("moved a day: %+v", m)
	}
}
