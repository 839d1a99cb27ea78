package tests

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"calendar/models"
)

// totalsFixture is an app whose events are all at one venue, so that every list has a twin with venue=… that
// counts its events row by row: lists narrowed by nothing but their date window and statuses are totalled and
// paged from the kept day counts instead, and must answer exactly what the counted twin answers. The venue has
// coordinates, so that lists narrowed to a circle around it (totalled and paged from the kept venue links) have
// the same twin; an event the fixture also links to a second venue in the circle is counted once.
type totalsFixture struct {
	app   *App
	admin string
	venue uint64
	// category, when set, is the slug of a category whose lists are compared too.
	category string
}

func newTotalsFixture(t *testing.T) *totalsFixture {
	app := NewApp(t)
	f := &totalsFixture{app: app, admin: app.Token(models.RoleAdministrator)}
	f.venue = app.post(t, f.admin, "/venues", map[string]any{
		"venue": "Counted Hall", "address": "1 Main St", "city": "Bristol", "country": "United States",
		"geo_lat": 41.671, "geo_lng": -72.949})
	return f
}

// at is a UTC wall clock d days from today at h:m, as the API writes dates.
func at(d, h, m int) string {
	day := time.Now().UTC().AddDate(0, 0, d)
	return time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, time.UTC).Format(dateTimeLayout)
}

// create makes an event from start to end at the fixture's venue, with extra fields.
func (f *totalsFixture) create(t *testing.T, title, start, end string, extra ...any) map[string]any {
	t.Helper()
	body := map[string]any{"title": title, "start_date": start, "end_date": end, "venue": f.venue, "status": "publish"}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	return f.app.createEvent(t, f.admin, body)
}

// page reads one page of /events?query as token's holder and returns its IDs and the totals of body and headers.
func (f *totalsFixture) page(t *testing.T, query, token string) ([]uint64, int64, int, *Response) {
	t.Helper()
	res := f.app.Get("/events?"+query, token)
	if res.Status == http.StatusNotFound {
		return nil, -1, -1, res
	}
	body := res.ExpectStatus(t, http.StatusOK).JSON(t)
	total := int64(body["total"].(float64))
	if h := res.Header.Get("X-TEC-Total"); h != strconv.FormatInt(total, 10) {
		t.Fatalf("%s: X-TEC-Total %q, total %d", query, h, total)
	}
	pages := int(body["total_pages"].(float64))
	if h := res.Header.Get("X-TEC-TotalPages"); h != strconv.Itoa(pages) {
		t.Fatalf("%s: X-TEC-TotalPages %q, total_pages %d", query, h, pages)
	}
	return idsOf(body["events"]), total, pages, res
}

// walk reads every page of the list with per_page and returns the IDs in order, the total and the page count, and
// checks that the first page past the last is 404.
func (f *totalsFixture) walk(t *testing.T, query, token string, perPage int) ([]uint64, int64, int) {
	t.Helper()
	var all []uint64
	ids, total, pages, _ := f.page(t, fmt.Sprintf("%s&per_page=%d&page=1", query, perPage), token)
	all = append(all, ids...)
	for p := 2; p <= pages; p++ {
		ids, tp, pp, _ := f.page(t, fmt.Sprintf("%s&per_page=%d&page=%d", query, perPage, p), token)
		if tp != total || pp != pages {
			t.Fatalf("%s: page %d says total %d of %d pages, page 1 said %d of %d", query, p, tp, pp, total, pages)
		}
		all = append(all, ids...)
	}
	if _, _, _, res := f.page(t, fmt.Sprintf("%s&per_page=%d&page=%d", query, perPage, pages+1), token); pages > 0 && res.Status != http.StatusNotFound {
		t.Fatalf("%s: page %d past the last answered %d", query, pages+1, res.Status)
	}
	return all, total, pages
}

// expectTotalsExact checks every list of the fixture against its counted twin: the same total and pages, and the
// same events on every page, for several page sizes (so that deep pages, located from the day counts, are read).
func (f *totalsFixture) expectTotalsExact(t *testing.T, after string) {
	t.Helper()
	site := time.UTC
	day := func(d int) string { return time.Now().In(site).AddDate(0, 0, d).Format("2006-01-02") }
	lists := []struct{ query, token string }{
		{"", ""},
		{"status=any", f.admin},
		{"status=draft", f.admin},
		{"", f.admin},
		{"start_date=" + day(0) + "&end_date=" + day(3), ""},
		{"start_date=" + day(5) + "&end_date=" + day(5), ""},
		{"start_date=" + day(-3) + "&end_date=" + day(800), f.admin},
		{"start_date=" + day(20) + "&end_date=" + day(400), ""},
		{"strict_dates=true&start_date=" + day(30) + "%2020:00:00&end_date=" + day(365) + "%2012:00:00", ""},
		{"strict_dates=true&start_date=" + day(1) + "%2013:00:00&end_date=" + day(6) + "%2001:30:00", ""},
		// One edge day cut and the other whole: each whole one is counted from the kept counts alone.
		{"strict_dates=true&start_date=" + day(1) + "%2013:00:00&end_date=" + day(6) + "%2023:59:59", ""},
		{"strict_dates=true&start_date=" + day(0) + "%2000:00:00&end_date=" + day(5) + "%2010:30:00", f.admin},
		{"strict_dates=true&start_date=" + day(5) + "%2000:00:00&end_date=" + day(5) + "%2010:30:00", ""},
		{"strict_dates=true&start_date=" + day(5) + "%2009:30:00&end_date=" + day(8) + "%2023:59:59", ""},
		// Searches, kept from their second ask on PostgreSQL: a protected event's description and excerpt count
		// for the administrator only.
		{"search=day", ""},
		{"search=gala", ""},
		{"search=gala", f.admin},
		{"search=five+DAY", ""},
		{"search=%22the+last%22&status=any", f.admin},
		{"search=gala&start_date=" + day(0) + "&end_date=" + day(3), ""},
		{"search=concurrent", f.admin},
		// Searched windows with cut edge days, whose matches there are counted from the kept matches themselves.
		{"search=gala&strict_dates=true&start_date=" + day(1) + "%2013:00:00&end_date=" + day(6) + "%2001:30:00", ""},
		{"search=day&strict_dates=true&start_date=" + day(0) + "%2000:00:00&end_date=" + day(5) + "%2010:30:00",
			f.admin},
		{"search=five&strict_dates=true&start_date=" + day(5) + "%2009:30:00&end_date=" + day(8) + "%2023:59:59", ""},
		// A window that ends before it starts: empty.
		{"search=gala&start_date=" + day(5) + "&end_date=" + day(1), ""},
		// Circles around the venue, paged and totalled from the kept venue links.
		{nearTotalsVenue, ""},
		{nearTotalsVenue + "&status=any", f.admin},
		{nearTotalsVenue + "&strict_dates=true&start_date=" + day(1) + "%2013:00:00&end_date=" + day(8) + "%2001:30:00", ""},
	}
	if c := "categories=" + f.category; f.category != "" {
		// One category, totalled from its kept day counts on PostgreSQL.
		lists = append(lists, []struct{ query, token string }{
			{c, ""},
			{c + "&status=any", f.admin},
			{c + "&strict_dates=true&start_date=" + day(1) + "%2013:00:00&end_date=" + day(5) + "%2018:30:00", ""},
			{c + "&strict_dates=true&start_date=" + day(2) + "%2001:00:00&end_date=" + day(9) + "%2023:59:59", f.admin},
		}...)
	}
	for _, l := range lists {
		for _, perPage := range []int{1, 2, 3, 50} {
			got, total, pages := f.walk(t, l.query, l.token, perPage)
			want, wantTotal, wantPages := f.walk(t, l.query+"&venue="+strconv.FormatUint(f.venue, 10), l.token, perPage)
			if total != wantTotal || pages != wantPages || !slices.Equal(got, want) {
				t.Fatalf("after %s, /events?%s (per_page %d): total %d, %d pages, events %v; counted: %d, %d pages, %v",
					after, l.query, perPage, total, pages, got, wantTotal, wantPages, want)
			}
			if int64(len(got)) != total {
				t.Fatalf("after %s, /events?%s: total %d but %d events on its pages", after, l.query, total, len(got))
			}
		}
	}
}

// nearTotalsVenue narrows a list to 5 km around the totals fixture's venue.
const nearTotalsVenue = "geoloc_lat=41.67&geoloc_lng=-72.95&geoloc_radius=5&geoloc_unit=km"

func TestListTotalsFromKeptDayCountsEqualAFreshCountAfterEveryKindOfWrite(t *testing.T) {
	f := newTotalsFixture(t)
	app, admin := f.app, f.admin
	cat := app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: admin,
		Body: map[string]any{"name": "Counted"}}).ExpectStatus(t, http.StatusCreated).JSON(t)
	f.category = "counted"
	other := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: admin, Body: map[string]any{
		"venue": "Other Hall", "address": "2 Main St", "city": "Bristol", "country": "United States",
		"geo_lat": 41.675, "geo_lng": -72.94}}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
	two := time.Now().UTC().AddDate(2, 0, 0)
	daysToEnd := int(time.Date(two.Year(), two.Month(), two.Day(), 0, 0, 0, 0, time.UTC).
		Sub(time.Now().UTC().Truncate(24*time.Hour)) / (24 * time.Hour))

	events := []map[string]any{
		f.create(t, "Yesterday", at(-1, 10, 0), at(-1, 12, 0)),
		f.create(t, "Today early", at(0, 0, 0), at(0, 1, 0)),
		f.create(t, "Today late", at(0, 23, 0), at(0, 23, 59)),
		f.create(t, "Overnight", at(1, 22, 0), at(2, 2, 0), "categories", []any{idOf(t, cat)}),
		f.create(t, "Across days", at(3, 20, 0), at(6, 1, 0), "tags", []any{"counted"}),
		f.create(t, "Day five a", at(5, 9, 0), at(5, 10, 0)),
		f.create(t, "Day five b", at(5, 9, 0), at(5, 11, 0)),
		f.create(t, "Day five c", at(5, 18, 0), at(5, 19, 0), "categories", []any{idOf(t, cat)}, "tags", []any{"counted"}),
		f.create(t, "Hidden", at(5, 12, 0), at(5, 13, 0), "hide_from_listings", true),
		f.create(t, "Draft", at(4, 12, 0), at(4, 13, 0), "status", "draft", "categories", []any{idOf(t, cat)}, "tags", []any{"counted"}),
		f.create(t, "Last day", at(daysToEnd, 10, 0), at(daysToEnd, 11, 0)),
		f.create(t, "Ends on the last day", at(daysToEnd-2, 20, 0), at(daysToEnd, 2, 0), "tags", []any{"counted"}),
		f.create(t, "Ends past the last day", at(daysToEnd-1, 20, 0), at(daysToEnd+1, 2, 0)),
		f.create(t, "Past the last day", at(daysToEnd+1, 10, 0), at(daysToEnd+1, 11, 0)),
		f.create(t, "At the other venue too", at(7, 10, 0), at(7, 11, 0), "venue", []any{f.venue, idOf(t, other)}),
		f.create(t, "Protected", at(2, 10, 0), at(2, 11, 0), "password", "secret", "description", "A gala night"),
		f.create(t, "Open", at(3, 10, 0), at(3, 11, 0), "description", "Gala dinner", "excerpt", "The day's gala"),
		// PostgreSQL sums long windows from counts kept by blocks of 32 days, and the day counts of the window's
		// first and last blocks: events in blocks wholly inside the window, across blocks, and from inside the
		// window into its last block.
		f.create(t, "Forty days on", at(40, 10, 0), at(40, 11, 0)),
		f.create(t, "Across blocks", at(30, 20, 0), at(70, 1, 0), "categories", []any{idOf(t, cat)}),
		f.create(t, "A year on", at(365, 10, 0), at(366, 11, 0), "tags", []any{"counted"}),
		f.create(t, "Into the last block", at(daysToEnd-45, 10, 0), at(daysToEnd, 1, 0)),
	}
	f.expectTotalsExact(t, "the creates")

	path := func(i int) string { return eventPath(events[i]) }
	steps := []struct {
		name string
		do   func()
	}{
		{"a date update", func() {
			app.updateEvent(t, http.MethodPatch, path(5), admin, map[string]any{"start_date": at(9, 9, 0), "end_date": at(10, 1, 0)})
		}},
		{"a date update into the edge day", func() {
			app.updateEvent(t, http.MethodPatch, path(6), admin, map[string]any{"start_date": at(0, 5, 0), "end_date": at(0, 6, 0)})
		}},
		{"publish to draft", func() {
			app.updateEvent(t, http.MethodPatch, path(7), admin, map[string]any{"status": "draft"})
		}},
		{"draft to publish", func() {
			app.updateEvent(t, http.MethodPatch, path(9), admin, map[string]any{"status": "publish"})
		}},
		{"hidden from listings and back", func() {
			app.updateEvent(t, http.MethodPatch, path(8), admin, map[string]any{"hide_from_listings": false})
			app.updateEvent(t, http.MethodPatch, path(1), admin, map[string]any{"hide_from_listings": true})
		}},
		{"a title update", func() {
			app.updateEvent(t, http.MethodPatch, path(6), admin, map[string]any{"title": "Gala of day five"})
		}},
		{"a protected event's description update", func() {
			app.updateEvent(t, http.MethodPatch, path(15), admin, map[string]any{"description": "The gala returns"})
		}},
		{"a description update and a password removed", func() {
			app.updateEvent(t, http.MethodPatch, path(16), admin, map[string]any{"description": "No dinner"})
			app.updateEvent(t, http.MethodPatch, path(15), admin, map[string]any{"password": ""})
		}},
		{"a links update", func() {
			app.updateEvent(t, http.MethodPatch, path(2), admin, map[string]any{"categories": []any{idOf(t, cat)}, "tags": []any{"counted"}})
		}},
		{"a second venue added to one event and removed from another", func() {
			app.updateEvent(t, http.MethodPatch, path(12), admin, map[string]any{"venue": []any{idOf(t, other), f.venue}})
			app.updateEvent(t, http.MethodPatch, path(14), admin, map[string]any{"venue": []any{f.venue}})
		}},
		{"an event at two venues moved and its second venue given back", func() {
			app.updateEvent(t, http.MethodPatch, path(12), admin, map[string]any{"start_date": at(6, 10, 0), "end_date": at(6, 11, 0)})
			app.updateEvent(t, http.MethodPatch, path(14), admin, map[string]any{"venue": []any{f.venue, idOf(t, other)}})
		}},
		{"a trash", func() {
			app.Do(Request{Method: http.MethodDelete, Path: path(3), Token: admin}).ExpectStatus(t, http.StatusOK)
		}},
		{"a restore", func() {
			app.updateEvent(t, http.MethodPatch, path(3), admin, map[string]any{"status": "publish"})
		}},
		{"a force delete", func() {
			app.Do(Request{Method: http.MethodDelete, Path: path(4) + "?force=true", Token: admin}).ExpectStatus(t, http.StatusOK)
		}},
		{"a trashed event force deleted", func() {
			app.Do(Request{Method: http.MethodDelete, Path: path(11), Token: admin}).ExpectStatus(t, http.StatusOK)
			app.Do(Request{Method: http.MethodDelete, Path: path(11) + "?force=true", Token: admin}).ExpectStatus(t, http.StatusOK)
		}},
		{"a category deletion", func() {
			app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/categories/%d?force=true", idOf(t, cat)), Token: admin}).
				ExpectStatus(t, http.StatusOK)
			f.category = ""
		}},
		{"a venue deletion", func() {
			app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%d?force=true", idOf(t, other)), Token: admin}).
				ExpectStatus(t, http.StatusOK)
		}},
	}
	for _, s := range steps {
		s.do()
		f.expectTotalsExact(t, s.name)
		t.Run("kept totals after "+s.name, func(t *testing.T) { expectKeptTotalsMatchEvents(t, app.Store) })
	}
	expectSearchesKept(t, app.Store, 4)
}

// expectSearchesKept checks that PostgreSQL keeps at least n searches, so that the lists compared with their
// counted twins were paged and totalled from the kept matches.
func expectSearchesKept(t *testing.T, store *models.Store, n int) {
	t.Helper()
	if store.Dialect() != models.Postgres {
		return
	}
	var kept int
	if err := store.DB().Raw("SELECT count(*) FROM kept_searches").Scan(&kept).Error; err != nil {
		t.Fatal(err)
	}
	if kept < n {
		t.Fatalf("%d searches kept, want at least %d", kept, n)
	}
}

func TestListTotalsFromKeptDayCountsStayExactUnderConcurrentWriters(t *testing.T) {
	f := newTotalsFixture(t)
	app, admin := f.app, f.admin
	const n = 12
	ids := make([]string, n)
	for i := range ids {
		ids[i] = eventPath(f.create(t, fmt.Sprintf("Shared %d", i), at(3+i%3, 10, 0), at(3+i%3, 11, 0)))
	}
	// Every writer creates on the same few days, moves one shared event, trashes one and force-deletes its own,
	// so that the same count rows are changed by overlapping transactions.
	concurrently(t, app, n, func(i int) {
		if i%3 == 1 {
			// A search is kept at its second ask: here, while the other writers write what it matches. Each ask is
			// a request of its own (its page size), which the response cache cannot answer with another's build.
			for ask := range 2 {
				size := "&per_page=" + strconv.Itoa(1+2*i+ask)
				for _, r := range []*Response{app.Get("/events?search=concurrent"+size, admin),
					app.Get("/events?search=shared"+size, "")} {
					if r.Status != http.StatusOK {
						t.Errorf("a search while writers write: status %d", r.Status)
					}
				}
			}
		}
		own := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: admin, Body: map[string]any{
			"title": fmt.Sprintf("Concurrent %d", i), "start_date": at(3+i%2, 12, 0), "end_date": at(4+i%2, 1, 0),
			"venue": f.venue, "status": "publish"}})
		app.Do(Request{Method: http.MethodPatch, Path: ids[i], Token: admin,
			Body: map[string]any{"start_date": at(4, 8, i), "end_date": at(5, 9, 0)}})
		if i%3 == 0 {
			app.Do(Request{Method: http.MethodDelete, Path: ids[(i+1)%n], Token: admin})
		}
		if own.Status == http.StatusCreated {
			var e map[string]any
			e = own.JSON(t)
			if i%2 == 0 {
				app.Do(Request{Method: http.MethodDelete, Path: eventPath(e) + "?force=true", Token: admin})
			}
		}
	})
	expectSearchesKept(t, app.Store, 2)
	expectKeptTotalsMatchEvents(t, app.Store)
	f.expectTotalsExact(t, "concurrent writes")
}

// TestAListTakesTheSameQueriesForEveryPageAndPageSize counts the statements of lists, with and without filters, at
// several page sizes and depths: a deep page, located from the day counts, costs at most one statement more than
// the first, and the count does not grow with the page.
func TestAListTakesTheSameQueriesForEveryPageAndPageSize(t *testing.T) {
	f := newTotalsFixture(t)
	for i := 0; i < 30; i++ {
		f.create(t, fmt.Sprintf("Counted %d", i), at(1+i%10, 10, i), at(1+i%10, 11, 0))
	}
	n := countQueries(t, f.app)
	for _, l := range []struct{ query, token string }{
		{"", ""}, {"status=any", f.admin}, {"search=counted", ""}, {"venue=" + strconv.FormatUint(f.venue, 10), ""},
		{"start_date=" + at(2, 0, 0)[:10] + "&end_date=" + at(8, 0, 0)[:10], ""}, {nearTotalsVenue, ""},
	} {
		var counts []int64
		pages := []string{"per_page=1&page=1", "per_page=1&page=20", "per_page=7&page=3", "per_page=50&page=1"}
		// The records the pages embed are read once per data version: read them first. The pages are read once
		// each, so none is stored in the response cache and each is built again below.
		for _, p := range pages {
			f.app.Get("/events?"+l.query+"&"+p, l.token).ExpectStatus(t, http.StatusOK)
		}
		for _, p := range pages {
			n.Store(0)
			f.app.Get("/events?"+l.query+"&"+p, l.token).ExpectStatus(t, http.StatusOK)
			counts = append(counts, n.Load())
		}
		// The two deep pages take the same statements, at most one more than the first page (a window's first
		// page reads its total with its rows; a deep one first locates its day). The 50-event first page holds
		// every event: a short page tells its total, so it may spare the count.
		first, deep, deeper, whole := counts[0], counts[1], counts[2], counts[3]
		if max(first, deep, whole) > 5 || deep != deeper || deep < first || deep > first+1 || whole > first {
			t.Fatalf("/events?%s: %v queries for the pages (per_page 1 page 1, per_page 1 page 20, per_page 7 page 3, per_page 50), want the same for the deep pages, at most one more than the first page, and at most 5",
				l.query, counts)
		}
	}
}

// TestKeptCountsRebuiltAfterABulkLoadEqualWhatTheTriggersKeep turns the triggers that keep the list counts off, as
// the benchmark's seeder does, writes, and checks that rebuilding the counts gives what the triggers would have
// kept (the end-of-test check compares them with a fresh count).
func TestKeptCountsRebuiltAfterABulkLoadEqualWhatTheTriggersKeep(t *testing.T) {
	f := newTotalsFixture(t)
	ctx := context.Background()
	f.create(t, "Before", at(2, 10, 0), at(2, 11, 0))
	for size := range 2 { // kept at its second ask, it must not miss what the load writes
		f.app.Get("/events?search=during&per_page="+strconv.Itoa(size+1), "").ExpectStatus(t, http.StatusOK)
	}
	if err := f.app.Store.SetKeptCountTriggers(ctx, false); err != nil {
		t.Fatal(err)
	}
	f.create(t, "During", at(3, 10, 0), at(4, 1, 0))
	f.create(t, "Private", at(5, 10, 0), at(5, 11, 0), "status", "private")
	if err := f.app.Store.SetKeptCountTriggers(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Store.RebuildKeptCounts(ctx); err != nil {
		t.Fatal(err)
	}
	f.create(t, "After", at(6, 10, 0), at(6, 11, 0))
	f.expectTotalsExact(t, "a rebuild")
	if _, total, _, _ := f.page(t, "search=during", ""); total != 1 {
		t.Fatalf("search=during after the rebuild: total %d, want the event written while the triggers were off", total)
	}
}

// TestASearchIsKeptFromAnyListThatSearches keeps a search first asked with date bounds (a list whose queries are
// planned for their values) and checks its answers before and after it is kept, and after a write it matches.
func TestASearchIsKeptFromAnyListThatSearches(t *testing.T) {
	f := newTotalsFixture(t)
	f.create(t, "Gala one", at(2, 10, 0), at(2, 11, 0))
	f.create(t, "Gala two", at(4, 10, 0), at(4, 11, 0))
	f.create(t, "Other", at(3, 10, 0), at(3, 11, 0), "description", "after the gala")
	query := "search=gala&start_date=" + at(1, 0, 0)[:10] + "&end_date=" + at(3, 23, 0)[:10]
	for ask := range 3 {
		ids, total, _, _ := f.page(t, query+"&per_page="+strconv.Itoa(5+ask), "")
		if total != 2 || len(ids) != 2 {
			t.Fatalf("ask %d: total %d, events %v, want the two galas of the window", ask+1, total, ids)
		}
	}
	expectSearchesKept(t, f.app.Store, 1)
	f.create(t, "Late gala", at(3, 20, 0), at(3, 21, 0))
	if _, total, _, _ := f.page(t, query, ""); total != 3 {
		t.Fatalf("after a create that matches: total %d, want 3", total)
	}
}
