package tests

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"calendar/models"
)

// TestGetAnswersCarryAnETagAndRevalidate proves the conditional GET: an ETag on every GET answer,
// 304 with no body for a matching If-None-Match, and a new ETag as soon as the data changes.
func TestGetAnswersCarryAnETagAndRevalidate(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	app.Do(Request{Method: http.MethodPost, Path: "/categories", Body: map[string]any{"name": "Music"}, Token: token}).
		ExpectStatus(t, http.StatusCreated)
	for _, path := range []string{"/", "/doc", "/categories?hide_empty=0", "/events", "/venues", "/categories/1"} {
		first := app.Get(path).ExpectStatus(t, http.StatusOK)
		etag := first.Header.Get("ETag")
		if len(etag) < 10 || etag[0] != '"' {
			t.Fatalf("GET %s: ETag %q", path, etag)
		}
		again := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {etag}}})
		if again.Status != http.StatusNotModified || len(again.Body) != 0 || again.Header.Get("ETag") != etag {
			t.Fatalf("GET %s with its ETag: %d %q (ETag %q)", path, again.Status, again.Body, again.Header.Get("ETag"))
		}
		weak := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {`"other", W/` + etag}}})
		if weak.Status != http.StatusNotModified {
			t.Fatalf("GET %s: a weak match in a list of tags gave %d", path, weak.Status)
		}
		other := app.Do(Request{Path: path, Header: http.Header{"If-None-Match": {`"stale"`}}})
		if other.Status != http.StatusOK || string(other.Body) != string(first.Body) {
			t.Fatalf("GET %s with a stale ETag: %d", path, other.Status)
		}
	}

	before := app.Get("/categories/1").Header.Get("ETag")
	app.Do(Request{Method: http.MethodPost, Path: "/categories/1", Body: map[string]any{"description": "Loud"}, Token: token}).
		ExpectStatus(t, http.StatusOK)
	after := app.Do(Request{Path: "/categories/1", Header: http.Header{"If-None-Match": {before}}})
	if after.Status != http.StatusOK || after.Header.Get("ETag") == before || after.JSON(t)["description"] != "Loud" {
		t.Fatalf("after an update the old ETag still matched: %d %s", after.Status, after.Body)
	}
}

func TestCacheControlIsPublicForAnonymousAnswersOnly(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleSubscriber)
	if cc := app.Get("/events").Header.Get("Cache-Control"); cc != "public, no-cache" {
		t.Fatalf("anonymous Cache-Control %q", cc)
	}
	res := app.Get("/events", token)
	if cc := res.Header.Get("Cache-Control"); cc != "private, no-cache" {
		t.Fatalf("authenticated Cache-Control %q", cc)
	}
	if vary := res.Header.Get("Vary"); vary == "" {
		t.Fatal("no Vary header")
	}
}

// TestAWriteIsVisibleToTheVeryNextReadOnEveryInstance proves the response cache is never stale: two instances
// share one database; each has cached an answer, a write goes through one of them, and the very next read on
// either sees it.
func TestAWriteIsVisibleToTheVeryNextReadOnEveryInstance(t *testing.T) {
	t.Parallel()
	a := NewApp(t)
	b := a.Twin()
	token := a.Token(models.RoleEditor)
	for _, app := range []*App{a, b} {
		app.Get("/tags?hide_empty=0")
		app.Get("/tags?hide_empty=0") // asked for again: cached now
		app.Get("/tags?hide_empty=0")
	}
	b.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"name": "Fresh"}, Token: token}).
		ExpectStatus(t, http.StatusCreated)
	for name, app := range map[string]*App{"the writing instance": b, "the other instance": a} {
		body := app.Get("/tags?hide_empty=0").ExpectStatus(t, http.StatusOK).JSON(t)
		if body["total"] != float64(1) {
			t.Fatalf("%s still answers the list from before the write: %v", name, body)
		}
	}

	// A write behind the service's back (a maintenance task in SQL, which no API makes) is seen too.
	if err := a.Store.DB().Exec("UPDATE tags SET description = 'from SQL'").Error; err != nil {
		t.Fatal(err)
	}
	tag := b.Get("/tags/1").ExpectStatus(t, http.StatusOK).JSON(t)
	if tag["description"] != "from SQL" {
		t.Fatalf("a direct database write is not visible: %v", tag)
	}
}

// TestQueriesThatLookAlikeAreCachedApart proves the cache tells apart a query whose value contains "&" and "="
// from the query those characters would spell: each gets its own answer, in either order.
func TestQueriesThatLookAlikeAreCachedApart(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	for _, name := range []string{"alpha one", "alpha two", "beta"} {
		app.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"name": name}, Token: token}).
			ExpectStatus(t, http.StatusCreated)
	}
	split := "/tags?hide_empty=0&order=asc&search=alpha"      // the two alpha tags
	joined := "/tags?hide_empty=0&order=asc%26search%3Dalpha" // every tag: an order that is not asc, no search
	for round, order := range [][]string{{split, joined}, {joined, split}} {
		for _, path := range order {
			for read := 1; read <= 3; read++ { // the second answer is stored, the third comes from the cache
				body := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
				want := 2
				if path == joined {
					want = 3 + round
				}
				if body["total"] != float64(want) {
					t.Fatalf("GET %s (read %d, after %s) answered %v tags, want %d: %v", path, read, order[0],
						body["total"], want, body)
				}
			}
		}
		app.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"name": fmt.Sprint("other ", round)}, Token: token}).
			ExpectStatus(t, http.StatusCreated) // a new data version, so the second order starts uncached
	}
}

// TestSingleRecordsCarryLastModified reads events, venues, organizers and terms: Last-Modified is the record's
// modification date (for an event the latest of its own and its venues' and organizers'), also on answers from
// the response cache; If-Modified-Since not before it gives 304, an earlier date the record, and If-None-Match,
// when sent, decides alone. Lists and feeds have no Last-Modified.
func TestSingleRecordsCarryLastModified(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	post := func(path string, body map[string]any) map[string]any {
		return app.Do(Request{Method: http.MethodPost, Path: path, Token: token, Body: body}).
			ExpectStatus(t, http.StatusCreated).JSON(t)
	}
	venue := post("/venues", map[string]any{"venue": "Dated Hall"})
	organizer := post("/organizers", map[string]any{"organizer": "Dated Org"})
	event := app.createEvent(t, token, eventBody("Dated", 3, "venue", venue["id"], "organizer", []any{organizer["id"]}))
	tag := post("/tags", map[string]any{"name": "Dated"})
	category := post("/categories", map[string]any{"name": "Dated"})
	later := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	// Dates no write gives yet, so that the answers can only have them from the records' own.
	for model, id := range map[any]any{&models.Organizer{}: organizer["id"], &models.Tag{}: tag["id"],
		&models.Category{}: category["id"]} {
		if err := app.Store.DB().Model(model).Where("id = ?", id).UpdateColumn("updated_at", later).Error; err != nil {
			t.Fatal(err)
		}
	}
	httpDate := func(modifiedUTC any) string {
		at, err := time.Parse(dateTimeLayout, modifiedUTC.(string))
		if err != nil {
			t.Fatal(err)
		}
		return at.Format(http.TimeFormat)
	}
	for path, want := range map[string]string{
		fmt.Sprintf("/venues/%v", venue["id"]):           httpDate(venue["modified_utc"]),
		fmt.Sprintf("/venues/by-slug/%v", venue["slug"]): httpDate(venue["modified_utc"]),
		fmt.Sprintf("/organizers/%v", organizer["id"]):   later.Format(http.TimeFormat),
		eventPath(event):                              later.Format(http.TimeFormat),
		eventPath(event) + ".ics":                     later.Format(http.TimeFormat),
		"/events/by-slug/" + event["slug"].(string):   later.Format(http.TimeFormat),
		fmt.Sprintf("/tags/%v", tag["id"]):            later.Format(http.TimeFormat),
		fmt.Sprintf("/categories/%v", category["id"]): later.Format(http.TimeFormat),
	} {
		for i := 0; i < 3; i++ { // the second answer is stored, the third comes from the response cache
			res := app.Get(path).ExpectStatus(t, http.StatusOK)
			if got := res.Header.Get("Last-Modified"); got != want {
				t.Fatalf("GET %s (answer %d): Last-Modified %q, want %q", path, i+1, got, want)
			}
		}
		lm, _ := http.ParseTime(want)
		for since, status := range map[time.Time]int{lm: http.StatusNotModified, lm.Add(time.Hour): http.StatusNotModified,
			lm.Add(-time.Second): http.StatusOK} {
			res := app.Do(Request{Path: path, Header: http.Header{"If-Modified-Since": {since.Format(http.TimeFormat)}}})
			if res.Status != status {
				t.Errorf("GET %s If-Modified-Since %s: %d, want %d", path, since, res.Status, status)
			}
		}
		res := app.Do(Request{Path: path, Header: http.Header{"If-Modified-Since": {want}, "If-None-Match": {`"stale"`}}})
		if res.Status != http.StatusOK {
			t.Errorf("GET %s with a stale If-None-Match and a current If-Modified-Since: %d", path, res.Status)
		}
		app.Do(Request{Path: path, Token: token, Header: http.Header{"If-Modified-Since": {want}}}).
			ExpectStatus(t, http.StatusNotModified)
	}
	for _, path := range []string{"/tags", "/categories", "/events", "/events.ics"} {
		if lm := app.Get(path).Header.Get("Last-Modified"); lm != "" {
			t.Errorf("GET %s: Last-Modified %q", path, lm)
		}
	}
}
