package recurrence

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The value forms of RFC 5545: a DATE, a local (floating) DATE-TIME and a UTC DATE-TIME.
const (
	dateForm      = "20060102"
	localTimeForm = "20060102T150405"
	utcTimeForm   = "20060102T150405Z"
)

// contentLine is one "NAME;PARAM=V;…:VALUE" line, its name and parameter names upper-cased.
type contentLine struct {
	name   string
	params map[string]string
	value  string
}

// splitContentLine splits a content line into its name, parameters and value.
func splitContentLine(text string) (contentLine, error) {
	if text == "" {
		return contentLine{}, errors.New("the line is empty: give a line such as RRULE:FREQ=WEEKLY")
	}
	colon := valueColon(text)
	if colon < 0 {
		return contentLine{}, errors.New("a line is NAME:VALUE, e.g. RRULE:FREQ=WEEKLY or EXDATE:20260105T180000")
	}
	head, value := text[:colon], text[colon+1:]
	parts := strings.Split(head, ";")
	cl := contentLine{name: strings.ToUpper(parts[0]), value: value}
	if !isName(cl.name) {
		return contentLine{}, fmt.Errorf("%q is not a property name: a line is NAME:VALUE, e.g. RRULE:FREQ=WEEKLY", parts[0])
	}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ToUpper(k)
		if !ok || !isName(k) || v == "" {
			return contentLine{}, fmt.Errorf("parameter %q is not NAME=VALUE", p)
		}
		if cl.params == nil {
			cl.params = map[string]string{}
		}
		if _, dup := cl.params[k]; dup {
			return contentLine{}, fmt.Errorf("parameter %s is given twice", k)
		}
		cl.params[k] = strings.Trim(v, `"`)
	}
	if value == "" {
		return contentLine{}, fmt.Errorf("%s has no value after the colon", cl.name)
	}
	return cl, nil
}

// valueColon finds the colon that starts the value: the first one outside a quoted parameter value.
func valueColon(text string) int {
	quoted := false
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			quoted = !quoted
		case ':':
			if !quoted {
				return i
			}
		}
	}
	return -1
}

// isName reports whether s is an RFC 5545 name: letters, digits and dashes.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// parseDateList reads the values of an RDATE or EXDATE line in loc. An all-day series takes VALUE=DATE values
// only; any other series takes date-times, naive (read in loc), with TZID, or in UTC with Z.
func parseDateList(cl contentLine, loc *time.Location, allDay bool) ([]time.Time, error) {
	valueType := "DATE-TIME"
	for k, v := range cl.params {
		switch k {
		case "VALUE":
			valueType = strings.ToUpper(v)
		case "TZID":
		default:
			return nil, fmt.Errorf("%s takes only the VALUE and TZID parameters, not %s", cl.name, k)
		}
	}
	switch valueType {
	case "DATE", "DATE-TIME":
	case "PERIOD":
		return nil, fmt.Errorf("%s;VALUE=PERIOD is not supported: every occurrence lasts as long as the first, so give its start only", cl.name)
	default:
		return nil, fmt.Errorf("VALUE=%s is not a value type of %s: use VALUE=DATE or a date-time", valueType, cl.name)
	}
	if allDay && valueType != "DATE" {
		return nil, fmt.Errorf("an all-day series takes dates: write %s;VALUE=DATE:%s", cl.name, exampleDate(cl.value))
	}
	if !allDay && valueType == "DATE" {
		return nil, fmt.Errorf("a series that is not all-day takes date-times, e.g. %s:20260105T180000 (in the event's timezone) or %s:20260105T170000Z (UTC)", cl.name, cl.name)
	}
	if tz, ok := cl.params["TZID"]; ok {
		if allDay {
			return nil, fmt.Errorf("dates take no TZID: write %s;VALUE=DATE:…", cl.name)
		}
		l, err := time.LoadLocation(tz)
		if err != nil || tz == "" || tz == "Local" {
			return nil, fmt.Errorf("TZID=%s is not a known IANA time zone", tz)
		}
		loc = l
	}
	values := strings.Split(cl.value, ",")
	out := make([]time.Time, 0, len(values))
	for _, v := range values {
		var t time.Time
		var err error
		if allDay {
			t, err = parseDate(v, loc)
		} else {
			t, err = parseDateTime(v, loc, cl.params["TZID"] != "")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// exampleDate turns a value into the DATE form it probably meant, for an error message.
func exampleDate(v string) string {
	if len(v) >= 8 && allDigits(v[:8]) {
		return v[:8]
	}
	return "20260105"
}

// parseDate reads a DATE value (YYYYMMDD) as midnight in loc.
func parseDate(v string, loc *time.Location) (time.Time, error) {
	if len(v) != len(dateForm) || !allDigits(v) {
		return time.Time{}, fmt.Errorf("%q is not a date: write YYYYMMDD, e.g. 20260105", v)
	}
	t, err := time.ParseInLocation(dateForm, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date of the calendar", v)
	}
	return t, nil
}

// parseDateTime reads a DATE-TIME value: YYYYMMDDTHHMMSS in loc, or YYYYMMDDTHHMMSSZ in UTC (converted to loc).
// zoned forbids the Z form (a TZID was given as well).
func parseDateTime(v string, loc *time.Location, zoned bool) (time.Time, error) {
	utc := strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z")
	digits := strings.TrimRight(v, "Zz")
	if len(digits) != len(localTimeForm) || !allDigits(digits[:8]) || (digits[8] != 'T' && digits[8] != 't') || !allDigits(digits[9:]) || len(v)-len(digits) > 1 {
		if len(v) == len(dateForm) && allDigits(v) {
			return time.Time{}, fmt.Errorf("%q is a date, but this series has times: write %sT%02d%02d%02d", v, v, 0, 0, 0)
		}
		return time.Time{}, fmt.Errorf("%q is not a date-time: write YYYYMMDDTHHMMSS (in the event's timezone) or YYYYMMDDTHHMMSSZ (UTC)", v)
	}
	if utc && zoned {
		return time.Time{}, fmt.Errorf("%q is in UTC but a TZID is given too: use one or the other", v)
	}
	digits = digits[:8] + "T" + digits[9:]
	if utc {
		t, err := time.Parse(utcTimeForm, digits+"Z")
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a date-time of the calendar", v)
		}
		return t.In(loc), nil
	}
	t, err := time.ParseInLocation(localTimeForm, digits, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date-time of the calendar", v)
	}
	return t, nil
}

// allDigits reports whether s is made of ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// sortedUnique sorts instants and drops repeats.
func sortedUnique(ts []time.Time) []time.Time {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	out := ts[:0]
	for i, t := range ts {
		if i == 0 || !t.Equal(out[len(out)-1]) {
			out = append(out, t)
		}
	}
	return out
}
