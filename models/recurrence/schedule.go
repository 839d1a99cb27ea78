package recurrence

import (
	"time"

	"github.com/teambition/rrule-go"
)

// Schedule is the first rule of a series in plain terms, for describing it to other vocabularies (schema.org's
// Schedule): how often, on which days and months, how many times or until when, and the excluded dates.
type Schedule struct {
	// Frequency is YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY; Interval how many of them between occurrences.
	Frequency string
	Interval  int
	// Days are the BYDAY days (positions left out), MonthDays and Months the BYMONTHDAY and BYMONTH values.
	Days      []time.Weekday
	MonthDays []int
	Months    []int
	// Count is COUNT (0: none); Until is UNTIL (zero: none).
	Count int
	Until time.Time
	// Except are the EXDATE values.
	Except []time.Time
}

// Schedule describes the series' first rule.
func (s *Set) Schedule() Schedule {
	o := s.rules[0].opt
	sch := Schedule{Frequency: o.Freq.String(), Interval: max(o.Interval, 1), MonthDays: o.Bymonthday,
		Months: o.Bymonth, Count: o.Count, Until: o.Until, Except: s.exdates}
	days := o.Byweekday
	if len(days) == 0 && o.Freq == rrule.WEEKLY {
		days = []rrule.Weekday{weekdayOf(s.start)}
	}
	for _, d := range days {
		sch.Days = append(sch.Days, time.Weekday((d.Day()+1)%7))
	}
	return sch
}
