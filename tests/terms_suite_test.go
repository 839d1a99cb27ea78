package tests

// The terms suite: every test of categories and tags that both taxonomies share, run once for each by
// TestCategories and TestTags, with the fixture it drives them through.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"calendar/models"
)

// termAPI is what a test needs to know of one taxonomy's routes.
type termAPI struct {
	path     string // "/categories"
	key      string // the list's key
	singular string
	taxonomy string
	tax      *models.Taxonomy
	// manager is the lowest role that may write; refused are the authenticated roles that get 403.
	manager models.Role
	refused []models.Role
}

var (
	categoryAPI = termAPI{path: "/categories", key: "categories", singular: "category", taxonomy: "tribe_events_cat",
		tax: models.CategoryTaxonomy, manager: models.RoleAuthor,
		refused: []models.Role{models.RoleContributor, models.RoleSubscriber}}
	tagAPI = termAPI{path: "/tags", key: "tags", singular: "tag", taxonomy: "post_tag",
		tax: models.TagTaxonomy, manager: models.RoleEditor,
		refused: []models.Role{models.RoleAuthor, models.RoleContributor, models.RoleSubscriber}}
	termAPIs = []termAPI{categoryAPI, tagAPI}
)

// termFixture drives one taxonomy of a fresh app as a user allowed to manage it.
type termFixture struct {
	t     *testing.T
	app   *App
	api   termAPI
	token string
	// admin writes the fixture's events (made on first use): administrators create and change events in every
	// status.
	admin string
}

func newTermFixture(t *testing.T, api termAPI) *termFixture {
	t.Helper()
	app := NewApp(t)
	return &termFixture{t: t, app: app, api: api, token: app.Token(api.manager)}
}

// create POSTs body (a name when body is a string) and returns the 201 body.
func (f *termFixture) create(body any) map[string]any {
	f.t.Helper()
	if name, ok := body.(string); ok {
		body = map[string]any{"name": name}
	}
	return f.app.Do(Request{Method: http.MethodPost, Path: f.api.path, Body: body, Token: f.token}).
		ExpectStatus(f.t, http.StatusCreated).JSON(f.t)
}

// createID creates a term named name and returns its ID.
func (f *termFixture) createID(name string) uint64 {
	f.t.Helper()
	return idOf(f.t, f.create(name))
}

func (f *termFixture) itemPath(id uint64) string {
	return f.api.path + "/" + strconv.FormatUint(id, 10)
}

// write sends body to the term's item path with method as the fixture's user.
func (f *termFixture) write(method string, id uint64, body any) *Response {
	f.t.Helper()
	return f.app.Do(Request{Method: method, Path: f.itemPath(id), Body: body, Token: f.token})
}

// list GETs the collection with query and returns the 200 answer and its body.
func (f *termFixture) list(query string) (*Response, map[string]any) {
	f.t.Helper()
	res := f.app.Get(f.api.path+query).ExpectStatus(f.t, http.StatusOK)
	return res, res.JSON(f.t)
}

// listIDs GETs the collection with query and returns the IDs of the page, in order.
func (f *termFixture) listIDs(query string) []uint64 {
	f.t.Helper()
	_, body := f.list(query)
	return itemIDs(f.t, body, f.api.key)
}

// eventToken is the token of the administrator who writes the fixture's events.
func (f *termFixture) eventToken() string {
	if f.admin == "" {
		f.admin = f.app.Token(models.RoleAdministrator)
	}
	return f.admin
}

// event creates an event with status, linked to the terms, through the API as an administrator.
func (f *termFixture) event(status string, termIDs ...uint64) uint64 {
	f.t.Helper()
	body := eventBody("Term event", 3, "status", status)
	if len(termIDs) > 0 {
		body[f.api.key] = termIDs
	}
	return idOf(f.t, f.app.createEvent(f.t, f.eventToken(), body))
}

// updateEvent changes the event through the API as the administrator.
func (f *termFixture) updateEvent(id uint64, body map[string]any) {
	f.t.Helper()
	f.app.updateEvent(f.t, http.MethodPatch, fmt.Sprintf("/events/%d", id), f.eventToken(), body)
}

// count reads a term's count over HTTP.
func (f *termFixture) count(id uint64) int64 {
	f.t.Helper()
	body := f.app.Get(f.itemPath(id)).ExpectStatus(f.t, http.StatusOK).JSON(f.t)
	return int64(body["count"].(float64))
}

// expectInvalid checks a 400 rest_invalid_param naming exactly params.
func expectInvalid(t *testing.T, res *Response, params ...string) map[string]any {
	t.Helper()
	body := res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	got := body["data"].(map[string]any)["params"].(map[string]any)
	if len(got) != len(params) {
		t.Fatalf("params %v, want exactly %v", got, params)
	}
	for _, p := range params {
		if reason, ok := got[p].(string); !ok || reason == "" {
			t.Fatalf("params %v does not name %s with a reason", got, p)
		}
	}
	return body
}

// rawItem returns the raw JSON of the member key of the object raw (an index into an array when index ≥ 0).
func rawItem(t *testing.T, raw []byte, key string, index int) []byte {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	member := obj[key]
	if index < 0 {
		return member
	}
	var items []json.RawMessage
	if err := json.Unmarshal(member, &items); err != nil || index >= len(items) {
		t.Fatalf("%s has no item %d: %s", key, index, member)
	}
	return items[index]
}

// termSuite is the behaviour categories and tags share; TestCategories and TestTags run it for their taxonomy.
var termSuite = []struct {
	name string
	run  func(t *testing.T, api termAPI)
}{
	{"create answers 201 with the standalone shape and a Location", testTermCreate},
	{"names are plain text and descriptions sanitised HTML", testTermTextCleaning},
	{"create without a name is rest_missing_callback_param", testTermCreateMissingName},
	{"empty or unusable values are 400 naming each field", testTermBadValues},
	{"a duplicate name is term_exists with the existing ID", testTermExists},
	{"slugs are generated and made unique on create", testTermSlugs},
	{"concurrent creates of one name make one term", testTermConcurrentCreates},
	{"updates by POST, PUT and PATCH change only what is sent", testTermUpdate},
	{"an update to a taken slug or name is 400", testTermUpdateClashes},
	{"unknown IDs are 404 rest_term_invalid and bad paths rest_no_route", testTermNotFound},
	{"anonymous writers get 401 before their parameters are read", testTermAnonymous},
	{"lower roles get 403, but validation errors come first", testTermForbidden},
	{"delete is permanent and answers the term as it was", testTermDelete},
	{"the list has the reference's envelope, headers and Link", testTermListEnvelope},
	{"pages past the last are an empty 200", testTermListPastLastPage},
	{"per_page is clamped and page and per_page are validated", testTermListPaging},
	{"hide_empty hides terms without published events by default", testTermHideEmpty},
	{"search matches name or slug, case-insensitively", testTermSearch},
	{"include and exclude take existing IDs", testTermIncludeExclude},
	{"order and orderby sort from an allow-list", testTermOrdering},
	{"slug filters by exact slug", testTermSlugFilter},
	{"post and event list the terms of an event", testTermEventFilter},
	{"count follows the event's status through every change", testTermCountLifecycle},
	{"event writes resolve IDs, names and slugs, creating unknown names", testTermResolve},
	{"concurrent event writes creating one new name make one term", testTermConcurrentResolve},
	{"the event list filter takes IDs, slugs and names", testTermFilterIDs},
}

func runTermSuite(t *testing.T, api termAPI) {
	for _, tc := range termSuite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, api) })
	}
}

func testTermCreate(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	res := f.app.Do(Request{Method: http.MethodPost, Path: api.path, Token: f.token,
		Body: map[string]any{"name": "Jazz Nights", "description": "Late shows"}}).ExpectStatus(t, http.StatusCreated)
	body := res.JSON(t)
	id := idOf(t, body)
	self := "http://example.com/calendar/events/v1" + api.path + "/" + strconv.FormatUint(id, 10)
	if loc := res.Header.Get("Location"); loc != self {
		t.Fatalf("Location %q, want %q", loc, self)
	}
	want := []string{"id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls"}
	url := "http://example.com/events/category/jazz-nights/"
	if api.tax == models.TagTaxonomy {
		want = []string{"id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls"}
		url = "http://example.com/tag/jazz-nights/"
	}
	expectKeys(t, "term", res.Body, want...)
	for k, v := range map[string]any{"count": 0.0, "description": "Late shows", "name": "Jazz Nights",
		"slug": "jazz-nights", "taxonomy": api.taxonomy, "url": url} {
		if body[k] != v {
			t.Errorf("%s = %v, want %v", k, body[k], v)
		}
	}
	if api.tax == models.CategoryTaxonomy && body["parent"] != 0.0 {
		t.Errorf("parent = %v, want 0", body["parent"])
	}
	if meta, ok := body["meta"].([]any); !ok || len(meta) != 0 {
		t.Errorf("meta = %v, want []", body["meta"])
	}
	urls := body["urls"].(map[string]any)
	if urls["self"] != self || urls["collection"] != "http://example.com/calendar/events/v1"+api.path {
		t.Errorf("urls = %v", urls)
	}
	if _, ok := urls["up"]; ok {
		t.Errorf("a top-level term has urls.up: %v", urls)
	}
	got := f.app.Get(f.itemPath(id)).ExpectStatus(t, http.StatusOK)
	if string(got.Body) != string(res.Body) {
		t.Fatalf("GET answers\n%s\nthe create answered\n%s", got.Body, res.Body)
	}
}

func testTermTextCleaning(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	body := f.create(map[string]any{"name": "  <b>Rock</b> &amp; Roll ",
		"description": `<p onclick="x()">Loud <script>alert(1)</script><a href="javascript:alert(1)">here</a></p>`})
	if body["name"] != "Rock & Roll" {
		t.Errorf("name = %q", body["name"])
	}
	if d := body["description"].(string); strings.Contains(d, "script") || strings.Contains(d, "onclick") ||
		strings.Contains(d, "javascript") || !strings.Contains(d, "<p>Loud") {
		t.Errorf("description = %q", d)
	}
	if body["slug"] != "rock-and-roll" {
		t.Errorf("slug = %q", body["slug"])
	}
}

func testTermCreateMissingName(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	for _, body := range []any{map[string]any{"description": "no name"}, map[string]any{"name": nil}, nil, ""} {
		res := f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: body, Token: f.token,
			ContentType: "application/json"})
		got := res.ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
		if got["message"] != "Missing parameter(s): name" {
			t.Fatalf("message %q", got["message"])
		}
		if params := got["data"].(map[string]any)["params"].([]any); len(params) != 1 || params[0] != "name" {
			t.Fatalf("params %v", params)
		}
	}
}

func testTermBadValues(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.createID("Existing")
	cases := []struct {
		body   map[string]any
		params []string
	}{
		{map[string]any{"name": ""}, []string{"name"}},
		{map[string]any{"name": "   "}, []string{"name"}},
		{map[string]any{"name": "<b></b>"}, []string{"name"}},
		{map[string]any{"name": strings.Repeat("x", 201)}, []string{"name"}},
		{map[string]any{"name": 12}, []string{"name"}},
		{map[string]any{"name": "ok", "description": ""}, []string{"description"}},
		{map[string]any{"name": "ok", "slug": ""}, []string{"slug"}},
		{map[string]any{"name": "ok", "slug": "!!!"}, []string{"slug"}},
		{map[string]any{"name": "", "description": "", "slug": ""}, []string{"name", "description", "slug"}},
	}
	for _, c := range cases {
		expectInvalid(t, f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: c.body, Token: f.token}),
			c.params...)
		expectInvalid(t, f.write(http.MethodPut, id, c.body), c.params...)
	}
	if n := len(f.listIDs("?hide_empty=false")); n != 1 {
		t.Fatalf("%d terms after refused writes, want 1", n)
	}
	f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: strings.Repeat("x", 200), Token: f.token}).
		ExpectError(t, http.StatusBadRequest, "rest_invalid_json")
	f.create(map[string]any{"name": strings.Repeat("é", 200)})
}

func testTermExists(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.createID("Music")
	message := "A term with the name provided already exists in this taxonomy."
	if api.tax == models.CategoryTaxonomy {
		message = "A term with the name provided already exists with this parent."
	}
	for _, name := range []string{"Music", "music", " MUSIC ", "<i>Music</i>"} {
		res := f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": name}, Token: f.token})
		body := res.ExpectError(t, http.StatusBadRequest, "term_exists")
		if body["message"] != message {
			t.Fatalf("message %q", body["message"])
		}
		if body["data"].(map[string]any)["term_id"] != float64(id) {
			t.Fatalf("data %v does not carry term_id %d", body["data"], id)
		}
		if add := body["additional_data"].([]any); len(add) == 0 || add[0] != float64(id) {
			t.Fatalf("additional_data %v", add)
		}
	}
	// Case folding is Unicode-aware on both databases.
	f.createID("Été")
	f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": "ÉTÉ"}, Token: f.token}).
		ExpectError(t, http.StatusBadRequest, "term_exists")
}

func testTermSlugs(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	for _, c := range []struct {
		body any
		slug string
	}{
		{"Jazz", "jazz"},
		{"Jazz!", "jazz-2"},
		{map[string]any{"name": "Other", "slug": "jazz"}, "jazz-3"},
		{map[string]any{"name": "Mine", "slug": "My Own Slug"}, "my-own-slug"},
		{"Café Crème", "cafe-creme"},
		{"🎉", api.singular},
	} {
		if got := f.create(c.body)["slug"]; got != c.slug {
			t.Fatalf("%v: slug %v, want %s", c.body, got, c.slug)
		}
	}
}

func testTermUpdate(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.idWith(map[string]any{"name": "Before", "description": "Kept", "slug": "before"})
	for i, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
		name := fmt.Sprintf("After %d", i)
		body := f.write(method, id, map[string]any{"name": name}).ExpectStatus(t, http.StatusOK).JSON(t)
		if body["name"] != name || body["description"] != "Kept" || body["slug"] != "before" || idOf(t, body) != id {
			t.Fatalf("%s: %v", method, body)
		}
	}
	body := f.write(http.MethodPatch, id, map[string]any{"slug": "New Slug", "description": "<em>New</em>"}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if body["slug"] != "new-slug" || body["description"] != "<em>New</em>" || body["name"] != "After 2" {
		t.Fatalf("after slug and description: %v", body)
	}
	// A form body and an empty update work too; an empty update changes nothing.
	body = f.app.Do(Request{Method: http.MethodPut, Path: f.itemPath(id), Token: f.token,
		Body: url.Values{"name": {"Form Name"}}}).ExpectStatus(t, http.StatusOK).JSON(t)
	if body["name"] != "Form Name" {
		t.Fatalf("form update: %v", body)
	}
	again := f.write(http.MethodPatch, id, map[string]any{}).ExpectStatus(t, http.StatusOK).JSON(t)
	if fmt.Sprint(again) != fmt.Sprint(body) {
		t.Fatalf("an empty update changed %v into %v", body, again)
	}
	// Its own name (in another case) and its own slug are not clashes.
	f.write(http.MethodPut, id, map[string]any{"name": "FORM NAME", "slug": "new-slug"}).ExpectStatus(t, http.StatusOK)
}

// idWith creates a term from body and returns its ID.
func (f *termFixture) idWith(body map[string]any) uint64 {
	f.t.Helper()
	return idOf(f.t, f.create(body))
}

func testTermUpdateClashes(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	first := f.createID("First")
	second := f.createID("Second")
	res := f.write(http.MethodPut, second, map[string]any{"slug": "first"})
	body := res.ExpectError(t, http.StatusBadRequest, "duplicate_term_slug")
	if reason := body["data"].(map[string]any)["params"].(map[string]any)["slug"]; reason == nil {
		t.Fatalf("the slug clash does not name slug: %s", res.Body)
	}
	body = f.write(http.MethodPut, second, map[string]any{"name": "first"}).ExpectError(t, http.StatusBadRequest, "term_exists")
	if body["data"].(map[string]any)["term_id"] != float64(first) {
		t.Fatalf("term_exists names %v, want %d", body["data"], first)
	}
	got := f.app.Get(f.itemPath(second)).ExpectStatus(t, http.StatusOK).JSON(t)
	if got["name"] != "Second" || got["slug"] != "second" {
		t.Fatalf("a refused update changed the term: %v", got)
	}
}

func testTermNotFound(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	for _, r := range []Request{
		{Path: api.path + "/999999"},
		{Path: api.path + "/0"},
		{Method: http.MethodPut, Path: api.path + "/999999", Body: map[string]any{"name": "x"}, Token: f.token},
		{Method: http.MethodPatch, Path: api.path + "/999999", Token: f.token},
		{Method: http.MethodDelete, Path: api.path + "/999999", Token: f.token},
	} {
		body := f.app.Do(r).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
		if body["message"] != "Term does not exist." {
			t.Fatalf("message %q", body["message"])
		}
	}
	// A term of the other taxonomy is not one of these.
	other := categoryAPI
	if api.tax == models.CategoryTaxonomy {
		other = tagAPI
	}
	otherID := f.app.post(t, f.app.Token(models.RoleAdministrator), other.path, map[string]any{"name": "Elsewhere"})
	f.app.Get(f.itemPath(otherID)).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	for _, path := range []string{api.path + "/foo", api.path + "/foo%20bar", api.path + "/1/2", api.path + "/-1"} {
		f.app.Get(path).ExpectError(t, http.StatusNotFound, "rest_no_route")
	}
}

func testTermAnonymous(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.createID("Kept")
	for _, r := range []Request{
		{Method: http.MethodPost, Path: api.path},
		{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": ""}},
		{Method: http.MethodPost, Path: f.itemPath(id), Body: map[string]any{"name": ""}},
		{Method: http.MethodPut, Path: f.itemPath(id), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPatch, Path: api.path + "/999999"},
		{Method: http.MethodDelete, Path: f.itemPath(id)},
	} {
		f.app.Do(r).ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
	}
	f.app.Get(f.itemPath(id)).ExpectStatus(t, http.StatusOK)
}

func testTermForbidden(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.createID("Kept")
	for _, role := range api.refused {
		token := f.app.Token(role)
		for _, r := range []Request{
			{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": "New"}},
			{Method: http.MethodPut, Path: f.itemPath(id), Body: map[string]any{"name": "Changed"}},
			{Method: http.MethodDelete, Path: f.itemPath(id)},
		} {
			r.Token = token
			f.app.Do(r).ExpectError(t, http.StatusForbidden, "rest_forbidden")
		}
		// Validation (400, 404) comes before the capability check.
		expectInvalid(t, f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": ""},
			Token: token}), "name")
		f.app.Do(Request{Method: http.MethodPost, Path: api.path, Token: token}).
			ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
		f.app.Do(Request{Method: http.MethodDelete, Path: api.path + "/23232", Token: token}).
			ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	}
	expectIDs(t, "terms after refused writes", f.listIDs("?hide_empty=0"), id)
	if got := f.app.Get(f.itemPath(id)).JSON(t)["name"]; got != "Kept" {
		t.Fatalf("name %v after refused updates", got)
	}
	for _, role := range models.Roles {
		if role == api.manager || !contains(api.refused, role) {
			f.app.Do(Request{Method: http.MethodPost, Path: api.path, Body: map[string]any{"name": "By " + string(role)},
				Token: f.app.Token(role)}).ExpectStatus(t, http.StatusCreated)
		}
	}
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func testTermDelete(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	id := f.idWith(map[string]any{"name": "Gone", "description": "Soon"})
	keep := f.createID("Kept")
	event := f.event(models.StatusPublish, id, keep)
	before := f.app.Get(f.itemPath(id)).ExpectStatus(t, http.StatusOK)
	res := f.write(http.MethodDelete, id, nil).ExpectStatus(t, http.StatusOK)
	if string(res.Body) != string(before.Body) {
		t.Fatalf("DELETE answered\n%s\nthe term was\n%s", res.Body, before.Body)
	}
	if res.JSON(t)["count"] != 1.0 {
		t.Fatalf("the deleted term's count: %s", res.Body)
	}
	f.app.Get(f.itemPath(id)).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	f.write(http.MethodDelete, id, nil).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	expectIDs(t, "the event's terms", f.listIDs("?event="+strconv.FormatUint(event, 10)), keep)
	if n := f.count(keep); n != 1 {
		t.Fatalf("the other term's count is %d", n)
	}
	// force is accepted and changes nothing: term deletes are always permanent.
	f.app.Do(Request{Method: http.MethodDelete, Path: f.itemPath(keep) + "?force=true", Token: f.token}).
		ExpectStatus(t, http.StatusOK)
	expectIDs(t, "the event's terms", f.listIDs("?hide_empty=0&event="+strconv.FormatUint(event, 10)))
}

// createNamed creates terms with the names, in order, and returns their IDs.
func (f *termFixture) createNamed(names ...string) []uint64 {
	f.t.Helper()
	ids := make([]uint64, len(names))
	for i, n := range names {
		ids[i] = f.createID(n)
	}
	return ids
}

func testTermListEnvelope(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	res, body := f.list("?hide_empty=false")
	base := "http://example.com/calendar/events/v1" + api.path + "/"
	expectKeys(t, "empty list", res.Body, "rest_url", "total", "total_pages", api.key)
	if body["rest_url"] != base || body["total"] != 0.0 || body["total_pages"] != 0.0 || len(body[api.key].([]any)) != 0 {
		t.Fatalf("empty list: %s", res.Body)
	}
	if res.Header.Get("X-TEC-Total") != "0" || res.Header.Get("X-TEC-TotalPages") != "0" {
		t.Fatalf("headers %v", res.Header)
	}
	ids := f.createNamed("a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9")
	type page struct {
		query, next, prev, link string
		ids                     []uint64
	}
	q := "per_page=3&hide_empty=0"
	for _, p := range []page{
		{"?per_page=3&hide_empty=0", base + "?" + q + "&page=2", "",
			`<` + base + "?" + q + `&page=2>; rel="next", <` + base + "?" + q + `>; rel="first", <` + base + "?" + q + `&page=3>; rel="last"`,
			ids[0:3]},
		{"?per_page=3&hide_empty=0&page=2", base + "?" + q + "&page=3", base + "?" + q,
			`<` + base + "?" + q + `&page=3>; rel="next", <` + base + "?" + q + `>; rel="prev", <` + base + "?" + q + `>; rel="first", <` + base + "?" + q + `&page=3>; rel="last"`,
			ids[3:6]},
		{"?page=3&hide_empty=0&per_page=3", "", base + "?" + q + "&page=2",
			`<` + base + "?" + q + `&page=2>; rel="prev", <` + base + "?" + q + `>; rel="first", <` + base + "?" + q + `&page=3>; rel="last"`,
			ids[6:9]},
	} {
		res, body := f.list(p.query)
		expectIDs(t, p.query, itemIDs(t, body, api.key), p.ids...)
		if body["rest_url"] != base || body["total"] != 9.0 || body["total_pages"] != 3.0 {
			t.Fatalf("%s: %s", p.query, res.Body)
		}
		if res.Header.Get("X-TEC-Total") != "9" || res.Header.Get("X-TEC-TotalPages") != "3" {
			t.Fatalf("%s: headers %v", p.query, res.Header)
		}
		next, hasNext := body["next_rest_url"]
		prev, hasPrev := body["previous_rest_url"]
		if hasNext != (p.next != "") || (hasNext && next != p.next) || hasPrev != (p.prev != "") || (hasPrev && prev != p.prev) {
			t.Fatalf("%s: next %v, previous %v; want %q and %q", p.query, next, prev, p.next, p.prev)
		}
		if link := res.Header.Get("Link"); link != p.link {
			t.Fatalf("%s: Link\n%s\nwant\n%s", p.query, link, p.link)
		}
		// Following next_rest_url gives the next page of the same list.
		if hasNext {
			nextPath := strings.TrimPrefix(next.(string), "http://example.com/calendar/events/v1")
			nb := f.app.Get(nextPath).ExpectStatus(t, http.StatusOK).JSON(t)
			if len(itemIDs(t, nb, api.key)) != 3 {
				t.Fatalf("next page %s: %v", nextPath, nb)
			}
		}
	}
	if got := res.Header.Get("Access-Control-Expose-Headers"); got != "" && !strings.Contains(got, "X-TEC-Total") {
		t.Fatalf("Access-Control-Expose-Headers %q", got)
	}
}

func testTermListPastLastPage(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	f.createNamed("one", "two")
	res, body := f.list("?hide_empty=0&page=5")
	if len(body[api.key].([]any)) != 0 || body["total"] != 2.0 || body["total_pages"] != 1.0 {
		t.Fatalf("page 5: %s", res.Body)
	}
	if body["previous_rest_url"] != "http://example.com/calendar/events/v1"+api.path+"/?hide_empty=0&page=4" {
		t.Fatalf("previous_rest_url %v", body["previous_rest_url"])
	}
	if _, ok := body["next_rest_url"]; ok {
		t.Fatalf("next_rest_url past the last page: %s", res.Body)
	}
}

func testTermListPaging(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	names := make([]string, 55)
	for i := range names {
		names[i] = fmt.Sprintf("t%02d", i)
	}
	f.createNamed(names...)
	_, body := f.list("?hide_empty=0&per_page=500")
	if len(body[api.key].([]any)) != 50 || body["total_pages"] != 2.0 {
		t.Fatalf("per_page=500 is not clamped to 50: %d items, %v pages", len(body[api.key].([]any)), body["total_pages"])
	}
	_, body = f.list("?hide_empty=0")
	if len(body[api.key].([]any)) != 10 {
		t.Fatalf("default page size %d", len(body[api.key].([]any)))
	}
	for _, q := range []string{"?page=0", "?page=-1", "?page=foo", "?per_page=0", "?per_page=foo%20bar", "?hide_empty=maybe"} {
		name := strings.SplitN(q[1:], "=", 2)[0]
		expectInvalid(t, f.app.Get(api.path+q), name)
	}
}

func testTermHideEmpty(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	ids := f.createNamed("Empty", "Published", "Draft only")
	f.event(models.StatusPublish, ids[1])
	f.event(models.StatusDraft, ids[2])
	expectIDs(t, "default", f.listIDs(""), ids[1])
	for _, q := range []string{"?hide_empty=1", "?hide_empty=true", "?hide_empty=yes"} {
		expectIDs(t, q, f.listIDs(q), ids[1])
	}
	for _, q := range []string{"?hide_empty=0", "?hide_empty=false", "?hide_empty=off"} {
		expectIDs(t, q, f.listIDs(q), ids[2], ids[0], ids[1])
	}
	_, body := f.list("")
	if body["total"] != 1.0 {
		t.Fatalf("total %v counts hidden terms", body["total"])
	}
}

func testTermSearch(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	foo := f.createID("Foo")
	fooBar := f.idWith(map[string]any{"name": "Something", "slug": "foo-bar"})
	bar := f.createID("Bar")
	ete := f.createID("Été Festival")
	pct := f.createID("100% Fun_Day")
	for _, c := range []struct {
		q    string
		want []uint64
	}{
		{"foo", []uint64{foo, fooBar}},
		{"FOO", []uint64{foo, fooBar}},
		{"bar", []uint64{bar, fooBar}},
		{"zoot", nil},
		{"été", []uint64{ete}},
		{"ÉTÉ", []uint64{ete}},
		{"%", []uint64{pct}},
		{"_", []uint64{pct}},
		{"o-b", []uint64{fooBar}},
	} {
		got := f.listIDs("?hide_empty=0&search=" + url.QueryEscape(c.q))
		if fmt.Sprint(sortedIDs(got)) != fmt.Sprint(sortedIDs(c.want)) {
			t.Fatalf("search %q: %v, want %v", c.q, got, c.want)
		}
	}
	expectInvalid(t, f.app.Get(api.path+"?search="), "search")
}

func testTermIncludeExclude(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	ids := f.createNamed("A", "B", "C")
	expectIDs(t, "exclude one", f.listIDs("?hide_empty=0&exclude="+joinIDs(ids[0])), ids[1], ids[2])
	expectIDs(t, "exclude two", f.listIDs("?hide_empty=0&exclude[]="+joinIDs(ids[0])+"&exclude[]="+joinIDs(ids[1])), ids[2])
	expectIDs(t, "exclude all", f.listIDs("?hide_empty=0&exclude="+joinIDs(ids...)))
	expectIDs(t, "include one", f.listIDs("?hide_empty=0&include="+joinIDs(ids[1])), ids[1])
	expectIDs(t, "include all", f.listIDs("?hide_empty=0&include="+joinIDs(ids[2], ids[0], ids[1])), ids...)
	expectIDs(t, "include and exclude", f.listIDs("?hide_empty=0&include="+joinIDs(ids[0], ids[1])+"&exclude="+joinIDs(ids[0])), ids[1])
	expectInvalid(t, f.app.Get(api.path+"?exclude=2389,1235,3434"), "exclude")
	expectInvalid(t, f.app.Get(api.path+"?include="+joinIDs(ids[0])+",2389"), "include")
	expectInvalid(t, f.app.Get(api.path+"?include=foo&exclude=2389"), "include")
	expectInvalid(t, f.app.Get(api.path+"?include=0"), "include")
}

func testTermOrdering(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	b, a, c := f.createID("b"), f.createID("A"), f.createID("C")
	for _, e := range []uint64{a, a, c} {
		f.event(models.StatusPublish, e)
	}
	f.event(models.StatusPublish, b)
	for _, o := range []struct {
		query string
		want  []uint64
	}{
		{"", []uint64{a, b, c}},
		{"?orderby=name", []uint64{a, b, c}},
		{"?orderby=name&order=desc", []uint64{c, b, a}},
		{"?orderby=NAME&order=DESC", []uint64{c, b, a}},
		{"?orderby=id&order=desc", []uint64{c, a, b}},
		{"?orderby=id&order=asc", []uint64{b, a, c}},
		{"?orderby=term_id&order=AsC", []uint64{b, a, c}},
		{"?orderby=id&order=anything", []uint64{c, a, b}},
		{"?orderby=slug&order=desc", []uint64{c, b, a}},
		{"?orderby=count&order=desc", []uint64{a, c, b}},
		{"?orderby=count", []uint64{b, c, a}},
		{"?orderby=no_such_key", []uint64{a, b, c}},
		{"?orderby=name%3B%20DROP%20TABLE%20events", []uint64{a, b, c}},
		{"?orderby=include&include=" + joinIDs(c, a, b), []uint64{c, a, b}},
		{"?orderby=include&order=desc&include=" + joinIDs(c, a, b), []uint64{b, a, c}},
		{"?orderby=include", []uint64{a, b, c}},
		{"?orderby=none", []uint64{b, a, c}},
		{"?orderby=parent", []uint64{b, a, c}},
	} {
		expectIDs(t, o.query, f.listIDs(o.query), o.want...)
	}
	expectInvalid(t, f.app.Get(api.path+"?order="), "order")
	expectInvalid(t, f.app.Get(api.path+"?orderby="), "orderby")
}

func testTermSlugFilter(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	a := f.createID("A")
	f.createID("A b")
	expectIDs(t, "slug=a", f.listIDs("?hide_empty=0&slug=a"), a)
	expectIDs(t, "slug=A", f.listIDs("?hide_empty=0&slug=A"), a)
	expectIDs(t, "slug=foo", f.listIDs("?hide_empty=0&slug=foo"))
	expectInvalid(t, f.app.Get(api.path+"?slug="), "slug")
}

func testTermEventFilter(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	ids := f.createNamed("One", "Two", "Three")
	first := f.event(models.StatusPublish, ids[0], ids[1])
	second := f.event(models.StatusPublish, ids[2])
	e1, e2 := strconv.FormatUint(first, 10), strconv.FormatUint(second, 10)
	expectIDs(t, "post", f.listIDs("?post="+e1), ids[0], ids[1])
	expectIDs(t, "event", f.listIDs("?event="+e1), ids[0], ids[1])
	expectIDs(t, "event wins", f.listIDs("?post="+e1+"&event="+e2), ids[2])
	expectInvalid(t, f.app.Get(api.path+"?post="), "post")
	expectInvalid(t, f.app.Get(api.path+"?post=23232"), "post")
	expectInvalid(t, f.app.Get(api.path+"?event=foo"), "event")
	expectInvalid(t, f.app.Get(api.path+"?event=0"), "event")
	expectInvalid(t, f.app.Get(api.path+"?event=-4"), "event")
	// The terms of an event the caller may not read are not listed: a draft's to anonymous callers, a
	// password-protected event's to callers who cannot edit it.
	draft := f.event(models.StatusDraft, ids[0])
	protected := f.event(models.StatusPublish, ids[1])
	f.updateEvent(protected, map[string]any{"password": "secret"})
	for _, ev := range []uint64{draft, protected} {
		q := "?hide_empty=0&event=" + strconv.FormatUint(ev, 10)
		expectIDs(t, "anonymous "+q, f.listIDs(q))
		editor := f.app.Token(models.RoleEditor)
		body := f.app.Get(api.path+q, editor).ExpectStatus(t, http.StatusOK).JSON(t)
		if len(itemIDs(t, body, api.key)) != 1 {
			t.Fatalf("an editor does not see the terms of event %d: %v", ev, body)
		}
	}
}

func testTermCountLifecycle(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	term, other := f.createID("Counted"), f.createID("Other")
	expect := func(step string, want int64) {
		t.Helper()
		if got := f.count(term); got != want {
			t.Fatalf("after %s: count %d, want %d", step, got, want)
		}
	}
	ev := f.event(models.StatusPublish, term)
	expect("creating a published event", 1)
	f.event(models.StatusDraft, term)
	expect("creating a draft", 1)
	// Each step is an event write, which keeps the count: it must be the one expected and equal a fresh count of
	// the published events linked to each term.
	step := func(what string, body map[string]any, want int64) {
		t.Helper()
		f.updateEvent(ev, body)
		expect(what, want)
		expectKeptTotalsMatchEvents(t, f.app.Store)
	}
	for _, s := range []struct {
		status string
		want   int64
	}{
		{models.StatusDraft, 0}, {models.StatusPublish, 1}, {models.StatusPending, 0}, {models.StatusFuture, 0},
		{models.StatusPrivate, 0}, {models.StatusPublish, 1}, {models.StatusTrash, 0}, {models.StatusPublish, 1},
	} {
		step("setting the status to "+s.status, map[string]any{"status": s.status}, s.want)
	}
	step("removing the link", map[string]any{api.key: []any{}}, 0)
	step("linking again", map[string]any{api.key: []any{term, other}}, 1)
	f.app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/events/%d?force=true", ev), Token: f.eventToken()}).
		ExpectStatus(t, http.StatusOK)
	expect("deleting the event", 0)
	if got := f.count(other); got != 0 {
		t.Fatalf("the other term's count after deleting the event: %d", got)
	}
	expectKeptTotalsMatchEvents(t, f.app.Store)
}

// resolve runs the taxonomy's resolver in a transaction, as event writes do.
func (f *termFixture) resolve(refs ...string) ([]uint64, error) {
	var ids []uint64
	err := f.app.Store.Tx(context.Background(), func(tx *models.Store) error {
		var err error
		if f.api.tax == models.CategoryTaxonomy {
			ids, err = tx.ResolveCategories(refs)
		} else {
			ids, err = tx.ResolveTags(refs)
		}
		return err
	})
	return ids, err
}

// expectParamError checks that err is rest_invalid_param naming param.
func expectParamError(t *testing.T, err error, param string) {
	t.Helper()
	var e *models.Error
	if !errors.As(err, &e) || e.Code != "rest_invalid_param" || e.Params[param] == "" {
		t.Fatalf("error %v, want rest_invalid_param naming %s", err, param)
	}
}

func testTermResolve(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	music := f.createID("Music")
	jazz := f.idWith(map[string]any{"name": "Late Jazz", "slug": "jazz-nights"})
	ids, err := f.resolve(strconv.FormatUint(jazz, 10), "music", " MUSIC ", "jazz-nights", "New One", "new one", "",
		"<b>Bold</b>", strconv.FormatUint(music, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 4 || ids[0] != jazz || ids[1] != music || ids[2] <= jazz || ids[3] <= ids[2] {
		t.Fatalf("resolved %v", ids)
	}
	created := f.app.Get(f.itemPath(ids[2])).ExpectStatus(t, http.StatusOK).JSON(t)
	if created["name"] != "New One" || created["slug"] != "new-one" || created["count"] != 0.0 {
		t.Fatalf("created %v", created)
	}
	if api.tax == models.CategoryTaxonomy && created["parent"] != 0.0 {
		t.Fatalf("created category has parent %v", created["parent"])
	}
	if bold := f.app.Get(f.itemPath(ids[3])).JSON(t); bold["name"] != "Bold" {
		t.Fatalf("a name from an event write is not plain text: %v", bold)
	}
	for _, refs := range [][]string{{"Brand New", "999999"}, {"Brand New", "0"}, {"-3"}, {"Brand New", "<b></b>"},
		{strings.Repeat("y", 201)}} {
		_, err := f.resolve(refs...)
		expectParamError(t, err, api.key)
	}
	expectIDs(t, "nothing half-written", f.listIDs("?hide_empty=0&search=brand"))
	if ids, err := f.resolve(); err != nil || len(ids) != 0 {
		t.Fatalf("no refs: %v, %v", ids, err)
	}
	// A name matches before a slug: "Jazz Nights" is not the term whose slug is jazz-nights once a term of that
	// name exists.
	named := f.createID("Jazz Nights")
	if ids, err := f.resolve("jazz nights", "JAZZ-NIGHTS"); err != nil || fmt.Sprint(ids) != fmt.Sprint([]uint64{named, jazz}) {
		t.Fatalf("resolved %v, %v; want [%d %d]", ids, err, named, jazz)
	}
}

func testTermConcurrentResolve(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	const writers = 12
	results := make([][]uint64, writers)
	errs := make([]error, writers)
	concurrently(t, f.app, writers, func(i int) {
		refs := []string{"Fresh Name", "Second Fresh"}
		if i%2 == 1 {
			refs = []string{"second fresh", "FRESH NAME"}
		}
		results[i], errs[i] = f.resolve(refs...)
	})
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
	}
	ids := f.listIDs("?hide_empty=0")
	if len(ids) != 2 {
		t.Fatalf("%d terms, want 2: %v", len(ids), ids)
	}
	for i, got := range results {
		if len(got) != 2 || !contains(ids, got[0]) || !contains(ids, got[1]) {
			t.Fatalf("writer %d resolved %v; the terms are %v", i, got, ids)
		}
	}
}

func testTermFilterIDs(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	a := f.createID("Alpha Beta")
	b := f.createID("Gamma")
	filter := func(refs ...string) ([]uint64, error) {
		if api.tax == models.CategoryTaxonomy {
			return f.app.Store.CategoryFilterIDs(refs)
		}
		return f.app.Store.TagFilterIDs(refs)
	}
	for _, refs := range [][]string{{"alpha-beta"}, {"Alpha Beta"}, {strconv.FormatUint(a, 10)}, {"ALPHA BETA", "alpha-beta"}} {
		if ids, err := filter(refs...); err != nil || fmt.Sprint(ids) != fmt.Sprint([]uint64{a}) {
			t.Fatalf("%v: %v, %v", refs, ids, err)
		}
	}
	if ids, err := filter("gamma", strconv.FormatUint(a, 10)); err != nil || len(ids) != 2 || !contains(ids, b) {
		t.Fatalf("two refs: %v, %v", ids, err)
	}
	for _, refs := range [][]string{{"no-such-term"}, {"gamma", "999999"}, {"0"}} {
		_, err := filter(refs...)
		expectParamError(t, err, api.key)
	}
}

func testTermConcurrentCreates(t *testing.T, api termAPI) {
	f := newTermFixture(t, api)
	const writers = 8
	statuses := make([]int, writers)
	concurrently(t, f.app, writers, func(i int) {
		name := "Same Name"
		if i%2 == 1 {
			name = "SAME NAME"
		}
		statuses[i] = f.app.Do(Request{Method: http.MethodPost, Path: api.path, Token: f.token,
			Body: map[string]any{"name": name}}).Status
	})
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusBadRequest:
		default:
			t.Fatalf("statuses %v: want one 201 and 400 term_exists for the others", statuses)
		}
	}
	if created != 1 || len(f.listIDs("?hide_empty=0")) != 1 {
		t.Fatalf("statuses %v", statuses)
	}
}
