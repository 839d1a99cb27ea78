package recurrence

import (
	"testing"
	"time"
)

func TestText(t *testing.T) {
	nyc, _ := time.LoadLocation(ny)
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, nyc) }
	cases := []struct {
		lines  []string
		start  time.Time
		allDay bool
		want   string
	}{
		{[]string{"RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH"}, at(2026, 1, 6, 18, 0), false, "Every week on Tuesday and Thursday at 18:00, 10 times"},
		{[]string{"RRULE:FREQ=WEEKLY"}, at(2026, 1, 5, 18, 0), false, "Every week on Monday at 18:00"},
		{[]string{"RRULE:FREQ=WEEKLY;COUNT=1"}, at(2026, 1, 5, 18, 30), false, "Every week on Monday at 18:30, once"},
		{[]string{"RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"}, at(2026, 1, 5, 8, 0), false, "Every weekday at 08:00"},
		{[]string{"RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}, at(2026, 1, 5, 8, 0), false, "Every week on weekdays at 08:00"},
		{[]string{"RRULE:FREQ=DAILY;INTERVAL=2"}, at(2026, 1, 5, 8, 0), false, "Every 2 days at 08:00"},
		{[]string{"RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR"}, at(1997, 9, 1, 9, 0), false,
			"Every 2 weeks on Monday, Wednesday and Friday at 09:00, until 23 December 1997 19:00"},
		{[]string{"RRULE:FREQ=WEEKLY;UNTIL=20260301T235959"}, at(2026, 1, 5, 18, 0), false, "Every week on Monday at 18:00, until 1 March 2026"},
		{[]string{"RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU"}, at(1997, 9, 7, 9, 0), false, "Every 2 months on the first and last Sunday at 09:00, 10 times"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=-2MO"}, at(1997, 9, 22, 9, 0), false, "Every month on the second-to-last Monday at 09:00"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=1FR,-1SU"}, at(2026, 1, 2, 9, 0), false, "Every month on the first Friday and the last Sunday at 09:00"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1"}, at(2026, 1, 31, 9, 0), false, "Every month on the last day at 09:00"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-3"}, at(1997, 9, 28, 9, 0), false, "Every month on the third-to-last day at 09:00"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=2,15"}, at(1997, 9, 2, 9, 0), false, "Every month on the 2nd and 15th at 09:00"},
		{[]string{"RRULE:FREQ=MONTHLY"}, at(2026, 1, 31, 19, 0), false, "Every month on the 31st at 19:00"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"}, at(2026, 1, 30, 17, 0), false, "Every month on the last weekday at 17:00"},
		{[]string{"RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3"}, at(1997, 9, 4, 9, 0), false,
			"Every month on the third Tuesday, Wednesday or Thursday at 09:00, 3 times"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"}, at(1998, 2, 13, 9, 0), false, "Every month on the 13th when it is a Friday at 09:00"},
		{[]string{"RRULE:FREQ=YEARLY;BYDAY=20MO"}, at(1997, 5, 19, 9, 0), false, "Every year on the 20th Monday of the year at 09:00"},
		{[]string{"RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH"}, at(1997, 3, 13, 9, 0), false, "Every year on every Thursday in March at 09:00"},
		{[]string{"RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7"}, at(1997, 6, 10, 9, 0), false, "Every year on the 10th in June and July at 09:00, 10 times"},
		{[]string{"RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200"}, at(1997, 1, 1, 9, 0), false,
			"Every 3 years on day 1, 100 and 200 of the year at 09:00, 10 times"},
		{[]string{"RRULE:FREQ=YEARLY;UNTIL=20281224"}, time.Date(2026, 12, 24, 0, 0, 0, 0, nyc), true, "Every year on 24 December, until 24 December 2028"},
		{[]string{"RRULE:FREQ=HOURLY;INTERVAL=3;COUNT=3"}, at(1997, 9, 2, 9, 0), false, "Every 3 hours from 09:00, 3 times"},
		{[]string{"RRULE:FREQ=DAILY;BYHOUR=9,17"}, at(2026, 1, 5, 9, 0), false, "Every day at 09:00 and 17:00"},
		{[]string{"RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40"}, at(1997, 9, 2, 9, 0), false,
			"Every day at 24 times a day from 09:00 to 16:40"},
		{[]string{"RRULE:FREQ=WEEKLY;COUNT=4", "RDATE:20260108T180000", "EXDATE:20260112T180000"}, at(2026, 1, 5, 18, 0), false,
			"Every week on Monday at 18:00, 4 times, plus 1 more date, except 1 date"},
		{[]string{"RRULE:FREQ=WEEKLY;BYDAY=MO", "RRULE:FREQ=MONTHLY;BYDAY=1FR"}, at(2026, 1, 5, 18, 0), false,
			"Every week on Monday at 18:00; and every month on the first Friday at 18:00"},
	}
	for _, c := range cases {
		s, err := Parse(Input{Lines: c.lines, Start: c.start, AllDay: c.allDay, Horizon: c.start.AddDate(0, 1, 0)})
		if err != nil {
			t.Fatalf("%v: %v", c.lines, err)
		}
		if got := s.Text(); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.lines, got, c.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	s, err := parse([]string{"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;COUNT=4", "EXDATE:20260111T180000"}, monday1800.AddDate(0, 0, 1), false)
	if err != nil {
		t.Fatal(err)
	}
	sch := s.Schedule()
	if sch.Frequency != "WEEKLY" || sch.Interval != 2 || len(sch.Days) != 2 || sch.Days[0] != time.Tuesday ||
		sch.Days[1] != time.Sunday || sch.Count != 4 || len(sch.Except) != 1 {
		t.Errorf("%+v", sch)
	}
	plain, _ := parse([]string{"RRULE:FREQ=WEEKLY"}, monday1800, false)
	if d := plain.Schedule().Days; len(d) != 1 || d[0] != time.Monday {
		t.Errorf("a weekly rule without BYDAY falls on its start's day, not %v", d)
	}
}
