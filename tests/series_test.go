package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"calendar/controllers/jobs"
	"calendar/models"
)

// weeklyClass is a series of ten evening classes in Paris on Tuesdays and Thursdays, across the change to summer
// time on 2027-03-28.
func weeklyClass(extra ...any) map[string]any {
	body := map[string]any{"title": "Evening class", "start_date": "2027-03-02 18:00", "end_date": "2027-03-02 19:30",
		"timezone": "Europe/Paris", "recurrence": []string{"rrule:freq=weekly;byday=th,tu;count=10"},
		"categories": []string{"Classes"}, "tags": []string{"dance"}}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	return body
}

// seriesList lists the occurrences of a series (all of them: the window covers the series' dates).
func (a *App) seriesList(t *testing.T, id uint64, token string) []map[string]any {
	t.Helper()
	body := a.Get(fmt.Sprintf("/events?series=%d&per_page=50&start_date=2027-01-01&end_date=2028-12-31", id), token).
		ExpectStatus(t, http.StatusOK).JSON(t)
	var out []map[string]any
	for _, e := range body["events"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func TestCreatingASeriesCreatesItsOccurrencesAsEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	id := idOf(t, series)
	if series["series_id"] != 0.0 || series["recurrence_id"] != nil || series["is_exception"] != false {
		t.Errorf("series record: series_id %v, recurrence_id %v, is_exception %v", series["series_id"],
			series["recurrence_id"], series["is_exception"])
	}
	if got := fmt.Sprint(series["recurrence"]); got != "[RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH]" {
		t.Errorf("recurrence = %s", got)
	}
	if series["recurrence_text"] != "Every week on Tuesday and Thursday at 18:00, 10 times" {
		t.Errorf("recurrence_text = %v", series["recurrence_text"])
	}
	next := series["next_occurrences"].([]any)
	if len(next) != 5 || next[0].(map[string]any)["start_date"] != "2027-03-02 18:00:00" {
		t.Fatalf("next_occurrences = %v", next)
	}

	occurrences := app.seriesList(t, id, "")
	if len(occurrences) != 10 {
		t.Fatalf("%d occurrences listed, want 10", len(occurrences))
	}
	days := []string{"02", "04", "09", "11", "16", "18", "23", "25", "30"}
	for i, o := range occurrences {
		day := "2027-04-01"
		if i < len(days) {
			day = "2027-03-" + days[i]
		}
		utcHour := "17"
		if day > "2027-03-28" {
			utcHour = "16" // summer time: 18:00 in Paris stays 18:00
		}
		want := map[string]any{"start_date": day + " 18:00:00", "end_date": day + " 19:30:00",
			"utc_start_date": day + " " + utcHour + ":00:00", "recurrence_id": day + " 18:00:00",
			"series_id": float64(id), "is_exception": false, "slug": "evening-class-" + day,
			"recurrence_text": series["recurrence_text"], "hide_from_listings": false, "title": "Evening class"}
		for k, v := range want {
			if o[k] != v {
				t.Errorf("occurrence %d: %s = %v, want %v", i, k, o[k], v)
			}
		}
		if idOf(t, o) == id || fmt.Sprint(o["recurrence"]) != fmt.Sprint(series["recurrence"]) {
			t.Errorf("occurrence %d: id %v, recurrence %v", i, o["id"], o["recurrence"])
		}
		if cats := o["categories"].([]any); len(cats) != 1 || cats[0].(map[string]any)["name"] != "Classes" {
			t.Errorf("occurrence %d: categories %v", i, o["categories"])
		}
	}
	for i, n := range next {
		if idOf(t, n.(map[string]any)) != idOf(t, occurrences[i]) {
			t.Errorf("next_occurrences[%d] = %v, want occurrence %v", i, n, occurrences[i]["id"])
		}
	}

	// Every occurrence is an event: readable by ID and slug, listed, counted; the series record is not listed.
	one := app.Get(eventPath(occurrences[3])).ExpectStatus(t, http.StatusOK).JSON(t)
	if one["series_id"] != float64(id) || one["recurrence_id"] != "2027-03-11 18:00:00" {
		t.Errorf("GET of an occurrence: %v %v", one["series_id"], one["recurrence_id"])
	}
	app.Get("/events/by-slug/evening-class-2027-03-11").ExpectStatus(t, http.StatusOK)
	res := app.Get("/events?per_page=50&start_date=2027-01-01&end_date=2028-12-31").ExpectStatus(t, http.StatusOK)
	listed := idsOf(res.JSON(t)["events"])
	if len(listed) != 10 || res.Header.Get("X-TEC-Total") != "10" {
		t.Errorf("GET /events lists %v (total %s), want the 10 occurrences", listed, res.Header.Get("X-TEC-Total"))
	}
	for _, l := range listed {
		if l == id {
			t.Error("the series record is listed")
		}
	}
	cats := app.Get("/categories").ExpectStatus(t, http.StatusOK).JSON(t)
	if c := cats["categories"].([]any)[0].(map[string]any); c["count"] != 10.0 {
		t.Errorf("the category counts %v events, want its 10 occurrences", c["count"])
	}
	record := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)
	if len(record["next_occurrences"].([]any)) != 5 || record["recurrence_text"] != series["recurrence_text"] {
		t.Errorf("GET of the series record: %v", record)
	}
}

func TestAnOpenEndedSeriesReachesTheHorizon(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_RECURRENCE_HORIZON", "10d"))
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, eventBody("Daily standup", 1, "recurrence", []string{"RRULE:FREQ=DAILY"}))
	body := app.Get(fmt.Sprintf("/events?series=%d&per_page=50", idOf(t, series))).ExpectStatus(t, http.StatusOK).JSON(t)
	if n := len(body["events"].([]any)); n != 10 {
		t.Errorf("%d occurrences up to a horizon 10 days ahead, starting tomorrow, want 10", n)
	}
	if series["recurrence_text"] != "Every day at 10:00" {
		t.Errorf("recurrence_text = %v", series["recurrence_text"])
	}
}

func TestAnAllDaySeriesTakesDates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, map[string]any{"title": "Market", "start_date": "2027-05-01",
		"end_date": "2027-05-02", "all_day": true, "timezone": "America/New_York",
		"recurrence": []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=1;UNTIL=20270901", "EXDATE;VALUE=DATE:20270701"}})
	occ := app.seriesList(t, idOf(t, series), "")
	var got []string
	for _, o := range occ {
		got = append(got, o["start_date"].(string)+"/"+o["end_date"].(string))
	}
	want := "2027-05-01 00:00:00/2027-05-02 23:59:59 2027-06-01 00:00:00/2027-06-02 23:59:59 " +
		"2027-08-01 00:00:00/2027-08-02 23:59:59 2027-09-01 00:00:00/2027-09-02 23:59:59"
	if strings.Join(got, " ") != want {
		t.Errorf("occurrences\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestBadRecurrenceIsRefusedAndNothingIsWritten(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	before := app.count(t, "events")
	for name, c := range map[string]struct {
		lines  any
		allDay bool
		reason string
	}{
		"unparseable":                     {[]string{"RRULE:FREQ"}, false, "not a rule part"},
		"unknown part":                    {[]string{"RRULE:FREQ=WEEKLY;BYFOO=2"}, false, "BYFOO is not a rule part"},
		"unknown value":                   {[]string{"RRULE:FREQ=WEEKLY;BYDAY=XX"}, false, "not a day"},
		"minutely":                        {[]string{"RRULE:FREQ=MINUTELY"}, false, "FREQ=MINUTELY is not supported"},
		"secondly":                        {[]string{"RRULE:FREQ=SECONDLY;COUNT=2"}, false, "FREQ=SECONDLY is not supported"},
		"more than 5000 occurrences":      {[]string{"RRULE:FREQ=HOURLY"}, false, "more than 5000 occurrences"},
		"UNTIL before the start":          {[]string{"RRULE:FREQ=WEEKLY;UNTIL=20200101T000000Z"}, false, "before the series' start"},
		"date-time EXDATE, all-day":       {[]string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20270309T000000"}, true, "VALUE=DATE"},
		"date RDATE on a timed series":    {[]string{"RRULE:FREQ=WEEKLY;COUNT=3", "RDATE;VALUE=DATE:20270309"}, false, "takes date-times"},
		"first occurrence excluded":       {[]string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20270302T180000"}, false, "excludes the series' first occurrence"},
		"not a list of lines":             {map[string]any{"rrule": "weekly"}, false, "must be a list of RFC 5545 lines"},
		"start not produced by the rule":  {[]string{"RRULE:FREQ=WEEKLY;BYDAY=MO"}, false, "is not an occurrence of its RRULE"},
		"no RRULE":                        {[]string{"RDATE:20270309T180000"}, false, "needs an RRULE"},
		"COUNT with UNTIL":                {[]string{"RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270401T000000Z"}, false, "COUNT and UNTIL"},
		"position on a weekly rule (2MO)": {[]string{"RRULE:FREQ=WEEKLY;BYDAY=2TU"}, false, "needs FREQ=MONTHLY or YEARLY"},
	} {
		body := weeklyClass("recurrence", c.lines)
		if c.allDay {
			body["all_day"] = true
		}
		res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body})
		e := res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		reason, _ := e["data"].(map[string]any)["params"].(map[string]any)["recurrence"].(string)
		if !strings.Contains(reason, c.reason) {
			t.Errorf("%s: the reason for recurrence is %q, want it to say %q", name, reason, c.reason)
		}
	}
	if after := app.count(t, "events"); after != before {
		t.Errorf("refused series left %d events behind", after-before)
	}
}

func TestTheSeriesFilterNamesASeries(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	single := app.createEvent(t, token, eventBody("Single", 3))
	draft := app.createEvent(t, token, eventBody("Draft class", 2, "status", "draft",
		"recurrence", []string{"RRULE:FREQ=WEEKLY;COUNT=3"}))
	for q, want := range map[string]string{
		fmt.Sprintf("series=%d", idOf(t, single)): "is not a series",
		"series=999999":                          "no series with this ID exists",
		fmt.Sprintf("series=%d", idOf(t, draft)): "no series with this ID exists", // a visitor may not read it
	} {
		res := app.Get("/events?" + q)
		e := res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if reason, _ := e["data"].(map[string]any)["params"].(map[string]any)["series"].(string); !strings.Contains(reason, want) {
			t.Errorf("%s: the error names series with %q, want %q: %s", q, reason, want, res.Body)
		}
	}
	body := app.Get(fmt.Sprintf("/events?series=%d&status=draft", idOf(t, draft)), token).ExpectStatus(t, http.StatusOK).JSON(t)
	if body["total"] != 3.0 {
		t.Errorf("the administrator's list of the draft series: total %v, want 3", body["total"])
	}
}

func TestTheHorizonJobExtendsOpenEndedSeriesOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_RECURRENCE_HORIZON", "10d"))
	twin := app.Twin()
	token := app.Token(models.RoleAdministrator)
	daily := app.createEvent(t, token, eventBody("Daily standup", 1, "recurrence", []string{"RRULE:FREQ=DAILY"},
		"categories", []string{"Meetings"}))
	weekly := app.createEvent(t, token, eventBody("Weekly review", 1, "recurrence", []string{"RRULE:FREQ=WEEKLY;COUNT=3"}))
	list := func(id uint64) []map[string]any {
		body := app.Get(fmt.Sprintf("/events?series=%d&per_page=50&end_date=%s", id, time.Now().AddDate(0, 0, 60).Format("2006-01-02"))).
			ExpectStatus(t, http.StatusOK).JSON(t)
		var out []map[string]any
		for _, e := range body["events"].([]any) {
			out = append(out, e.(map[string]any))
		}
		return out
	}
	before := list(idOf(t, daily))
	if len(before) != 10 {
		t.Fatalf("%d occurrences before the clock moves, want 10", len(before))
	}
	// Five days later, both instances run the job at once.
	later := time.Now().AddDate(0, 0, 5)
	counts := make(chan int, 2)
	errs := make(chan error, 2)
	for _, a := range []*App{app, twin} {
		go func() {
			n, err := jobs.ExtendSeries(t.Context(), a.Store, a.Config.RecurrenceHorizon, later)
			counts <- n
			errs <- err
		}()
	}
	total := 0
	for range 2 {
		total += <-counts
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if total != 1 {
		t.Errorf("the instances extended %d series between them, want the open-ended one once", total)
	}
	after := list(idOf(t, daily))
	if len(after) != 15 {
		t.Fatalf("%d occurrences after the clock moved five days, want 15", len(after))
	}
	seen := map[any]bool{}
	for i, o := range after {
		if seen[o["recurrence_id"]] {
			t.Errorf("occurrence %v appears twice", o["recurrence_id"])
		}
		seen[o["recurrence_id"]] = true
		if i < len(before) && idOf(t, o) != idOf(t, before[i]) {
			t.Errorf("occurrence %d changed its ID", i)
		}
		if cats := o["categories"].([]any); len(cats) != 1 {
			t.Errorf("occurrence %d has categories %v", i, cats)
		}
	}
	if n, err := jobs.ExtendSeries(t.Context(), app.Store, app.Config.RecurrenceHorizon, later); err != nil || n != 0 {
		t.Errorf("a second run at the same time extended %d series (%v), want none", n, err)
	}
	if n := len(list(idOf(t, weekly))); n != 3 {
		t.Errorf("the series with a COUNT has %d occurrences, want 3", n)
	}
}

func TestCollapseSeriesListsEachSeriesOnceAsItsFirstMatchingOccurrence(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass())
	occ := app.seriesList(t, idOf(t, series), "")
	other := app.createEvent(t, token, weeklyClass("title", "Morning yoga", "start_date", "2027-03-03 08:00",
		"end_date", "2027-03-03 09:00", "recurrence", []string{"RRULE:FREQ=WEEKLY;COUNT=3"}, "categories", []string{}))
	yoga := app.seriesList(t, idOf(t, other), "")
	single := app.createEvent(t, token, map[string]any{"title": "Gala", "start_date": "2027-03-05 20:00",
		"end_date": "2027-03-05 23:00", "timezone": "Europe/Paris", "categories": []string{"Classes"}})
	res := app.Get("/events?collapse_series=true&start_date=2027-03-08&end_date=2028-12-31").ExpectStatus(t, http.StatusOK)
	// From 8 March: the class's first is 9 March (occ[2]), the yoga's 10 March (yoga[1]); the gala is before.
	want := []uint64{idOf(t, occ[2]), idOf(t, yoga[1])}
	if got := idsOf(res.JSON(t)["events"]); !slices.Equal(got, want) || res.Header.Get("X-TEC-Total") != "2" {
		t.Errorf("collapsed list %v (total %s), want %v", got, res.Header.Get("X-TEC-Total"), want)
	}
	res = app.Get("/events?collapse_series=true&categories=classes&start_date=2027-01-01&end_date=2028-12-31").
		ExpectStatus(t, http.StatusOK)
	want = []uint64{idOf(t, occ[0]), idOf(t, single)}
	if got := idsOf(res.JSON(t)["events"]); !slices.Equal(got, want) || res.Header.Get("X-TEC-Total") != "2" {
		t.Errorf("collapsed list in Classes %v (total %s), want %v", got, res.Header.Get("X-TEC-Total"), want)
	}
	if got := app.listIDs(t, "collapse_series=false&per_page=50&start_date=2027-01-01&end_date=2028-12-31", ""); len(got) != 14 {
		t.Errorf("collapse_series=false lists %d events, want 14", len(got))
	}
	concert := app.createEvent(t, token, map[string]any{"title": "Concert", "start_date": "2027-03-12 20:00",
		"end_date": "2027-03-12 22:00", "timezone": "Europe/Paris"})
	// One event a page, so that every total is counted, not told by a short page: a window's single events from the
	// kept day counts (edge days whole or cut, with an occurrence or a single event on the cut ones: times are UTC,
	// the class runs from 17:00 to 18:30, the concert ends at 21:00), a filtered list's from its events.
	for _, c := range []struct {
		query string
		want  []uint64
	}{
		{"start_date=2027-03-08&end_date=2028-12-31", []uint64{idOf(t, occ[2]), idOf(t, yoga[1]), idOf(t, concert)}},
		{"strict_dates=true&start_date=2027-03-09%2012:00&end_date=2027-03-12%2021:00",
			[]uint64{idOf(t, occ[2]), idOf(t, yoga[1]), idOf(t, concert)}},
		{"strict_dates=true&start_date=2027-03-01&end_date=2027-03-04%2019:00", []uint64{idOf(t, occ[0]), idOf(t, yoga[0])}},
		{"categories=classes&start_date=2027-01-01&end_date=2028-12-31", []uint64{idOf(t, occ[0]), idOf(t, single)}},
	} {
		var got []uint64
		for page := 1; page <= len(c.want); page++ {
			res := app.Get(fmt.Sprintf("/events?collapse_series=true&per_page=1&page=%d&%s", page, c.query)).
				ExpectStatus(t, http.StatusOK)
			got = append(got, idsOf(res.JSON(t)["events"])...)
			if total := res.Header.Get("X-TEC-Total"); total != strconv.Itoa(len(c.want)) {
				t.Errorf("%s page %d: total %s, want %d", c.query, page, total, len(c.want))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: pages list %v, want %v", c.query, got, c.want)
		}
	}
}

func TestASeriesRecordCarriesItsScheduleInJSONLD(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	series := app.createEvent(t, token, weeklyClass("recurrence", []string{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10",
		"EXDATE:20270311T180000"}))
	ld := app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)["json_ld"].(map[string]any)
	sch, ok := ld["eventSchedule"].(map[string]any)
	if !ok || ld["@type"] != "Event" {
		t.Fatalf("json_ld = %v", ld)
	}
	want := map[string]any{"@type": "Schedule", "repeatFrequency": "P1W", "repeatCount": 10.0, "startDate": "2027-03-02",
		"startTime": "18:00:00", "endTime": "19:30:00", "duration": "PT1H30M", "scheduleTimezone": "Europe/Paris"}
	for k, v := range want {
		if sch[k] != v {
			t.Errorf("eventSchedule.%s = %v, want %v", k, sch[k], v)
		}
	}
	if fmt.Sprint(sch["byDay"]) != "[https://schema.org/Tuesday https://schema.org/Thursday]" ||
		fmt.Sprint(sch["exceptDate"]) != "[2027-03-11]" {
		t.Errorf("eventSchedule byDay %v, exceptDate %v", sch["byDay"], sch["exceptDate"])
	}
	occ := app.seriesList(t, idOf(t, series), "")[0]
	occLD := app.Get(eventPath(occ)).ExpectStatus(t, http.StatusOK).JSON(t)["json_ld"].(map[string]any)
	if _, has := occLD["eventSchedule"]; has || occLD["@type"] != "Event" || occLD["startDate"] != "2027-03-02T18:00:00+01:00" {
		t.Errorf("an occurrence's json_ld: %v", occLD)
	}
}

func TestOccurrenceSlugsAreUnique(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	app.createEvent(t, token, eventBody("Taken", 3, "slug", "clinic-2027-03-03"))
	series := app.createEvent(t, token, map[string]any{"title": "Clinic", "start_date": "2027-03-02 09:00",
		"end_date": "2027-03-02 10:00", "recurrence": []string{"RRULE:FREQ=DAILY;BYHOUR=9,17;COUNT=4"}})
	var slugs []string
	for _, o := range app.seriesList(t, idOf(t, series), "") {
		slugs = append(slugs, o["slug"].(string))
	}
	// Each day's occurrences take the day's slug, then -2, -3… (the event named after 3 March holds its plain slug).
	slices.Sort(slugs)
	want := "clinic-2027-03-02 clinic-2027-03-02-2 clinic-2027-03-03-2 clinic-2027-03-03-3"
	if strings.Join(slugs, " ") != want {
		t.Errorf("slugs %v, want %s", slugs, want)
	}
}

// TestACollapsedTotalCountsTheSeriesWithAnOccurrenceInTheWindow compares the number of series a collapsed list counts
// with the series that have an occurrence wholly inside the window, found from the occurrences themselves, for
// windows that start on an occurrence's day and the day after and end the same day, one, two, six or about fourteen
// weeks later (PostgreSQL sums the longer ones from counts kept by blocks of 32 days). A monthly series leaves
// windows between its occurrences, and an occurrence made to last past several later ones lies in fewer windows
// than it starts in. The series' length then changes, and an occurrence is cancelled.
func TestACollapsedTotalCountsTheSeriesWithAnOccurrenceInTheWindow(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	market := app.createEvent(t, token, map[string]any{"title": "Market", "start_date": "2027-01-01 10:00",
		"end_date": "2027-01-01 12:00", "recurrence": []string{"RRULE:FREQ=MONTHLY;COUNT=4"}})
	class := app.createEvent(t, token, map[string]any{"title": "Class", "start_date": "2027-01-04 17:00",
		"end_date": "2027-01-04 18:00", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=8"}})
	app.createEvent(t, token, map[string]any{"title": "Gala", "start_date": "2027-01-19 20:00", "end_date": "2027-01-19 23:00"})
	check := func(step string) {
		t.Helper()
		type span struct{ start, end string }
		var all [][]span
		days := map[string]bool{}
		for _, s := range []map[string]any{market, class} {
			var spans []span
			for _, o := range app.seriesList(t, idOf(t, s), "") {
				start, end := o["utc_start_date"].(string), o["utc_end_date"].(string)
				spans = append(spans, span{start, end})
				day, _ := time.Parse(dateTimeLayout, start)
				days[day.Format(time.DateOnly)], days[day.AddDate(0, 0, 1).Format(time.DateOnly)] = true, true
			}
			all = append(all, spans)
		}
		listed := func(day, to string) int {
			n := 0
			for _, spans := range all {
				if slices.ContainsFunc(spans, func(s span) bool { return s.start >= day && s.end <= to+" 23:59:59" }) {
					n++
				}
			}
			if day <= "2027-01-19" && to >= "2027-01-19" {
				n++ // the gala
			}
			return n
		}
		for day := range days {
			from, _ := time.Parse(time.DateOnly, day)
			for _, length := range []int{0, 6, 13, 42, 100} {
				to := from.AddDate(0, 0, length).Format(time.DateOnly)
				res := app.Get("/events?collapse_series=true&per_page=1&start_date=" + day + "&end_date=" + to)
				if total, want := res.Header.Get("X-TEC-Total"), listed(day, to); total != strconv.Itoa(want) {
					t.Errorf("%s: %s to %s: total %s (status %d), want %d", step, day, to, total, res.Status, want)
				}
			}
		}
		// The default list, with no date asked: from today to two years on.
		today := time.Now().UTC()
		want := listed(today.Format(time.DateOnly), today.AddDate(2, 0, 0).Format(time.DateOnly))
		res := app.Get("/events?collapse_series=true&per_page=1")
		if total := res.Header.Get("X-TEC-Total"); total != strconv.Itoa(want) {
			t.Errorf("%s: the default list's total %s (status %d), want %d", step, total, res.Status, want)
		}
	}
	check("created")
	occ := app.seriesList(t, idOf(t, class), "")
	app.updateEvent(t, http.MethodPatch, eventPath(occ[2]), token, map[string]any{"end_date": "2027-02-20 18:00"})
	check("an occurrence lasts six weeks")
	app.updateEvent(t, http.MethodPatch, eventPath(market), token, map[string]any{"end_date": "2027-01-03 12:00"})
	check("the market lasts three days")
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(occ[3]), Token: token}).ExpectStatus(t, http.StatusOK)
	check("an occurrence cancelled")
}

// TestASeriesRecordsNextOccurrencesMoveWithTheClock reads a series record anonymously until the response cache
// serves it, then lets its first occurrence start: with no write at all, the next read lists the occurrences
// after it, and the record is served from the cache again after that.
func TestASeriesRecordsNextOccurrencesMoveWithTheClock(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	start := time.Now().UTC().Truncate(time.Second).Add(4 * time.Second)
	series := app.createEvent(t, admin, map[string]any{"title": "Soon", "status": "publish", "timezone": "UTC",
		"start_date": start.Format(time.DateTime), "end_date": start.Add(time.Hour).Format(time.DateTime),
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3"}})
	next := func() []uint64 {
		t.Helper()
		return linkIDs(t, app.Get(eventPath(series)).ExpectStatus(t, http.StatusOK).JSON(t)["next_occurrences"])
	}
	occurrences := itemIDs(t, app.Get(fmt.Sprintf("/events?series=%d&start_date=%s&end_date=%s", idOf(t, series),
		start.Format(time.DateOnly), start.AddDate(0, 0, 3).Format(time.DateOnly))).ExpectStatus(t, http.StatusOK).JSON(t),
		"events")
	if len(occurrences) != 3 {
		t.Fatalf("%d occurrences, want 3", len(occurrences))
	}
	next()
	next()
	hits := cacheMetric(t, app, "hits_total")
	got := next()
	if !time.Now().Before(start) {
		t.Skip("the machine took longer than the first occurrence's four seconds to create and read the series")
	}
	if fmt.Sprint(got) != fmt.Sprint(occurrences) || cacheMetric(t, app, "hits_total") != hits+1 {
		t.Fatalf("before the first occurrence: next occurrences %v (want %v), served from the cache: %v", got,
			occurrences, cacheMetric(t, app, "hits_total") == hits+1)
	}
	time.Sleep(time.Until(start.Add(1100 * time.Millisecond)))
	if got := next(); fmt.Sprint(got) != fmt.Sprint(occurrences[1:]) {
		t.Fatalf("after the first occurrence started: next occurrences %v, want %v", got, occurrences[1:])
	}
	hits = cacheMetric(t, app, "hits_total")
	next()
	if cacheMetric(t, app, "hits_total") != hits+1 {
		t.Fatal("the record with its new next occurrences was not served from the cache")
	}
}
