package tests

import (
	"fmt"
	"net/http"
	"testing"

	"calendar/models"
)

// TestGetAnswersCarryAnETagAndRevalidate proves the conditional GET of issue 10: an ETag on every GET answer,
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
		app.Get("/tags?hide_empty=0") // cached now
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

	// A write through the store that bypasses the API (a maintenance task) is seen too.
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
			body := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
			want := 2
			if path == joined {
				want = 3 + round
			}
			if body["total"] != float64(want) {
				t.Fatalf("GET %s (after %s) answered %v tags, want %d: %v", path, order[0], body["total"], want, body)
			}
		}
		app.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"name": fmt.Sprint("other ", round)}, Token: token}).
			ExpectStatus(t, http.StatusCreated) // a new data version, so the second order starts uncached
	}
}
