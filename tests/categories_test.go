package tests

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"calendar/controllers"
	"calendar/models"
)

func TestCategories(t *testing.T) { runTermSuite(t, categoryAPI) }

const apiRoot = "http://example.com/calendar/events/v1"

func TestCategoryChildrenCarryTheirAncestryInURLAndUp(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	music := f.createID("Music")
	// Capture 66: a child of Music.
	res := f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: f.token,
		Body: map[string]any{"name": "Jazz Nights", "parent": music, "description": "child of Music"}}).
		ExpectStatus(t, http.StatusCreated)
	jazz := res.JSON(t)
	jazzID := idOf(t, jazz)
	if jazz["parent"] != float64(music) || jazz["url"] != "http://example.com/events/category/music/jazz-nights/" {
		t.Fatalf("child: %s", res.Body)
	}
	urls := jazz["urls"].(map[string]any)
	if urls["up"] != apiRoot+"/categories/"+strconv.FormatUint(music, 10) {
		t.Fatalf("urls.up = %v", urls["up"])
	}
	expectKeys(t, "urls", rawItem(t, res.Body, "urls", -1), "self", "collection", "up")
	late := f.idWith(map[string]any{"name": "Late", "parent": strconv.FormatUint(jazzID, 10)})
	body := f.app.Get(f.itemPath(late)).ExpectStatus(t, http.StatusOK).JSON(t)
	if body["url"] != "http://example.com/events/category/music/jazz-nights/late/" {
		t.Fatalf("grandchild url %v", body["url"])
	}
	// In a list, every depth gets its whole path (loaded in one query).
	_, list := f.list("?hide_empty=0&orderby=id")
	want := []string{"music/", "music/jazz-nights/", "music/jazz-nights/late/"}
	for i, item := range list["categories"].([]any) {
		if got := item.(map[string]any)["url"]; got != "http://example.com/events/category/"+want[i] {
			t.Fatalf("item %d url %v", i, got)
		}
	}
}

func TestCategoryParentMustExist(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	id := f.createID("Existing")
	for _, parent := range []any{"", "foo", 2389, "2389", -1, 1.5, true} {
		expectInvalid(t, f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: f.token,
			Body: map[string]any{"name": "Child", "parent": parent}}), "parent")
		expectInvalid(t, f.write(http.MethodPatch, id, map[string]any{"parent": parent}), "parent")
	}
	expectIDs(t, "categories", f.listIDs("?hide_empty=0"), id)
	top := f.create(map[string]any{"name": "Top", "parent": 0})
	if top["parent"] != 0.0 {
		t.Fatalf("parent 0 gives parent %v", top["parent"])
	}
}

func TestCategoryNamesAreUniquePerParent(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	music, theatre := f.createID("Music"), f.createID("Theatre")
	jazz := f.idWith(map[string]any{"name": "Jazz", "parent": music})
	other := f.create(map[string]any{"name": "jazz", "parent": theatre})
	if other["slug"] != "jazz-2" {
		t.Fatalf("slug %v", other["slug"])
	}
	f.create("JAZZ")
	body := f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: f.token,
		Body: map[string]any{"name": "Jazz", "parent": music}}).ExpectError(t, http.StatusBadRequest, "term_exists")
	if body["data"].(map[string]any)["term_id"] != float64(jazz) {
		t.Fatalf("term_exists %v", body)
	}
	// Moving a category next to a sibling of the same name is term_exists too.
	f.write(http.MethodPut, idOf(t, other), map[string]any{"parent": music}).
		ExpectError(t, http.StatusBadRequest, "term_exists")
}

func TestCategoryParentCyclesAreRefused(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	a := f.createID("A")
	b := f.idWith(map[string]any{"name": "B", "parent": a})
	c := f.idWith(map[string]any{"name": "C", "parent": b})
	for _, r := range []struct{ id, parent uint64 }{{a, a}, {a, b}, {a, c}, {b, c}} {
		expectInvalid(t, f.write(http.MethodPut, r.id, map[string]any{"parent": r.parent}), "parent")
	}
	moved := f.write(http.MethodPatch, c, map[string]any{"parent": a}).ExpectStatus(t, http.StatusOK).JSON(t)
	if moved["parent"] != float64(a) || moved["url"] != "http://example.com/events/category/a/c/" {
		t.Fatalf("moved %v", moved)
	}
	top := f.write(http.MethodPatch, b, map[string]any{"parent": 0}).ExpectStatus(t, http.StatusOK).JSON(t)
	if top["parent"] != 0.0 || top["urls"].(map[string]any)["up"] != nil {
		t.Fatalf("moved to the top: %v", top)
	}
	// Now a can go under b.
	f.write(http.MethodPatch, a, map[string]any{"parent": b}).ExpectStatus(t, http.StatusOK)
}

func TestDeletingACategoryMovesItsChildrenToItsParent(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	root := f.createID("Root")
	mid := f.idWith(map[string]any{"name": "Mid", "parent": root})
	leaf1 := f.idWith(map[string]any{"name": "Leaf One", "parent": mid})
	leaf2 := f.idWith(map[string]any{"name": "Leaf Two", "parent": mid})
	// Capture 67: the answer is the term as it was, with its parent and urls.up.
	gone := f.write(http.MethodDelete, mid, nil).ExpectStatus(t, http.StatusOK).JSON(t)
	if gone["parent"] != float64(root) || gone["url"] != "http://example.com/events/category/root/mid/" ||
		gone["urls"].(map[string]any)["up"] == nil {
		t.Fatalf("deleted %v", gone)
	}
	expectIDs(t, "root's children", f.listIDs("?hide_empty=0&parent="+strconv.FormatUint(root, 10)), leaf1, leaf2)
	leaf := f.app.Get(f.itemPath(leaf1)).JSON(t)
	if leaf["url"] != "http://example.com/events/category/root/leaf-one/" {
		t.Fatalf("leaf url %v", leaf["url"])
	}
	f.write(http.MethodDelete, root, nil).ExpectStatus(t, http.StatusOK)
	if p := f.app.Get(f.itemPath(leaf2)).JSON(t)["parent"]; p != 0.0 {
		t.Fatalf("after deleting the root, parent %v", p)
	}
}

func TestDeletingACategoryRefusesToMakeTwinSiblings(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	music := f.createID("Music")
	jazz := f.idWith(map[string]any{"name": "Jazz", "parent": music})
	rock := f.idWith(map[string]any{"name": "Rock", "parent": music})
	f.idWith(map[string]any{"name": "jazz", "parent": rock})
	body := f.write(http.MethodDelete, rock, nil).ExpectError(t, http.StatusConflict, "rest_cannot_delete")
	if body["data"].(map[string]any)["term_id"] != float64(jazz) {
		t.Fatalf("clash %v", body)
	}
	f.app.Get(f.itemPath(rock)).ExpectStatus(t, http.StatusOK)
}

func TestCategoryListFiltersByParent(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	parent := f.createID("Parent")
	a := f.idWith(map[string]any{"name": "A", "parent": parent})
	b := f.idWith(map[string]any{"name": "B", "parent": parent})
	f.idWith(map[string]any{"name": "Grandchild", "parent": a})
	f.createID("Unrelated")
	expectIDs(t, "children", f.listIDs("?hide_empty=0&parent="+strconv.FormatUint(parent, 10)), a, b)
	for _, q := range []string{"?parent=", "?parent=0", "?parent=2389", "?parent=foo", "?parent=-2"} {
		expectInvalid(t, f.app.Get("/categories"+q), "parent")
	}
}

func TestCategoryEventFilterIncludesDescendants(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	music := f.createID("Music")
	jazz := f.idWith(map[string]any{"name": "Jazz", "parent": music})
	bebop := f.idWith(map[string]any{"name": "Bebop", "parent": jazz})
	f.createID("Theatre")
	for _, c := range []struct {
		refs []string
		want []uint64
	}{
		{[]string{"music"}, []uint64{music, jazz, bebop}},
		{[]string{"Jazz"}, []uint64{jazz, bebop}},
		{[]string{strconv.FormatUint(bebop, 10), "jazz"}, []uint64{jazz, bebop}},
	} {
		ids, err := f.app.Store.CategoryFilterIDs(c.refs)
		if err != nil {
			t.Fatal(err)
		}
		expectIDs(t, "filter "+c.refs[0], ids, c.want...)
	}
}

func TestEmbeddedCategoryHasTheReferenceShape(t *testing.T) {
	t.Parallel()
	parent := uint64(2)
	site := controllers.Site{Home: "http://example.com", Root: apiRoot}
	raw, err := json.Marshal(controllers.EmbeddedCategory(site, &models.Category{ID: 23, Name: "Jazz Nights",
		Slug: "jazz-nights", Description: "child", ParentID: &parent, Count: 4}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Jazz Nights","slug":"jazz-nights","term_group":0,"term_taxonomy_id":23,"taxonomy":"tribe_events_cat",` +
		`"description":"child","parent":2,"count":4,"filter":"raw","id":23,"urls":{"self":"` + apiRoot + `/categories/23",` +
		`"collection":"` + apiRoot + `/categories","up":"` + apiRoot + `/categories/2"}}`
	if string(raw) != want {
		t.Fatalf("embedded category\n%s\nwant\n%s", raw, want)
	}
}

// TestCategoryCapturesReplay replays the recorded reference answers for categories (captures 61–67, 82, 83) on the
// same data, comparing shapes, key order and values (IDs, hosts and counts are this service's own).
func TestCategoryCapturesReplay(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	ids := map[string]uint64{}
	for _, name := range []string{"Music", "Theatre", "Sports", "Workshop", "Family", "Food", "Art", "Tech"} {
		ids[name] = f.createID(name)
	}
	event := f.event(models.StatusPublish, ids["Music"], ids["Theatre"])
	for _, name := range []string{"Sports", "Workshop", "Family", "Food", "Art", "Tech"} {
		f.event(models.StatusPublish, ids[name])
	}

	t.Run("61 GET /categories", func(t *testing.T) {
		res, body := f.list("")
		expectKeys(t, "envelope", res.Body, "rest_url", "total", "total_pages", "categories")
		expectKeys(t, "item", rawItem(t, res.Body, "categories", 0),
			"id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls")
		expectIDs(t, "order", itemIDs(t, body, "categories"), ids["Art"], ids["Family"], ids["Food"], ids["Music"],
			ids["Sports"], ids["Tech"], ids["Theatre"], ids["Workshop"])
		if res.Header.Get("X-TEC-Total") != "8" || res.Header.Get("X-TEC-TotalPages") != "1" {
			t.Fatalf("headers %v", res.Header)
		}
		art := body["categories"].([]any)[0].(map[string]any)
		if art["url"] != "http://example.com/events/category/art/" || art["taxonomy"] != "tribe_events_cat" ||
			art["count"] != 1.0 || art["parent"] != 0.0 {
			t.Fatalf("Art %v", art)
		}
	})
	t.Run("62 GET /categories?hide_empty=0&per_page=3&orderby=name&order=desc", func(t *testing.T) {
		res, body := f.list("?hide_empty=0&per_page=3&orderby=name&order=desc")
		expectKeys(t, "envelope", res.Body, "rest_url", "total", "total_pages", "categories", "next_rest_url")
		expectIDs(t, "page", itemIDs(t, body, "categories"), ids["Workshop"], ids["Theatre"], ids["Tech"])
		if body["total"] != 8.0 || body["total_pages"] != 3.0 ||
			body["next_rest_url"] != apiRoot+"/categories/?per_page=3&order=desc&orderby=name&hide_empty=0&page=2" {
			t.Fatalf("%s", res.Body)
		}
	})
	t.Run("63 GET /categories/2", func(t *testing.T) {
		res := f.app.Get(f.itemPath(ids["Music"])).ExpectStatus(t, http.StatusOK)
		expectKeys(t, "term", res.Body, "id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls")
		expectKeys(t, "urls", rawItem(t, res.Body, "urls", -1), "self", "collection")
	})
	t.Run("64 GET /categories/999999 (404 like every unknown ID)", func(t *testing.T) {
		f.app.Get("/categories/999999").ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	})
	t.Run("65 POST /categories duplicate name", func(t *testing.T) {
		res := f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Body: map[string]any{"name": "Music"}, Token: f.token})
		body := res.ExpectError(t, http.StatusBadRequest, "term_exists")
		expectKeys(t, "error", res.Body, "code", "message", "data", "additional_data")
		m := float64(ids["Music"])
		data := body["data"].(map[string]any)
		add := body["additional_data"].([]any)
		if data["term_id"] != m || len(data) != 2 || len(add) != 2 || add[0] != m || add[1] != m {
			t.Fatalf("%s", res.Body)
		}
	})
	t.Run("66 and 67 create a child, then delete it", func(t *testing.T) {
		created := f.app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: f.token,
			Body: map[string]any{"name": "Jazz Nights", "parent": ids["Music"], "description": "child of Music"}}).
			ExpectStatus(t, http.StatusCreated)
		id := idOf(t, created.JSON(t))
		if created.Header.Get("Location") != apiRoot+"/categories/"+strconv.FormatUint(id, 10) {
			t.Fatalf("Location %q", created.Header.Get("Location"))
		}
		deleted := f.write(http.MethodDelete, id, nil).ExpectStatus(t, http.StatusOK)
		if string(deleted.Body) != string(created.Body) {
			t.Fatalf("deleted\n%s\ncreated\n%s", deleted.Body, created.Body)
		}
	})
	t.Run("82 GET /categories?event=100", func(t *testing.T) {
		res, body := f.list("?event=" + strconv.FormatUint(event, 10))
		expectIDs(t, "event's categories", itemIDs(t, body, "categories"), ids["Music"], ids["Theatre"])
		if res.Header.Get("X-TEC-Total") != "2" {
			t.Fatalf("headers %v", res.Header)
		}
	})
	t.Run("83 GET /categories?slug=music", func(t *testing.T) {
		_, body := f.list("?slug=music")
		expectIDs(t, "slug", itemIDs(t, body, "categories"), ids["Music"])
	})
}

func TestCategoryListsRunAConstantNumberOfQueries(t *testing.T) {
	t.Parallel()
	f := newTermFixture(t, categoryAPI)
	parent := uint64(0)
	for i := 0; i < 30; i++ {
		body := map[string]any{"name": "Level " + strconv.Itoa(i)}
		if i%3 != 0 {
			body["parent"] = parent // chains of three levels, so every page needs ancestry
		}
		parent = f.idWith(body)
	}
	queries := countQueries(t, f.app)
	for _, perPage := range []int{1, 5, 30} {
		before := queries.Load()
		f.list("?hide_empty=0&per_page=" + strconv.Itoa(perPage))
		if n := queries.Load() - before; n < 3 || n > 4 {
			t.Fatalf("per_page=%d ran %d queries, want 3 or 4 (data version, count, page, ancestry)", perPage, n)
		}
	}
}
