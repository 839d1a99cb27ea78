package recurrence

import (
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary lines to the parser: it must never panic, and whatever it accepts must normalise to
// lines it accepts again unchanged, with the same occurrences, within the limit.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH",
		"RRULE:FREQ=MONTHLY;BYDAY=1SU,-1SU;INTERVAL=2\nEXDATE:20260301T180000",
		"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO\nRDATE;TZID=America/New_York:20260110T120000,20260111T120000Z",
		"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
		"RRULE:FREQ=HOURLY;INTERVAL=5;BYHOUR=18,23\nEXDATE;VALUE=DATE:20260105",
		"RRULE:FREQ=DAILY;UNTIL=20260301T000000Z;BYMONTH=1,2",
		"rrule:freq=weekly;wkst=su;byday=mo",
		"RDATE;VALUE=PERIOD:20260112T180000/PT1H",
		"RRULE;X=\"a:b\":FREQ=WEEKLY",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	start := time.Date(2026, 1, 5, 18, 0, 0, 0, paris)
	f.Fuzz(func(t *testing.T, text string, allDay bool) {
		s := start
		if allDay {
			s = time.Date(2026, 1, 5, 0, 0, 0, 0, paris)
		}
		in := Input{Lines: strings.Split(text, "\n"), Start: s, AllDay: allDay, Horizon: s.AddDate(2, 0, 0)}
		set, err := Parse(in)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		_ = set.Text()
		lines := set.Lines()
		again, err := Parse(Input{Lines: lines, Start: s, AllDay: allDay, Horizon: in.Horizon})
		if err != nil {
			t.Fatalf("normalised lines %q refused: %v", lines, err)
		}
		if strings.Join(again.Lines(), "\n") != strings.Join(lines, "\n") {
			t.Fatalf("normalising %q again gave %q", lines, again.Lines())
		}
		a := set.Occurrences(in.Horizon, MaxOccurrences+1)
		b := again.Occurrences(in.Horizon, MaxOccurrences+1)
		if len(a) > MaxOccurrences || len(a) != len(b) {
			t.Fatalf("%d occurrences, %d after normalising", len(a), len(b))
		}
		if !a[0].Equal(s) {
			t.Fatalf("first occurrence %v is not the start", a[0])
		}
		for i := range a {
			if !a[i].Equal(b[i]) || i > 0 && !a[i].After(a[i-1]) {
				t.Fatalf("occurrence %d: %v / %v", i, a[i], b[i])
			}
		}
	})
}
