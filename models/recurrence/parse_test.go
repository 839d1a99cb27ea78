package recurrence

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var paris, _ = time.LoadLocation("Europe/Paris")

// monday1800 is a Monday 18:00 in Paris, the start of most cases below.
var monday1800 = time.Date(2026, 1, 5, 18, 0, 0, 0, paris)

func parse(lines []string, start time.Time, allDay bool) (*Set, error) {
	return Parse(Input{Lines: lines, Start: start, AllDay: allDay, Horizon: start.AddDate(2, 0, 0)})
}

func TestParseRefusesWithAReason(t *testing.T) {
	allDayStart := time.Date(2026, 1, 5, 0, 0, 0, 0, paris)
	cases := []struct {
		name   string
		lines  []string
		allDay bool
		start  time.Time
		want   string // a part of the reason
	}{
		{"no lines", nil, false, monday1800, "at least one RRULE"},
		{"only an EXDATE", []string{"EXDATE:20260112T180000"}, false, monday1800, "needs an RRULE"},
		{"not a content line", []string{"FREQ=WEEKLY"}, false, monday1800, "NAME:VALUE"},
		{"empty line", []string{""}, false, monday1800, "empty"},
		{"unparseable rule", []string{"RRULE:FREQ"}, false, monday1800, "not a rule part"},
		{"no FREQ", []string{"RRULE:COUNT=3"}, false, monday1800, "FREQ is required"},
		{"unknown part", []string{"RRULE:FREQ=WEEKLY;BYFOO=1"}, false, monday1800, "BYFOO is not a rule part"},
		{"library-only part", []string{"RRULE:FREQ=YEARLY;BYEASTER=0"}, false, monday1800, "BYEASTER is not a rule part"},
		{"unknown frequency", []string{"RRULE:FREQ=FORTNIGHTLY"}, false, monday1800, "not a frequency"},
		{"minutely", []string{"RRULE:FREQ=MINUTELY;COUNT=3"}, false, monday1800, "FREQ=MINUTELY is not supported"},
		{"secondly", []string{"RRULE:FREQ=SECONDLY;COUNT=3"}, false, monday1800, "FREQ=SECONDLY is not supported"},
		{"unknown day", []string{"RRULE:FREQ=WEEKLY;BYDAY=XX"}, false, monday1800, "not a day"},
		{"day position out of range", []string{"RRULE:FREQ=MONTHLY;BYDAY=54MO"}, false, monday1800, "position"},
		{"month out of range", []string{"RRULE:FREQ=YEARLY;BYMONTH=13"}, false, monday1800, "13 is out of range"},
		{"month day zero", []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=0"}, false, monday1800, "out of range"},
		{"not a number", []string{"RRULE:FREQ=WEEKLY;INTERVAL=two"}, false, monday1800, "INTERVAL=TWO"},
		{"zero interval", []string{"RRULE:FREQ=WEEKLY;INTERVAL=0"}, false, monday1800, "INTERVAL=0"},
		{"part twice", []string{"RRULE:FREQ=WEEKLY;FREQ=DAILY"}, false, monday1800, "FREQ is given twice"},
		{"COUNT and UNTIL", []string{"RRULE:FREQ=WEEKLY;COUNT=3;UNTIL=20270101T000000Z"}, false, monday1800, "COUNT and UNTIL"},
		{"COUNT over the limit", []string{"RRULE:FREQ=DAILY;COUNT=5001"}, false, monday1800, "more than the 5000"},
		{"too many up to the horizon", []string{"RRULE:FREQ=HOURLY"}, false, monday1800, "more than 5000 occurrences"},
		{"daily for ever is within the limit but hourly until far is not",
			[]string{"RRULE:FREQ=HOURLY;UNTIL=20270101T000000Z"}, false, monday1800, "more than 5000 occurrences"},
		{"UNTIL before the start", []string{"RRULE:FREQ=WEEKLY;UNTIL=20251231T000000Z"}, false, monday1800, "before the series' start"},
		{"ordinal day on a weekly rule", []string{"RRULE:FREQ=WEEKLY;BYDAY=2MO"}, false, monday1800, "needs FREQ=MONTHLY or YEARLY"},
		{"month day on a weekly rule", []string{"RRULE:FREQ=WEEKLY;BYMONTHDAY=5"}, false, monday1800, "BYMONTHDAY cannot be combined"},
		{"BYSETPOS alone", []string{"RRULE:FREQ=MONTHLY;BYSETPOS=1"}, false, monday1800, "BYSETPOS picks"},
		{"BYWEEKNO on a monthly rule", []string{"RRULE:FREQ=MONTHLY;BYWEEKNO=2"}, false, monday1800, "BYWEEKNO needs FREQ=YEARLY"},
		{"start not produced by the rule", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH"}, false, monday1800, "is not an occurrence of its RRULE"},
		{"start hour not in BYHOUR (an hourly rule that could never reach it)", []string{"RRULE:FREQ=HOURLY;INTERVAL=24;BYHOUR=5;COUNT=3"}, false, monday1800, "not an occurrence"},
		{"first occurrence excluded by its own EXDATE", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260105T180000"}, false, monday1800, "excludes the series' first occurrence"},
		{"first occurrence excluded, in UTC", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260105T170000Z"}, false, monday1800, "excludes the series' first occurrence"},
		{"RDATE before the start", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "RDATE:20260101T180000"}, false, monday1800, "before the series' start"},
		{"date-time EXDATE on an all-day series", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260112T000000"}, true, allDayStart, "EXDATE;VALUE=DATE:20260112"},
		{"bare date EXDATE on an all-day series", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260112"}, true, allDayStart, "VALUE=DATE"},
		{"date RDATE on a timed series", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "RDATE;VALUE=DATE:20260112"}, false, monday1800, "takes date-times"},
		{"bare date RDATE on a timed series", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "RDATE:20260112"}, false, monday1800, "is a date, but this series has times"},
		{"period RDATE", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "RDATE;VALUE=PERIOD:20260112T180000/PT1H"}, false, monday1800, "PERIOD is not supported"},
		{"date-time UNTIL on an all-day series", []string{"RRULE:FREQ=WEEKLY;UNTIL=20260301T000000Z"}, true, allDayStart, "UNTIL of an all-day series is a date"},
		{"date UNTIL on a timed series", []string{"RRULE:FREQ=WEEKLY;UNTIL=20260301"}, false, monday1800, "UNTIL of a series with times is a date-time"},
		{"hourly all-day series", []string{"RRULE:FREQ=HOURLY;COUNT=3"}, true, allDayStart, "does not fit an all-day series"},
		{"BYHOUR on an all-day series", []string{"RRULE:FREQ=DAILY;COUNT=3;BYHOUR=9"}, true, allDayStart, "BYHOUR does not fit"},
		{"bad date", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260230T180000"}, false, monday1800, "not a date-time of the calendar"},
		{"unknown time zone", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Mars/Olympus:20260112T180000"}, false, monday1800, "not a known IANA time zone"},
		{"unknown parameter", []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;X-FOO=1:20260112T180000"}, false, monday1800, "takes only the VALUE and TZID"},
		{"RRULE with a parameter", []string{"RRULE;X=1:FREQ=WEEKLY"}, false, monday1800, "RRULE takes no parameters"},
		{"DTSTART line", []string{"DTSTART:20260105T180000", "RRULE:FREQ=WEEKLY"}, false, monday1800, "DTSTART is not a recurrence line"},
		{"EXRULE line", []string{"RRULE:FREQ=WEEKLY", "EXRULE:FREQ=MONTHLY"}, false, monday1800, "EXRULE is not supported"},
		{"unknown line", []string{"RRULE:FREQ=WEEKLY", "SUMMARY:party"}, false, monday1800, "unknown line SUMMARY"},
		{"RFC's own Friday-the-13th start", []string{"RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "EXDATE:19970902T090000"}, false,
			time.Date(1997, 9, 2, 9, 0, 0, 0, paris), "excludes the series' first occurrence"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(c.lines, c.start, c.allDay)
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a *recurrence.Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("reason %q does not say %q", err, c.want)
			}
		})
	}
}

func TestParseNamesTheLine(t *testing.T) {
	_, err := parse([]string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:nonsense"}, monday1800, false)
	if err == nil || !strings.HasPrefix(err.Error(), "line 2 (EXDATE:nonsense): ") {
		t.Fatalf("got %v", err)
	}
}

func TestLinesAreNormalised(t *testing.T) {
	cases := []struct {
		in     []string
		allDay bool
		want   []string
	}{
		{[]string{"rrule:freq=weekly;byday=th,tu,mo;interval=1;wkst=mo;count=10"}, false,
			[]string{"RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO,TU,TH"}},
		{[]string{" RRULE:FREQ=WEEKLY;UNTIL=20260301T180000 "}, false, // naive UNTIL in Paris, 17:00 UTC
			[]string{"RRULE:FREQ=WEEKLY;UNTIL=20260301T170000Z"}},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1,5,5;BYSETPOS=1;INTERVAL=2;WKST=SU"}, false,
			[]string{"RRULE:FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=-1,5;BYSETPOS=1;WKST=SU"}},
		{[]string{"RRULE:FREQ=WEEKLY", "EXDATE:20260119T180000", "EXDATE:20260112T170000Z,20260119T180000", "RDATE;TZID=America/New_York:20260110T120000"}, false,
			[]string{"RRULE:FREQ=WEEKLY", "RDATE:20260110T180000", "EXDATE:20260112T180000,20260119T180000"}},
		{[]string{"RRULE:FREQ=WEEKLY;UNTIL=20260301", "EXDATE;VALUE=DATE:20260119,20260112"}, true,
			[]string{"RRULE:FREQ=WEEKLY;UNTIL=20260301", "EXDATE;VALUE=DATE:20260112,20260119"}},
		{[]string{"RRULE:FREQ=WEEKLY;COUNT=2", "RRULE:FREQ=WEEKLY;COUNT=2"}, false, []string{"RRULE:FREQ=WEEKLY;COUNT=2"}},
	}
	for _, c := range cases {
		start := monday1800
		if c.allDay {
			start = time.Date(2026, 1, 5, 0, 0, 0, 0, paris)
		}
		s, err := parse(c.in, start, c.allDay)
		if err != nil {
			t.Fatalf("%v: %v", c.in, err)
		}
		if got := strings.Join(s.Lines(), "|"); got != strings.Join(c.want, "|") {
			t.Errorf("%v:\n got %s\nwant %s", c.in, got, strings.Join(c.want, "|"))
		}
		// Normalised lines read back to the same lines and the same occurrences.
		again, err := parse(s.Lines(), start, c.allDay)
		if err != nil {
			t.Fatalf("normalised %v: %v", s.Lines(), err)
		}
		if strings.Join(again.Lines(), "|") != strings.Join(s.Lines(), "|") {
			t.Errorf("normalising twice changed %v into %v", s.Lines(), again.Lines())
		}
		end := start.AddDate(1, 0, 0)
		if a, b := s.Occurrences(end, 100), again.Occurrences(end, 100); len(a) != len(b) {
			t.Errorf("%v: %d occurrences, %d after normalising", c.in, len(a), len(b))
		}
	}
}

func TestBetweenAndFinite(t *testing.T) {
	open, err := parse([]string{"RRULE:FREQ=WEEKLY"}, monday1800, false)
	if err != nil {
		t.Fatal(err)
	}
	if open.Finite() {
		t.Error("a rule without COUNT or UNTIL is finite")
	}
	got := open.Between(monday1800.AddDate(0, 0, 7), monday1800.AddDate(0, 0, 21), 10)
	if len(got) != 2 || !got[0].Equal(monday1800.AddDate(0, 0, 7)) || !got[1].Equal(monday1800.AddDate(0, 0, 14)) {
		t.Errorf("Between: %v", got)
	}
	if n := len(open.Until(monday1800.AddDate(2, 0, 0), MaxOccurrences)); n != 105 {
		t.Errorf("two years of a weekly series: %d occurrences, want 105", n)
	}
	closed, err := parse([]string{"RRULE:FREQ=WEEKLY;COUNT=2", "RRULE:FREQ=DAILY;UNTIL=20260110T000000Z"}, monday1800, false)
	if err != nil {
		t.Fatal(err)
	}
	if !closed.Finite() {
		t.Error("rules with COUNT and UNTIL are not finite")
	}
}

// Positions that no period can have are refused by their bounds, before the library would search to the year 9999.
func TestParseRefusesPositionsNoPeriodHas(t *testing.T) {
	for line, want := range map[string]string{
		"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=70": "BYSETPOS goes from 1 to 31",
		"RRULE:FREQ=MONTHLY;BYDAY=6MO":                        "at most 5 of each day",
		"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-6MO":              "at most 5 of each day",
		"RRULE:FREQ=DAILY;BYHOUR=18,19;BYSETPOS=3":            "BYSETPOS goes from 1 to 2",
	} {
		_, err := parse([]string{line}, monday1800, false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", line, err, want)
		}
	}
}
