package recurrence

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// ym lists days of one month as YYYYMMDD values: ym("199709", 2, 4) is 19970902, 19970904.
func ym(month string, days ...int) []string {
	out := make([]string, len(days))
	for i, d := range days {
		out[i] = fmt.Sprintf("%s%02d", month, d)
	}
	return out
}

// cat joins lists of values.
func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// span lists the days from..to of one month.
func span(month string, from, to int) []string {
	var days []int
	for d := from; d <= to; d++ {
		days = append(days, d)
	}
	return ym(month, days...)
}

// rfcCase is one expansion checked against the occurrences RFC 5545 lists (or, for the cases the RFC has no
// example of, against a calendar).
type rfcCase struct {
	name   string
	zone   string
	start  string // YYYYMMDDTHHMMSS, or YYYYMMDD for an all-day series
	lines  []string
	take   int      // how many occurrences to compare (a rule without end goes on)
	want   []string // YYYYMMDD (at the start's clock time) or YYYYMMDDTHHMMSS, in the zone
	total  int      // for a finite series: how many occurrences it has in all
	wantTZ []string // optional: the UTC offsets of the first occurrences, e.g. "-0400"
}

const ny = "America/New_York"

// rfcCases are the examples of RFC 5545 section 3.8.5.3 (DTSTART;TZID=America/New_York unless stated), and the
// cases the service adds: all-day series, daylight-saving changes, days missing from some months.
var rfcCases = []rfcCase{
	{name: "daily for 10 occurrences", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=DAILY;COUNT=10"},
		want: span("199709", 2, 11), total: 10},
	{name: "daily until December 24, 1997", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=DAILY;UNTIL=19971224T000000Z"},
		want: cat(span("199709", 2, 30), span("199710", 1, 31), span("199711", 1, 30), span("199712", 1, 23)), total: 113},
	{name: "every other day, forever", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=DAILY;INTERVAL=2"},
		take: 17, want: cat(ym("199709", 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), ym("199710", 2, 4))},
	{name: "every 10 days, 5 occurrences", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=DAILY;INTERVAL=10;COUNT=5"},
		want: cat(ym("199709", 2, 12, 22), ym("199710", 2, 12)), total: 5},
	{name: "every day in January, for 3 years (yearly)", zone: ny, start: "19980101T090000",
		lines: []string{"RRULE:FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA"},
		want:  cat(span("199801", 1, 31), span("199901", 1, 31), span("200001", 1, 31)), total: 93},
	{name: "every day in January, for 3 years (daily)", zone: ny, start: "19980101T090000",
		lines: []string{"RRULE:FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1"},
		want:  cat(span("199801", 1, 31), span("199901", 1, 31), span("200001", 1, 31)), total: 93},
	{name: "weekly for 10 occurrences", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=WEEKLY;COUNT=10"},
		want: cat(ym("199709", 2, 9, 16, 23, 30), ym("199710", 7, 14, 21, 28), ym("199711", 4)), total: 10},
	{name: "weekly until December 24, 1997", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=19971224T000000Z"},
		want: cat(ym("199709", 2, 9, 16, 23, 30), ym("199710", 7, 14, 21, 28), ym("199711", 4, 11, 18, 25), ym("199712", 2, 9, 16, 23)), total: 17},
	{name: "every other week, forever", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;WKST=SU"},
		take: 13, want: cat(ym("199709", 2, 16, 30), ym("199710", 14, 28), ym("199711", 11, 25), ym("199712", 9, 23), ym("199801", 6, 20), ym("199802", 3, 17))},
	{name: "weekly on Tuesday and Thursday for five weeks (UNTIL)", zone: ny, start: "19970902T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH"},
		want:  cat(ym("199709", 2, 4, 9, 11, 16, 18, 23, 25, 30), ym("199710", 2)), total: 10},
	{name: "weekly on Tuesday and Thursday for five weeks (COUNT)", zone: ny, start: "19970902T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH"},
		want:  cat(ym("199709", 2, 4, 9, 11, 16, 18, 23, 25, 30), ym("199710", 2)), total: 10},
	{name: "every other week on Monday, Wednesday and Friday until December 24, 1997", zone: ny, start: "19970901T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR"},
		want: cat(ym("199709", 1, 3, 5, 15, 17, 19, 29), ym("199710", 1, 3, 13, 15, 17, 27, 29, 31), ym("199711", 10, 12, 14, 24, 26, 28),
			ym("199712", 8, 10, 12, 22)), total: 25},
	{name: "every other week on Tuesday and Thursday, 8 occurrences", zone: ny, start: "19970902T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH"},
		want:  cat(ym("199709", 2, 4, 16, 18, 30), ym("199710", 2, 14, 16)), total: 8},
	{name: "monthly on the first Friday, 10 occurrences", zone: ny, start: "19970905T090000", lines: []string{"RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR"},
		want: cat(ym("199709", 5), ym("199710", 3), ym("199711", 7), ym("199712", 5), ym("199801", 2), ym("199802", 6), ym("199803", 6),
			ym("199804", 3), ym("199805", 1), ym("199806", 5)), total: 10},
	{name: "monthly on the first Friday until December 24, 1997", zone: ny, start: "19970905T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR"},
		want:  cat(ym("199709", 5), ym("199710", 3), ym("199711", 7), ym("199712", 5)), total: 4},
	{name: "every other month on the first and last Sunday (1SU,-1SU), 10 occurrences", zone: ny, start: "19970907T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU"},
		want:  cat(ym("199709", 7, 28), ym("199711", 2, 30), ym("199801", 4, 25), ym("199803", 1, 29), ym("199805", 3, 31)), total: 10},
	{name: "monthly on the second-to-last Monday (-2MO), 6 months", zone: ny, start: "19970922T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO"},
		want:  cat(ym("199709", 22), ym("199710", 20), ym("199711", 17), ym("199712", 22), ym("199801", 19), ym("199802", 16)), total: 6},
	{name: "monthly on the third-to-the-last day (BYMONTHDAY=-3), forever", zone: ny, start: "19970928T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-3"},
		take:  6, want: cat(ym("199709", 28), ym("199710", 29), ym("199711", 28), ym("199712", 29), ym("199801", 29), ym("199802", 26))},
	{name: "monthly on the 2nd and 15th, 10 occurrences", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15"},
		want: cat(ym("199709", 2, 15), ym("199710", 2, 15), ym("199711", 2, 15), ym("199712", 2, 15), ym("199801", 2, 15)), total: 10},
	{name: "monthly on the first and last day (BYMONTHDAY=1,-1), 10 occurrences", zone: ny, start: "19970930T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1"},
		want:  cat(ym("199709", 30), ym("199710", 1, 31), ym("199711", 1, 30), ym("199712", 1, 31), ym("199801", 1, 31), ym("199802", 1)), total: 10},
	{name: "every 18 months on the 10th to 15th, 10 occurrences", zone: ny, start: "19970910T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15"},
		want:  cat(span("199709", 10, 15), span("199903", 10, 13)), total: 10},
	{name: "every Tuesday, every other month", zone: ny, start: "19970902T090000", lines: []string{"RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=TU"},
		take: 18, want: cat(ym("199709", 2, 9, 16, 23, 30), ym("199711", 4, 11, 18, 25), ym("199801", 6, 13, 20, 27), ym("199803", 3, 10, 17, 24, 31))},
	{name: "yearly in June and July, 10 occurrences", zone: ny, start: "19970610T090000", lines: []string{"RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7"},
		want: cat(ym("199706", 10), ym("199707", 10), ym("199806", 10), ym("199807", 10), ym("199906", 10), ym("199907", 10),
			ym("200006", 10), ym("200007", 10), ym("200106", 10), ym("200107", 10)), total: 10},
	{name: "every other year in January, February and March, 10 occurrences", zone: ny, start: "19970310T090000",
		lines: []string{"RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3"},
		want: cat(ym("199703", 10), ym("199901", 10), ym("199902", 10), ym("199903", 10), ym("200101", 10), ym("200102", 10),
			ym("200103", 10), ym("200301", 10), ym("200302", 10), ym("200303", 10)), total: 10},
	{name: "every third year on days 1, 100 and 200, 10 occurrences", zone: ny, start: "19970101T090000",
		lines: []string{"RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200"},
		want: cat(ym("199701", 1), ym("199704", 10), ym("199707", 19), ym("200001", 1), ym("200004", 9), ym("200007", 18),
			ym("200301", 1), ym("200304", 10), ym("200307", 19), ym("200601", 1)), total: 10},
	{name: "every 20th Monday of the year (BYDAY=20MO), forever", zone: ny, start: "19970519T090000", lines: []string{"RRULE:FREQ=YEARLY;BYDAY=20MO"},
		take: 3, want: cat(ym("199705", 19), ym("199805", 18), ym("199905", 17))},
	{name: "Monday of week number 20, forever", zone: ny, start: "19970512T090000", lines: []string{"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"},
		take: 3, want: cat(ym("199705", 12), ym("199805", 11), ym("199905", 17))},
	{name: "every Thursday in March, forever", zone: ny, start: "19970313T090000", lines: []string{"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH"},
		take: 11, want: cat(ym("199703", 13, 20, 27), ym("199803", 5, 12, 19, 26), ym("199903", 4, 11, 18, 25))},
	{name: "every Thursday in June, July and August, forever", zone: ny, start: "19970605T090000", lines: []string{"RRULE:FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8"},
		take: 17, want: cat(ym("199706", 5, 12, 19, 26), ym("199707", 3, 10, 17, 24, 31), ym("199708", 7, 14, 21, 28), ym("199806", 4, 11, 18, 25))},
	// The RFC starts this example on 1997-09-02 and excludes that date with an EXDATE; the service requires the start
	// to be the first occurrence, so the series starts on the first Friday the 13th instead.
	{name: "every Friday the 13th, forever", zone: ny, start: "19980213T090000", lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"},
		take: 5, want: cat(ym("199802", 13), ym("199803", 13), ym("199811", 13), ym("199908", 13), ym("200010", 13))},
	{name: "the first Saturday that follows the first Sunday of the month, forever", zone: ny, start: "19970913T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13"},
		take:  10, want: cat(ym("199709", 13), ym("199710", 11), ym("199711", 8), ym("199712", 13), ym("199801", 10), ym("199802", 7),
			ym("199803", 7), ym("199804", 11), ym("199805", 9), ym("199806", 13))},
	{name: "every 4 years, the first Tuesday after a Monday in November, forever", zone: ny, start: "19961105T090000",
		lines: []string{"RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8"},
		take:  3, want: cat(ym("199611", 5), ym("200011", 7), ym("200411", 2))},
	{name: "the third Tuesday, Wednesday or Thursday (BYSETPOS=3), 3 months", zone: ny, start: "19970904T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3"},
		want:  cat(ym("199709", 4), ym("199710", 7), ym("199711", 6)), total: 3},
	{name: "the second-to-last weekday of the month (BYSETPOS=-2)", zone: ny, start: "19970929T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"},
		take:  7, want: cat(ym("199709", 29), ym("199710", 30), ym("199711", 27), ym("199712", 30), ym("199801", 29), ym("199802", 26), ym("199803", 30))},
	// The RFC lists 09:00, 12:00 and 15:00 for this example, but its UNTIL (17:00 UTC) is 13:00 in New York that
	// day, so 15:00 is past UNTIL: the rule as written gives two occurrences, and so does the library.
	{name: "every 3 hours from 09:00 until 13:00 EDT", zone: ny, start: "19970902T090000",
		lines: []string{"RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z"},
		want:  []string{"19970902T090000", "19970902T120000"}, total: 2},
	{name: "every 20 minutes from 09:00 to 16:40 every day (daily with BYHOUR and BYMINUTE)", zone: ny, start: "19970902T090000",
		lines: []string{"RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40"},
		take:  26, want: cat(everyTwenty("19970902"), []string{"19970903T090000", "19970903T092000"})},
	{name: "WKST=MO changes which weeks count", zone: ny, start: "19970805T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO"},
		want:  ym("199708", 5, 10, 19, 24), total: 4},
	{name: "WKST=SU changes which weeks count", zone: ny, start: "19970805T090000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU"},
		want:  ym("199708", 5, 17, 19, 31), total: 4},
	{name: "an invalid date (February 30) is skipped, not moved", zone: ny, start: "20070115T090000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5"},
		want:  cat(ym("200701", 15, 30), ym("200702", 15), ym("200703", 15, 30)), total: 5},

	// Not from the RFC.
	{name: "BYMONTHDAY=31 skips the months without a 31st", zone: "Europe/Paris", start: "20260131T190000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7"},
		want:  cat(ym("202601", 31), ym("202603", 31), ym("202605", 31), ym("202607", 31), ym("202608", 31), ym("202610", 31), ym("202612", 31)), total: 7},
	{name: "monthly from the 31st without BYMONTHDAY keeps the 31st", zone: "UTC", start: "20260131T100000",
		lines: []string{"RRULE:FREQ=MONTHLY;COUNT=3"},
		want:  cat(ym("202601", 31), ym("202603", 31), ym("202605", 31)), total: 3},
	{name: "the last day of every month (BYMONTHDAY=-1), leap February", zone: "UTC", start: "20240131T100000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4"},
		want:  cat(ym("202401", 31), ym("202402", 29), ym("202403", 31), ym("202404", 30)), total: 4},
	{name: "the second Monday (2MO) of every month", zone: "UTC", start: "20260112T100000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=2MO;COUNT=4"},
		want:  cat(ym("202601", 12), ym("202602", 9), ym("202603", 9), ym("202604", 13)), total: 4},
	{name: "the last Sunday (-1SU) of every month", zone: "Europe/Paris", start: "20260125T110000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=-1SU;COUNT=4"},
		want:  cat(ym("202601", 25), ym("202602", 22), ym("202603", 29), ym("202604", 26)), total: 4},
	{name: "the last weekday of the month (BYSETPOS=-1)", zone: "UTC", start: "20260130T170000",
		lines: []string{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4"},
		want:  cat(ym("202601", 30), ym("202602", 27), ym("202603", 31), ym("202604", 30)), total: 4},
	{name: "COUNT and UNTIL give the same series (COUNT)", zone: "UTC", start: "20260105T180000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=3;COUNT=4"},
		want:  cat(ym("202601", 5, 26), ym("202602", 16), ym("202603", 9)), total: 4},
	{name: "COUNT and UNTIL give the same series (UNTIL, inclusive)", zone: "UTC", start: "20260105T180000",
		lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=3;UNTIL=20260309T180000Z"},
		want:  cat(ym("202601", 5, 26), ym("202602", 16), ym("202603", 9)), total: 4},
	{name: "all-day yearly series with a DATE UNTIL", zone: "Europe/Paris", start: "20261224",
		lines: []string{"RRULE:FREQ=YEARLY;UNTIL=20281224"},
		want:  []string{"20261224", "20271224", "20281224"}, total: 3},
	{name: "all-day weekly series with VALUE=DATE RDATE and EXDATE", zone: "America/New_York", start: "20260301",
		lines: []string{"RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;VALUE=DATE:20260315", "RDATE;VALUE=DATE:20260317"},
		want:  cat(ym("202603", 1, 8, 17, 22)), total: 4},
	{name: "all-day daily series across a daylight-saving change stays on whole days", zone: "Europe/Paris", start: "20260327",
		lines: []string{"RRULE:FREQ=DAILY;COUNT=4"},
		want:  span("202603", 27, 30), total: 4, wantTZ: []string{"+0100", "+0100", "+0100", "+0200"}},
	{name: "weekly at 18:00 across both daylight-saving changes in Europe/Paris", zone: "Europe/Paris", start: "20260322T180000",
		lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20261101T235959"},
		take:  33, want: cat(ym("202603", 22, 29), ym("202604", 5, 12, 19, 26), ym("202605", 3, 10, 17, 24, 31), ym("202606", 7, 14, 21, 28),
			ym("202607", 5, 12, 19, 26), ym("202608", 2, 9, 16, 23, 30), ym("202609", 6, 13, 20, 27), ym("202610", 4, 11, 18, 25), ym("202611", 1)),
		total: 33, wantTZ: append(append([]string{"+0100"}, repeat("+0200", 30)...), "+0100", "+0100")},
	{name: "weekly at 18:00 across both daylight-saving changes in America/New_York", zone: ny, start: "20260301T180000",
		lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=SU;UNTIL=20261108T230000Z"},
		take:  37, want: cat(ym("202603", 1, 8, 15, 22, 29), ym("202604", 5, 12, 19, 26), ym("202605", 3, 10, 17, 24, 31), ym("202606", 7, 14, 21, 28),
			ym("202607", 5, 12, 19, 26), ym("202608", 2, 9, 16, 23, 30), ym("202609", 6, 13, 20, 27), ym("202610", 4, 11, 18, 25), ym("202611", 1, 8)),
		total: 37, wantTZ: append(append([]string{"-0500"}, repeat("-0400", 34)...), "-0500", "-0500")},
	{name: "a time that does not exist on the spring change is read with the offset before it (RFC 5545 3.3.5)", zone: "Europe/Paris",
		start: "20260322T023000", lines: []string{"RRULE:FREQ=WEEKLY;COUNT=3"},
		want: []string{"20260322T023000", "20260329T033000", "20260405T023000"}, total: 3, wantTZ: []string{"+0100", "+0200", "+0200"}},
	{name: "a time that happens twice on the autumn change is its first instance (RFC 5545 3.3.5)", zone: "Europe/Paris",
		start: "20261018T023000", lines: []string{"RRULE:FREQ=WEEKLY;COUNT=3"},
		want: []string{"20261018T023000", "20261025T023000", "20261101T023000"}, total: 3, wantTZ: []string{"+0200", "+0200", "+0100"}},
	{name: "several rules, RDATE and EXDATE merge in order without repeats", zone: "UTC", start: "20260105T180000",
		lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=2", "RDATE:20260110T120000,20260105T180000", "EXDATE:20260112T180000"},
		want:  []string{"20260105T180000", "20260107T180000", "20260110T120000", "20260119T180000"}, total: 4},
}

// everyTwenty lists 09:00 to 16:40 every 20 minutes on one day.
func everyTwenty(day string) []string {
	var out []string
	for h := 9; h <= 16; h++ {
		for m := 0; m < 60; m += 20 {
			out = append(out, fmt.Sprintf("%sT%02d%02d00", day, h, m))
		}
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestRFC5545Examples(t *testing.T) {
	for _, c := range rfcCases {
		t.Run(c.name, func(t *testing.T) {
			loc, err := time.LoadLocation(c.zone)
			if err != nil {
				t.Fatal(err)
			}
			allDay := len(c.start) == len(dateForm)
			var start time.Time
			if allDay {
				start, err = time.ParseInLocation(dateForm, c.start, loc)
			} else {
				start, err = time.ParseInLocation(localTimeForm, c.start, loc)
			}
			if err != nil {
				t.Fatal(err)
			}
			set, err := Parse(Input{Lines: c.lines, Start: start, AllDay: allDay, Horizon: start.AddDate(0, 1, 0)})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			limit := c.take
			if c.total > 0 {
				limit = c.total + 1
			}
			got := set.Occurrences(start.AddDate(20, 0, 0), limit)
			if c.total > 0 && len(got) != c.total {
				t.Errorf("%d occurrences, want %d", len(got), c.total)
			}
			clock := start.Format("T150405")
			var gotS, wantS []string
			for i, w := range c.want {
				if len(w) == len(dateForm) && !allDay {
					w += clock
				}
				wantS = append(wantS, w)
				if i < len(got) {
					gotS = append(gotS, formatFor(got[i].In(loc), allDay))
				}
			}
			if strings.Join(gotS, " ") != strings.Join(wantS, " ") {
				t.Errorf("occurrences:\n got %v\nwant %v", gotS, wantS)
			}
			for i, tz := range c.wantTZ {
				if i < len(got) && got[i].In(loc).Format("-0700") != tz {
					t.Errorf("occurrence %d (%s) has offset %s, want %s", i, got[i].In(loc), got[i].In(loc).Format("-0700"), tz)
				}
			}
		})
	}
}
