package input

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const wallLayout = "2006-01-02 15:04:05.999999999"

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// A Wednesday afternoon in New York, in standard time.
func newYorkNow(t *testing.T) (time.Time, *time.Location) {
	t.Helper()
	ny := mustZone(t, "America/New_York")
	return time.Date(2026, 11, 18, 15, 4, 5, 0, ny), ny
}

type dateCase struct {
	in   string
	want string // wall clock in the parse location, wallLayout
}

func runWallClockCases(t *testing.T, now time.Time, loc *time.Location, cases []dateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q means %s", tc.in, tc.want), func(t *testing.T) {
			got, err := ParseDate(tc.in, now, loc)
			if err != nil {
				t.Fatalf("ParseDate(%q) error: %v", tc.in, err)
			}
			if got.Location() != loc {
				t.Errorf("location = %v, want %v", got.Location(), loc)
			}
			if s := got.Format(wallLayout); s != tc.want {
				t.Errorf("ParseDate(%q) = %s, want %s", tc.in, s, tc.want)
			}
		})
	}
}

func TestParseDateAbsoluteForms(t *testing.T) {
	now, ny := newYorkNow(t)
	runWallClockCases(t, now, ny, []dateCase{
		{"2027-03-01 10:00:00", "2027-03-01 10:00:00"},
		{"2027-03-01 10:00", "2027-03-01 10:00:00"},
		{"2027-03-01T10:00", "2027-03-01 10:00:00"},
		{"2027-03-01T10:00:30", "2027-03-01 10:00:30"},
		{"2027-03-01t10:00:30", "2027-03-01 10:00:30"},
		{"2027-03-01", "2027-03-01 00:00:00"},
		{"2027-03-01 10:00:00.25", "2027-03-01 10:00:00.25"},
		{"2027-03-01T10:00:00.123456789", "2027-03-01 10:00:00.123456789"},
		{"  2027-03-01 10:00:00\t\n", "2027-03-01 10:00:00"},
		{"2028-02-29", "2028-02-29 00:00:00"},
		{"2018-01-01 4pm", "2018-01-01 16:00:00"},
		{"2018-01-01 16:00", "2018-01-01 16:00:00"},
		{"2018-01-01 4:30 PM", "2018-01-01 16:30:00"},
		{"2027-07-04 09:00", "2027-07-04 09:00:00"},
	})
}

func TestParseDateDayWordsAndTimes(t *testing.T) {
	now, ny := newYorkNow(t)
	runWallClockCases(t, now, ny, []dateCase{
		{"now", "2026-11-18 15:04:05"},
		{"NOW", "2026-11-18 15:04:05"},
		{"today", "2026-11-18 00:00:00"},
		{"Today", "2026-11-18 00:00:00"},
		{"midnight", "2026-11-18 00:00:00"},
		{"noon", "2026-11-18 12:00:00"},
		{"tomorrow", "2026-11-19 00:00:00"},
		{"yesterday", "2026-11-17 00:00:00"},
		{"tomorrow 9am", "2026-11-19 09:00:00"},
		{"Tomorrow 9AM", "2026-11-19 09:00:00"},
		{"tomorrow 11am", "2026-11-19 11:00:00"},
		{"yesterday 23:59", "2026-11-17 23:59:00"},
		{"tomorrow 00:00:00", "2026-11-19 00:00:00"},
		{"yesterday noon", "2026-11-17 12:00:00"},
		{"tomorrow 4:30:15pm", "2026-11-19 16:30:15"},
		{"now 4pm", "2026-11-18 16:00:00"},
		{"4pm", "2026-11-18 16:00:00"},
		{"4 pm", "2026-11-18 16:00:00"},
		{"4:30pm", "2026-11-18 16:30:00"},
		{"11am", "2026-11-18 11:00:00"},
		{"16:00", "2026-11-18 16:00:00"},
		{"16:00:00", "2026-11-18 16:00:00"},
		{"9:05", "2026-11-18 09:05:00"},
		{"12am", "2026-11-18 00:00:00"},
		{"12:30am", "2026-11-18 00:30:00"},
		{"12pm", "2026-11-18 12:00:00"},
		{"12:45 pm", "2026-11-18 12:45:00"},
	})
}

func TestParseDateWeekdays(t *testing.T) {
	now, ny := newYorkNow(t) // a Wednesday
	runWallClockCases(t, now, ny, []dateCase{
		{"next wednesday 4pm", "2026-11-25 16:00:00"},
		{"next wednesday", "2026-11-25 00:00:00"},
		{"next thursday", "2026-11-19 00:00:00"},
		{"next tuesday", "2026-11-24 00:00:00"},
		{"wednesday", "2026-11-18 00:00:00"},
		{"this wednesday", "2026-11-18 00:00:00"},
		{"friday", "2026-11-20 00:00:00"},
		{"this tuesday", "2026-11-24 00:00:00"},
		{"wed 9am", "2026-11-18 09:00:00"},
		{"last friday", "2026-11-13 00:00:00"},
		{"last wednesday", "2026-11-11 00:00:00"},
		{"last tuesday", "2026-11-17 00:00:00"},
		{"previous monday", "2026-11-16 00:00:00"},
		{"last thursday 18:30", "2026-11-12 18:30:00"},
	})
}

func TestParseDateRelativeOffsets(t *testing.T) {
	now, ny := newYorkNow(t)
	runWallClockCases(t, now, ny, []dateCase{
		{"+5 days", "2026-11-23 15:04:05"},
		{"5 days", "2026-11-23 15:04:05"},
		{"+5days", "2026-11-23 15:04:05"},
		{"+1 day", "2026-11-19 15:04:05"},
		{"+2 weeks 11am", "2026-12-02 11:00:00"},
		{"+5 days 11am", "2026-11-23 11:00:00"},
		{"-1 month", "2026-10-18 15:04:05"},
		{"+24 months", "2028-11-18 15:04:05"},
		{"+1 year", "2027-11-18 15:04:05"},
		{"+1 fortnight", "2026-12-02 15:04:05"},
		{"+1 week 2 days 4 hours", "2026-11-27 19:04:05"},
		{"-1 week 2 days", "2026-11-13 15:04:05"},
		{"+90 minutes", "2026-11-18 16:34:05"},
		{"+90 mins", "2026-11-18 16:34:05"},
		{"+30 secs", "2026-11-18 15:04:35"},
		{"+1 second", "2026-11-18 15:04:06"},
		{"-10 hours", "2026-11-18 05:04:05"},
		{"tomorrow +1 day", "2026-11-20 00:00:00"},
		{"2018-01-01 16:00 +1 month", "2018-02-01 16:00:00"},
	})
}

func TestParseDateOffsetsKeepTheWallClockAcrossDST(t *testing.T) {
	_, ny := newYorkNow(t)
	now := time.Date(2026, 11, 18, 15, 4, 5, 0, ny)
	got, err := ParseDate("-1 month", now, ny)
	if err != nil {
		t.Fatal(err)
	}
	if abbr, _ := got.Zone(); abbr != "EDT" || got.UTC().Hour() != 19 {
		t.Errorf("-1 month from November = %v, want 15:04:05 EDT (19:04:05 UTC)", got)
	}
}

func TestParseDateOffsetsMoveTheWallClockLikePHP(t *testing.T) {
	// PHP 8.2 strtotime gives these: hours count on the wall clock, and one that lands in the skipped hour moves
	// forward like any skipped time.
	ny := mustZone(t, "America/New_York")
	beforeSpringForward := time.Date(2026, 3, 7, 12, 0, 0, 0, ny)
	runWallClockCases(t, beforeSpringForward, ny, []dateCase{
		{"+1 day", "2026-03-08 12:00:00"},
		{"+24 hours", "2026-03-08 12:00:00"},
		{"+25 hours", "2026-03-08 13:00:00"},
		{"2026-03-08 00:00 +2 hours", "2026-03-08 03:00:00"},
		{"2026-03-08 00:00 +150 minutes", "2026-03-08 03:30:00"},
		{"2026-03-08 01:59:59 +1 second", "2026-03-08 03:00:00"},
		{"2026-11-01 00:00 +1 hour", "2026-11-01 01:00:00"},
		{"friday +25 hours", "2026-03-14 01:00:00"},
		{"next friday 4pm +1 day", "2026-03-14 16:00:00"},
		{"last friday +1 week", "2026-03-13 00:00:00"},
	})
}

func TestParseDateMonthArithmeticNormalisesLikePHP(t *testing.T) {
	now := time.Date(2027, 1, 31, 10, 20, 30, 0, time.UTC) // a Sunday
	runWallClockCases(t, now, time.UTC, []dateCase{
		{"+1 month", "2027-03-03 10:20:30"},
		{"2028-01-31 +1 month", "2028-03-02 00:00:00"},
		{"2027-03-31 -1 month", "2027-03-03 00:00:00"},
		{"today", "2027-01-31 00:00:00"},
		{"tomorrow", "2027-02-01 00:00:00"},
		{"sunday", "2027-01-31 00:00:00"},
		{"next sunday", "2027-02-07 00:00:00"},
		{"last sunday", "2027-01-24 00:00:00"},
		{"saturday", "2027-02-06 00:00:00"},
		{"last saturday", "2027-01-30 00:00:00"},
		{"+1 year", "2028-01-31 10:20:30"},
	})
}

func TestParseDateReadsNaiveInputInTheGivenZone(t *testing.T) {
	// The reference's test: site Australia/Darwin, event timezone Asia/Hong_Kong, "2018-01-01 4pm" is stored as
	// 16:00 local and 08:00 UTC, because the event's zone wins over the site's.
	now := time.Date(2017, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		zone, wantUTC string
	}{
		{"Asia/Hong_Kong", "2018-01-01 08:00:00"},
		{"Australia/Darwin", "2018-01-01 06:30:00"},
		{"UTC", "2018-01-01 16:00:00"},
		{"UTC-5:30", "2018-01-01 21:30:00"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("2018-01-01 4pm in %s is %s UTC", tc.zone, tc.wantUTC), func(t *testing.T) {
			loc, _, err := ParseTimezone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseDate("2018-01-01 4pm", now, loc)
			if err != nil {
				t.Fatal(err)
			}
			if local := got.Format(wallLayout); local != "2018-01-01 16:00:00" {
				t.Errorf("local = %s, want 2018-01-01 16:00:00", local)
			}
			if utc := got.UTC().Format(wallLayout); utc != tc.wantUTC {
				t.Errorf("UTC = %s, want %s", utc, tc.wantUTC)
			}
		})
	}
}

// instantCase checks the instant only: timestamps and explicit offsets do not depend on the zone passed in.
type instantCase struct {
	name, in string
	wantUTC  string
}

func runInstantCases(t *testing.T, cases []instantCase) {
	t.Helper()
	now, ny := newYorkNow(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDate(tc.in, now, ny)
			if err != nil {
				t.Fatalf("ParseDate(%q) error: %v", tc.in, err)
			}
			if s := got.UTC().Format(wallLayout); s != tc.wantUTC {
				t.Errorf("ParseDate(%q) = %s UTC, want %s", tc.in, s, tc.wantUTC)
			}
		})
	}
}

func TestParseDateTimestampsAreUTCInstants(t *testing.T) {
	runInstantCases(t, []instantCase{
		{"a ten-digit timestamp is seconds since 1970", "1700000000", "2023-11-14 22:13:20"},
		{"zero is the epoch", "0", "1970-01-01 00:00:00"},
		{"surrounding space is trimmed", " 1700000000\n", "2023-11-14 22:13:20"},
		{"a four-digit number is a timestamp, not a year", "2018", "1970-01-01 00:33:38"},
		{"the last second of 9999 is accepted", "253402300799", "9999-12-31 23:59:59"},
	})
	now, ny := newYorkNow(t)
	got, _ := ParseDate("1700000000", now, ny)
	if got.Location() != time.UTC {
		t.Errorf("a timestamp's location = %v, want UTC", got.Location())
	}
}

func TestParseDateRFC3339OffsetsWinOverTheZone(t *testing.T) {
	runInstantCases(t, []instantCase{
		{"Z is UTC", "2027-03-01T00:00:00Z", "2027-03-01 00:00:00"},
		{"a positive offset is east of UTC", "2027-03-01T10:00:00+02:00", "2027-03-01 08:00:00"},
		{"a negative offset is west of UTC", "2027-03-01T10:00:00-05:00", "2027-03-01 15:00:00"},
		{"fractional seconds are kept", "2027-03-01T10:00:00.5-05:00", "2027-03-01 15:00:00.5"},
		{"lower case t and z are accepted", "2027-03-01t00:00:00z", "2027-03-01 00:00:00"},
		{"seconds may be left out", "2027-03-01T10:00+02:00", "2027-03-01 08:00:00"},
	})
}

func TestParseDateDSTBoundaries(t *testing.T) {
	// time.Date answers these differently by zone. ParseDate reads a skipped wall clock with the offset before the
	// jump, as PHP does, so it moves forward by the gap; a repeated wall clock is its first instant, as in RFC 5545.
	tests := []struct {
		name, zone, in, want string
	}{
		{"a skipped New York time moves forward to daylight time", "America/New_York", "2026-03-08 02:30", "2026-03-08 03:30:00 EDT"},
		{"a skipped Paris time moves forward to summer time", "Europe/Paris", "2026-03-29 02:30", "2026-03-29 03:30:00 CEST"},
		{"a half-hour Lord Howe gap moves forward half an hour", "Australia/Lord_Howe", "2026-10-04 02:15", "2026-10-04 02:45:00 +11"},
		{"a day Samoa skipped moves forward a whole day", "Pacific/Apia", "2011-12-30 12:00", "2011-12-31 12:00:00 +14"},
		{"the time before a New York gap is standard time", "America/New_York", "2026-03-08 01:59:59", "2026-03-08 01:59:59 EST"},
		{"the end of a New York gap is daylight time", "America/New_York", "2026-03-08 03:00", "2026-03-08 03:00:00 EDT"},
		{"a repeated New York time is the first, daylight, one", "America/New_York", "2026-11-01 01:30", "2026-11-01 01:30:00 EDT"},
		{"a repeated Paris time is the first, summer, one", "Europe/Paris", "2026-10-25 02:30", "2026-10-25 02:30:00 CEST"},
		{"the end of the repeated Paris hour is winter time", "Europe/Paris", "2026-10-25 03:00", "2026-10-25 03:00:00 CET"},
		{"a repeated Lord Howe half hour is the first one", "Australia/Lord_Howe", "2026-04-05 01:45", "2026-04-05 01:45:00 +11"},
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDate(tc.in, now, mustZone(t, tc.zone))
			if err != nil {
				t.Fatal(err)
			}
			if s := got.Format("2006-01-02 15:04:05 MST"); s != tc.want {
				t.Errorf("ParseDate(%q) in %s = %s, want %s", tc.in, tc.zone, s, tc.want)
			}
		})
	}
}

func TestParseDateRejects(t *testing.T) {
	now, ny := newYorkNow(t)
	rejected := []struct{ why, in string }{
		{"an empty string", ""},
		{"only spaces", "   "},
		{"a word that is no date", "notadate"},
		{"a day word with a suffix", "tomorrow-ish"},
		{"a sentence", "before my birthday"},
		{"month 13", "2027-13-01"},
		{"month 0", "2027-00-10"},
		{"February 30", "2027-02-30"},
		{"February 29 in a common year", "2027-02-29"},
		{"a one-digit month", "2027-3-01"},
		{"hour 25", "25:00"},
		{"hour 24", "24:00"},
		{"minute 60", "12:60"},
		{"second 60", "12:00:60"},
		{"13pm", "13pm"},
		{"0am", "0am"},
		{"am twice", "4 pm pm"},
		{"next without a weekday", "next"},
		{"next with a unit (not in the grammar)", "next week"},
		{"last without a weekday", "last"},
		{"a number without a unit", "+5"},
		{"a signed timestamp", "-1700000000"},
		{"an unknown unit", "+5 parsecs"},
		{"the day named twice", "tomorrow tomorrow"},
		{"two day words", "today tomorrow"},
		{"a date and a day word", "2018-01-01 tomorrow"},
		{"two dates", "2018-01-01 2018-01-02"},
		{"a weekday and a date", "friday 2018-01-01"},
		{"a time before the day (PHP would drop the time)", "23:59 yesterday"},
		{"an offset before the day (PHP would drop the offset)", "+1 day tomorrow"},
		{"a time before the date", "4pm 2018-01-01"},
		{"a weekday with a month offset (PHP's answer is no friday)", "friday +1 month"},
		{"a weekday with a year offset", "last friday -1 year"},
		{"noon and a day word after it", "noon tomorrow"},
		{"the time named twice", "4pm 5pm"},
		{"noon and a time", "noon 4pm"},
		{"a decimal number", "1.5"},
		{"a timestamp with @", "@1700000000"},
		{"an hour past 23 after T", "2027-03-01T25:00"},
		{"T without a time", "2027-03-01T"},
		{"an offset hour out of range", "2027-03-01T10:00:00+25:00"},
		{"a space-separated offset", "2027-03-01 10:00:00 +02:00"},
		{"a non-ASCII word", "mañana"},
		{"a NUL byte", "tomorrow\x00"},
		{"a number too large for a unit", "+1000000000 days"},
		{"a timestamp past 9999", "253402300800"},
		{"a timestamp past int64", "99999999999999999999"},
		{"a year past 9999", "+9000 years"},
		{"a year before 1", "-2026 years"},
		{"year 0", "0000-01-01"},
		{"offsets that add up past the limit", "+999999999 years"},
		{"a string of 101 characters", strings.Repeat("1", 101)},
		{"a long phrase", strings.Repeat("+1 day ", 15)},
	}
	for _, tc := range rejected {
		t.Run("rejects "+tc.why, func(t *testing.T) {
			if got, err := ParseDate(tc.in, now, ny); err == nil {
				t.Errorf("ParseDate(%q) = %v, want an error", tc.in, got)
			}
		})
	}
}

func TestParseDateTreatsANilZoneAsUTC(t *testing.T) {
	now := time.Date(2026, 11, 18, 15, 4, 5, 0, time.UTC)
	got, err := ParseDate("2027-03-01 10:00", now, nil)
	if err != nil || !got.Equal(time.Date(2027, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseDate with nil zone = %v, %v; want 2027-03-01 10:00 UTC", got, err)
	}
}

func TestParseTimezoneAcceptsIANANamesAndOffsets(t *testing.T) {
	probe := time.Date(2027, 1, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in, wantName string
		wantOffset   int // seconds east of UTC at probe
	}{
		{"America/New_York", "America/New_York", -5 * 3600},
		{"Europe/Paris", "Europe/Paris", 3600},
		{"Asia/Kolkata", "Asia/Kolkata", 5*3600 + 1800},
		{"Asia/Hong_Kong", "Asia/Hong_Kong", 8 * 3600},
		{"Etc/GMT+5", "Etc/GMT+5", -5 * 3600},
		{"UTC", "UTC", 0},
		{"utc", "UTC", 0},
		{" Europe/Paris ", "Europe/Paris", 3600},
		{"UTC+2", "UTC+2", 2 * 3600},
		{"UTC-5", "UTC-5", -5 * 3600},
		{"UTC+5:30", "UTC+5:30", 5*3600 + 1800},
		{"UTC-05:30", "UTC-5:30", -(5*3600 + 1800)},
		{"UTC+05", "UTC+5", 5 * 3600},
		{"UTC+2:00", "UTC+2", 2 * 3600},
		{"utc+2", "UTC+2", 2 * 3600},
		{"UTC+5.5", "UTC+5:30", 5*3600 + 1800},
		{"UTC+5.75", "UTC+5:45", 5*3600 + 2700},
		{"UTC-9.5", "UTC-9:30", -(9*3600 + 1800)},
		{"UTC+14", "UTC+14", 14 * 3600},
		{"UTC-14", "UTC-14", -14 * 3600},
		{"UTC+0", "UTC", 0},
		{"UTC-0", "UTC", 0},
		{"UTC+00:00", "UTC", 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q is stored as %q", tc.in, tc.wantName), func(t *testing.T) {
			loc, name, err := ParseTimezone(tc.in)
			if err != nil {
				t.Fatalf("ParseTimezone(%q) error: %v", tc.in, err)
			}
			if name != tc.wantName {
				t.Errorf("name = %q, want %q", name, tc.wantName)
			}
			if _, off := probe.In(loc).Zone(); off != tc.wantOffset {
				t.Errorf("offset = %d, want %d", off, tc.wantOffset)
			}
		})
	}
}

func TestParseTimezoneRejects(t *testing.T) {
	rejected := []struct{ why, in string }{
		{"an empty name", ""},
		{"only spaces", "  "},
		{"the server's Local zone", "Local"},
		{"a relative path", "../etc/passwd"},
		{"a path through ..", "America/../Europe/Paris"},
		{"an absolute path", "/usr/share/zoneinfo/UTC"},
		{"a backslash path", `\Windows`},
		{"an unknown zone", "Mars/Olympus_Mons"},
		{"a zone in the wrong case", "america/new_york"},
		{"junk", "notazone"},
		{"an offset past +14", "UTC+15"},
		{"an offset past +14 by minutes", "UTC+14:30"},
		{"an offset past -14", "UTC-14:01"},
		{"minute 60", "UTC+5:60"},
		{"a decimal that is no quarter hour", "UTC+5.1"},
		{"a sign without hours", "UTC+"},
		{"hours without a sign", "UTC2"},
		{"two signs", "UTC++2"},
		{"three-digit hours", "UTC+100"},
		{"an offset with trailing junk", "UTC+2 junk"},
		{"a name of 101 characters", strings.Repeat("a", 101)},
	}
	for _, tc := range rejected {
		t.Run("rejects "+tc.why, func(t *testing.T) {
			if loc, name, err := ParseTimezone(tc.in); err == nil {
				t.Errorf("ParseTimezone(%q) = %v, %q; want an error", tc.in, loc, name)
			}
		})
	}
}

func TestTimezoneAbbr(t *testing.T) {
	january := time.Date(2027, 1, 15, 12, 0, 0, 0, time.UTC)
	july := time.Date(2027, 7, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, zone string
		at         time.Time
		want       string
	}{
		{"New York in January is EST", "America/New_York", january, "EST"},
		{"New York in July is EDT", "America/New_York", july, "EDT"},
		{"New York a second before spring forward is EST", "America/New_York", time.Date(2026, 3, 8, 6, 59, 59, 0, time.UTC), "EST"},
		{"New York at spring forward is EDT", "America/New_York", time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), "EDT"},
		{"Paris in January is CET", "Europe/Paris", january, "CET"},
		{"Paris in July is CEST", "Europe/Paris", july, "CEST"},
		{"Hong Kong is HKT", "Asia/Hong_Kong", july, "HKT"},
		{"UTC is UTC", "UTC", july, "UTC"},
		{"a manual offset is its own name", "UTC+2", july, "UTC+2"},
		{"a half-hour manual offset is its own name", "UTC-5:30", january, "UTC-5:30"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, name, err := ParseTimezone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			if got := TimezoneAbbr(loc, name, tc.at); got != tc.want {
				t.Errorf("TimezoneAbbr(%s, %v) = %q, want %q", name, tc.at, got, tc.want)
			}
		})
	}
}
