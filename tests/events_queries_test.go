package tests

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"calendar/models"
)

// TestAnEventListTakesTheSameQueriesWhateverItsSize proves that associations load in batches: a page of 50
// events costs as many queries as a page of 1.
func TestAnEventListTakesTheSameQueriesWhateverItsSize(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	for i := 0; i < 50; i++ {
		img := func(kind string) string { return fmt.Sprintf("https://img.example/%s%d.png", kind, i) }
		app.createEvent(t, token, eventBody("E", 1+i%30, "image", img("e"),
			"venue", map[string]any{"venue": fmt.Sprintf("Venue %d", i), "image": img("v")},
			"organizer", []any{map[string]any{"organizer": fmt.Sprintf("Organizer %d", i), "image": img("o")},
				map[string]any{"organizer": "Shared organizer"}},
			"categories", []any{fmt.Sprintf("Category %d", i%7), "Shared"}, "tags", fmt.Sprintf("tag-%d,common", i%5)))
	}
	n := countQueries(t, app)
	perPage := func(size string) int64 {
		n.Store(0)
		body := app.Get("/events?per_page="+size).ExpectStatus(t, http.StatusOK).JSON(t)
		if got := len(body["events"].([]any)); got == 0 {
			t.Fatalf("per_page=%s listed nothing", size)
		}
		return n.Load()
	}
	one, fifty := perPage("1"), perPage("50")
	t.Logf("a list takes %d queries", fifty)
	if one != fifty {
		t.Fatalf("per_page=1 takes %d queries, per_page=50 takes %d", one, fifty)
	}
	if fifty > 5 {
		t.Fatalf("a list takes %d queries, more than 5", fifty)
	}
	n.Store(0)
	app.Get("/events/1").ExpectStatus(t, http.StatusOK)
	if single := n.Load(); single > 4 {
		t.Fatalf("a single read takes %d queries", single)
	}
}

// TestAFilteredEventListStaysWithinFiveQueries proves that filtering by categories, tags, venue and organizer
// together costs one query to resolve them all, whatever their number.
func TestAFilteredEventListStaysWithinFiveQueries(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	app.post(t, token, "/categories", map[string]any{"name": "Jazz", "parent": music})
	venue := app.post(t, token, "/venues", map[string]any{"venue": "Hall"})
	organizer := app.post(t, token, "/organizers", map[string]any{"organizer": "Org"})
	app.createEvent(t, token, eventBody("E", 3, "categories", []any{"jazz"}, "tags", "outdoor",
		"venue", venue, "organizer", []any{organizer}))
	n := countQueries(t, app)
	path := fmt.Sprintf("/events?categories=music&tags=outdoor,%d&venue=%d&organizer=%d", 1, venue, organizer)
	body := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
	if body["total"] != float64(1) {
		t.Fatalf("the filtered list is %v", body)
	}
	if q := n.Load(); q > 5 {
		t.Fatalf("a list filtered by every kind of record took %d queries, more than 5", q)
	}
}

// TestListFiltersAndLinkedRecordsAreReadOncePerDataVersion proves that the records a visitor's list names, and the
// venues and terms its events embed, are read once while nothing changes — a second list naming them, even as
// another URL, takes two queries fewer — and that any write makes the next list read them again: a new child
// category counts, a renamed category stops matching its old name and shows its new one, a renamed venue shows its
// new name.
func TestListFiltersAndLinkedRecordsAreReadOncePerDataVersion(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	venue := app.post(t, token, "/venues", map[string]any{"venue": "Hall"})
	e := idOf(t, app.createEvent(t, token, eventBody("E", 3, "categories", []any{music}, "venue", venue)))
	n := countQueries(t, app)
	list := func(query string) ([]uint64, int64) {
		n.Store(0)
		ids := app.listIDs(t, query, "")
		return ids, n.Load()
	}
	first, cold := list(fmt.Sprintf("categories=music&venue=%d", venue))
	second, warm := list(fmt.Sprintf("venue=%d&categories=music&per_page=7", venue))
	if !slices.Equal(first, []uint64{e}) || !slices.Equal(second, []uint64{e}) {
		t.Fatalf("lists %v and %v, want [%d]", first, second, e)
	}
	if warm != cold-2 {
		t.Fatalf("the second list took %d queries, the first %d: the filters or the linked records were read again",
			warm, cold)
	}
	jazz := app.post(t, token, "/categories", map[string]any{"name": "Jazz", "parent": music})
	f := idOf(t, app.createEvent(t, token, eventBody("F", 4, "categories", []any{jazz}, "venue", venue)))
	if got, _ := list(fmt.Sprintf("categories=music&venue=%d&per_page=8", venue)); !slices.Equal(got, []uint64{e, f}) {
		t.Fatalf("after a child category was added the list is %v, want [%d %d]", got, e, f)
	}
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/categories/%d", music), Token: token,
		Body: map[string]any{"name": "Sounds", "slug": "sounds"}}).ExpectStatus(t, http.StatusOK)
	expectInvalid(t, app.Get(fmt.Sprintf("/events?categories=music&venue=%d&per_page=9", venue)), "categories")
	if got, _ := list(fmt.Sprintf("categories=sounds&venue=%d", venue)); !slices.Equal(got, []uint64{e, f}) {
		t.Fatalf("the renamed category lists %v, want [%d %d]", got, e, f)
	}
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/venues/%d", venue), Token: token,
		Body: map[string]any{"venue": "Great Hall"}}).ExpectStatus(t, http.StatusOK)
	listed := app.Get(fmt.Sprintf("/events?categories=sounds&venue=%d&per_page=3", venue)).ExpectStatus(t, http.StatusOK).
		JSON(t)["events"].([]any)[0].(map[string]any)
	if name := listed["venue"].(map[string]any)["venue"]; name != "Great Hall" {
		t.Fatalf("after the venue was renamed the list shows it as %v", name)
	}
	if name := listed["categories"].([]any)[0].(map[string]any)["name"]; name != "Sounds" {
		t.Fatalf("after the category was renamed the list shows it as %v", name)
	}
}

// TestAVenueAndCategoryListFollowsEveryLinkChange proves that a list filtered by venue and category, which reads
// the event's venue and category pairs, answers as the two filters would apart through creates, updates that
// replace either link or neither, and a category's deletion; and that the pairs are exactly those of the links.
func TestAVenueAndCategoryListFollowsEveryLinkChange(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	art := app.post(t, token, "/categories", map[string]any{"name": "Art"})
	v1 := app.post(t, token, "/venues", map[string]any{"venue": "Hall"})
	v2 := app.post(t, token, "/venues", map[string]any{"venue": "Park"})
	e := idOf(t, app.createEvent(t, token, eventBody("E", 3, "categories", []any{music}, "venue", v1)))
	f := idOf(t, app.createEvent(t, token, eventBody("F", 4, "categories", []any{music, art}, "venue", v2)))
	expect := func(step, query string, want ...uint64) {
		t.Helper()
		if want == nil {
			want = []uint64{}
		}
		if got := app.listIDs(t, query+"&per_page=20&status=any", token); !slices.Equal(got, want) {
			t.Fatalf("%s: %s lists %v, want %v", step, query, got, want)
		}
		// The derived table is the fact: answers show only what it speeds up, not whether it is complete.
		var strays int64
		err := app.Store.DB().Raw(`SELECT COUNT(*) FROM (
			SELECT v.venue_id, c.category_id, v.event_id FROM event_venues v JOIN event_categories c ON c.event_id = v.event_id
			EXCEPT SELECT venue_id, category_id, event_id FROM event_venue_categories) missing`).Scan(&strays).Error
		if err != nil || strays != 0 {
			t.Fatalf("%s: %d venue and category pairs missing (%v)", step, strays, err)
		}
	}
	both := func(category string, venues string) string { return "categories=" + category + "&venue=" + venues }
	expect("created", both("music", fmt.Sprint(v1)), e)
	expect("created", both("music", fmt.Sprintf("%d,%d", v1, v2)), e, f)
	expect("created", both("art", fmt.Sprint(v2)), f)
	app.updateEvent(t, http.MethodPost, fmt.Sprintf("/events/%d", e), token, map[string]any{"venue": v2})
	expect("venue replaced", both("music", fmt.Sprint(v1)))
	expect("venue replaced", both("music", fmt.Sprint(v2)), e, f)
	app.updateEvent(t, http.MethodPost, fmt.Sprintf("/events/%d", e), token, map[string]any{"categories": []any{art}})
	expect("categories replaced", both("music", fmt.Sprint(v2)), f)
	expect("categories replaced", both("art", fmt.Sprint(v2)), e, f)
	app.updateEvent(t, http.MethodPost, fmt.Sprintf("/events/%d", e), token, map[string]any{"title": "E2"})
	expect("title changed", both("art", fmt.Sprint(v2)), e, f)
	app.updateEvent(t, http.MethodPost, fmt.Sprintf("/events/%d", f), token,
		map[string]any{"venue": v1, "categories": []any{music}})
	expect("both replaced", both("music", fmt.Sprint(v1)), f)
	expect("both replaced", both("art", fmt.Sprint(v2)), e)
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/categories/%d", art), Token: token}).
		ExpectStatus(t, http.StatusOK)
	expect("category deleted", both("music", fmt.Sprintf("%d,%d", v1, v2)), f)
	var pairs int64 // the derived table again: no answer shows a pair left behind
	if err := app.Store.DB().Model(&models.EventVenueCategory{}).Count(&pairs).Error; err != nil {
		t.Fatal(err)
	}
	if pairs != 1 {
		t.Fatalf("%d venue and category pairs are left, want 1 (F at Hall in Music)", pairs)
	}
}

// TestAVenueUpdateWaitsForACategoryLinkRemovedMeanwhile proves that an update giving an event a venue while another
// transaction removes one of the event's category links (as deleting the category does) waits for it and pairs the
// venue with the categories left, instead of failing: the pairs' foreign key to a link being deleted would otherwise
// turn the update into a 500 once that transaction commits.
func TestAVenueUpdateWaitsForACategoryLinkRemovedMeanwhile(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	art := app.post(t, token, "/categories", map[string]any{"name": "Art"})
	hall := app.post(t, token, "/venues", map[string]any{"venue": "Hall"})
	e := idOf(t, app.createEvent(t, token, eventBody("E", 3, "categories", []any{music, art})))
	app.doWhileDeleting(t, Request{Method: http.MethodPost, Path: fmt.Sprintf("/events/%d", e), Token: token,
		Body: map[string]any{"venue": hall}}, "DELETE FROM event_categories WHERE event_id = ? AND category_id = ?",
		e, music).ExpectStatus(t, http.StatusOK)
	// The delete stands in for a write that unlinks the category, which moves its count too: what the end of the
	// test checks against a fresh count.
	if err := app.Store.AdjustTermCounts(models.TermLinks{Published: true, Categories: []uint64{music}},
		models.TermLinks{Published: true}); err != nil {
		t.Fatal(err)
	}
	if got := app.listIDs(t, fmt.Sprintf("categories=art&venue=%d", hall), ""); !slices.Equal(got, []uint64{e}) {
		t.Fatalf("art at the hall lists %v, want [%d]", got, e)
	}
	if got := app.listIDs(t, fmt.Sprintf("categories=music&venue=%d", hall), ""); len(got) != 0 {
		t.Fatalf("music at the hall lists %v after the event left it", got)
	}
}

// TestAWriteNamingARecordDeletedMeanwhileIsA400 proves that a create naming a category that another transaction
// deletes while the create runs answers as if the category had never existed, 400 naming categories, instead of
// failing on the link's foreign key with a 500; and that nothing of it is written.
func TestAWriteNamingARecordDeletedMeanwhileIsA400(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	events := app.count(t, "events")
	expectInvalid(t, app.doWhileDeleting(t, Request{Method: http.MethodPost, Path: "/events", Token: token,
		Body: eventBody("E", 3, "categories", []any{music})}, "DELETE FROM categories WHERE id = ?", music), "categories")
	if n := app.count(t, "events"); n != events {
		t.Fatalf("%d events after the refused create, want %d", n, events)
	}
}

// doWhileDeleting sends r while another transaction holds a delete (the SQL and its arguments) open, and commits
// that delete once r has had time to reach the rows it holds and wait for them; it returns r's answer. Only the
// store can hold a write open at a chosen moment.
func (a *App) doWhileDeleting(t *testing.T, r Request, sql string, args ...any) *Response {
	t.Helper()
	remover := a.Store.DB().Begin()
	if err := remover.Exec(sql, args...).Error; err != nil {
		remover.Rollback()
		t.Fatal(err)
	}
	answered := make(chan *Response, 1)
	go func() { answered <- a.Do(r) }()
	time.Sleep(300 * time.Millisecond)
	if err := remover.Commit().Error; err != nil {
		t.Fatal(err)
	}
	return <-answered
}
