package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"calendar/models"
)

func TestEventDatesAreReadInTheRightTimezone(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_TIMEZONE", "Australia/Darwin"))
	token := app.Token(models.RoleAdministrator)
	cases := []struct {
		name                      string
		body                      map[string]any
		start, utcStart, tz, abbr string
	}{
		{"naive dates in the site timezone", map[string]any{"start_date": "2030-01-01 16:00:00", "end_date": "2030-01-01 17:00:00"},
			"2030-01-01 16:00:00", "2030-01-01 06:30:00", "Australia/Darwin", "ACST"},
		{"naive dates in the timezone sent", map[string]any{"start_date": "2018-01-01 4pm", "end_date": "2018-01-01 5pm", "timezone": "Asia/Hong_Kong"},
			"2018-01-01 16:00:00", "2018-01-01 08:00:00", "Asia/Hong_Kong", "HKT"},
		{"UTC", map[string]any{"start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "timezone": "UTC"},
			"2030-01-01 10:00:00", "2030-01-01 10:00:00", "UTC", "UTC"},
		{"a manual offset", map[string]any{"start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "timezone": "UTC+2"},
			"2030-01-01 10:00:00", "2030-01-01 08:00:00", "UTC+2", "UTC+2"},
		{"a half-hour offset", map[string]any{"start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "timezone": "UTC-5:30"},
			"2030-01-01 10:00:00", "2030-01-01 15:30:00", "UTC-5:30", "UTC-5:30"},
		{"standard time in winter", map[string]any{"start_date": "2030-01-15 09:00", "end_date": "2030-01-15 10:00", "timezone": "America/New_York"},
			"2030-01-15 09:00:00", "2030-01-15 14:00:00", "America/New_York", "EST"},
		{"daylight time in summer", map[string]any{"start_date": "2030-07-15 09:00", "end_date": "2030-07-15 10:00", "timezone": "America/New_York"},
			"2030-07-15 09:00:00", "2030-07-15 13:00:00", "America/New_York", "EDT"},
		{"RFC 3339 keeps its offset", map[string]any{"start_date": "2030-07-15T09:00:00Z", "end_date": "2030-07-15T10:00:00Z", "timezone": "Europe/Rome"},
			"2030-07-15 11:00:00", "2030-07-15 09:00:00", "Europe/Rome", "CEST"},
		{"a Unix timestamp as a JSON number is a UTC instant", map[string]any{"start_date": 1893456000, "end_date": "1893459600", "timezone": "Europe/Rome"},
			"2030-01-01 01:00:00", "2030-01-01 00:00:00", "Europe/Rome", "CET"},
		{"the ISO form with T", map[string]any{"start_date": "2030-02-01T08:30", "end_date": "2030-02-01T09:30:15", "timezone": "UTC"},
			"2030-02-01 08:30:00", "2030-02-01 08:30:00", "UTC", "UTC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.body["title"] = c.name
			e := app.createEvent(t, token, c.body)
			if e["start_date"] != c.start || e["utc_start_date"] != c.utcStart || e["timezone"] != c.tz || e["timezone_abbr"] != c.abbr {
				t.Fatalf("start %v utc %v tz %v abbr %v; want %s %s %s %s", e["start_date"], e["utc_start_date"],
					e["timezone"], e["timezone_abbr"], c.start, c.utcStart, c.tz, c.abbr)
			}
		})
	}
}

func TestRelativeDatesCountFromNow(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	e := app.createEvent(t, token, map[string]any{"title": "Soon", "start_date": "tomorrow 9am", "end_date": "+2 days"})
	tomorrow := time.Now().UTC().AddDate(0, 0, 1)
	if want := tomorrow.Format("2006-01-02") + " 09:00:00"; e["start_date"] != want {
		t.Fatalf("start = %v, want %s", e["start_date"], want)
	}
	end, err := time.Parse(dateTimeLayout, e["end_date"].(string))
	if err != nil || end.Sub(time.Now().UTC()) < 47*time.Hour || end.Sub(time.Now().UTC()) > 49*time.Hour {
		t.Fatalf("end = %v", e["end_date"])
	}
	next := app.createEvent(t, token, map[string]any{"title": "Wed", "start_date": "next wednesday 4pm", "end_date": "next wednesday 5pm"})
	start, _ := time.Parse(dateTimeLayout, next["start_date"].(string))
	if start.Weekday() != time.Wednesday || start.Hour() != 16 || !start.After(time.Now()) {
		t.Fatalf("next wednesday 4pm = %v", next["start_date"])
	}
}

func TestAllDayEventsSnapToWholeDays(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	single := app.createEvent(t, token, map[string]any{"title": "Day", "all_day": true, "timezone": "America/New_York",
		"start_date": "2030-02-15 09:00:00", "end_date": "2030-02-15 10:00:00"})
	if single["start_date"] != "2030-02-15 00:00:00" || single["end_date"] != "2030-02-15 23:59:59" ||
		single["utc_start_date"] != "2030-02-15 05:00:00" || single["all_day"] != true {
		t.Fatalf("all-day event: %v – %v (utc %v)", single["start_date"], single["end_date"], single["utc_start_date"])
	}
	multi := app.createEvent(t, token, map[string]any{"title": "Days", "all_day": "true",
		"start_date": "tomorrow 9am", "end_date": "+5 days 11am"})
	if want := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02") + " 00:00:00"; multi["start_date"] != want {
		t.Fatalf("start = %v, want %s", multi["start_date"], want)
	}
	if want := time.Now().UTC().AddDate(0, 0, 5).Format("2006-01-02") + " 23:59:59"; multi["end_date"] != want {
		t.Fatalf("end = %v, want %s", multi["end_date"], want)
	}
	moved := app.updateEvent(t, http.MethodPatch, eventPath(single), token, map[string]any{"start_date": "2030-02-14 15:00"})
	if moved["start_date"] != "2030-02-14 00:00:00" || moved["end_date"] != "2030-02-15 23:59:59" || moved["all_day"] != true {
		t.Fatalf("an all-day event lost its snapping on update: %v – %v", moved["start_date"], moved["end_date"])
	}
	timed := app.updateEvent(t, http.MethodPatch, eventPath(single), token, map[string]any{"all_day": false,
		"start_date": "2030-02-14 15:00", "end_date": "2030-02-14 16:00"})
	if timed["all_day"] != false || timed["start_date"] != "2030-02-14 15:00:00" {
		t.Fatalf("all_day false: %v %v", timed["all_day"], timed["start_date"])
	}
}

func TestUpdatingDates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	e := app.createEvent(t, token, map[string]any{"title": "Moving", "timezone": "America/New_York",
		"start_date": "2030-01-10 10:00:00", "end_date": "2030-01-10 12:00:00"})
	t.Run("sending only the start keeps the end", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"start_date": "2030-01-10 11:00:00"})
		if u["start_date"] != "2030-01-10 11:00:00" || u["end_date"] != "2030-01-10 12:00:00" {
			t.Fatalf("%v – %v", u["start_date"], u["end_date"])
		}
	})
	t.Run("sending only the end keeps the start", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"end_date": "2030-01-10 18:00:00"})
		if u["start_date"] != "2030-01-10 11:00:00" || u["end_date"] != "2030-01-10 18:00:00" {
			t.Fatalf("%v – %v", u["start_date"], u["end_date"])
		}
	})
	t.Run("naive dates are read in the event's timezone", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"start_date": "2030-01-10 09:00:00"})
		if u["utc_start_date"] != "2030-01-10 14:00:00" {
			t.Fatalf("utc start %v", u["utc_start_date"])
		}
	})
	t.Run("a new timezone keeps the wall clock", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"timezone": "Europe/Paris"})
		if u["start_date"] != "2030-01-10 09:00:00" || u["utc_start_date"] != "2030-01-10 08:00:00" || u["timezone_abbr"] != "CET" {
			t.Fatalf("start %v utc %v abbr %v", u["start_date"], u["utc_start_date"], u["timezone_abbr"])
		}
	})
	t.Run("a new timezone with the same wall clock recomputes UTC", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"timezone": "America/Los_Angeles",
			"start_date": "2030-07-10 09:00:00", "end_date": "2030-07-10 10:00:00"})
		if u["utc_start_date"] != "2030-07-10 16:00:00" || u["timezone_abbr"] != "PDT" {
			t.Fatalf("utc %v abbr %v", u["utc_start_date"], u["timezone_abbr"])
		}
	})
}

func TestPublicationDates(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_TIMEZONE", "America/New_York"))
	token := app.Token(models.RoleAdministrator)
	local := app.createEvent(t, token, eventBody("Local", 3, "date", "2030-05-01 09:00:00"))
	if local["date"] != "2030-05-01 09:00:00" || local["date_utc"] != "2030-05-01 13:00:00" {
		t.Fatalf("date %v date_utc %v", local["date"], local["date_utc"])
	}
	utc := app.createEvent(t, token, eventBody("UTC", 3, "date_utc", "tomorrow 9am"))
	if want := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02") + " 09:00:00"; utc["date_utc"] != want {
		t.Fatalf("date_utc %v, want %s", utc["date_utc"], want)
	}
	plain := app.createEvent(t, token, eventBody("Now", 3))
	published, _ := time.Parse(dateTimeLayout, plain["date_utc"].(string))
	if d := time.Since(published); d < -time.Minute || d > time.Minute {
		t.Fatalf("default publication date %v is not now", plain["date_utc"])
	}
	if plain["modified_utc"] != plain["date_utc"] {
		t.Fatalf("modified %v", plain["modified_utc"])
	}
}

// TestAnEventNeverEndsBeforeItStarts proves the rule the list's date scopes rely on (each bound on the start bounds
// the end too, and the other way round): the API refuses such dates, and so does the database itself, whatever
// writes to it; and a date window still lists exactly the events inside it, long ones across its edges left out.
func TestAnEventNeverEndsBeforeItStarts(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	create := func(title, start, end string) uint64 {
		return idOf(t, app.createEvent(t, token, map[string]any{"title": title, "start_date": start, "end_date": end}))
	}
	inside := create("Inside", "2031-03-10 10:00:00", "2031-03-10 12:00:00")
	fromBefore := create("From before", "2031-02-20 10:00:00", "2031-03-10 12:00:00")
	untilAfter := create("Until after", "2031-03-20 10:00:00", "2031-04-10 12:00:00")
	across := create("Across", "2031-02-20 10:00:00", "2031-04-10 12:00:00")

	app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: map[string]any{"title": "Backwards",
		"start_date": "2031-03-10 12:00:00", "end_date": "2031-03-10 10:00:00"}}).
		ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/events/%d", inside), Token: token,
		Body: map[string]any{"start_date": "2031-03-10 13:00:00"}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	// The database's own check is the fact, and the API refuses such a write before it reaches it.
	err := app.Store.DB().Exec("UPDATE events SET end_utc = ? WHERE id = ?",
		time.Date(2031, 3, 10, 9, 0, 0, 0, time.UTC), inside).Error
	if err == nil || !strings.Contains(err.Error(), "events_end_not_before_start") {
		t.Fatalf("the database took an end before the start: %v", err)
	}

	for _, c := range []struct {
		query string
		want  []uint64
	}{
		{"start_date=2031-03-01&end_date=2031-03-31", []uint64{inside}},
		{"start_date=2031-03-01 00:00:00&end_date=2031-03-31 00:00:00&strict_dates=true", []uint64{inside}},
		{"start_date=2031-02-01&end_date=2031-03-31", []uint64{fromBefore, inside}},
		{"start_date=2031-03-01&end_date=2031-04-30", []uint64{inside, untilAfter}},
		{"starts_after=2031-03-01&ends_before=2031-04-30", []uint64{inside, untilAfter}},
		{"starts_before=2031-03-01&ends_after=2031-03-31", []uint64{across}},
		{"starts_after=2031-02-01&ends_before=2031-03-31", []uint64{fromBefore, inside}},
	} {
		if got := app.listIDs(t, strings.ReplaceAll(c.query, " ", "%20"), ""); !slices.Equal(got, c.want) {
			t.Errorf("%s lists %v, want %v", c.query, got, c.want)
		}
	}
}
