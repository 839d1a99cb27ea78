package tests

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"calendar/models"
)

func TestAnEmptyEventList(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	res := app.Get("/events").ExpectStatus(t, http.StatusOK)
	body := res.JSON(t)
	if got := jsonKeys(t, res.Body); strings.Join(got, ",") != "events,rest_url,total,total_pages" {
		t.Fatalf("keys %v", got)
	}
	if len(body["events"].([]any)) != 0 || body["total"] != float64(0) || body["total_pages"] != float64(0) {
		t.Fatalf("body %s", res.Body)
	}
	if res.Header.Get("X-TEC-Total") != "0" || res.Header.Get("X-TEC-TotalPages") != "0" || res.Header.Get("Link") != "" {
		t.Fatalf("headers %v", res.Header)
	}
	app.Get("/events?page=2").ExpectError(t, http.StatusNotFound, "event-archive-page-not-found")
}

func TestEventListPaging(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	var ids []uint64
	for i := 1; i <= 12; i++ {
		ids = append(ids, idOf(t, app.createEvent(t, token, eventBody(fmt.Sprintf("E%d", i), i))))
	}
	t.Run("ten per page by default, ordered by start", func(t *testing.T) {
		body := app.Get("/events").ExpectStatus(t, http.StatusOK).JSON(t)
		if got := idsOf(body["events"]); !slices.Equal(got, ids[:10]) {
			t.Fatalf("page 1 %v, want %v", got, ids[:10])
		}
		if body["total"] != float64(12) || body["total_pages"] != float64(2) {
			t.Fatalf("totals %v %v", body["total"], body["total_pages"])
		}
	})
	t.Run("links and headers", func(t *testing.T) {
		res := app.Get("/events?per_page=5&page=2").ExpectStatus(t, http.StatusOK)
		body := res.JSON(t)
		if got := idsOf(body["events"]); !slices.Equal(got, ids[5:10]) {
			t.Fatalf("page 2 %v", got)
		}
		self := restQuery(t, body["rest_url"].(string))
		if self.Get("page") != "2" || self.Get("per_page") != "5" || self.Get("status") != "publish" ||
			self.Get("start_date") == "" || self.Get("end_date") == "" {
			t.Fatalf("rest_url %v", body["rest_url"])
		}
		if !strings.HasPrefix(body["rest_url"].(string), "http://example.com/calendar/events/v1/events/?") {
			t.Fatalf("rest_url %v", body["rest_url"])
		}
		if next := restQuery(t, body["next_rest_url"].(string)); next.Get("page") != "3" || next.Get("per_page") != "5" {
			t.Fatalf("next_rest_url %v", body["next_rest_url"])
		}
		if prev := restQuery(t, body["previous_rest_url"].(string)); prev.Has("page") || prev.Get("per_page") != "5" {
			t.Fatalf("previous_rest_url of page 2 %v", body["previous_rest_url"])
		}
		if res.Header.Get("X-TEC-Total") != "12" || res.Header.Get("X-TEC-TotalPages") != "3" {
			t.Fatalf("headers %v", res.Header)
		}
		link := res.Header.Get("Link")
		for _, rel := range []string{`rel="next"`, `rel="prev"`, `rel="first"`, `rel="last"`} {
			if !strings.Contains(link, rel) {
				t.Fatalf("Link %q lacks %s", link, rel)
			}
		}
		last := app.Get("/events?per_page=5&page=3").ExpectStatus(t, http.StatusOK).JSON(t)
		if got := idsOf(last["events"]); !slices.Equal(got, ids[10:]) || last["total"] != float64(12) || last["total_pages"] != float64(3) {
			t.Fatalf("the last, short page: %v, totals %v %v", got, last["total"], last["total_pages"])
		}
		if _, ok := last["next_rest_url"]; ok {
			t.Fatal("the last page has a next link")
		}
		if prev := restQuery(t, last["previous_rest_url"].(string)); prev.Get("page") != "2" {
			t.Fatalf("previous of page 3 %v", last["previous_rest_url"])
		}
		first := app.Get("/events?per_page=5").ExpectStatus(t, http.StatusOK).JSON(t)
		if _, ok := first["previous_rest_url"]; ok {
			t.Fatal("page 1 has a previous link")
		}
	})
	t.Run("following next_rest_url gives the next page", func(t *testing.T) {
		body := app.Get("/events?per_page=4&search=E").JSON(t)
		next, _ := url.Parse(body["next_rest_url"].(string))
		nextBody := app.Get("/events?"+next.RawQuery).ExpectStatus(t, http.StatusOK).JSON(t)
		if got := idsOf(nextBody["events"]); !slices.Equal(got, ids[4:8]) {
			t.Fatalf("next page %v", got)
		}
	})
	t.Run("a page past the last", func(t *testing.T) {
		app.Get("/events?per_page=5&page=4").ExpectError(t, http.StatusNotFound, "event-archive-page-not-found")
		app.Get("/events?page=9999").ExpectError(t, http.StatusNotFound, "event-archive-page-not-found")
	})
	t.Run("bad page and per_page values", func(t *testing.T) {
		for _, name := range []string{"page", "per_page"} {
			for _, v := range []string{"foo", "-1", "0", "foo%20bar", "1.5"} {
				expectInvalid(t, app.Get("/events?"+name+"="+v), name)
			}
		}
	})
	t.Run("per_page is clamped to the maximum", func(t *testing.T) {
		small := NewApp(t, WithEnv("CALENDAR_MAX_PER_PAGE", "3"))
		tok := small.Token(models.RoleEditor)
		for i := 1; i <= 4; i++ {
			small.createEvent(t, tok, eventBody("x", i))
		}
		body := small.Get("/events?per_page=1000").ExpectStatus(t, http.StatusOK).JSON(t)
		if len(body["events"].([]any)) != 3 || body["total_pages"] != float64(2) ||
			restQuery(t, body["rest_url"].(string)).Get("per_page") != "3" {
			t.Fatalf("clamped list: %d events, %v pages, %v", len(body["events"].([]any)), body["total_pages"], body["rest_url"])
		}
	})
}

func TestPerPageDefaultMaximumIsFifty(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	for i := 0; i < 51; i++ {
		app.createEvent(t, token, eventBody("E", 1+i%20))
	}
	body := app.Get("/events?per_page=100").ExpectStatus(t, http.StatusOK).JSON(t)
	if len(body["events"].([]any)) != 50 || body["total"] != float64(51) || body["total_pages"] != float64(2) {
		t.Fatalf("%d events, total %v, pages %v", len(body["events"].([]any)), body["total"], body["total_pages"])
	}
}

func restQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if strings.Contains(u.RawQuery, " ") {
		t.Fatalf("%q is not URL-encoded", raw)
	}
	return u.Query()
}

func TestEventsWithTheSameStartAreOrderedByID(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	later := idOf(t, app.createEvent(t, token, eventBody("Later", 3)))
	a := idOf(t, app.createEvent(t, token, eventBody("A", 2)))
	b := idOf(t, app.createEvent(t, token, eventBody("B", 2)))
	if got := app.listIDs(t, "", ""); !slices.Equal(got, []uint64{a, b, later}) {
		t.Fatalf("order %v", got)
	}
}

func TestHiddenEventsAreNeverListed(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	hidden := app.createEvent(t, token, eventBody("Hidden", 2, "hide_from_listings", true))
	shown := app.createEvent(t, token, eventBody("Shown", 2, "hide_from_listings", "false"))
	for _, q := range []string{"", "include=" + joinIDs(idOf(t, hidden), idOf(t, shown)), "search=Hidden", "status=publish"} {
		for _, tok := range []string{"", token} {
			if got := app.listIDs(t, q, tok); !slices.Equal(got, []uint64{idOf(t, shown)}) && !(q == "search=Hidden" && len(got) == 0) {
				t.Fatalf("%q lists %v", q, got)
			}
		}
	}
	app.Get(eventPath(hidden)).ExpectStatus(t, http.StatusOK)
}

func TestSearchingEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	var foo, fooBar, bar []uint64
	for i := 0; i < 3; i++ {
		foo = append(foo, idOf(t, app.createEvent(t, token, eventBody("foo", 1+i))))
		fooBar = append(fooBar, idOf(t, app.createEvent(t, token, eventBody("foo bar", 1+i))))
		bar = append(bar, idOf(t, app.createEvent(t, token, eventBody("bar", 1+i))))
	}
	inDesc := idOf(t, app.createEvent(t, token, eventBody("Jazz night", 5, "description", "<p>Swing and BEBOP</p>")))
	inExcerpt := idOf(t, app.createEvent(t, token, eventBody("Quiz", 5, "excerpt", "Pub quiz with prizes")))
	literal := idOf(t, app.createEvent(t, token, eventBody("100% fun_day", 5)))
	count := func(q string) int { return len(app.listIDs(t, "per_page=50&search="+url.QueryEscape(q), "")) }
	cases := []struct {
		search string
		want   int
	}{
		{"foo", 6}, {"bar", 6}, {"foo bar", 3}, {"bar foo", 3}, {`"foo bar"`, 3}, {`"bar foo"`, 0}, {"FOO", 6},
		{"bebop", 1}, {"swing bebop", 1}, {"prizes", 1}, {"jazz prizes", 0}, {"100%", 1}, {"fun_day", 1},
		{"%", 1}, {"_", 1}, {"nothing-like-this", 0}, {"' OR 1=1 --", 0}, {"foo,bar", 3}, {"foo+bar", 3},
	}
	for _, c := range cases {
		if got := count(c.search); got != c.want {
			t.Errorf("search %q finds %d, want %d", c.search, got, c.want)
		}
	}
	for search, want := range map[string]uint64{"bebop": inDesc, "prizes": inExcerpt, "100%": literal} {
		if got := app.listIDs(t, "search="+url.QueryEscape(search), ""); !slices.Equal(got, []uint64{want}) {
			t.Errorf("search %q finds %v, want [%d]", search, got, want)
		}
	}
	expectInvalid(t, app.Get("/events?search="), "search")
	expectInvalid(t, app.Get("/events?search=%20%20"), "search")
	body := app.Get("/events?search=foo%20bar").JSON(t)
	if restQuery(t, body["rest_url"].(string)).Get("search") != "foo bar" {
		t.Fatalf("rest_url %v", body["rest_url"])
	}
}

func TestFlagFilters(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	featured := idOf(t, app.createEvent(t, token, eventBody("F", 1, "featured", true)))
	ticketed := idOf(t, app.createEvent(t, token, eventBody("T", 2, "ticketed", true)))
	both := idOf(t, app.createEvent(t, token, eventBody("FT", 3, "featured", true, "ticketed", true)))
	neither := idOf(t, app.createEvent(t, token, eventBody("N", 4)))
	draftFeatured := idOf(t, app.createEvent(t, token, eventBody("DF", 5, "featured", true, "status", "draft")))
	cases := []struct {
		query, token string
		want         []uint64
	}{
		{"featured=true", "", []uint64{featured, both}},
		{"featured=1", "", []uint64{featured, both}},
		{"featured=false", "", []uint64{ticketed, neither}},
		{"featured=true", token, []uint64{featured, both, draftFeatured}},
		{"ticketed=true", "", []uint64{ticketed, both}},
		{"ticketed=false", "", []uint64{featured, neither}},
		{"ticketed=true&featured=true", "", []uint64{both}},
		{"", "", []uint64{featured, ticketed, both, neither}},
	}
	for _, c := range cases {
		if got := app.listIDs(t, c.query, c.token); !slices.Equal(got, c.want) {
			t.Errorf("%q lists %v, want %v", c.query, got, c.want)
		}
	}
	body := app.Get("/events?featured=true&ticketed=false").JSON(t)
	if q := restQuery(t, body["rest_url"].(string)); q.Get("featured") != "1" || q.Get("ticketed") != "0" {
		t.Fatalf("rest_url %v", body["rest_url"])
	}
	expectInvalid(t, app.Get("/events?featured=maybe"), "featured")
	expectInvalid(t, app.Get("/events?ticketed=2"), "ticketed")
}

func TestParentAndIncludeFilters(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	parent := app.createEvent(t, token, eventBody("Series", 1))
	c1 := idOf(t, app.createEvent(t, token, eventBody("One", 3, "parent", parent["id"])))
	c2 := idOf(t, app.createEvent(t, token, eventBody("Two", 2, "parent", parent["id"])))
	app.createEvent(t, token, eventBody("Other", 2))
	body := app.Get("/events?post_parent="+fmt.Sprint(idOf(t, parent))).ExpectStatus(t, http.StatusOK).JSON(t)
	if got := idsOf(body["events"]); !slices.Equal(got, []uint64{c2, c1}) || body["total"] != float64(2) || body["total_pages"] != float64(1) {
		t.Fatalf("children %v", got)
	}
	for _, bad := range []string{"foo-bar", "0", "-3", "2389"} {
		expectInvalid(t, app.Get("/events?post_parent="+bad), "post_parent")
	}
	draft := app.createEvent(t, token, eventBody("Draft parent", 2, "status", "draft"))
	expectInvalid(t, app.Get("/events?post_parent="+fmt.Sprint(idOf(t, draft))), "post_parent")
	app.Get("/events?post_parent="+fmt.Sprint(idOf(t, draft)), token).ExpectStatus(t, http.StatusOK)

	past := idOf(t, app.createEvent(t, token, map[string]any{"title": "Past", "start_date": "2001-01-01 10:00", "end_date": "2001-01-01 11:00"}))
	far := idOf(t, app.createEvent(t, token, map[string]any{"title": "Far", "start_date": "2090-01-01 10:00", "end_date": "2090-01-01 11:00"}))
	t.Run("include ignores every date bound and keeps the usual order", func(t *testing.T) {
		for _, q := range []string{
			fmt.Sprintf("include=%d,%d,%d", far, c1, past),
			fmt.Sprintf("include[]=%d&include[]=%d&include[]=%d", far, c1, past),
			fmt.Sprintf("include=%d&include=%d&include=%d&start_date=2050-01-01&ends_before=2000-01-01", far, c1, past),
		} {
			if got := app.listIDs(t, q, ""); !slices.Equal(got, []uint64{past, c1, far}) {
				t.Errorf("%s lists %v", q, got)
			}
		}
		if got := app.listIDs(t, fmt.Sprintf("include=%d,%d", idOf(t, draft), c1), ""); !slices.Equal(got, []uint64{c1}) {
			t.Errorf("include shows a draft to a visitor: %v", got)
		}
		for _, bad := range []string{"foo-bar,23,89", "0", "-1", "1.5"} {
			expectInvalid(t, app.Get("/events?include="+bad), "include")
		}
		q := restQuery(t, app.Get(fmt.Sprintf("/events?include=%d,%d", far, c1)).JSON(t)["rest_url"].(string))
		if q.Get("include") != fmt.Sprintf("%d,%d", far, c1) || q.Has("start_date") || q.Has("end_date") {
			t.Errorf("rest_url query %v", q)
		}
	})
}

func TestStatusFilterAndListVisibility(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	actors := app.actors(t)
	contributor, author, editor := actors[2], actors[3], actors[4]
	ids := map[string]uint64{}
	for _, st := range []string{"publish", "draft", "pending", "private", "future"} {
		ids[st] = idOf(t, app.createEvent(t, editor.token, eventBody(st, 2, "status", st)))
	}
	ownDraft := idOf(t, app.createEvent(t, contributor.token, eventBody("c-draft", 3)))
	ownPublished := idOf(t, app.createEvent(t, author.token, eventBody("a-pub", 3)))
	ownAuthorDraft := idOf(t, app.createEvent(t, author.token, eventBody("a-draft", 3, "status", "draft")))
	cases := []struct {
		who    actor
		query  string
		want   []uint64
		status string
	}{
		{actors[0], "", []uint64{ids["publish"], ownPublished}, "publish"},
		{actors[0], "status=publish", []uint64{ids["publish"], ownPublished}, "publish"},
		{actors[1], "", []uint64{ids["publish"], ownPublished}, "publish"},
		{editor, "", []uint64{ids["publish"], ids["draft"], ids["pending"], ids["private"], ids["future"], ownDraft, ownPublished, ownAuthorDraft}, "any"},
		{editor, "status=publish", []uint64{ids["publish"], ownPublished}, "publish"},
		{editor, "status=publish,%20draft", []uint64{ids["publish"], ids["draft"], ownDraft, ownPublished, ownAuthorDraft}, "publish,draft"},
		{editor, "status[]=draft&status[]=pending&status[]=private", []uint64{ids["draft"], ids["pending"], ids["private"], ownDraft, ownAuthorDraft}, "draft,pending,private"},
		{editor, "status=any", []uint64{ids["publish"], ids["draft"], ids["pending"], ids["private"], ids["future"], ownDraft, ownPublished, ownAuthorDraft}, "any"},
		{contributor, "", []uint64{ids["publish"], ownDraft, ownPublished}, "any"},
		{contributor, "status=draft", []uint64{ownDraft}, "draft"},
		{author, "", []uint64{ids["publish"], ownPublished, ownAuthorDraft}, "any"},
	}
	for _, c := range cases {
		t.Run(c.who.role+" "+c.query, func(t *testing.T) {
			body := app.Get("/events?"+c.query, c.who.token).ExpectStatus(t, http.StatusOK).JSON(t)
			if got := idsOf(body["events"]); !slices.Equal(sortedIDs(got), sortedIDs(c.want)) {
				t.Fatalf("lists %v, want %v", got, c.want)
			}
			if s := restQuery(t, body["rest_url"].(string)).Get("status"); s != c.status {
				t.Fatalf("rest_url status %q, want %q", s, c.status)
			}
			for _, id := range idsOf(body["events"]) {
				app.Get(fmt.Sprintf("/events/%d", id), c.who.token).ExpectStatus(t, http.StatusOK)
			}
		})
	}
	for _, bad := range []struct {
		who   actor
		query string
	}{
		{actors[0], "status=draft"}, {actors[0], "status=publish,draft"}, {actors[1], "status=any"},
		{editor, "status=foo"}, {editor, "status=foo,bar"}, {editor, "status=foo,%20bar,%20publish"}, {editor, "status="},
	} {
		expectInvalid(t, app.Get("/events?"+bad.query, bad.who.token), "status")
	}
}

func TestTheDefaultDateWindow(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	now := time.Now().UTC()
	day := func(d time.Time, h, m, s int) string {
		return time.Date(d.Year(), d.Month(), d.Day(), h, m, s, 0, time.UTC).Format(dateTimeLayout)
	}
	create := func(title, start, end string) uint64 {
		return idOf(t, app.createEvent(t, token, map[string]any{"title": title, "start_date": start, "end_date": end}))
	}
	yesterday := now.AddDate(0, 0, -1)
	startedYesterday := create("Yesterday", day(yesterday, 10, 0, 0), day(now, 23, 0, 0))
	todayMidnight := create("Today", day(now, 0, 0, 0), day(now, 1, 0, 0))
	twoYears := time.Date(now.Year()+2, now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	lastDay := create("Last day", day(twoYears, 10, 0, 0), day(twoYears, 23, 59, 59))
	tooLate := create("Too late", day(twoYears.AddDate(0, 0, 1), 0, 0, 0), day(twoYears.AddDate(0, 0, 1), 1, 0, 0))
	if got := app.listIDs(t, "", ""); !slices.Equal(got, []uint64{todayMidnight, lastDay}) {
		t.Fatalf("default window lists %v, want %v", got, []uint64{todayMidnight, lastDay})
	}
	body := app.Get("/events").JSON(t)
	q := restQuery(t, body["rest_url"].(string))
	if q.Get("start_date") != day(now, 0, 0, 0) || q.Get("end_date") != day(twoYears, 23, 59, 59) {
		t.Fatalf("default bounds %v", q)
	}
	t.Run("a relative bound drops the default window", func(t *testing.T) {
		got := app.listIDs(t, "ends_after="+url.QueryEscape(day(yesterday.AddDate(0, 0, -1), 0, 0, 0)), "")
		if !slices.Equal(got, []uint64{startedYesterday, todayMidnight, lastDay, tooLate}) {
			t.Fatalf("lists %v", got)
		}
		q := restQuery(t, app.Get("/events?starts_before=2099-01-01").JSON(t)["rest_url"].(string))
		if q.Has("start_date") || q.Has("end_date") || q.Get("starts_before") != "2099-01-01 23:59:59" {
			t.Fatalf("rest_url %v", q)
		}
	})
	t.Run("an explicit start keeps the default end", func(t *testing.T) {
		got := app.listIDs(t, "start_date="+day(yesterday, 0, 0, 0)[:10], "")
		if !slices.Equal(got, []uint64{startedYesterday, todayMidnight, lastDay}) {
			t.Fatalf("lists %v", got)
		}
	})
	t.Run("the window starts today in the site timezone", func(t *testing.T) {
		tokyo := NewApp(t, WithEnv("CALENDAR_TIMEZONE", "Pacific/Kiritimati"))
		q := restQuery(t, tokyo.Get("/events").JSON(t)["rest_url"].(string))
		local := time.Now().In(mustZone(t, "Pacific/Kiritimati"))
		if q.Get("start_date") != local.Format("2006-01-02")+" 00:00:00" {
			t.Fatalf("start_date %v for local day %v", q.Get("start_date"), local)
		}
	})
	for _, bad := range []string{"start_date=notadate", "end_date=before%20my%20birthday", "starts_before=x", "starts_after=2027-13-01", "ends_before=25:00", "ends_after=tomorrow-ish", "strict_dates=", "strict_dates=maybe"} {
		name := strings.SplitN(bad, "=", 2)[0]
		expectInvalid(t, app.Get("/events?"+bad), name)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestDateFiltersAsTheReferenceWorkedExamples replays The Events Calendar's worked examples of date
// filters (its tests Archive_EventTest and EventArchiveCest): inclusive bounds cover whole days, strict ones are used as given.
func TestDateFiltersAsTheReferenceWorkedExamples(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	events := map[string][2]string{
		"A": {"2017-12-29 10:00:00", "2018-01-01 12:00:00"}, // multi-day, from 12-29
		"B": {"2017-12-30 10:00:00", "2018-01-01 09:00:00"}, // multi-day, from 12-30
		"C": {"2017-12-31 17:00:00", "2017-12-31 18:00:00"},
		"D": {"2018-01-01 16:00:00", "2018-01-01 16:30:00"},
		"E": {"2018-01-01 20:00:00", "2018-01-01 20:30:00"},
		"F": {"2018-01-02 10:00:00", "2018-01-02 11:00:00"},
		"G": {"2018-01-03 10:00:00", "2018-01-03 11:00:00"},
	}
	ids := map[uint64]string{}
	for _, name := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		e := app.createEvent(t, token, map[string]any{"title": name, "start_date": events[name][0], "end_date": events[name][1]})
		ids[idOf(t, e)] = name
	}
	cases := []struct {
		name, query, want string
	}{
		{"inclusive start_date and end_date cover whole days", "start_date=2018-01-01 15:00:00&end_date=2018-01-01 18:00:00", "DE"},
		{"strict start_date and end_date use the times", "start_date=2018-01-01 15:00:00&end_date=2018-01-01 18:00:00&strict_dates=true", "D"},
		{"ongoing: ends after one day, starts before another", "ends_after=2017-12-31&starts_before=2018-01-02", "ABDEF"},
		{"narrowed to events wholly inside the window", "ends_after=2017-12-31&starts_before=2018-01-02&start_date=2017-12-30&end_date=2018-01-02", "BDEF"},
		{"strict ends_after and starts_before", "ends_after=2017-12-31&strict_dates=1&starts_before=2018-01-02", "ABCDE"},
		{"inclusive starts_after is after the whole day", "starts_after=2018-01-01", "FG"},
		{"strict starts_after", "starts_after=2018-01-01&strict_dates=yes", "DEFG"},
		{"inclusive ends_before is before the end of the day", "ends_before=2018-01-01", "ABCDE"},
		{"strict ends_before", "ends_before=2018-01-01 00:00:00&strict_dates=on", "C"},
		{"strict_dates false is inclusive", "starts_after=2018-01-01&strict_dates=false", "FG"},
		{"an end before the start matches nothing", "start_date=2018-01-02&end_date=2018-01-01", ""},
		{"a start date alone keeps the default end", "start_date=2018-01-02", "FG"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			query := strings.ReplaceAll(c.query, " ", "%20")
			var got string
			for _, id := range app.listIDs(t, query+"&per_page=50", "") {
				got += ids[id]
			}
			if got != c.want {
				t.Fatalf("%s lists %q, want %q", c.query, got, c.want)
			}
		})
	}
	t.Run("rest_url echoes the computed bounds", func(t *testing.T) {
		q := restQuery(t, app.Get("/events?start_date=2018-01-01%2015:00:00&end_date=2018-01-01&starts_after=2017-12-01").JSON(t)["rest_url"].(string))
		if q.Get("start_date") != "2018-01-01 00:00:00" || q.Get("end_date") != "2018-01-01 23:59:59" ||
			q.Get("starts_after") != "2017-12-01 23:59:59" {
			t.Fatalf("rest_url %v", q)
		}
		strict := restQuery(t, app.Get("/events?start_date=2018-01-01%2015:00:00&strict_dates=true").JSON(t)["rest_url"].(string))
		if strict.Get("start_date") != "2018-01-01 15:00:00" || strict.Get("strict_dates") != "1" {
			t.Fatalf("strict rest_url %v", strict)
		}
	})
	t.Run("naive bounds are read in the site timezone", func(t *testing.T) {
		ny := NewApp(t, WithEnv("CALENDAR_TIMEZONE", "America/New_York"))
		tok := ny.Token(models.RoleEditor)
		late := idOf(t, ny.createEvent(t, tok, map[string]any{"title": "Late", "timezone": "UTC",
			"start_date": "2018-01-02 03:00:00", "end_date": "2018-01-02 04:00:00"}))
		if got := ny.listIDs(t, "start_date=2018-01-01&end_date=2018-01-01", ""); !slices.Equal(got, []uint64{late}) {
			t.Fatalf("an event at 22:00 New York time on 01-01 is not on that day: %v", got)
		}
		if got := ny.listIDs(t, "start_date=2018-01-02&end_date=2018-01-02", ""); len(got) != 0 {
			t.Fatalf("lists %v", got)
		}
	})
}

// TestReferenceArchiveCestDates replays EventArchiveCest: weekly events 1 to 10 weeks out.
func TestReferenceArchiveCestDates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	for w := 1; w <= 10; w++ {
		app.createEvent(t, token, eventBody(fmt.Sprintf("W%d", w), 7*w))
	}
	ts := func(days int, extra time.Duration) string {
		d := time.Now().UTC().AddDate(0, 0, days).Add(extra)
		return fmt.Sprint(d.Unix())
	}
	cases := []struct {
		query string
		want  int
	}{
		{"start_date=" + ts(35, 0), 6},
		{"end_date=" + ts(35, 2*time.Hour), 5},
		{"start_date=" + ts(10, 0) + "&end_date=" + ts(30, 0), 3},
	}
	for _, c := range cases {
		if got := app.listIDs(t, c.query, ""); len(got) != c.want {
			t.Errorf("%s lists %d, want %d", c.query, len(got), c.want)
		}
	}
}
