package input

import (
	"testing"
	"time"
)

// fuzzZones are the zones FuzzParseDate reads naive input in: UTC, zones with hour and half-hour DST gaps, a
// zone east of UTC with a quarter-hour offset, and a fixed offset.
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Paris", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC-5:30"}

// fuzzNowRange keeps the fuzzed now between 1900 and 2200, where calendar dates are meant to be entered.
const (
	fuzzNowMin   = -2208988800 // 1900-01-01 UTC
	fuzzNowRange = 9467366400  // 300 years
)

func FuzzParseDate(f *testing.F) {
	seeds := []string{
		"2027-03-01 10:00:00", "2027-03-01T10:00", "2027-03-01", "2027-03-01T10:00:00+02:00", "1700000000",
		"now", "today", "tomorrow 9am", "yesterday 23:59", "next wednesday 4pm", "last friday", "+5 days",
		"+2 weeks 11am", "-1 month", "+1 week 2 days 4 hours", "2018-01-01 4pm", "4:30 pm", "12am",
		"2026-03-08 02:30", "tomorrow-ish", "2027-02-30", "25:00", "",
	}
	for i, s := range seeds {
		f.Add(s, int64(1795464245), uint8(i))
	}
	zones := make([]*time.Location, len(fuzzZones))
	for i, name := range fuzzZones {
		loc, _, err := ParseTimezone(name)
		if err != nil {
			f.Fatalf("zone %s: %v", name, err)
		}
		zones[i] = loc
	}
	f.Fuzz(func(t *testing.T, s string, nowUnix int64, zone uint8) {
		loc := zones[int(zone)%len(zones)]
		now := time.Unix(fuzzNowMin+mod(nowUnix, fuzzNowRange), 0).In(loc)
		got, err := ParseDate(s, now, loc)
		if err != nil {
			return
		}
		if y := got.Year(); y < minYear || y > maxYear {
			t.Fatalf("ParseDate(%q) = %v, outside years %d–%d", s, got, minYear, maxYear)
		}
		checkRFC3339RoundTrip(t, s, got, now, loc)
		checkWallClockRoundTrip(t, s, got, now)
	})
}

// checkRFC3339RoundTrip: the result written with its offset reads back as the same instant. RFC 3339 offsets
// have no seconds, so local mean times before standard zones (New York before 1883: -4:56:02) are left out.
func checkRFC3339RoundTrip(t *testing.T, s string, got, now time.Time, loc *time.Location) {
	t.Helper()
	if _, offset := got.Zone(); offset%60 != 0 {
		return
	}
	text := got.Format(time.RFC3339Nano)
	again, err := ParseDate(text, now, loc)
	if err != nil || !again.Equal(got) {
		t.Fatalf("ParseDate(%q) = %s; reading that back gave %v, %v", s, text, again, err)
	}
}

// checkWallClockRoundTrip: the result's wall clock, read as naive input in the result's own zone, shows the same
// wall clock (in a repeated hour it may be the other instant; that is the documented choice).
func checkWallClockRoundTrip(t *testing.T, s string, got, now time.Time) {
	t.Helper()
	text := got.Format(wallLayout)
	again, err := ParseDate(text, now, got.Location())
	if err != nil || again.Format(wallLayout) != text {
		t.Fatalf("ParseDate(%q) = %s; reading that back gave %v, %v", s, text, again, err)
	}
}

func mod(n, m int64) int64 {
	r := n % m
	if r < 0 {
		r += m
	}
	return r
}

func FuzzParseTimezone(f *testing.F) {
	for _, s := range []string{
		"America/New_York", "Europe/Paris", "UTC", "utc", "UTC+2", "UTC-5:30", "UTC+05:30", "UTC+0", "UTC+5.75",
		"UTC+14", "UTC+15", "Local", "../etc/passwd", "/etc/localtime", "", "Etc/GMT+5",
	} {
		f.Add(s)
	}
	probe := time.Date(2027, 7, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		loc, name, err := ParseTimezone(s)
		if err != nil {
			return
		}
		if loc == nil || name == "" {
			t.Fatalf("ParseTimezone(%q) = %v, %q without an error", s, loc, name)
		}
		again, name2, err := ParseTimezone(name)
		if err != nil || name2 != name {
			t.Fatalf("ParseTimezone(%q) stored %q, which reads back as %q, %v", s, name, name2, err)
		}
		_, off1 := probe.In(loc).Zone()
		_, off2 := probe.In(again).Zone()
		if off1 != off2 {
			t.Fatalf("ParseTimezone(%q) offset %d, its stored name %q gives %d", s, off1, name, off2)
		}
		if off1 < -maxOffsetMins*60 || off1 > maxOffsetMins*60 {
			t.Fatalf("ParseTimezone(%q) offset %d is beyond ±14h", s, off1)
		}
		if TimezoneAbbr(loc, name, probe) == "" {
			t.Fatalf("TimezoneAbbr(%q) is empty", name)
		}
	})
}
