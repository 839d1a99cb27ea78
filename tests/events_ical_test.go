package tests

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"calendar/models"
)

// The iCalendar feeds: GET /events.ics, GET /events with Accept: text/calendar and GET
// /events/{id}.ics. Every answer is read back by golang-ical (readICal, which also checks the line format) and,
// where node and ical.js are installed, by ical.js (readICalJS).

// icalFixture is the calendar of the golden feed: every kind of event a feed must write right.
type icalFixture struct {
	editor string
	// events are the records as created, by name.
	events map[string]map[string]any
}

// icalFixtureModified is the modification date every fixture event is given, so that the golden files hold.
var icalFixtureModified = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newICalFixture creates, in 2027: an event of several days across the start of daylight saving time in Berlin
// at a venue with coordinates, with a long title, an HTML description, two categories and an organizer whose name
// needs quoting; an all-day event of two days in New York at a venue whose name needs escaping, with an organizer
// without e-mail; an event in a fixed-offset zone with only an excerpt; one in UTC; a password-protected one; one
// at a password-protected venue with coordinates; one in New York across the end of daylight saving time; and a
// draft, which anonymous feeds never show. Then it sets every event's modification date to
// icalFixtureModified.
func newICalFixture(t *testing.T, app *App) icalFixture {
	t.Helper()
	f := icalFixture{editor: app.Token(models.RoleEditor), events: map[string]map[string]any{}}
	create := func(path string, body map[string]any) map[string]any {
		return app.Do(Request{Method: http.MethodPost, Path: path, Token: f.editor, Body: body}).
			ExpectStatus(t, http.StatusCreated).JSON(t)
	}
	concertHall := create("/venues", map[string]any{"venue": "Konzerthaus Berlin", "address": "Gendarmenmarkt 2",
		"city": "Berlin", "zip": "10117", "country": "Germany", "geo_lat": 52.5138, "geo_lng": 13.3919})["id"]
	townHall := create("/venues", map[string]any{"venue": "Town Hall; Main Room", "address": "1 Main St",
		"city": "Springfield", "state": "IL", "zip": "62701", "country": "United States"})["id"]
	hiddenHall := create("/venues", map[string]any{"venue": "Hidden Hall", "address": "7 Secret Lane",
		"city": "Berlin", "geo_lat": 52.5, "geo_lng": 13.4, "password": "hall-pw"})["id"]
	pat := create("/organizers", map[string]any{"organizer": `O'Brien, Pat "the Voice"`, "email": "pat@example.org"})["id"]
	gallery := create("/organizers", map[string]any{"organizer": "Gallery: Friends"})["id"]
	event := func(name, title, start, end, zone string, extra ...any) {
		body := map[string]any{"title": title, "start_date": start, "end_date": end, "timezone": zone}
		for i := 0; i+1 < len(extra); i += 2 {
			body[extra[i].(string)] = extra[i+1]
		}
		f.events[name] = create("/events", body)
	}
	event("talk", "Talk in Chennai time", "2027-01-15 09:00:00", "2027-01-15 10:30:00", "UTC+5:30",
		"excerpt", "<p>A short talk</p>")
	event("festival", "Spring festival of choirs, brass bands and folk dance at the Konzerthaus — three days",
		"2027-03-27 10:00:00", "2027-03-29 18:00:00", "Europe/Berlin", "venue", concertHall, "organizer", pat,
		"categories", []any{"Music", "Outdoors"}, "tags", []any{"loud"},
		"description", "<p>Three days of music &amp; dance.</p><ul><li>Friday: choirs</li><li>Sunday: brass</li></ul>"+
			"<p>Free entry; bring friends, food.</p>")
	event("market", "Farmers' market", "2027-06-12", "2027-06-13", "America/New_York", "all_day", true,
		"venue", townHall, "organizer", gallery, "categories", []any{"Outdoors"})
	event("recital", "Recital", "2027-07-01 19:00:00", "2027-07-01 21:00:00", "Europe/Berlin", "venue", hiddenHall)
	event("dinner", "Secret dinner", "2027-10-31 20:00:00", "2027-10-31 23:00:00", "Europe/Berlin",
		"password", "dinner-pw", "venue", concertHall, "organizer", pat, "categories", []any{"Music"},
		"description", "<p>Seven courses</p>", "all_day", false)
	event("meetup", "UTC meetup", "2027-11-05 18:00:00", "2027-11-05 20:00:00", "UTC")
	event("night", "New York night", "2027-11-06 22:00:00", "2027-11-07 02:30:00", "America/New_York")
	event("draft", "Unannounced", "2027-08-01 10:00:00", "2027-08-01 11:00:00", "UTC", "status", "draft")
	// The golden feeds need fixed modification dates, and a write through the API is dated now.
	if err := app.Store.DB().Model(&models.Event{}).Where("id > 0").
		UpdateColumn("updated_at", icalFixtureModified).Error; err != nil {
		t.Fatal(err)
	}
	return f
}

// wantEvent is what a VEVENT of the fixture must say to a caller who sees it in full, from the record the API
// created (times from its UTC dates, which the service computed without any VTIMEZONE). redacted drops what
// lists hide of a protected event.
func (f icalFixture) wantEvent(t testing.TB, name string, redacted bool, details icalEvent) icalEvent {
	rec := f.events[name]
	utc := func(key string) string {
		at, _ := time.Parse(dateTimeLayout, rec[key].(string))
		return at.Format(time.RFC3339)
	}
	want := icalEvent{UID: fmt.Sprintf("event-%d@example.com", idOf(t, rec)), Summary: rec["title"].(string),
		Start: utc("utc_start_date"), End: utc("utc_end_date"), URL: rec["url"].(string), Status: "CONFIRMED",
		Categories: []string{}}
	if rec["all_day"] == true {
		start, _ := time.Parse(dateTimeLayout, rec["start_date"].(string))
		end, _ := time.Parse(dateTimeLayout, rec["end_date"].(string))
		want.Start, want.End = start.Format("2006-01-02"), end.AddDate(0, 0, 1).Format("2006-01-02")
	}
	if redacted {
		return want
	}
	want.Description, want.Location, want.Geo = details.Description, details.Location, details.Geo
	want.OrganizerCN, want.Organizer = details.OrganizerCN, details.Organizer
	if details.Categories != nil {
		want.Categories = details.Categories
	}
	return want
}

// anonymousFeed is what the fixture's feed must hold for an anonymous caller, in order.
func (f icalFixture) anonymousFeed(t testing.TB) []icalEvent {
	return []icalEvent{
		f.wantEvent(t, "talk", false, icalEvent{Description: "A short talk"}),
		f.wantEvent(t, "festival", false, icalEvent{
			Description: "Three days of music & dance.\n\n- Friday: choirs\n- Sunday: brass\n\nFree entry; bring friends, food.",
			Location:    "Konzerthaus Berlin, Gendarmenmarkt 2, Berlin, 10117, Germany", Geo: "52.5138;13.3919",
			Categories: []string{"Music", "Outdoors"}, OrganizerCN: `O'Brien, Pat 'the Voice'`,
			Organizer: "mailto:pat@example.org"}),
		f.wantEvent(t, "market", false, icalEvent{
			Location:   "Town Hall; Main Room, 1 Main St, Springfield, IL 62701, United States",
			Categories: []string{"Outdoors"}, OrganizerCN: "Gallery: Friends",
			Organizer: "http://example.com/organizer/gallery-friends/"}),
		f.wantEvent(t, "recital", false, icalEvent{Location: "Hidden Hall"}),
		f.wantEvent(t, "dinner", true, icalEvent{}),
		f.wantEvent(t, "meetup", false, icalEvent{}),
		f.wantEvent(t, "night", false, icalEvent{}),
	}
}

// icalFixtureQuery selects the fixture's year, so that the golden feed does not depend on the day it runs.
const icalFixtureQuery = "start_date=2027-01-01&end_date=2027-12-31"

// TestICalFeedGolden holds the anonymous feed of the fixture to testdata/events.golden.ics and reads it back with
// golang-ical and with ical.js: both must find exactly the events created, with the times the API gives (the
// VTIMEZONEs must say what Go's zone database says, across both changes of daylight saving time), the texts
// unescaped, the parameters unquoted, and the protected event redacted.
func TestICalFeedGolden(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	f := newICalFixture(t, app)
	res := app.Get("/events.ics?"+icalFixtureQuery).ExpectStatus(t, http.StatusOK)
	expectGolden(t, "events.golden.ics", res.Body)
	want := f.anonymousFeed(t)

	t.Run("golang-ical", func(t *testing.T) {
		got := readICal(t, res)
		if !reflect.DeepEqual(got.Events, want) {
			t.Errorf("golang-ical reads\n%+v\nwant\n%+v", got.Events, want)
		}
		if strings.Join(got.Timezones, " ") != "America/New_York Europe/Berlin UTC+5:30" {
			t.Errorf("VTIMEZONEs %v", got.Timezones)
		}
		if got.Calendar["x-wr-caldesc"] != "" {
			t.Errorf("a feed under the cap says %q", got.Calendar["x-wr-caldesc"])
		}
	})
	t.Run("ical.js", func(t *testing.T) {
		got := readICalJS(t, res.Body)
		if !reflect.DeepEqual(got.Events, want) {
			t.Errorf("ical.js reads\n%+v\nwant\n%+v", got.Events, want)
		}
		if got.Calendar["version"] != "2.0" || got.Calendar["x-wr-timezone"] != "UTC" {
			t.Errorf("calendar properties %v", got.Calendar)
		}
	})
	t.Run("an editor sees the protected event in full and the draft as tentative", func(t *testing.T) {
		got := readICal(t, app.Get("/events.ics?"+icalFixtureQuery, f.editor).ExpectStatus(t, http.StatusOK))
		byUID := map[string]icalEvent{}
		for _, e := range got.Events {
			byUID[e.UID] = e
		}
		dinner := byUID[fmt.Sprintf("event-%d@example.com", idOf(t, f.events["dinner"]))]
		if dinner.Description != "Seven courses" || dinner.OrganizerCN == "" || dinner.Geo != "52.5138;13.3919" {
			t.Errorf("the protected event for its editor: %+v", dinner)
		}
		if draft := byUID[fmt.Sprintf("event-%d@example.com", idOf(t, f.events["draft"]))]; draft.Status != "TENTATIVE" {
			t.Errorf("the draft for its editor: %+v", draft)
		}
		if len(got.Events) != len(want)+1 {
			t.Errorf("the editor's feed has %d events, want %d", len(got.Events), len(want)+1)
		}
	})
}

// TestSingleEventICal reads events one by one as iCalendar: the event of the fixture across the start of daylight
// saving time is held to testdata/event.golden.ics; the read rules of GET /events/{id} apply with their JSON
// errors; and the answer revalidates by ETag and by Last-Modified.
func TestSingleEventICal(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	f := newICalFixture(t, app)
	festival := fmt.Sprintf("/events/%d.ics", idOf(t, f.events["festival"]))
	res := app.Get(festival).ExpectStatus(t, http.StatusOK)
	expectGolden(t, "event.golden.ics", res.Body)
	if got := readICal(t, res).Events; len(got) != 1 || !reflect.DeepEqual(got[0], f.anonymousFeed(t)[1]) {
		t.Errorf("golang-ical reads %+v", got)
	}
	t.Run("ical.js", func(t *testing.T) {
		if got := readICalJS(t, res.Body).Events; len(got) != 1 || !reflect.DeepEqual(got[0], f.anonymousFeed(t)[1]) {
			t.Errorf("ical.js reads %+v", got)
		}
	})
	if lm := res.Header.Get("Last-Modified"); lm != icalFixtureModified.Format(http.TimeFormat) {
		// The venue and organizer were created after the event's date was set back: they are later.
		if at, err := http.ParseTime(lm); err != nil || !at.After(icalFixtureModified) {
			t.Errorf("Last-Modified %q", lm)
		}
	}
	again := app.Do(Request{Path: festival, Header: http.Header{"If-None-Match": {res.Header.Get("ETag")}}})
	if again.Status != http.StatusNotModified || len(again.Body) != 0 {
		t.Errorf("If-None-Match with the ETag: %d", again.Status)
	}
	since := app.Do(Request{Path: festival, Header: http.Header{"If-Modified-Since": {res.Header.Get("Last-Modified")}}})
	if since.Status != http.StatusNotModified {
		t.Errorf("If-Modified-Since with Last-Modified: %d", since.Status)
	}

	dinner := fmt.Sprintf("/events/%d.ics", idOf(t, f.events["dinner"]))
	app.Get(dinner).ExpectError(t, http.StatusForbidden, "event-password-protected")
	unlocked := readICal(t, app.Get(dinner+"?password=dinner-pw").ExpectStatus(t, http.StatusOK)).Events
	if len(unlocked) != 1 || unlocked[0].Description != "Seven courses" {
		t.Errorf("the protected event with its password: %+v", unlocked)
	}
	draft := fmt.Sprintf("/events/%d.ics", idOf(t, f.events["draft"]))
	app.Get(draft).ExpectError(t, http.StatusForbidden, "event-not-accessible")
	if got := readICal(t, app.Get(draft, f.editor).ExpectStatus(t, http.StatusOK)).Events; got[0].Status != "TENTATIVE" {
		t.Errorf("the draft for its editor: %+v", got)
	}
	app.Get("/events/999999.ics").ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	for _, path := range []string{"/events/abc.ics", "/events/.ics", "/events/1.ics.ics", "/events/1.json"} {
		app.Get(path).ExpectError(t, http.StatusNotFound, "rest_no_route")
	}
	app.Get(festival+"?password=").ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
}

// TestEventsNegotiateICalendar answers GET /events with the feed when Accept prefers text/calendar to JSON by
// quality or specificity, and with JSON otherwise; either way Vary names Accept.
func TestEventsNegotiateICalendar(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	newICalFixture(t, app)
	feed := app.Get("/events.ics?"+icalFixtureQuery).ExpectStatus(t, http.StatusOK)
	for accept, calendar := range map[string]bool{
		"text/calendar":                         true,
		"text/calendar, */*":                    true,
		"application/json;q=0.5, text/calendar": true,
		"text/*":                                true,
		"":                                      false,
		"*/*":                                   false,
		"application/json":                      false,
		"application/json, text/calendar":       false,
		"text/calendar;q=0.5, application/json": false,
		"text/calendar;q=0":                     false,
		"text/html, application/*":              false,
	} {
		res := app.Do(Request{Path: "/events?per_page=2&" + icalFixtureQuery, Header: http.Header{"Accept": {accept}}}).
			ExpectStatus(t, http.StatusOK)
		if !strings.Contains(res.Header.Get("Vary"), "Accept") {
			t.Errorf("Accept %q: Vary %q", accept, res.Header.Get("Vary"))
		}
		if !calendar {
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || res.JSON(t)["total"] != float64(7) {
				t.Errorf("Accept %q answered %s", accept, truncate(res.Body, 200))
			}
			continue
		}
		// The feed of the same query, unpaged; per_page is checked, then ignored.
		if !bytes.Equal(res.Body, feed.Body) {
			t.Errorf("Accept %q: not the feed of /events.ics: %s", accept, truncate(res.Body, 300))
		}
		if !strings.HasPrefix(res.Header.Get("ETag"), `W/"`) || res.Header.Get("ETag") == feed.Header.Get("ETag") {
			t.Errorf("Accept %q: ETag %q (the feed's is %q)", accept, res.Header.Get("ETag"), feed.Header.Get("ETag"))
		}
	}
	app.Do(Request{Path: "/events?per_page=0", Header: http.Header{"Accept": {"text/calendar"}}}).
		ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
}

// TestICalFeedStopsAtTheCap reads a feed of more events than CALENDAR_ICAL_MAX_EVENTS: exactly the first events
// of the list, and X-WR-CALDESC saying the feed stopped; a feed of exactly the cap says nothing.
func TestICalFeedStopsAtTheCap(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_ICAL_MAX_EVENTS", "3"))
	token := app.Token(models.RoleEditor)
	var ids []uint64
	for i := 0; i < 5; i++ {
		ids = append(ids, idOf(t, app.createEvent(t, token, eventBody(fmt.Sprintf("Capped %d", i), 3+i))))
	}
	full := readICal(t, app.Get("/events.ics").ExpectStatus(t, http.StatusOK))
	if got := uidIDs(t, full.Events); !slices.Equal(got, ids[:3]) {
		t.Errorf("the capped feed holds %v, want %v", got, ids[:3])
	}
	if desc := full.Calendar["x-wr-caldesc"]; !strings.Contains(desc, "first 3 events") {
		t.Errorf("X-WR-CALDESC %q does not state the cap", desc)
	}
	exact := readICal(t, app.Get("/events.ics?include="+joinIDs(ids[1:4]...)).ExpectStatus(t, http.StatusOK))
	if got := uidIDs(t, exact.Events); !slices.Equal(got, ids[1:4]) || exact.Calendar["x-wr-caldesc"] != "" {
		t.Errorf("a feed of exactly the cap: %v, X-WR-CALDESC %q", got, exact.Calendar["x-wr-caldesc"])
	}
}

// TestICalFeedReadsInBatches reads feeds longer than one batch of 500, with many events starting at the same
// instant (the keyset continues by ID): every event once, in list order, up to the cap.
func TestICalFeedReadsInBatches(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_ICAL_MAX_EVENTS", "1100"))
	login, _ := app.User(models.RoleEditor)
	author := app.userID(login)
	base := time.Date(2027, 5, 1, 10, 0, 0, 0, time.UTC)
	events := make([]models.Event, 1203)
	for i := range events {
		start := base.Add(time.Duration(i%7) * time.Hour) // seven instants, each shared by ~170 events
		events[i] = models.Event{AuthorID: author, Status: models.StatusPublish, Title: fmt.Sprintf("Batch %d", i),
			Slug: fmt.Sprintf("batch-%d", i), Timezone: "Europe/Berlin", StartUTC: start, EndUTC: start.Add(time.Hour),
			PublishedAt: base, CreatedAt: base, UpdatedAt: base}
	}
	// 1,203 creates through the API would make this the slowest test of the suite: the store inserts them in
	// batches. The list order (start, then ID) follows from what was inserted.
	if err := app.Store.DB().CreateInBatches(events, 400).Error; err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(events, func(a, b models.Event) int {
		return cmp.Or(a.StartUTC.Compare(b.StartUTC), cmp.Compare(a.ID, b.ID))
	})
	var ordered, want []uint64 // every event, and those from 12:00
	for _, e := range events {
		ordered = append(ordered, e.ID)
		if !e.StartUTC.Before(base.Add(2 * time.Hour)) {
			want = append(want, e.ID)
		}
	}
	got := readICal(t, app.Get("/events.ics?start_date=2027-05-01&end_date=2027-05-02").ExpectStatus(t, http.StatusOK))
	if ids := uidIDs(t, got.Events); !slices.Equal(ids, ordered[:1100]) {
		t.Errorf("the feed holds %d events, not the first 1100 in list order", len(ids))
	}
	if !strings.Contains(got.Calendar["x-wr-caldesc"], "first 1100 events") {
		t.Errorf("X-WR-CALDESC %q", got.Calendar["x-wr-caldesc"])
	}
	part := readICal(t, app.Get("/events.ics?strict_dates=true&start_date=2027-05-01T12:00:00Z&end_date=2027-05-02").
		ExpectStatus(t, http.StatusOK))
	if ids := uidIDs(t, part.Events); !slices.Equal(ids, want) || part.Calendar["x-wr-caldesc"] != "" {
		t.Errorf("a feed of %d events across batches holds %d", len(want), len(ids))
	}
}

// TestICalFeedAppliesEveryListFilter sends every filter of GET /events, alone and combined, to /events.ics as a
// visitor and as an editor: the feed holds exactly the events of the list (per_page 50 holds them all), in the
// same order, and a bad filter is the list's 400. A filter of the list that no case sends fails the test.
func TestICalFeedAppliesEveryListFilter(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	music := app.post(t, editor, "/categories", map[string]any{"name": "Music"})
	jazz := app.post(t, editor, "/categories", map[string]any{"name": "Jazz", "parent": music})
	berlin := app.post(t, editor, "/venues", map[string]any{"venue": "Berlin Hall", "geo_lat": 52.52, "geo_lng": 13.40})
	newYork := app.post(t, editor, "/venues", map[string]any{"venue": "New York Hall", "geo_lat": 40.71, "geo_lng": -74.0})
	plain := app.post(t, editor, "/venues", map[string]any{"venue": "Plain Hall"})
	anna := app.post(t, editor, "/organizers", map[string]any{"organizer": "Anna"})
	ben := app.post(t, editor, "/organizers", map[string]any{"organizer": "Ben"})
	event := func(title string, day int, extra ...any) uint64 {
		return idOf(t, app.createEvent(t, editor, eventBody(title, day, extra...)))
	}
	parent := event("Saxophone night", 2, "categories", []any{jazz}, "tags", []any{"late"}, "venue", berlin,
		"organizer", []any{anna}, "featured", true)
	event("Rock evening", 4, "categories", []any{music}, "venue", newYork, "organizer", []any{ben}, "ticketed", true)
	event("Child concert", 6, "parent", parent, "venue", plain, "tags", []any{"late", "kids"})
	event("Draft rehearsal", 8, "status", "draft", "venue", berlin)
	event("Hidden gig", 10, "hide_from_listings", true)
	event("Protected jam", 12, "password", "jam-pw", "categories", []any{jazz}, "venue", newYork)
	event("Private session", 14, "status", "private", "organizer", []any{anna})
	event("Yesterday's show", -1, "venue", berlin)
	event("Long residency", 16, "end_date", daysFromNow(40, 12), "featured", true, "ticketed", true)
	event("Late saxophone", 30, "organizer", []any{ben, anna}, "venue", []any{plain, berlin})
	event("Far future", 900)
	day := func(n int) string { return daysFromNow(n, 0)[:10] }
	queries := []string{
		"", "start_date=" + day(5), "end_date=" + day(13), "start_date=" + day(-3) + "&end_date=" + day(20),
		"starts_before=" + day(9), "starts_after=" + day(9), "ends_before=" + day(15), "ends_after=" + day(15),
		"strict_dates=true&start_date=" + url.QueryEscape(daysFromNow(4, 11)) + "&end_date=" + day(17),
		"strict_dates=false&start_date=" + day(4), "start_date=now", "end_date=" + url.QueryEscape("+2 weeks"),
		"search=saxophone", "search=" + url.QueryEscape(`"rock evening"`), "categories=music",
		fmt.Sprintf("categories=%d", jazz), "tags=late", "tags=late,kids&categories=jazz",
		fmt.Sprintf("venue=%d", berlin), fmt.Sprintf("venue=%d,%d", berlin, newYork), fmt.Sprintf("organizer=%d", anna),
		fmt.Sprintf("organizer=%d&venue=%d", ben, plain), "featured=true", "featured=false", "ticketed=true",
		"ticketed=false", "status=publish", fmt.Sprintf("include=%d,%d,%d", parent, parent+4, parent+7),
		fmt.Sprintf("post_parent=%d", parent), "geoloc=true", "geoloc=false",
		"geoloc_lat=52.5&geoloc_lng=13.4&geoloc_radius=50&geoloc_unit=km", "geoloc=1&geoloc_lat=40.7&geoloc_lng=-74",
		"geoloc_lat=40.7&geoloc_lng=-74&geoloc_radius=2&geoloc_unit=miles&featured=false",
		"collapse_series=true&featured=true",
	}
	editorOnly := []string{"status=any", "status=draft,private", "status=trash", "status=draft&venue=" + fmt.Sprint(berlin)}
	check := func(query, token, who string) {
		t.Helper()
		want := app.listIDs(t, "per_page=50&"+query, token)
		got := uidIDs(t, readICal(t, app.Get("/events.ics?"+query, token).ExpectStatus(t, http.StatusOK)).Events)
		if !slices.Equal(got, want) {
			t.Errorf("/events.ics?%s as %s holds %v; the list holds %v", query, who, got, want)
		}
	}
	for _, q := range queries {
		check(q, "", "a visitor")
		check(q, editor, "an editor")
	}
	for _, q := range editorOnly {
		check(q, editor, "an editor")
		app.Get("/events.ics?"+q).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	}
	bad := map[string]string{"categories=nope": "categories", "venue=999999": "venue",
		"start_date=someday": "start_date", "geoloc_lat=91&geoloc_lng=0": "geoloc_lat", "search=": "search",
		fmt.Sprintf("series=%d", parent): "series"}
	for q, param := range bad {
		body := app.Get("/events.ics?"+q).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if params, _ := body["data"].(map[string]any)["params"].(map[string]any); params[param] == nil {
			t.Errorf("/events.ics?%s: the error does not name %s: %v", q, param, body)
		}
	}
	for _, arg := range app.endpoint("/events.ics", 0).Args() {
		sent := false
		for _, q := range append(append(queries, editorOnly...), slices.Collect(maps.Keys(bad))...) {
			sent = sent || strings.HasPrefix(q, arg.Name+"=") || strings.Contains(q, "&"+arg.Name+"=")
		}
		if !sent {
			t.Errorf("no case sends the feed's filter %s", arg.Name)
		}
	}
}

// TestICalFeedRevalidatesWithOneVersionRead polls a feed with its ETag: weak, the same until a write commits, and
// answered 304 after reading nothing but the data version — no event is queried. Without If-None-Match the feed
// is built anew each time (feeds are never served from the response cache); an authenticated caller gets a tag
// of its own, with Cache-Control private; Vary names Authorization and Accept.
func TestICalFeedRevalidatesWithOneVersionRead(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	f := newICalFixture(t, app)
	path := "/events.ics?" + icalFixtureQuery
	first := app.Get(path).ExpectStatus(t, http.StatusOK)
	etag := first.Header.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) || first.Header.Get("Cache-Control") != "public, no-cache" ||
		!strings.Contains(first.Header.Get("Vary"), "Authorization, Accept") {
		t.Fatalf("ETag %q, Cache-Control %q, Vary %q", etag, first.Header.Get("Cache-Control"), first.Header.Get("Vary"))
	}
	statements := recordQueries(t, app)
	for _, inm := range []string{etag, strings.TrimPrefix(etag, "W/"), `"other", ` + etag, "*"} {
		again := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {inm}}})
		if again.Status != http.StatusNotModified || len(again.Body) != 0 || again.Header.Get("ETag") != etag {
			t.Fatalf("If-None-Match %s: %d %q, ETag %q", inm, again.Status, again.Body, again.Header.Get("ETag"))
		}
	}
	sqls := statements()
	for _, sql := range sqls {
		if !strings.Contains(sql, "data_versions") {
			t.Errorf("a revalidated feed sent %s", sql)
		}
	}
	if len(sqls) == 0 || len(sqls) > 4 {
		t.Errorf("four revalidations sent %d statements, want one version read each at most", len(sqls))
	}

	fresh := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {`"stale"`}}}).ExpectStatus(t, http.StatusOK)
	if !bytes.Equal(fresh.Body, first.Body) || fresh.Header.Get("ETag") != etag {
		t.Errorf("a stale tag did not get the feed")
	}
	read := 0
	for _, sql := range statements()[len(sqls):] {
		if strings.Contains(sql, "events") {
			read++
		}
	}
	if read == 0 {
		t.Error("the feed was answered without reading events: from a cache")
	}

	mine := app.Get(path, f.editor).ExpectStatus(t, http.StatusOK)
	if mine.Header.Get("ETag") == etag || mine.Header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("the editor's feed: ETag %q, Cache-Control %q", mine.Header.Get("ETag"), mine.Header.Get("Cache-Control"))
	}
	app.Do(Request{Path: path, Token: f.editor, Header: http.Header{"If-None-Match": {etag}}}).
		ExpectStatus(t, http.StatusOK)
	if other := app.Get("/events.ics?" + icalFixtureQuery + "&featured=false"); other.Header.Get("ETag") == etag {
		t.Error("another query has the same ETag")
	}

	app.updateEvent(t, http.MethodPatch, eventPath(f.events["meetup"]), f.editor, map[string]any{"title": "Moved meetup"})
	after := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {etag}}}).ExpectStatus(t, http.StatusOK)
	if after.Header.Get("ETag") == etag || !strings.Contains(string(after.Body), "SUMMARY:Moved meetup") {
		t.Errorf("after a write: ETag %q, body %s", after.Header.Get("ETag"), truncate(after.Body, 200))
	}
}
