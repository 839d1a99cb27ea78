package recurrence

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// Text is an English summary of the series, e.g. "Every week on Tuesday and Thursday at 18:00, 10 times".
func (s *Set) Text() string {
	parts := make([]string, len(s.rules))
	for i, r := range s.rules {
		parts[i] = r.text(s.start, s.allDay)
		if i > 0 {
			parts[i] = "e" + strings.TrimPrefix(parts[i], "E")
		}
	}
	out := strings.Join(parts, "; and ")
	if n := len(s.rdates); n > 0 {
		out += ", plus " + plural(n, "more date", "more dates")
	}
	if n := len(s.exdates); n > 0 {
		out += ", except " + plural(n, "date", "dates")
	}
	return out
}

var unitNames = map[rrule.Frequency][2]string{
	rrule.YEARLY: {"year", "years"}, rrule.MONTHLY: {"month", "months"}, rrule.WEEKLY: {"week", "weeks"},
	rrule.DAILY: {"day", "days"}, rrule.HOURLY: {"hour", "hours"},
}

var dayNames = [...]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// text describes one rule of a series starting at start.
func (r rule) text(start time.Time, allDay bool) string {
	o := r.opt
	var b strings.Builder
	unit := unitNames[o.Freq]
	switch {
	case o.Freq == rrule.DAILY && o.Interval == 1 && isWeekdays(o.Byweekday):
		b.WriteString("Every weekday")
	case o.Interval == 1:
		b.WriteString("Every " + unit[0])
	default:
		fmt.Fprintf(&b, "Every %d %s", o.Interval, unit[1])
	}
	if !(o.Freq == rrule.DAILY && isWeekdays(o.Byweekday)) {
		b.WriteString(r.dayPhrase(start))
	}
	if len(o.Bymonth) > 0 {
		names := make([]string, len(o.Bymonth))
		for i, m := range o.Bymonth {
			names[i] = time.Month(m).String()
		}
		b.WriteString(" in " + list(names, "and"))
	}
	if len(o.Bysetpos) > 0 && !r.setposOnDays() {
		fmt.Fprintf(&b, " (only the %s of each %s)", list(ordinals(o.Bysetpos), "and"), unit[0])
	}
	if !allDay {
		b.WriteString(r.timePhrase(start))
	}
	switch {
	case o.Count == 1:
		b.WriteString(", once")
	case o.Count > 1:
		fmt.Fprintf(&b, ", %d times", o.Count)
	case !o.Until.IsZero():
		b.WriteString(", until " + untilPhrase(o.Until.In(start.Location()), r.untilDate))
	}
	return b.String()
}

// dayPhrase says on which days the rule falls, " on …" (or "" when every day of its period counts).
func (r rule) dayPhrase(start time.Time) string {
	o := r.opt
	days := o.Byweekday
	switch o.Freq {
	case rrule.HOURLY, rrule.DAILY:
		if len(days) > 0 {
			return " on " + list(plainDays(days), "and")
		}
		return ""
	case rrule.WEEKLY:
		if len(days) == 0 {
			days = []rrule.Weekday{weekdayOf(start)}
		}
		if isWeekdays(days) {
			return " on weekdays"
		}
		return " on " + list(plainDays(days), "and")
	}
	var phrases []string
	if r.setposOnDays() {
		phrases = append(phrases, "the "+list(ordinals(o.Bysetpos), "and")+" "+daySetName(days))
	} else if len(days) > 0 {
		phrases = append(phrases, r.weekdayPhrase(days))
	}
	if len(o.Bymonthday) > 0 {
		mdays := make([]string, len(o.Bymonthday))
		for i, d := range o.Bymonthday {
			mdays[i] = monthDay(d)
		}
		p := "the " + list(mdays, "and")
		if len(days) > 0 && !r.setposOnDays() && !hasOrdinals(days) {
			// BYDAY then narrows the month days: FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13 is every Friday the 13th.
			return " on the " + list(mdays, "or") + " when it is a " + list(plainDays(days), "or")
		}
		phrases = append(phrases, p)
	}
	if len(o.Byyearday) > 0 {
		n := make([]string, len(o.Byyearday))
		for i, d := range o.Byyearday {
			n[i] = strconv.Itoa(d)
		}
		phrases = append(phrases, "day "+list(n, "and")+" of the year")
	}
	if len(o.Byweekno) > 0 {
		n := make([]string, len(o.Byweekno))
		for i, w := range o.Byweekno {
			n[i] = strconv.Itoa(w)
		}
		phrases = append(phrases, "week "+list(n, "and"))
	}
	if len(phrases) == 0 {
		if o.Freq == rrule.MONTHLY {
			return " on the " + monthDay(start.Day())
		}
		if len(o.Bymonth) > 0 {
			return " on the " + monthDay(start.Day())
		}
		return fmt.Sprintf(" on %d %s", start.Day(), start.Month())
	}
	return " on " + strings.Join(phrases, ", ")
}

// weekdayPhrase describes BYDAY in a monthly or yearly rule: "the first and last Sunday", "every Tuesday".
func (r rule) weekdayPhrase(days []rrule.Weekday) string {
	period := "month"
	if r.opt.Freq == rrule.YEARLY && len(r.opt.Bymonth) == 0 {
		period = "year"
	}
	if !hasOrdinals(days) {
		return "every " + list(plainDays(days), "and")
	}
	sameDay := true
	for _, d := range days {
		sameDay = sameDay && d.Day() == days[0].Day()
	}
	if sameDay {
		ns := make([]int, len(days))
		for i, d := range days {
			ns[i] = d.N()
		}
		return "the " + list(ordinals(ns), "and") + " " + dayNames[days[0].Day()] + suffixOf(days, period)
	}
	items := make([]string, len(days))
	for i, d := range days {
		if d.N() == 0 {
			items[i] = "every " + dayNames[d.Day()]
		} else {
			items[i] = "the " + ordinal(d.N()) + " " + dayNames[d.Day()]
		}
	}
	return list(items, "and") + suffixOf(days, period)
}

// suffixOf adds " of the year" to a yearly position such as the 20th Monday.
func suffixOf(days []rrule.Weekday, period string) string {
	if period == "year" && hasOrdinals(days) {
		return " of the year"
	}
	return ""
}

// setposOnDays reports whether BYSETPOS picks among plain BYDAY days alone ("the last weekday of the month").
func (r rule) setposOnDays() bool {
	o := r.opt
	return len(o.Bysetpos) > 0 && len(o.Byweekday) > 0 && !hasOrdinals(o.Byweekday) &&
		len(o.Bymonthday) == 0 && len(o.Byyearday) == 0 && len(o.Byweekno) == 0 && len(o.Byhour) <= 1 &&
		len(o.Byminute) <= 1 && len(o.Bysecond) <= 1 && (o.Freq == rrule.MONTHLY || o.Freq == rrule.YEARLY)
}

// timePhrase says at what times of day the rule falls: " at 18:00", " at 09:00 and 17:00".
func (r rule) timePhrase(start time.Time) string {
	o := r.opt
	if o.Freq == rrule.HOURLY {
		return start.Format(" from 15:04")
	}
	hours, minutes, seconds := o.Byhour, o.Byminute, o.Bysecond
	if len(hours) == 0 {
		hours = []int{start.Hour()}
	}
	if len(minutes) == 0 {
		minutes = []int{start.Minute()}
	}
	if len(seconds) == 0 {
		seconds = []int{start.Second()}
	}
	var times []string
	for _, h := range hours {
		for _, m := range minutes {
			for _, s := range seconds {
				t := fmt.Sprintf("%02d:%02d", h, m)
				if s != 0 {
					t += fmt.Sprintf(":%02d", s)
				}
				times = append(times, t)
			}
		}
	}
	if len(times) > 4 {
		return fmt.Sprintf(" at %d times a day from %s to %s", len(times), times[0], times[len(times)-1])
	}
	return " at " + list(times, "and")
}

// untilPhrase writes UNTIL: a date, with the time when it is not the start or end of a day.
func untilPhrase(t time.Time, isDate bool) string {
	h, m, s := t.Clock()
	if isDate || h == 0 && m == 0 && s == 0 || h == 23 && m == 59 && s == 59 {
		return t.Format("2 January 2006")
	}
	return t.Format("2 January 2006 15:04")
}

// weekdayOf is t's day in the library's terms.
func weekdayOf(t time.Time) rrule.Weekday {
	return [...]rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[t.Weekday()]
}

// plainDays names the days, ignoring positions.
func plainDays(days []rrule.Weekday) []string {
	out := make([]string, len(days))
	for i, d := range days {
		out[i] = dayNames[d.Day()]
	}
	return out
}

// daySetName names a set of days picked from by position: "weekday", "weekend day", or the days joined by "or".
func daySetName(days []rrule.Weekday) string {
	switch {
	case isWeekdays(days):
		return "weekday"
	case len(days) == 2 && days[0].Day() == 5 && days[1].Day() == 6:
		return "weekend day"
	case len(days) == 7:
		return "day"
	}
	return list(plainDays(days), "or")
}

// isWeekdays reports whether days are exactly Monday to Friday without positions.
func isWeekdays(days []rrule.Weekday) bool {
	if len(days) != 5 || hasOrdinals(days) {
		return false
	}
	for i, d := range days {
		if d.Day() != i {
			return false
		}
	}
	return true
}

// hasOrdinals reports whether any day has a position (2MO, -1SU).
func hasOrdinals(days []rrule.Weekday) bool {
	for _, d := range days {
		if d.N() != 0 {
			return true
		}
	}
	return false
}

// ordinals writes positions as words: 1 → "first", -1 → "last", -2 → "second-to-last".
func ordinals(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = ordinal(n)
	}
	return out
}

var ordinalWords = [...]string{"", "first", "second", "third", "fourth", "fifth"}

// ordinal writes one position.
func ordinal(n int) string {
	switch {
	case n == -1:
		return "last"
	case n < 0:
		return ordinal(-n) + "-to-last"
	case n < len(ordinalWords):
		return ordinalWords[n]
	}
	return numberth(n)
}

// monthDay names a day of the month: 2 → "2nd", -1 → "last day", -3 → "third-to-last day".
func monthDay(d int) string {
	if d < 0 {
		return ordinal(d) + " day"
	}
	return numberth(d)
}

// numberth writes 1st, 2nd, 3rd, 4th, 11th, 21st, ….
func numberth(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// list joins words in English: "a", "a and b", "a, b and c".
func list(words []string, conj string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// plural writes a count with its noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
