package input

// Date and timezone input: the forms the OpenAPI document (/doc) lists under "Dates".
//
// The relative forms ("tomorrow 9am", "next wednesday 4pm", "+2 weeks 11am") follow PHP strtotime, because clients of
// The Events Calendar send them. No Go module does the job. The module proxy does not serve
// github.com/carmo-evan/strtotime or github.com/KarpelesLab/strtotime. github.com/olebedev/when,
// github.com/tj/go-naturaldate and github.com/markusmobius/go-dateparser each miss forms the API needs ("+5 days",
// "next wednesday 4pm", "last friday", "2018-01-01 4pm"). when and go-dateparser also read "today" and "tomorrow"
// at now's time instead of 00:00. All three accept some junk ("notadate", "tomorrow-ish", "2027-13-01", "25:00").
// So this file is a small parser for exactly the grammar the API accepts, checked against PHP 8.2 strtotime.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA names must load on hosts without system zoneinfo (scratch images, CI).
)

// maxInputLen caps user input before any work: no real date or zone name is longer.
const maxInputLen = 100

// Bounds on what a parsed date may be. Stored dates are "Y-m-d H:i:s" with a four-digit year. The relative limits
// keep the totals well inside what time.Date computes without wrapping.
const (
	minYear        = 1
	maxYear        = 9999
	maxRelYears    = 10000
	maxRelMonths   = 12 * maxRelYears
	maxRelDays     = 366 * maxRelYears
	maxRelSeconds  = 86400 * maxRelDays
	maxOffsetMins  = 14 * 60
	maxNumberWidth = 9
)

var (
	errEmpty    = errors.New("is empty")
	errTooLong  = fmt.Errorf("is longer than %d characters", maxInputLen)
	errNotASCII = errors.New("contains non-ASCII characters")
	errRange    = fmt.Errorf("is outside the years %d to %d", minYear, maxYear)
)

// ParseTimezone reads an event or site timezone: an IANA zone name, spelled as IANA spells it, or a WordPress-style
// manual offset ("UTC+2", "UTC-5:30"; also TEC's decimal "UTC+5.5"). It returns the location and the name to store.
// Offsets are stored in one canonical spelling so that equal zones compare equal and TimezoneAbbr can echo them,
// as The Events Calendar does for offset zones.
func ParseTimezone(s string) (*time.Location, string, error) {
	if len(s) <= maxInputLen {
		s = strings.TrimSpace(s)
	}
	switch {
	case s == "":
		return nil, "", fmt.Errorf("timezone %w", errEmpty)
	case len(s) > maxInputLen:
		return nil, "", fmt.Errorf("timezone %w", errTooLong)
	case strings.EqualFold(s, "UTC"):
		return time.UTC, "UTC", nil
	case len(s) > 3 && strings.EqualFold(s[:3], "UTC") && (s[3] == '+' || s[3] == '-'):
		return parseOffsetZone(s)
	}
	return loadNamedZone(s)
}

// locations caches the zones of stored timezone names: loading a zone parses the zone database, and a page of
// events mostly shares a few zones.
var locations sync.Map

// StoredLocation is the zone of a stored timezone name; names were validated on write, so failure means UTC.
func StoredLocation(name string) *time.Location {
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, _, err := ParseTimezone(name)
	if err != nil {
		loc = time.UTC
	}
	locations.Store(name, loc)
	return loc
}

// EndOfDay is 23:59:59 of t's day in loc.
func EndOfDay(t time.Time, loc *time.Location) time.Time {
	w := t.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), 23, 59, 59, 0, loc)
}

// loadNamedZone validates an IANA name. "Local" would make stored data depend on the server's settings, and paths
// could reach outside the zone database, so both are refused before time.LoadLocation sees them.
func loadNamedZone(s string) (*time.Location, string, error) {
	if s == "Local" || strings.Contains(s, "..") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		return nil, "", fmt.Errorf("timezone %q is not an IANA zone name", s)
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, "", fmt.Errorf("timezone %q is not an IANA zone name", s)
	}
	return loc, s, nil
}

var offsetZonePattern = regexp.MustCompile(`^(?i:utc)([+-])(\d{1,2})(?::(\d{2})|\.(0|00|25|5|50|75))?$`)

// decimalMinutes maps the fractional hours WordPress writes ("UTC+5.5", "UTC+5.75") to minutes.
var decimalMinutes = map[string]int{"0": 0, "00": 0, "25": 15, "5": 30, "50": 30, "75": 45}

// parseOffsetZone reads "UTC±H[:MM]" or "UTC±H.F". The location is a fixed zone named by the canonical spelling.
func parseOffsetZone(s string) (*time.Location, string, error) {
	m := offsetZonePattern.FindStringSubmatch(s)
	if m == nil {
		return nil, "", fmt.Errorf("timezone %q is not an offset like UTC+2 or UTC-5:30", s)
	}
	hours, _ := strconv.Atoi(m[2])
	minutes := decimalMinutes[m[4]]
	if m[3] != "" {
		minutes, _ = strconv.Atoi(m[3])
	}
	total := hours*60 + minutes
	if minutes > 59 || total > maxOffsetMins {
		return nil, "", fmt.Errorf("timezone %q is not an offset between UTC-14 and UTC+14", s)
	}
	if total == 0 {
		return time.UTC, "UTC", nil
	}
	name := offsetZoneName(m[1], hours, minutes)
	if m[1] == "-" {
		total = -total
	}
	return time.FixedZone(name, total*60), name, nil
}

// offsetZoneName is the canonical spelling: no leading zero, minutes only when not zero ("UTC+2", "UTC-5:30").
func offsetZoneName(sign string, hours, minutes int) string {
	if minutes == 0 {
		return fmt.Sprintf("UTC%s%d", sign, hours)
	}
	return fmt.Sprintf("UTC%s%d:%02d", sign, hours, minutes)
}

// TimezoneAbbr is the abbreviation stored beside an event's timezone, for the zone at instant t: "EST" or "EDT" for
// America/New_York depending on t. For manual offsets The Events Calendar stores the zone string itself, so this does too.
func TimezoneAbbr(loc *time.Location, name string, t time.Time) string {
	if strings.HasPrefix(name, "UTC+") || strings.HasPrefix(name, "UTC-") {
		return name
	}
	if loc == nil {
		loc = time.UTC
	}
	abbr, _ := t.In(loc).Zone()
	return abbr
}

// ParseDate reads a date in one of the accepted forms. Naive wall-clock input is read in loc; relative input counts
// from now. Matching ignores case and surrounding whitespace. Anything outside this grammar is an error:
//
//	input  = timestamp | rfc3339 | [day] {time | offset}        (at least one part, at most one time)
//	timestamp = digits only: Unix seconds, a UTC instant
//	rfc3339   = YYYY-MM-DDTHH:MM[:SS[.frac]] then Z or ±HH:MM: the offset wins over loc
//	day    = YYYY-MM-DD | YYYY-MM-DDTHH:MM[:SS[.frac]] | now | today | tomorrow | yesterday
//	       | [this | next | last | previous] weekday        (full or three-letter name)
//	time   = H:MM[:SS[.frac]] | H[:MM[:SS]][ ](am | pm) | noon | midnight
//	offset = [+ | -]N unit    unit = sec | second | min | minute | hour | day | week | fortnight | month | year [s]
//
// Semantics are PHP strtotime's: a day part sets the time to 00:00 (except now), a bare time is today, offsets
// alone keep now's time of day, "next X" is strictly after today and "last X" strictly before, months overflow
// like PHP (Jan 31 +1 month is Mar 3), and every offset moves the wall clock. A weekday takes no month or year
// offsets. Results lie in years 1 to 9999.
func ParseDate(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if len(s) > maxInputLen {
		return time.Time{}, fmt.Errorf("date %w", errTooLong)
	}
	if loc == nil {
		loc = time.UTC
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("date %w", errEmpty)
	}
	if !isASCII(s) {
		return time.Time{}, fmt.Errorf("date %w", errNotASCII)
	}
	t, err := parseDateForms(s, now, loc)
	if err != nil {
		return time.Time{}, err
	}
	if t.Year() < minYear || t.Year() > maxYear {
		return time.Time{}, fmt.Errorf("date %q %w", s, errRange)
	}
	return t, nil
}

// parseDateForms tries the whole-string forms first: a string of digits is a timestamp before it is anything else,
// as in The Events Calendar (is_numeric before strtotime).
func parseDateForms(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if IsDigits(s) {
		return parseTimestamp(s)
	}
	if t, ok := parseRFC3339(s); ok {
		return t, nil
	}
	spec, err := parsePhrase(strings.Fields(strings.ToLower(s)))
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: %w", s, err)
	}
	return spec.resolve(now, loc), nil
}

// parseTimestamp reads Unix seconds as a UTC instant.
func parseTimestamp(s string) (time.Time, error) {
	secs, err := strconv.ParseInt(s, 10, 64)
	if err != nil || secs > maxTimestamp {
		return time.Time{}, fmt.Errorf("date %q %w", s, errRange)
	}
	return time.Unix(secs, 0).UTC(), nil
}

// maxTimestamp is 9999-12-31 23:59:59 UTC.
var maxTimestamp = time.Date(maxYear, 12, 31, 23, 59, 59, 0, time.UTC).Unix()

// rfc3339Layouts are the forms with an explicit offset; the one without seconds is a common shortening.
var rfc3339Layouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"}

// parseRFC3339 reads a date-time with an offset or Z; the offset wins over the zone the caller passes. Parsing in
// UTC (not time.Local) keeps the result's location independent of the server's TZ.
func parseRFC3339(s string) (time.Time, bool) {
	upper := strings.ToUpper(s)
	for _, layout := range rfc3339Layouts {
		if t, err := time.ParseInLocation(layout, upper, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// dateSpec is what a phrase says before it meets now, in the parts PHP's timelib keeps: an absolute date, a time of
// day, a weekday move and relative amounts.
//
// The grammar is narrower than strtotime where strtotime's answers depend on word order or stop making sense, so
// that every phrase accepted here means what PHP says it means: the day part (a date, a day word or a weekday)
// comes first ("23:59 yesterday" is 00:00 in PHP; "+1 day tomorrow" is tomorrow), at most one part names the day
// and one the time, and a weekday takes no month or year offsets ("friday +1 month" is a Monday in PHP).
type dateSpec struct {
	items     int  // items read so far, so a day part can insist on being first
	hasDay    bool // a date, now/today/tomorrow/yesterday or a weekday was given
	date      *civilDate
	resetTime bool // the day part sets the time to 00:00, as timelib's TIMELIB_UNHAVE_TIME
	clock     *clock
	weekday   *weekdayMove
	years     int64
	months    int64
	days      int64
	seconds   int64 // hours, minutes and seconds, added to the wall clock as PHP does
}

type civilDate struct {
	year  int
	month time.Month
	day   int
}

type clock struct{ hour, minute, second, nanosecond int }

// weekdayMove is timelib's relative weekday: behavior 1 ("wednesday", "this wednesday") allows today, behavior 0
// ("next", "last") does not.
type weekdayMove struct {
	weekday  time.Weekday
	behavior int
}

// phraseParser is one word-level rule: it returns how many words it used, 0 when the rule does not apply.
type phraseParser func(spec *dateSpec, word, next string) (int, error)

var phraseParsers = []phraseParser{
	parseDayWord, parseClockWord, parseWeekday, parseISODate, parseClock12, parseClock24, parseRelative,
}

// parsePhrase reads the words left to right; every word must belong to some rule.
func parsePhrase(words []string) (dateSpec, error) {
	var spec dateSpec
	for i := 0; i < len(words); {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		used, err := parseWord(&spec, words[i], next)
		if err != nil {
			return dateSpec{}, err
		}
		i += used
		spec.items++
	}
	return spec, spec.check()
}

func parseWord(spec *dateSpec, word, next string) (int, error) {
	for _, parse := range phraseParsers {
		used, err := parse(spec, word, next)
		if err != nil || used > 0 {
			return used, err
		}
	}
	return 0, fmt.Errorf("%q is not part of a date", word)
}

func (spec *dateSpec) setDay() error {
	if spec.hasDay {
		return errors.New("names the day twice")
	}
	if spec.items > 0 {
		return errors.New("must name the day first")
	}
	spec.hasDay = true
	return nil
}

func (spec *dateSpec) setClock(c clock) error {
	if spec.clock != nil {
		return errors.New("names the time twice")
	}
	spec.clock = &c
	return nil
}

// dayWordShift is how many days each day word moves; all but "now" reset the time to 00:00.
var dayWordShift = map[string]int64{"now": 0, "today": 0, "tomorrow": 1, "yesterday": -1}

func parseDayWord(spec *dateSpec, word, _ string) (int, error) {
	shift, ok := dayWordShift[word]
	if !ok {
		return 0, nil
	}
	spec.resetTime = word != "now"
	spec.days += shift
	return 1, spec.setDay()
}

// parseClockWord reads "midnight" and "noon", which set only the time of day (PHP: "yesterday noon").
func parseClockWord(spec *dateSpec, word, _ string) (int, error) {
	switch word {
	case "midnight":
		return 1, spec.setClock(clock{})
	case "noon":
		return 1, spec.setClock(clock{hour: 12})
	}
	return 0, nil
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// parseWeekday reads "[this|next|last|previous] <weekday>". Like timelib, "next" adds (1-1) weeks and "last" -1 week
// to the relative days before the move, which is what makes "last friday" land strictly before today.
func parseWeekday(spec *dateSpec, word, next string) (int, error) {
	if day, ok := weekdays[word]; ok {
		spec.weekday = &weekdayMove{weekday: day, behavior: 1}
		spec.resetTime = true
		return 1, spec.setDay()
	}
	var weeks int64
	behavior := 0
	switch word {
	case "this":
		behavior = 1
	case "next":
	case "last", "previous":
		weeks = -1
	default:
		return 0, nil
	}
	day, ok := weekdays[next]
	if !ok {
		return 0, fmt.Errorf("%q must be followed by a weekday", word)
	}
	spec.weekday = &weekdayMove{weekday: day, behavior: behavior}
	spec.days += 7 * weeks
	spec.resetTime = true
	return 2, spec.setDay()
}

var (
	isoDatePattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:t(.*))?$`)
	clock24Pattern = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$`)
	clock12Pattern = regexp.MustCompile(`^(\d{1,2})(?::(\d{2})(?::(\d{2}))?)?(am|pm)$`)
)

// parseISODate reads "YYYY-MM-DD" (time 00:00) and "YYYY-MM-DDTHH:MM[:SS]" (no offset: wall clock in loc).
func parseISODate(spec *dateSpec, word, _ string) (int, error) {
	m := isoDatePattern.FindStringSubmatch(word)
	if m == nil {
		return 0, nil
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[3])
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, time.Month(month)) {
		return 0, fmt.Errorf("%q is not a calendar date", word)
	}
	spec.date = &civilDate{year: year, month: time.Month(month), day: day}
	spec.resetTime = true
	if err := spec.setDay(); err != nil {
		return 0, err
	}
	if strings.Contains(word, "t") {
		c, ok := clock24(m[4])
		if !ok {
			return 0, fmt.Errorf("%q has no valid time after T", word)
		}
		return 1, spec.setClock(c)
	}
	return 1, nil
}

func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func parseClock24(spec *dateSpec, word, _ string) (int, error) {
	if !strings.Contains(word, ":") || strings.HasSuffix(word, "m") {
		return 0, nil
	}
	c, ok := clock24(word)
	if !ok {
		return 0, fmt.Errorf("%q is not a time of day", word)
	}
	return 1, spec.setClock(c)
}

// clock24 reads "H:MM", "HH:MM:SS" and "HH:MM:SS.fraction".
func clock24(s string) (clock, bool) {
	m := clock24Pattern.FindStringSubmatch(s)
	if m == nil {
		return clock{}, false
	}
	c := clock{hour: atoi(m[1]), minute: atoi(m[2]), second: atoi(m[3])}
	if m[4] != "" {
		c.nanosecond = atoi((m[4] + "00000000")[:9])
	}
	return c, c.hour < 24 && c.minute < 60 && c.second < 60
}

// parseClock12 reads "4pm", "4:30pm", "4:30:15pm" and the same with a space before am/pm. 12am is 00:00, 12pm noon.
func parseClock12(spec *dateSpec, word, next string) (int, error) {
	used := 1
	if (next == "am" || next == "pm") && isClockNumber(word) {
		word, used = word+next, 2
	}
	if !strings.HasSuffix(word, "am") && !strings.HasSuffix(word, "pm") || !startsWithDigit(word) {
		return 0, nil
	}
	m := clock12Pattern.FindStringSubmatch(word)
	if m == nil {
		return 0, fmt.Errorf("%q is not a time of day", word)
	}
	c := clock{hour: atoi(m[1]), minute: atoi(m[2]), second: atoi(m[3])}
	if c.hour < 1 || c.hour > 12 || c.minute > 59 || c.second > 59 {
		return 0, fmt.Errorf("%q is not a time of day", word)
	}
	c.hour %= 12
	if m[4] == "pm" {
		c.hour += 12
	}
	return used, spec.setClock(c)
}

func isClockNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789:") == "" && startsWithDigit(s)
}

var relativePattern = regexp.MustCompile(`^([+-]?)(\d+)([a-z]*)$`)

// unitSeconds and unitDays hold the units of "+N unit". Like PHP, every unit moves the wall clock, so "+24 hours"
// and "+1 day" both land at the same time of day on the next day, even across a DST change.
var (
	unitSeconds = map[string]int64{"sec": 1, "second": 1, "min": 60, "minute": 60, "hour": 3600}
	unitDays    = map[string]int64{"day": 1, "week": 7, "fortnight": 14}
)

// parseRelative reads "+N unit" / "-N unit" / "N unit" (the unit may be glued on: "+5days"). Each number carries
// its own sign, as in PHP: "-1 week 2 days" is 5 days back.
func parseRelative(spec *dateSpec, word, next string) (int, error) {
	m := relativePattern.FindStringSubmatch(word)
	if m == nil {
		return 0, nil
	}
	used, unit := 1, m[3]
	if unit == "" {
		used, unit = 2, next
	}
	if unit == "" {
		return 0, fmt.Errorf("%q needs a unit of time", word)
	}
	if len(m[2]) > maxNumberWidth {
		return 0, fmt.Errorf("%q is too large", m[2])
	}
	n := int64(atoi(m[2]))
	if m[1] == "-" {
		n = -n
	}
	if !spec.addRelative(n, strings.TrimSuffix(unit, "s")) {
		return 0, fmt.Errorf("%q is not a unit of time", unit)
	}
	return used, nil
}

func (spec *dateSpec) addRelative(n int64, unit string) bool {
	if secs, ok := unitSeconds[unit]; ok {
		spec.seconds += n * secs
		return true
	}
	if days, ok := unitDays[unit]; ok {
		spec.days += n * days
		return true
	}
	switch unit {
	case "month":
		spec.months += n
	case "year":
		spec.years += n
	default:
		return false
	}
	return true
}

// check refuses what the words allow one by one but not together. The bounds on the relative amounts are those
// that could not land in years 1–9999 from any now, so resolve never feeds time.Date numbers that wrap.
func (spec *dateSpec) check() error {
	if spec.weekday != nil && (spec.months != 0 || spec.years != 0) {
		return errors.New("a weekday takes no month or year offsets")
	}
	if abs(spec.years) > maxRelYears || abs(spec.months) > maxRelMonths ||
		abs(spec.days) > maxRelDays || abs(spec.seconds) > maxRelSeconds {
		return errRange
	}
	return nil
}

// resolve applies the spec to now in timelib's order: the date (or today), then the time of day, then the weekday
// move, then the offsets. timelib moves the weekday before adding the relative days but looks at their sign, which
// is how "last friday" lands before today.
func (spec dateSpec) resolve(now time.Time, loc *time.Location) time.Time {
	base := now.In(loc)
	year, month, day := base.Date()
	c := clock{base.Hour(), base.Minute(), base.Second(), base.Nanosecond()}
	if spec.date != nil {
		year, month, day = spec.date.year, spec.date.month, spec.date.day
	}
	if spec.resetTime {
		c = clock{}
	}
	if spec.clock != nil {
		c = *spec.clock
	}
	if spec.weekday != nil {
		day += spec.weekday.daysFrom(time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Weekday(), spec.days)
	}
	c.second += int(spec.seconds)
	return wallClock(year+int(spec.years), month+time.Month(spec.months), day+int(spec.days), c, loc)
}

// daysFrom is timelib's do_adjust_for_weekday: the days from current to the target weekday, forward unless the
// relative days are negative.
func (w weekdayMove) daysFrom(current time.Weekday, relDays int64) int {
	diff := int(w.weekday) - int(current)
	if (relDays < 0 && diff < 0) || (relDays >= 0 && diff <= -w.behavior) {
		diff += 7
	}
	return diff
}

// wallClock is time.Date with one rule for the wall clocks a DST change skips or repeats. time.Date leaves the
// choice open and in fact differs by zone: a skipped 02:30 becomes 01:30 EST in New York but 03:30 CEST in Paris,
// a repeated 01:30 is daylight time in New York but 02:30 standard time in Paris. Here, as in RFC 5545 (iCalendar
// clients read a local time the same way): a skipped time is read with the offset before the jump, so it moves
// forward by the gap (PHP does the same); a repeated time is its first instant (PHP would take the second).
func wallClock(year int, month time.Month, day int, c clock, loc *time.Location) time.Time {
	t := time.Date(year, month, day, c.hour, c.minute, c.second, c.nanosecond, loc)
	want := time.Date(year, month, day, c.hour, c.minute, c.second, c.nanosecond, time.UTC)
	switch got := wallClockAsUTC(t); {
	case got.Before(want): // skipped, and moved back: t is shown in the offset before the jump
		_, offsetBefore := t.Zone()
		return want.Add(-time.Duration(offsetBefore) * time.Second).In(loc)
	case got.Equal(want):
		return firstInstant(t, want, loc)
	}
	return t // skipped, and already moved forward
}

// firstInstant returns the earlier instant showing the same wall clock as t, if the offset in force before t's
// zone period began gives one inside that earlier period.
func firstInstant(t, want time.Time, loc *time.Location) time.Time {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	_, offsetBefore := start.Add(-time.Second).Zone()
	earlier := want.Add(-time.Duration(offsetBefore) * time.Second).In(loc)
	if earlier.Before(start) && wallClockAsUTC(earlier).Equal(want) {
		return earlier
	}
	return t
}

// wallClockAsUTC keeps t's wall clock and drops its zone, so wall clocks compare as instants.
func wallClockAsUTC(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// IsDigits tells whether s is a non-empty run of ASCII digits: the shape of an ID in a path or a parameter.
func IsDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func startsWithDigit(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
