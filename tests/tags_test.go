package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"calendar/controllers"
	"calendar/models"
)

func TestTags(t *testing.T) { runTermSuite(t, tagAPI) }

func TestTagsHaveNoParent(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, tagAPI)
	other := f.createID("Other")
	res := f.app.Do(Request{Method: http.MethodPost, Path: "/tags", Token: f.token,
		Body: map[string]any{"name": "Child?", "parent": other}}).ExpectStatus(t, http.StatusCreated)
	body := res.JSON(t)
	if _, ok := body["parent"]; ok {
		t.Fatalf("a tag has a parent: %s", res.Body)
	}
	if _, ok := body["urls"].(map[string]any)["up"]; ok {
		t.Fatalf("a tag has urls.up: %s", res.Body)
	}
	// parent is not a tag filter: it is ignored like any unknown parameter.
	if n := len(f.listIDs("?hide_empty=0&parent=" + strconv.FormatUint(other, 10))); n != 2 {
		t.Fatalf("parent filtered tags: %d", n)
	}
	ids, err := f.app.Store.TagFilterIDs([]string{"other"})
	if err != nil || len(ids) != 1 || ids[0] != other {
		t.Fatalf("tag filter %v, %v", ids, err)
	}
}

func TestTagNamesAreUniqueInTheTaxonomy(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, tagAPI)
	f.createID("Outdoor")
	// A category of the same name is no clash.
	f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Body: map[string]any{"name": "Outdoor"},
		Token: f.token}).ExpectStatus(t, http.StatusCreated)
	f.app.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"name": "outdoor"}, Token: f.token}).
		ExpectError(t, http.StatusBadRequest, "term_exists")
}

func TestEmbeddedTagHasTheReferenceShape(t *testing.T) {
	t.Parallel()
	site := controllers.Site{Home: "http://example.com", Root: apiRoot}
	raw, err := json.Marshal(controllers.EmbeddedTag(site, &models.Tag{ID: 19, Name: "beginner", Slug: "beginner", Count: 270}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"beginner","slug":"beginner","term_group":0,"term_taxonomy_id":19,"taxonomy":"post_tag",` +
		`"description":"","parent":0,"count":270,"filter":"raw","id":19,"urls":{"self":"` + apiRoot + `/tags/19",` +
		`"collection":"` + apiRoot + `/tags"}}`
	if string(raw) != want {
		t.Fatalf("embedded tag\n%s\nwant\n%s", raw, want)
	}
}

// TestTagCapturesReplay replays the recorded reference answers for tags (captures 68, 69, 85, 86).
func TestTagCapturesReplay(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, tagAPI)
	names := []string{"outdoor", "indoor", "free", "paid", "kids", "adults", "evening", "morning", "charity",
		"premium", "beginner", "advanced"}
	ids := map[string]uint64{}
	for _, n := range names {
		ids[n] = f.createID(n)
		f.event(models.StatusPublish, ids[n])
	}

	t.Run("68 GET /tags?per_page=3", func(t *testing.T) {
		res, body := f.list("?per_page=3")
		expectKeys(t, "envelope", res.Body, "rest_url", "total", "total_pages", "tags", "next_rest_url")
		expectKeys(t, "item", rawItem(t, res.Body, "tags", 0),
			"id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls")
		expectIDs(t, "page", itemIDs(t, body, "tags"), ids["adults"], ids["advanced"], ids["beginner"])
		if body["total"] != 12.0 || body["total_pages"] != 4.0 || body["rest_url"] != apiRoot+"/tags/" ||
			body["next_rest_url"] != apiRoot+"/tags/?per_page=3&page=2" {
			t.Fatalf("%s", res.Body)
		}
		if res.Header.Get("X-TEC-Total") != "12" || res.Header.Get("X-TEC-TotalPages") != "4" {
			t.Fatalf("headers %v", res.Header)
		}
	})
	t.Run("69 GET /tags/3", func(t *testing.T) {
		res := f.app.Get(f.itemPath(ids["outdoor"])).ExpectStatus(t, http.StatusOK)
		expectKeys(t, "tag", res.Body, "id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls")
		body := res.JSON(t)
		if body["url"] != "http://example.com/tag/outdoor/" || body["taxonomy"] != "post_tag" || body["count"] != 1.0 {
			t.Fatalf("%s", res.Body)
		}
	})
	t.Run("85 GET /tags?search=out", func(t *testing.T) {
		res, body := f.list("?search=out")
		expectIDs(t, "search", itemIDs(t, body, "tags"), ids["outdoor"])
		if body["total"] != 1.0 || res.Header.Get("X-TEC-Total") != "1" {
			t.Fatalf("%s", res.Body)
		}
	})
	t.Run("86 POST /tags without a name", func(t *testing.T) {
		res := f.app.Do(Request{Method: http.MethodPost, Path: "/tags", Body: map[string]any{"description": "no name"},
			Token: f.token})
		res.ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
		if string(res.Body) != `{"code":"rest_missing_callback_param","message":"Missing parameter(s): name","data":{"status":400,"params":["name"]}}` {
			t.Fatalf("%s", res.Body)
		}
	})
}

func TestTermRoutesAreInTheNamespaceIndex(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	routes := app.Get("/").ExpectStatus(t, http.StatusOK).JSON(t)["routes"].(map[string]any)
	for path, want := range map[string]struct {
		methods string
		parent  bool
	}{
		"/calendar/events/v1/categories":             {"[GET POST]", true},
		`/calendar/events/v1/categories/(?P<id>\d+)`: {"[GET POST PUT PATCH DELETE]", true},
		"/calendar/events/v1/tags":                   {"[GET POST]", false},
		`/calendar/events/v1/tags/(?P<id>\d+)`:       {"[GET POST PUT PATCH DELETE]", false},
	} {
		route, ok := routes[path].(map[string]any)
		if !ok {
			t.Fatalf("the index lacks %s", path)
		}
		if got := fmt.Sprint(route["methods"]); got != want.methods {
			t.Fatalf("%s methods %s, want %s", path, got, want.methods)
		}
		hasParent := false
		for _, e := range route["endpoints"].([]any) {
			if _, ok := e.(map[string]any)["args"].(map[string]any)["parent"]; ok {
				hasParent = true
			}
		}
		if hasParent != want.parent {
			t.Fatalf("%s: parent argument %v, want %v", path, hasParent, want.parent)
		}
	}
}
