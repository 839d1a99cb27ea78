package recurrence

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// MaxInterval bounds INTERVAL; anything larger repeats less than once in a lifetime at every frequency but hourly.
const MaxInterval = 10000

// rule is one checked RRULE with the series' start as its DTSTART.
type rule struct {
	opt rrule.ROption
	// untilDate keeps an all-day series' UNTIL as the date it was written.
	untilDate bool
}

// freqs are the frequencies the service accepts, by name.
var freqs = map[string]rrule.Frequency{
	"YEARLY": rrule.YEARLY, "MONTHLY": rrule.MONTHLY, "WEEKLY": rrule.WEEKLY, "DAILY": rrule.DAILY, "HOURLY": rrule.HOURLY,
}

// weekdays maps RFC 5545 day names to the library's days, Monday first.
var weekdays = map[string]rrule.Weekday{
	"MO": rrule.MO, "TU": rrule.TU, "WE": rrule.WE, "TH": rrule.TH, "FR": rrule.FR, "SA": rrule.SA, "SU": rrule.SU,
}

// intPart describes a BYxxx part that takes a list of integers.
type intPart struct {
	min, max int
	signed   bool // -max…-min is allowed too
	field    func(o *rrule.ROption) *[]int
	meaning  string
}

var intParts = map[string]intPart{
	"BYSECOND":   {0, 59, false, func(o *rrule.ROption) *[]int { return &o.Bysecond }, "seconds"},
	"BYMINUTE":   {0, 59, false, func(o *rrule.ROption) *[]int { return &o.Byminute }, "minutes"},
	"BYHOUR":     {0, 23, false, func(o *rrule.ROption) *[]int { return &o.Byhour }, "hours"},
	"BYMONTHDAY": {1, 31, true, func(o *rrule.ROption) *[]int { return &o.Bymonthday }, "days of the month"},
	"BYYEARDAY":  {1, 366, true, func(o *rrule.ROption) *[]int { return &o.Byyearday }, "days of the year"},
	"BYWEEKNO":   {1, 53, true, func(o *rrule.ROption) *[]int { return &o.Byweekno }, "weeks of the year"},
	"BYMONTH":    {1, 12, false, func(o *rrule.ROption) *[]int { return &o.Bymonth }, "months"},
	"BYSETPOS":   {1, 366, true, func(o *rrule.ROption) *[]int { return &o.Bysetpos }, "positions in the set"},
}

// parseRule reads the value of an RRULE line for a series starting at start.
func parseRule(value string, start time.Time, allDay bool) (rule, error) {
	r := rule{opt: rrule.ROption{Dtstart: start, Interval: 1, Wkst: rrule.MO}}
	seen := map[string]bool{}
	for _, part := range strings.Split(value, ";") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.ToUpper(strings.TrimSpace(k))
		v = strings.ToUpper(strings.TrimSpace(v))
		if !ok || k == "" {
			return rule{}, fmt.Errorf("%q is not a rule part: parts are NAME=VALUE separated by semicolons, e.g. FREQ=WEEKLY;BYDAY=TU,TH", part)
		}
		if v == "" {
			return rule{}, fmt.Errorf("%s has no value", k)
		}
		if seen[k] {
			return rule{}, fmt.Errorf("%s is given twice", k)
		}
		seen[k] = true
		if err := r.setPart(k, v, start.Location(), allDay); err != nil {
			return rule{}, err
		}
	}
	if !seen["FREQ"] {
		return rule{}, errors.New("FREQ is required, e.g. RRULE:FREQ=WEEKLY")
	}
	if err := r.checkCombination(seen, allDay); err != nil {
		return rule{}, err
	}
	if !r.opt.Until.IsZero() && r.opt.Until.Before(start) {
		return rule{}, fmt.Errorf("UNTIL %s is before the series' start %s", r.untilText(), formatFor(start, allDay))
	}
	return r, nil
}

// setPart reads one NAME=VALUE part of a rule.
func (r *rule) setPart(k, v string, loc *time.Location, allDay bool) error {
	o := &r.opt
	if p, ok := intParts[k]; ok {
		list, err := parseInts(k, v, p)
		if err != nil {
			return err
		}
		*p.field(o) = list
		return nil
	}
	switch k {
	case "FREQ":
		f, ok := freqs[v]
		if v == "MINUTELY" || v == "SECONDLY" {
			return fmt.Errorf("FREQ=%s is not supported: a series repeats at most hourly", v)
		}
		if !ok {
			return fmt.Errorf("FREQ=%s is not a frequency: use YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY", v)
		}
		if allDay && f == rrule.HOURLY {
			return errors.New("FREQ=HOURLY does not fit an all-day series: use DAILY or less often")
		}
		o.Freq = f
	case "INTERVAL":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxInterval {
			return fmt.Errorf("INTERVAL=%s is not a whole number from 1 to %d", v, MaxInterval)
		}
		o.Interval = n
	case "COUNT":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("COUNT=%s is not a whole number of 1 or more", v)
		}
		if n > MaxOccurrences {
			return fmt.Errorf("COUNT=%s is more than the %d occurrences a series may have", v, MaxOccurrences)
		}
		o.Count = n
	case "UNTIL":
		t, err := parseUntil(v, loc, allDay)
		if err != nil {
			return err
		}
		o.Until, r.untilDate = t, allDay
	case "BYDAY":
		days, err := parseDays(v)
		if err != nil {
			return err
		}
		o.Byweekday = days
	case "WKST":
		d, ok := weekdays[v]
		if !ok {
			return fmt.Errorf("WKST=%s is not a day: use MO, TU, WE, TH, FR, SA or SU", v)
		}
		o.Wkst = d
	default:
		return fmt.Errorf("%s is not a rule part: use FREQ, INTERVAL, COUNT, UNTIL, BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYMONTH, BYSETPOS, BYHOUR, BYMINUTE, BYSECOND or WKST", k)
	}
	return nil
}

// parseUntil reads UNTIL: a date for an all-day series (the last day that may have an occurrence), else a date-time
// in UTC (Z) or naive in the series' time zone.
func parseUntil(v string, loc *time.Location, allDay bool) (time.Time, error) {
	if allDay {
		if len(v) != len(dateForm) {
			return time.Time{}, fmt.Errorf("UNTIL of an all-day series is a date: write UNTIL=%s", exampleDate(v))
		}
		t, err := parseDate(v, loc)
		if err != nil {
			return time.Time{}, fmt.Errorf("UNTIL: %v", err)
		}
		return t, nil
	}
	if len(v) == len(dateForm) && allDigits(v) {
		return time.Time{}, fmt.Errorf("UNTIL of a series with times is a date-time: write UNTIL=%sT235959Z (UTC) or UNTIL=%sT235959 (in the event's timezone)", v, v)
	}
	t, err := parseDateTime(v, loc, false)
	if err != nil {
		return time.Time{}, fmt.Errorf("UNTIL: %v", err)
	}
	return t, nil
}

// parseInts reads a comma-separated list of integers within the part's range, sorted and without repeats.
func parseInts(k, v string, p intPart) ([]int, error) {
	fields := strings.Split(v, ",")
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || len(f) > 5 {
			return nil, fmt.Errorf("%s=%s: %q is not a whole number", k, v, f)
		}
		ok := n >= p.min && n <= p.max || p.signed && n <= -p.min && n >= -p.max
		if !ok {
			signed := ""
			if p.signed {
				signed = fmt.Sprintf(" or from -%d to -%d (counting from the end)", p.max, p.min)
			}
			return nil, fmt.Errorf("%s=%s: %d is out of range: %s go from %d to %d%s", k, v, n, p.meaning, p.min, p.max, signed)
		}
		out = append(out, n)
	}
	sort.Ints(out)
	return uniqueInts(out), nil
}

// uniqueInts drops repeats from a sorted list.
func uniqueInts(s []int) []int {
	out := s[:0]
	for i, n := range s {
		if i == 0 || n != out[len(out)-1] {
			out = append(out, n)
		}
	}
	return out
}

// parseDays reads BYDAY: days with an optional ordinal (2MO, -1SU), ordered Monday first, without repeats.
func parseDays(v string) ([]rrule.Weekday, error) {
	fields := strings.Split(v, ",")
	out := make([]rrule.Weekday, 0, len(fields))
	for _, f := range fields {
		if len(f) < 2 {
			return nil, fmt.Errorf("BYDAY=%s: %q is not a day: use MO, TU, WE, TH, FR, SA or SU, with an optional position such as 2MO or -1SU", v, f)
		}
		d, ok := weekdays[f[len(f)-2:]]
		if !ok {
			return nil, fmt.Errorf("BYDAY=%s: %q is not a day: use MO, TU, WE, TH, FR, SA or SU, with an optional position such as 2MO or -1SU", v, f)
		}
		if num := f[:len(f)-2]; num != "" {
			n, err := strconv.Atoi(num)
			if err != nil || len(num) > 3 || n == 0 || n > 53 || n < -53 {
				return nil, fmt.Errorf("BYDAY=%s: the position of %q must be from 1 to 53 or from -53 to -1 (counting from the end)", v, f)
			}
			d = d.Nth(n)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Day() != out[j].Day() {
			return out[i].Day() < out[j].Day()
		}
		return dayPosition(out[i].N()) < dayPosition(out[j].N())
	})
	uniq := out[:0]
	for i, d := range out {
		if i == 0 || d != uniq[len(uniq)-1] {
			uniq = append(uniq, d)
		}
	}
	return uniq, nil
}

// setSize is the most candidates one period of the rule can have for BYSETPOS to pick from: its days times its
// times of day. A larger position never matches, and the library would search until the year 9999 for it.
func (r rule) setSize() int {
	o := r.opt
	days := map[rrule.Frequency]int{rrule.YEARLY: 366, rrule.MONTHLY: 31, rrule.WEEKLY: 7, rrule.DAILY: 1, rrule.HOURLY: 1}[o.Freq]
	times := 1
	if o.Freq != rrule.HOURLY && len(o.Byhour) > 0 {
		times *= len(o.Byhour)
	}
	if len(o.Byminute) > 0 {
		times *= len(o.Byminute)
	}
	if len(o.Bysecond) > 0 {
		times *= len(o.Bysecond)
	}
	return days * times
}

// dayPosition orders BYDAY positions as people read them: none, 1, 2, …, then -2, -1 (the last one last).
func dayPosition(n int) int {
	if n < 0 {
		return 1000 + n
	}
	return n
}

// checkCombination applies RFC 5545's rules on which parts go together, and the service's own for all-day series.
func (r *rule) checkCombination(seen map[string]bool, allDay bool) error {
	o := &r.opt
	if seen["COUNT"] && seen["UNTIL"] {
		return errors.New("COUNT and UNTIL cannot both be given: end the series either after a number of occurrences or at a date")
	}
	if allDay {
		for _, k := range []string{"BYHOUR", "BYMINUTE", "BYSECOND"} {
			if seen[k] {
				return fmt.Errorf("%s does not fit an all-day series, which has no times", k)
			}
		}
	}
	for _, d := range o.Byweekday {
		if d.N() == 0 {
			continue
		}
		if o.Freq != rrule.MONTHLY && o.Freq != rrule.YEARLY {
			return fmt.Errorf("a BYDAY position such as 2MO or -1SU needs FREQ=MONTHLY or YEARLY; with FREQ=%s write the day alone", o.Freq)
		}
		if o.Freq == rrule.YEARLY && seen["BYWEEKNO"] {
			return errors.New("a BYDAY position such as 2MO cannot be combined with BYWEEKNO")
		}
		if (o.Freq == rrule.MONTHLY || seen["BYMONTH"]) && (d.N() > 5 || d.N() < -5) {
			return fmt.Errorf("BYDAY=%s: a month has at most 5 of each day, so the position goes from 1 to 5 or -5 to -1", dayCode(d))
		}
	}
	if max := r.setSize(); len(o.Bysetpos) > 0 && (o.Bysetpos[0] < -max || o.Bysetpos[len(o.Bysetpos)-1] > max) {
		return fmt.Errorf("BYSETPOS goes from 1 to %d or -%d to -1 here: each %s has at most %d occurrences to pick from",
			max, max, unitNames[o.Freq][0], max)
	}
	if seen["BYMONTHDAY"] && o.Freq == rrule.WEEKLY {
		return errors.New("BYMONTHDAY cannot be combined with FREQ=WEEKLY: use FREQ=MONTHLY")
	}
	if seen["BYYEARDAY"] && (o.Freq == rrule.DAILY || o.Freq == rrule.WEEKLY || o.Freq == rrule.MONTHLY) {
		return fmt.Errorf("BYYEARDAY cannot be combined with FREQ=%s: use FREQ=YEARLY", o.Freq)
	}
	if seen["BYWEEKNO"] && o.Freq != rrule.YEARLY {
		return fmt.Errorf("BYWEEKNO needs FREQ=YEARLY, not FREQ=%s", o.Freq)
	}
	if seen["BYSETPOS"] {
		other := false
		for k := range seen {
			if strings.HasPrefix(k, "BY") && k != "BYSETPOS" {
				other = true
			}
		}
		if !other {
			return errors.New("BYSETPOS picks among the occurrences another BY part makes, e.g. BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1: add that part")
		}
	}
	return nil
}

// couldProduce reports whether t passes every BY part of the rule: each occurrence of a rule does (a position
// such as 2MO still needs the day to be a Monday), so a start that fails one cannot be an occurrence. It is checked
// before iterating, because the library searches up to the year 9999 for a rule that never matches, and an hourly
// rule whose BYHOUR its INTERVAL can never reach would not return at all.
func (r rule) couldProduce(t time.Time) bool {
	o := r.opt
	y, m, d := t.Date()
	h, min, sec := t.Clock()
	yearLen := time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
	monthLen := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
	wd := weekdayOf(t)
	day := wd.Day()
	dayOK := len(o.Byweekday) == 0
	for _, w := range o.Byweekday {
		dayOK = dayOK || w.Day() == day
	}
	return dayOK && in(o.Bymonth, int(m)) && in(o.Byhour, h) && in(o.Byminute, min) && in(o.Bysecond, sec) &&
		(in(o.Bymonthday, d) || in(o.Bymonthday, d-monthLen-1)) &&
		(in(o.Byyearday, t.YearDay()) || in(o.Byyearday, t.YearDay()-yearLen-1))
}

// in reports whether v is in list; an empty list (a part not given) allows everything.
func in(list []int, v int) bool {
	if len(list) == 0 {
		return true
	}
	for _, n := range list {
		if n == v {
			return true
		}
	}
	return false
}

// untilText is UNTIL as the normalised line writes it.
func (r rule) untilText() string {
	if r.untilDate {
		return r.opt.Until.Format(dateForm)
	}
	return r.opt.Until.UTC().Format(utcTimeForm)
}

// formatFor writes an instant as a value of the series' type.
func formatFor(t time.Time, allDay bool) string {
	if allDay {
		return t.Format(dateForm)
	}
	return t.Format(localTimeForm)
}

// String is the normalised RRULE line: parts in a fixed order, defaults (INTERVAL=1, WKST=MO) left out, UNTIL in
// UTC for date-times (as RFC 5545 requires when the start has a time zone) or as a date for all-day series.
func (r rule) String() string {
	o := r.opt
	parts := []string{"FREQ=" + o.Freq.String()}
	if o.Interval > 1 {
		parts = append(parts, "INTERVAL="+strconv.Itoa(o.Interval))
	}
	if o.Count > 0 {
		parts = append(parts, "COUNT="+strconv.Itoa(o.Count))
	}
	if !o.Until.IsZero() {
		parts = append(parts, "UNTIL="+r.untilText())
	}
	ints := func(k string, list []int) {
		if len(list) == 0 {
			return
		}
		s := make([]string, len(list))
		for i, n := range list {
			s[i] = strconv.Itoa(n)
		}
		parts = append(parts, k+"="+strings.Join(s, ","))
	}
	if len(o.Byweekday) > 0 {
		s := make([]string, len(o.Byweekday))
		for i, d := range o.Byweekday {
			s[i] = dayCode(d)
		}
		parts = append(parts, "BYDAY="+strings.Join(s, ","))
	}
	ints("BYMONTHDAY", o.Bymonthday)
	ints("BYYEARDAY", o.Byyearday)
	ints("BYWEEKNO", o.Byweekno)
	ints("BYMONTH", o.Bymonth)
	ints("BYHOUR", o.Byhour)
	ints("BYMINUTE", o.Byminute)
	ints("BYSECOND", o.Bysecond)
	ints("BYSETPOS", o.Bysetpos)
	if o.Wkst != rrule.MO {
		parts = append(parts, "WKST="+dayCode(o.Wkst))
	}
	return "RRULE:" + strings.Join(parts, ";")
}

// dayCode writes a BYDAY entry: an optional position, then the two-letter day.
func dayCode(d rrule.Weekday) string {
	code := [...]string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}[d.Day()]
	if d.N() != 0 {
		return strconv.Itoa(d.N()) + code
	}
	return code
}
