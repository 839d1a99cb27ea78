package tests

// The linked-records suite: every test that venues and organizers share, run once for each kind by forEachKind,
// with the helpers it drives them through. Tests of one kind's own fields are in venues_test.go and
// organizers_test.go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"calendar/controllers"
	"calendar/models"
)

// linkedKind names one of the two kinds of linked records for tests that run on both.
type linkedKind struct {
	name   string // the name parameter and singular: "venue"
	plural string // "venues"
	// fields are optional parameters with values, each echoed as given in the record.
	fields map[string]string
	// searched and unsearched are text fields that list search does and does not look at.
	searched, unsearched string
}

var (
	venueTestKind = linkedKind{name: "venue", plural: "venues",
		fields: map[string]string{"address": "9 Side St", "city": "Bristol", "country": "United States",
			"province": "Avon", "state": "IL", "zip": "60000", "phone": "555-0100",
			"stateprovince": "IL", "website": "https://venue.example.com"},
		searched: "city", unsearched: "country"}
	organizerTestKind = linkedKind{name: "organizer", plural: "organizers",
		fields:   map[string]string{"phone": "555-0200", "website": "https://org.example.com", "email": "org@example.com"},
		searched: "email", unsearched: ""}
	linkedTestKinds = []linkedKind{venueTestKind, organizerTestKind}
)

// forEachKind runs a test for venues and for organizers.
func forEachKind(t *testing.T, test func(t *testing.T, k linkedKind)) {
	for _, k := range linkedTestKinds {
		t.Run(k.plural, func(t *testing.T) { test(t, k) })
	}
}

// create posts a record of kind k with name and extra parameters and expects 201.
func (k linkedKind) create(t *testing.T, app *App, token, name string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{k.name: name}
	for key, v := range extra {
		body[key] = v
	}
	return app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Body: body, Token: token}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
}

// path is the item path of a record.
func (k linkedKind) path(id any) string { return fmt.Sprintf("/%s/%v", k.plural, id) }

// list gets a list and returns the records' names in order, and the body.
func (k linkedKind) list(t *testing.T, app *App, query, token string) ([]string, map[string]any) {
	t.Helper()
	r := Request{Path: "/" + k.plural + query, Token: token}
	body := app.Do(r).ExpectStatus(t, http.StatusOK).JSON(t)
	items, ok := body[k.plural].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %v", k.plural, body)
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i], _ = it.(map[string]any)[k.name].(string)
	}
	return names, body
}

// linkedIDs returns the venue or organizer IDs an event links to, in their order, as its record shows them to the
// editor holding token; and fails unless the list by that event, every status and the trash included, finds the
// same records (that list reads the link rows, which a trashed record would otherwise keep).
func (a *App) linkedIDs(t *testing.T, k linkedKind, token string, eventID uint64) []uint64 {
	t.Helper()
	var ids []uint64
	for _, id := range linkIDs(t, a.Get(fmt.Sprintf("/events/%d", eventID), token).ExpectStatus(t, http.StatusOK).JSON(t)[k.name]) {
		ids = append(ids, id)
	}
	var listed []uint64
	for _, rec := range a.listAll(t, fmt.Sprintf("/%s?event=%d&status=any,trash", k.plural, eventID), k.plural, token) {
		listed = append(listed, idOf(t, rec))
	}
	if fmt.Sprint(sortedIDs(listed)) != fmt.Sprint(sortedIDs(ids)) {
		t.Fatalf("event %d shows %s %v, but the list by that event finds %v", eventID, k.plural, ids, listed)
	}
	return ids
}

func TestCreatingWithoutANameIsMissingAndAnEmptyNameIsInvalid(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		// Captures 54 and 60: the missing name, exactly as the reference answers.
		body := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token,
			Body: map[string]any{"city": "Nowhere", "email": "x@example.com"}}).
			ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
		if body["message"] != "Missing parameter(s): "+k.name ||
			!reflect.DeepEqual(body["data"], map[string]any{"status": 400.0, "params": []any{k.name}}) {
			t.Fatalf("body = %v", body)
		}
		for _, name := range []any{"", "   ", "<b></b>", nil} {
			r := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token, Body: map[string]any{k.name: name}})
			if name == nil {
				r.ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
				continue
			}
			params := r.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")["data"].(map[string]any)["params"].(map[string]any)
			if _, ok := params[k.name]; !ok {
				t.Fatalf("name %q: params %v", name, params)
			}
		}
	})
}

func TestBadValuesAreRejectedNamingEveryField(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		cases := []struct {
			field string
			value any
		}{
			{"author", 23}, {"author", "foo"}, {"author", 0}, {"date", "foo"}, {"date_utc", "before my birthday"},
			{"status", "kinda_thinking_about_it"}, {"status", "trash"}, {"website", "foo"},
			{"website", "javascript:alert(1)"}, {"image", "foo bar"}, {"image", 999}, {"image", "ftp://x.example/a.png"},
			{"description", 5}, {"password", []any{"x"}},
		}
		if k.name == "organizer" {
			cases = append(cases, struct {
				field string
				value any
			}{"email", "not-an-email"})
		} else {
			cases = append(cases, struct {
				field string
				value any
			}{"show_map", "maybe"}, struct {
				field string
				value any
			}{"city", []any{1}})
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s=%v", c.field, c.value), func(t *testing.T) {
				body := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token,
					Body: map[string]any{k.name: "Bad", c.field: c.value}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
				params := body["data"].(map[string]any)["params"].(map[string]any)
				if reason, _ := params[c.field].(string); reason == "" {
					t.Fatalf("params %v do not name %s", params, c.field)
				}
			})
		}
		// Several bad values are reported together, and nothing was written.
		body := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token,
			Body: map[string]any{k.name: "Bad", "author": 23, "image": 999, "date": "foo"}}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if params := body["data"].(map[string]any)["params"].(map[string]any); len(params) != 3 {
			t.Fatalf("params = %v", params)
		}
		if names, _ := k.list(t, app, "", token); len(names) != 0 {
			t.Fatalf("a rejected create left %v", names)
		}
	})
}

func TestWhoMayCreateAndWhichStatusTheyGet(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Body: map[string]any{k.name: "Anon"}}).
			ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
		app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Body: map[string]any{k.name: "Sub"},
			Token: app.Token(models.RoleSubscriber)}).ExpectError(t, http.StatusForbidden, "rest_forbidden")
		contributor := app.Token(models.RoleContributor)
		author := app.Token(models.RoleAuthor)
		for _, c := range []struct {
			token, sent, want string
		}{
			{contributor, "", "draft"}, {contributor, "publish", "pending"}, {contributor, "future", "pending"},
			{contributor, "private", "private"}, {author, "", "publish"}, {author, "draft", "draft"},
			{author, "future", "future"},
		} {
			extra := map[string]any{}
			if c.sent != "" {
				extra["status"] = c.sent
			}
			rec := k.create(t, app, c.token, "By "+c.token[:6]+c.sent, extra)
			if rec["status"] != c.want {
				t.Errorf("status %q became %v, want %s", c.sent, rec["status"], c.want)
			}
		}
	})
}

func TestAuthorsMayOnlyBeOthersForEditors(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		adminLogin, admin := app.User(models.RoleAdministrator)
		authorLogin, author := app.User(models.RoleAuthor)
		app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: author,
			Body: map[string]any{k.name: "Mine", "author": app.userID(adminLogin)}}).
			ExpectError(t, http.StatusForbidden, "rest_cannot_edit_others")
		rec := k.create(t, app, admin, "Theirs", map[string]any{"author": app.userID(authorLogin)})
		if rec["author"] != fmt.Sprint(app.userID(authorLogin)) {
			t.Fatalf("author = %v", rec["author"])
		}
		k.create(t, app, author, "Own", map[string]any{"author": fmt.Sprint(app.userID(authorLogin))})
	})
}

func TestAnIdenticalCreateReturnsTheExistingRecord(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		first := k.create(t, app, token, "A Place", map[string]any{"description": "<p>Nice</p>", "phone": "1"})
		post := func(body map[string]any) (*Response, map[string]any) {
			r := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token, Body: body})
			return r, r.JSON(t)
		}
		// The same name in another case, with a subset of the fields: the same record, 200 and no Location.
		for _, body := range []map[string]any{
			{k.name: "A Place", "description": "<p>Nice</p>", "phone": "1"},
			{k.name: "a place"},
			{k.name: "A PLACE", "phone": "1"},
		} {
			r, rec := post(body)
			r.ExpectStatus(t, http.StatusOK)
			if idOf(t, rec) != idOf(t, first) || r.Header.Get("Location") != "" {
				t.Fatalf("%v gave %v (Location %q), want the existing record", body, rec, r.Header.Get("Location"))
			}
		}
		// Any difference in a sent field makes a new record, with the next slug.
		r, rec := post(map[string]any{k.name: "A Place", "phone": "2"})
		r.ExpectStatus(t, http.StatusCreated)
		if idOf(t, rec) == idOf(t, first) || rec["slug"] != "a-place-2" {
			t.Fatalf("a different phone gave %v", rec)
		}
		r, _ = post(map[string]any{k.name: "A Place", "status": "draft"})
		r.ExpectStatus(t, http.StatusCreated)
		// A trashed record is not a duplicate.
		app.Do(Request{Method: http.MethodDelete, Path: k.path(idOf(t, first)), Token: token}).ExpectStatus(t, http.StatusOK)
		r, rec = post(map[string]any{k.name: "A Place", "description": "<p>Nice</p>", "phone": "1"})
		r.ExpectStatus(t, http.StatusCreated)
		if idOf(t, rec) == idOf(t, first) {
			t.Fatal("a trashed record was returned as a duplicate")
		}
		// Neither is a record the caller may not read.
		contributor := app.Token(models.RoleContributor)
		k.create(t, app, token, "Hidden", map[string]any{"status": "draft"})
		k.create(t, app, contributor, "Hidden", nil)
	})
}

func TestIdenticalCreatesAtTheSameTimeMakeOneRecord(t *testing.T) {
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		const n = 8
		statuses := make([]int, n)
		ids := make([]uint64, n)
		concurrently(t, app, n, func(i int) {
			r := app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token,
				Body: map[string]any{k.name: "Crowded", "phone": "7"}})
			statuses[i] = r.Status
			if r.Status < 300 {
				ids[i] = uint64(r.JSON(t)["id"].(float64))
			}
		})
		created := 0
		for i := range statuses {
			switch statuses[i] {
			case http.StatusCreated:
				created++
			case http.StatusOK:
			default:
				t.Fatalf("request %d answered %d", i, statuses[i])
			}
			if ids[i] != ids[0] {
				t.Fatalf("ids %v differ", ids)
			}
		}
		if created != 1 {
			t.Fatalf("%d creates, want 1 (statuses %v)", created, statuses)
		}
	})
}

func TestReadingByIDAndSlug(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		rec := k.create(t, app, token, k.name+" 1 Hall", map[string]any{"phone": "555-0100"})
		for _, path := range []string{k.path(idOf(t, rec)), "/" + k.plural + "/by-slug/" + rec["slug"].(string)} {
			got := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
			if got["id"] != rec["id"] || got["phone"] != "555-0100" {
				t.Fatalf("%s = %v", path, got)
			}
			ld, _ := got["json_ld"].(map[string]any)
			wantType := map[string]string{"venue": "Place", "organizer": "Person"}[k.name]
			if ld["@type"] != wantType || ld["@context"] != "http://schema.org" || ld["telephone"] != "555-0100" {
				t.Fatalf("json_ld = %v", ld)
			}
		}
		// Lists, creates and updates carry no json_ld.
		if _, ok := rec["json_ld"]; ok {
			t.Fatal("a create answer carries json_ld")
		}
		_, list := k.list(t, app, "", "")
		if _, ok := list[k.plural].([]any)[0].(map[string]any)["json_ld"]; ok {
			t.Fatal("a list item carries json_ld")
		}
	})
}

func TestUnknownOrMalformedAddressesAreNotFound(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		body := app.Get(k.path(999999)).ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
		if !strings.Contains(body["message"].(string), "999999") {
			t.Fatalf("message = %v", body["message"])
		}
		app.Get("/"+k.plural+"/by-slug/no-such-slug").ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
		for _, m := range []string{http.MethodPut, http.MethodDelete} {
			app.Do(Request{Method: m, Path: k.path(999999), Token: token, Body: map[string]any{}}).
				ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
			app.Do(Request{Method: m, Path: "/" + k.plural + "/by-slug/nope", Token: token, Body: map[string]any{}}).
				ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
		}
		app.Get(k.path("9223372036854775807")).ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
		for _, path := range []string{"/foo", "/-1", "/1.5", "/%20", "/by-slug", "/by-slug/", "/1/extra", "/9223372036854775808"} {
			app.Get("/"+k.plural+path).ExpectError(t, http.StatusNotFound, "rest_no_route")
		}
		app.Do(Request{Method: http.MethodPatch, Path: "/" + k.plural, Token: token}).ExpectError(t, http.StatusNotFound, "rest_no_route")
	})
}

func TestRecordsThatAreNotPublishedNeedReadRights(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		admin := app.Token(models.RoleAdministrator)
		contributor := app.Token(models.RoleContributor)
		draft := k.create(t, app, admin, "Draft", map[string]any{"status": "draft"})
		own := k.create(t, app, contributor, "Own draft", nil)
		private := k.create(t, app, admin, "Private", map[string]any{"status": "private"})
		for _, c := range []struct {
			rec   map[string]any
			token string
			want  int
		}{
			{draft, "", http.StatusForbidden}, {draft, contributor, http.StatusForbidden}, {draft, admin, http.StatusOK},
			{own, contributor, http.StatusOK}, {own, "", http.StatusForbidden}, {private, "", http.StatusForbidden},
			{private, contributor, http.StatusForbidden}, {private, admin, http.StatusOK},
		} {
			r := app.Get(k.path(idOf(t, c.rec)), c.token)
			if c.want == http.StatusForbidden {
				r.ExpectError(t, http.StatusForbidden, k.name+"-not-accessible")
			} else {
				r.ExpectStatus(t, c.want)
			}
		}
	})
}

func TestUpdatesByIDAndSlugWithEveryMethod(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		fields := map[string]any{"description": "<p>D</p>", "excerpt": "E"}
		for f, v := range k.fields {
			fields[f] = v
		}
		rec := k.create(t, app, token, "Before", fields)
		slug := rec["slug"].(string)
		paths := []string{k.path(idOf(t, rec)), "/" + k.plural + "/by-slug/" + slug}
		n := 0
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
			for _, path := range paths {
				n++
				name := fmt.Sprintf("After %d", n)
				got := app.Do(Request{Method: method, Path: path, Token: token, Body: map[string]any{k.name: name, "phone": name}}).
					ExpectStatus(t, http.StatusOK).JSON(t)
				if got[k.name] != name || got["phone"] != name || got["description"] != "<p>D</p>" || got["slug"] != slug {
					t.Fatalf("%s %s gave %v", method, path, got)
				}
			}
		}
		// Form bodies work too.
		got := app.Do(Request{Method: http.MethodPut, Path: paths[0], Token: token, Body: url.Values{"excerpt": {"From a form"}}}).
			ExpectStatus(t, http.StatusOK).JSON(t)
		if got["excerpt"] != "From a form" {
			t.Fatalf("excerpt = %v", got["excerpt"])
		}
		// "" clears every optional field: the keys disappear, as in the reference.
		clear := map[string]any{"description": "", "excerpt": ""}
		for f := range k.fields {
			clear[f] = ""
		}
		got = app.Do(Request{Method: http.MethodPatch, Path: paths[0], Token: token, Body: clear}).ExpectStatus(t, http.StatusOK).JSON(t)
		for f := range clear {
			if _, ok := got[f]; ok {
				t.Errorf("%s is still there after clearing: %v", f, got[f])
			}
		}
		// An empty name is refused; an empty body changes nothing.
		app.Do(Request{Method: http.MethodPatch, Path: paths[0], Token: token, Body: map[string]any{k.name: ""}}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		same := app.Do(Request{Method: http.MethodPatch, Path: paths[0], Token: token, Body: ""}).ExpectStatus(t, http.StatusOK).JSON(t)
		if same[k.name] != got[k.name] || same["status"] != "publish" {
			t.Fatalf("an empty update changed %v into %v", got, same)
		}
		// Renaming to another record's name is allowed (updates do not de-duplicate).
		other := k.create(t, app, token, "Other", nil)
		app.Do(Request{Method: http.MethodPatch, Path: k.path(idOf(t, other)), Token: token,
			Body: map[string]any{k.name: same[k.name]}}).ExpectStatus(t, http.StatusOK)
	})
}

func TestWhoMayUpdateAndDelete(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		admin := app.Token(models.RoleAdministrator)
		contributor := app.Token(models.RoleContributor)
		author := app.Token(models.RoleAuthor)
		editor := app.Token(models.RoleEditor)
		adminRec := k.create(t, app, admin, "Admin's", nil)
		draft := k.create(t, app, contributor, "Contributor's draft", nil)
		published := k.create(t, app, contributor, "Contributor's published", nil)
		app.Do(Request{Method: http.MethodPatch, Path: k.path(idOf(t, published)), Token: admin,
			Body: map[string]any{"status": "publish"}}).ExpectStatus(t, http.StatusOK)
		authorRec := k.create(t, app, author, "Author's", nil)
		for _, c := range []struct {
			rec   map[string]any
			token string
			want  int
		}{
			{adminRec, "", http.StatusUnauthorized},
			{adminRec, contributor, http.StatusForbidden},
			{adminRec, author, http.StatusForbidden},
			{published, contributor, http.StatusForbidden},
			{draft, contributor, http.StatusOK},
			{authorRec, author, http.StatusOK},
			{authorRec, editor, http.StatusOK},
			{adminRec, editor, http.StatusOK},
		} {
			for _, byslug := range []bool{false, true} {
				path := k.path(idOf(t, c.rec))
				if byslug {
					path = "/" + k.plural + "/by-slug/" + c.rec["slug"].(string)
				}
				r := app.Do(Request{Method: http.MethodPatch, Path: path, Token: c.token, Body: map[string]any{"phone": "1"}})
				if c.want != http.StatusOK {
					r.ExpectError(t, c.want, "rest_forbidden")
					app.Do(Request{Method: http.MethodDelete, Path: path, Token: c.token}).ExpectError(t, c.want, "rest_forbidden")
				} else {
					r.ExpectStatus(t, http.StatusOK)
				}
			}
		}
		// A contributor updating their draft to publish gets pending.
		got := app.Do(Request{Method: http.MethodPatch, Path: k.path(idOf(t, draft)), Token: contributor,
			Body: map[string]any{"status": "publish"}}).ExpectStatus(t, http.StatusOK).JSON(t)
		if got["status"] != "pending" {
			t.Fatalf("status = %v", got["status"])
		}
		app.Do(Request{Method: http.MethodDelete, Path: k.path(idOf(t, draft)), Token: contributor}).ExpectStatus(t, http.StatusOK)
	})
}

func TestDeleteTrashesThenRefusesThenForceDeletes(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		rec := k.create(t, app, token, "Doomed", map[string]any{"phone": "1"})
		path := k.path(idOf(t, rec))
		trashed := app.Do(Request{Method: http.MethodDelete, Path: path, Token: token}).ExpectStatus(t, http.StatusOK).JSON(t)
		if trashed["status"] != "trash" || trashed["id"] != rec["id"] || trashed["phone"] != "1" {
			t.Fatalf("trashed = %v", trashed)
		}
		body := app.Do(Request{Method: http.MethodDelete, Path: path, Token: token}).ExpectError(t, http.StatusGone, k.name+"-is-in-trash")
		if body["message"] != "The "+k.name+" is already trashed" {
			t.Fatalf("message = %v", body["message"])
		}
		// Editors still read it; visitors get 403; lists leave it out unless asked.
		app.Get(path, token).ExpectStatus(t, http.StatusOK)
		app.Get(path).ExpectError(t, http.StatusForbidden, k.name+"-not-accessible")
		if names, _ := k.list(t, app, "", token); len(names) != 0 {
			t.Fatalf("the default list shows %v", names)
		}
		if names, _ := k.list(t, app, "?status=trash", token); len(names) != 1 {
			t.Fatalf("status=trash lists %v", names)
		}
		// An update with a status restores it.
		restored := app.Do(Request{Method: http.MethodPatch, Path: path, Token: token, Body: map[string]any{"status": "publish"}}).
			ExpectStatus(t, http.StatusOK).JSON(t)
		if restored["status"] != "publish" {
			t.Fatalf("restored = %v", restored)
		}
		// force deletes for good, answering with the record as it was.
		gone := app.Do(Request{Method: http.MethodDelete, Path: path + "?force=true", Token: token}).ExpectStatus(t, http.StatusOK).JSON(t)
		if gone["status"] != "publish" || gone["id"] != rec["id"] {
			t.Fatalf("force delete answered %v", gone)
		}
		app.Get(path, token).ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
		// force also empties the trash, by slug too.
		other := k.create(t, app, token, "Second", nil)
		slugPath := "/" + k.plural + "/by-slug/" + other["slug"].(string)
		app.Do(Request{Method: http.MethodDelete, Path: slugPath, Token: token}).ExpectStatus(t, http.StatusOK)
		app.Do(Request{Method: http.MethodDelete, Path: slugPath, Token: token, Body: map[string]any{"force": true}}).ExpectStatus(t, http.StatusOK)
		app.Get(slugPath, token).ExpectError(t, http.StatusNotFound, "rest-"+k.name+"-not-found")
	})
}

func TestTrashingOrDeletingUnlinksOnlyThatRecordFromEveryEvent(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		a := idOf(t, k.create(t, app, token, "A", nil))
		b := idOf(t, k.create(t, app, token, "B", nil))
		c := idOf(t, k.create(t, app, token, "C", nil))
		e1 := idOf(t, app.createEvent(t, token, eventBody("One", 3, k.name, []any{a, b, c})))
		e2 := idOf(t, app.createEvent(t, token, eventBody("Two", 4, k.name, []any{a, b, c})))
		app.Do(Request{Method: http.MethodDelete, Path: k.path(b), Token: token}).ExpectStatus(t, http.StatusOK)
		for _, e := range []uint64{e1, e2} {
			if got := app.linkedIDs(t, k, token, e); !reflect.DeepEqual(got, []uint64{a, c}) {
				t.Fatalf("after trashing %d, event %d links %v", b, e, got)
			}
		}
		app.Do(Request{Method: http.MethodDelete, Path: k.path(a) + "?force=1", Token: token}).ExpectStatus(t, http.StatusOK)
		for _, e := range []uint64{e1, e2} {
			if got := app.linkedIDs(t, k, token, e); !reflect.DeepEqual(got, []uint64{c}) {
				t.Fatalf("after deleting %d, event %d links %v", a, e, got)
			}
		}
	})
}

func TestPasswordProtectedRecordsAreRedactedUnlessThePasswordOrEditRights(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		editor := app.Token(models.RoleEditor)
		fields := map[string]any{"password": "opensesame", "description": "<p>Secret</p>",
			"image": "https://img.example.com/a.png"}
		for f, v := range k.fields {
			fields[f] = v
		}
		rec := k.create(t, app, editor, "Guarded", fields)
		if _, ok := rec["password"]; ok {
			t.Fatal("the password was returned")
		}
		path := k.path(idOf(t, rec))
		redacted := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
		if redacted[k.name] != "Guarded" || redacted["description"] != "" || redacted["image"] != false ||
			redacted["phone"] != "" || redacted["website"] != "" {
			t.Fatalf("redacted = %v", redacted)
		}
		if k.name == "venue" {
			if redacted["address"] != "" || redacted["show_map"] != nil || redacted["state"] != "IL" {
				t.Fatalf("redacted venue = %v", redacted)
			}
		} else if redacted["email"] != "" {
			t.Fatalf("redacted organizer = %v", redacted)
		}
		if ld := redacted["json_ld"].(map[string]any); len(ld) != 4 || ld["name"] != "Guarded" {
			t.Fatalf("redacted json_ld = %v", ld)
		}
		for _, r := range []*Response{app.Get(path + "?password=opensesame"), app.Get(path, editor)} {
			full := r.ExpectStatus(t, http.StatusOK).JSON(t)
			if full["description"] != "<p>Secret</p>" || full["phone"] != k.fields["phone"] {
				t.Fatalf("unredacted = %v", full)
			}
		}
		if got := app.Get(path+"?password=wrong").ExpectStatus(t, http.StatusOK).JSON(t); got["description"] != "" {
			t.Fatalf("a wrong password unlocked %v", got)
		}
		_, list := k.list(t, app, "", "")
		if item := list[k.plural].([]any)[0].(map[string]any); item["description"] != "" || item[k.name] != "Guarded" {
			t.Fatalf("list item = %v", item)
		}
		// "" removes the password.
		app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{"password": ""}}).ExpectStatus(t, http.StatusOK)
		if got := app.Get(path).JSON(t); got["description"] != "<p>Secret</p>" {
			t.Fatalf("still redacted: %v", got)
		}
	})
}

func TestNoParameterShapeMakesAServerError(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		rec := k.create(t, app, token, "Target", nil)
		odd := []any{nil, true, 1e308, -1, 0, "", "x", []any{}, []any{nil, map[string]any{}}, map[string]any{"a": []any{1}},
			strings.Repeat("é", 3000), "9223372036854775808", "-0", json.RawMessage("1e400")}
		params := []string{k.name, "description", "excerpt", "status", "author", "date", "date_utc", "image", "password",
			"website", "phone", "email", "address", "show_map", "geo_lat", "geo_lng", "page", "per_page", "search", "event",
			"has_events", "only_with_upcoming", "status", "force"}
		for _, p := range params {
			for _, v := range odd {
				for _, r := range []Request{
					{Method: http.MethodPost, Path: "/" + k.plural, Body: map[string]any{k.name: "Odd", p: v}},
					{Method: http.MethodPatch, Path: k.path(idOf(t, rec)), Body: map[string]any{p: v}},
					{Method: http.MethodGet, Path: "/" + k.plural + "?" + url.Values{p: {fmt.Sprint(v)}}.Encode()},
					{Method: http.MethodDelete, Path: "/" + k.plural + "/by-slug/nope", Body: map[string]any{p: v}},
				} {
					r.Token = token
					if got := app.Do(r); got.Status >= 500 {
						t.Fatalf("%s %s with %s=%v answered %d: %s", r.Method, r.Path, p, v, got.Status, got.Body)
					}
				}
			}
		}
	})
}

func TestPublicationDatesAreReadInTheSiteTimeZoneOrUTC(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_TIMEZONE", "America/New_York"))
	token := app.Token(models.RoleEditor)
	forEachKind(t, func(t *testing.T, k linkedKind) {
		for _, c := range []struct {
			extra           map[string]any
			date, utc, name string
		}{
			{map[string]any{"date": "2026-03-01 10:00:00"}, "2026-03-01 10:00:00", "2026-03-01 15:00:00", "local"},
			{map[string]any{"date_utc": "2026-03-01 10:00:00"}, "2026-03-01 05:00:00", "2026-03-01 10:00:00", "utc"},
			{map[string]any{"date": 1772377200}, "2026-03-01 10:00:00", "2026-03-01 15:00:00", "timestamp"},
			{map[string]any{"date": "2026-03-01 10:00:00", "date_utc": "2026-01-01 00:00:00"}, "2025-12-31 19:00:00",
				"2026-01-01 00:00:00", "both"},
		} {
			rec := k.create(t, app, token, c.name, c.extra)
			if rec["date"] != c.date || rec["date_utc"] != c.utc {
				t.Errorf("%v gave date %v, date_utc %v; want %s, %s", c.extra, rec["date"], rec["date_utc"], c.date, c.utc)
			}
		}
		app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Token: token, Body: "{not json"}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_json")
	})
}

func TestListsHaveTheReferenceEnvelopeHeadersAndLinks(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleAdministrator)
		empty := app.Get("/"+k.plural).ExpectStatus(t, http.StatusOK)
		if got := jsonKeys(t, empty.Body); !reflect.DeepEqual(got, []string{k.plural, "rest_url", "total", "total_pages"}) {
			t.Fatalf("empty list keys %v", got)
		}
		if empty.Header.Get("X-TEC-Total") != "0" || empty.Header.Get("X-TEC-TotalPages") != "0" {
			t.Fatalf("empty headers %v", empty.Header)
		}
		for i := 1; i <= 7; i++ {
			k.create(t, app, token, fmt.Sprintf("%s %d", k.name, i), nil)
		}
		// Capture 49: rest_url after the data, page moved to the end of next_rest_url.
		r := app.Get("/"+k.plural+"?per_page=3").ExpectStatus(t, http.StatusOK)
		body := r.JSON(t)
		root := "http://example.com/calendar/events/v1/" + k.plural + "/"
		checks := map[string]any{
			"rest_url":      root + "?page=1&per_page=3&status=publish",
			"next_rest_url": root + "?per_page=3&status=publish&page=2",
			"total":         7.0, "total_pages": 3.0,
		}
		for key, want := range checks {
			if body[key] != want {
				t.Errorf("%s = %v, want %v", key, body[key], want)
			}
		}
		if got := jsonKeys(t, r.Body); !reflect.DeepEqual(got, []string{k.plural, "rest_url", "next_rest_url", "total", "total_pages"}) {
			t.Fatalf("keys %v", got)
		}
		if r.Header.Get("X-TEC-Total") != "7" || r.Header.Get("X-TEC-TotalPages") != "3" {
			t.Fatalf("headers %v", r.Header)
		}
		link := r.Header.Get("Link")
		for _, want := range []string{`<` + root + `?per_page=3&status=publish&page=2>; rel="next"`,
			`rel="first"`, `<` + root + `?per_page=3&status=publish&page=3>; rel="last"`} {
			if !strings.Contains(link, want) {
				t.Fatalf("Link %q lacks %s", link, want)
			}
		}
		// Newest first, across pages.
		var all []string
		for page := 1; page <= 3; page++ {
			names, body := k.list(t, app, fmt.Sprintf("?per_page=3&page=%d", page), "")
			all = append(all, names...)
			if page == 2 && body["previous_rest_url"] != root+"?per_page=3&status=publish" {
				t.Fatalf("previous of page 2 = %v", body["previous_rest_url"])
			}
			if page == 3 {
				if _, ok := body["next_rest_url"]; ok {
					t.Fatal("the last page has a next link")
				}
				if body["previous_rest_url"] != root+"?per_page=3&status=publish&page=2" {
					t.Fatalf("previous of page 3 = %v", body["previous_rest_url"])
				}
			}
		}
		for i, name := range all {
			if want := fmt.Sprintf("%s %d", k.name, 7-i); name != want {
				t.Fatalf("order %v", all)
			}
		}
		app.Get("/"+k.plural+"?per_page=3&page=4").ExpectError(t, http.StatusNotFound, k.name+"-archive-page-not-found")
		for _, q := range []string{"page=0", "page=foo", "per_page=0", "per_page=-1", "per_page=foo%20bar", "page=1.5",
			"has_events=maybe", "only_with_upcoming=2", "event=0", "event=foo", "search=", "search=%21%21%21",
			"status=foo", "status=publish,foo"} {
			app.Get("/"+k.plural+"?"+q, token).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		}
	})
}

func TestListVisibilityFollowsTheCallersRights(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		adminLogin, admin := app.User(models.RoleAdministrator)
		_ = adminLogin
		contributor := app.Token(models.RoleContributor)
		for _, status := range []string{"publish", "draft", "pending", "private", "future"} {
			k.create(t, app, admin, "Admin "+status, map[string]any{"status": status})
		}
		k.create(t, app, contributor, "Contributor private", map[string]any{"status": "private"})
		trashed := k.create(t, app, admin, "Trashed", nil)
		app.Do(Request{Method: http.MethodDelete, Path: k.path(idOf(t, trashed)), Token: admin}).ExpectStatus(t, http.StatusOK)
		cases := []struct {
			query, token string
			want         int
		}{
			{"", "", 1}, {"?status=publish", "", 1},
			{"", admin, 6}, {"?status=any", admin, 6}, {"?status=draft,pending", admin, 2}, {"?status[]=trash", admin, 1},
			{"?status=private", admin, 2},
			// Contributors see what they may read one by one: published records and their own.
			{"", contributor, 2}, {"?status=private", contributor, 1}, {"?status=draft,pending,future", contributor, 0},
		}
		for _, c := range cases {
			names, body := k.list(t, app, c.query, c.token)
			if len(names) != c.want || body["total"] != float64(c.want) {
				t.Errorf("%q as %q: %v (total %v), want %d", c.query, c.token, names, body["total"], c.want)
			}
		}
		_, body := k.list(t, app, "", admin)
		if !strings.HasSuffix(body["rest_url"].(string), "status=any") {
			t.Errorf("rest_url = %v", body["rest_url"])
		}
		for _, q := range []string{"?status=draft", "?status=publish,draft", "?status=any"} {
			app.Get("/"+k.plural+q).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
			app.Get("/"+k.plural+q, app.Token(models.RoleSubscriber)).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		}
	})
}

func TestSearchNeedsEveryFragmentInOneField(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	// The reference's own venue search test data.
	venueTestKind.create(t, app, token, "Venue One", map[string]any{"address": "100, Avenue du Temple", "city": "Paris",
		"province": "Ile de France", "country": "France", "zip": "75003", "phone": "3333333"})
	venueTestKind.create(t, app, token, "Venue Two", map[string]any{"address": "10 Downing Street", "city": "London",
		"state": "Greater London", "zip": "223345", "country": "UK"})
	venueTestKind.create(t, app, token, "Venue Three", map[string]any{"city": "Greater London", "zip": "223345",
		"description": "<p>A foo bar</p>", "excerpt": "Über café"})
	venueTestKind.create(t, app, token, "MÜNCHEN Halle", nil)
	for search, want := range map[string]int{
		"london": 2, "3333333": 1, "temple avenue": 1, "greater london": 2, "france, ile de": 1, "223345": 2,
		"Venue": 3, "Venue foo": 0, "foo bar": 1, "VENUE ONE": 1, "münchen": 1, "über": 1, "UK": 0, "Paris London": 0,
		"Venue_One": 1,
	} {
		names, body := venueTestKind.list(t, app, "?search="+strings.ReplaceAll(search, " ", "%20"), "")
		if len(names) != want || body["total"] != float64(want) {
			t.Errorf("search %q found %v (total %v), want %d", search, names, body["total"], want)
		}
		if want == 0 {
			if _, ok := body["next_rest_url"]; ok || body["total_pages"] != 0.0 {
				t.Errorf("search %q with no match: %v", search, body)
			}
		}
	}
	// Organizers: title, description, excerpt, phone, e-mail and website (reference OrganizerArchiveSearchCest).
	organizerTestKind.create(t, app, token, "One", map[string]any{"phone": "111111111", "email": "one@common.com",
		"website": "http://one.com"})
	organizerTestKind.create(t, app, token, "Two", map[string]any{"phone": "111122222", "email": "two@common.com",
		"website": "http://two.com"})
	organizerTestKind.create(t, app, token, "Three", map[string]any{"phone": "222223333", "email": "three@three.com"})
	for search, want := range map[string]int{"1111": 2, "111111111": 1, "222223333": 1, "three@three.com": 1,
		"common.com": 2, "http://one.com": 1, "@common.com": 2} {
		names, _ := organizerTestKind.list(t, app, "?search="+search, "")
		if len(names) != want {
			t.Errorf("organizer search %q found %v, want %d", search, names, want)
		}
	}
}

func TestTheEventFilterKeepsTheRecordsLinkedToThatEvent(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		a := idOf(t, k.create(t, app, token, "A", nil))
		b := idOf(t, k.create(t, app, token, "B", map[string]any{"status": "draft"}))
		k.create(t, app, token, "C", nil)
		e := idOf(t, app.createEvent(t, token, eventBody("Linked", 3, k.name, []any{a, b})))
		lonely := idOf(t, app.createEvent(t, token, eventBody("Lonely", 3)))
		if names, body := k.list(t, app, fmt.Sprintf("?event=%d", e), ""); !reflect.DeepEqual(names, []string{"A"}) ||
			!strings.Contains(body["rest_url"].(string), fmt.Sprintf("&event=%d&status=publish", e)) {
			t.Fatalf("anonymous: %v %v", names, body["rest_url"])
		}
		if names, _ := k.list(t, app, fmt.Sprintf("?event=%d", e), token); !reflect.DeepEqual(names, []string{"B", "A"}) {
			t.Fatalf("editor: %v", names)
		}
		if names, _ := k.list(t, app, fmt.Sprintf("?event=%d", lonely), ""); len(names) != 0 {
			t.Fatalf("an event without links: %v", names)
		}
		params := app.Get(fmt.Sprintf("/%s?event=%d", k.plural, e+1000)).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")["data"].(map[string]any)["params"].(map[string]any)
		if _, ok := params["event"]; !ok {
			t.Fatalf("params = %v", params)
		}
	})
}

func TestHasEventsCountsEventsThatAreNotDraftsPendingOrTrashed(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		ids := map[string]uint64{}
		for _, status := range []string{"none", "publish", "draft", "pending", "trash", "private", "future", "mixed"} {
			ids[status] = idOf(t, k.create(t, app, token, status, nil))
			var events []string
			switch status {
			case "none":
			case "mixed":
				events = []string{"draft", "publish"}
			default:
				events = []string{status}
			}
			for _, es := range events {
				body := eventBody(status+" "+es, 3, k.name, []any{ids[status]}, "status", es)
				if es == models.StatusTrash { // created as published, then trashed: an event keeps its links in the trash
					body["status"] = models.StatusPublish
				}
				e := app.createEvent(t, token, body)
				if es == models.StatusTrash {
					app.Do(Request{Method: http.MethodDelete, Path: eventPath(e), Token: token}).ExpectStatus(t, http.StatusOK)
				}
			}
		}
		with, body := k.list(t, app, "?has_events=true&per_page=50", "")
		if want := []string{"mixed", "future", "private", "publish"}; !reflect.DeepEqual(with, want) || body["total"] != 4.0 {
			t.Fatalf("has_events=true: %v (total %v), want %v", with, body["total"], want)
		}
		without, body := k.list(t, app, "?has_events=0", "")
		if want := []string{"trash", "pending", "draft", "none"}; !reflect.DeepEqual(without, want) || body["total"] != 4.0 {
			t.Fatalf("has_events=0: %v, want %v", without, want)
		}
		if !strings.Contains(body["rest_url"].(string), "has_events=false") {
			t.Fatalf("rest_url = %v", body["rest_url"])
		}
		// Combined with a page size and a search, totals stay right.
		names, body := k.list(t, app, "?has_events=yes&per_page=1&page=2&search=i", "")
		if !reflect.DeepEqual(names, []string{"private"}) || body["total"] != 3.0 || body["total_pages"] != 3.0 {
			t.Fatalf("combined: %v %v", names, body)
		}
	})
}

func TestOnlyWithUpcomingCountsEventsTheCallerMaySeeThatHaveNotStarted(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		editor := app.Token(models.RoleEditor)
		// A visitor's total sums the records of the days after today from kept day counts, and reads today's by the
		// hour: the two records of today, a minute either side of now, are on the same day but for a minute around
		// midnight, when each is still counted as it should be by whole days.
		cases := []struct {
			name   string
			status string
			start  time.Time
		}{
			{"future published", "publish", time.Now().AddDate(0, 0, 1)},
			{"past published", "publish", time.Now().AddDate(0, 0, -30)},
			{"future draft", "draft", time.Now().AddDate(0, 0, 1)},
			{"future pending", "pending", time.Now().AddDate(0, 0, 1)},
			{"future private", "private", time.Now().AddDate(0, 0, 1)},
			{"none", "", time.Time{}},
			{"later today", "publish", time.Now().Add(time.Minute)},
			{"earlier today", "publish", time.Now().Add(-time.Minute)},
		}
		for _, c := range cases {
			rid := idOf(t, k.create(t, app, editor, c.name, nil))
			if c.status == "" {
				continue
			}
			start := c.start.UTC()
			app.createEvent(t, editor, map[string]any{"title": c.name, "start_date": start.Format(dateTimeLayout),
				"end_date": start.Add(time.Hour).Format(dateTimeLayout), k.name: []any{rid}, "status": c.status})
		}
		// Records that are not published themselves, with an upcoming published event: never listed to visitors,
		// and never in their total.
		for _, status := range []string{"draft", "private"} {
			rid := idOf(t, k.create(t, app, editor, status+" record", map[string]any{"status": status}))
			app.createEvent(t, editor, eventBody(status+" record's event", 2, k.name, []any{rid}, "status", "publish"))
		}
		if names, body := k.list(t, app, "?only_with_upcoming=true", ""); !reflect.DeepEqual(names,
			[]string{"later today", "future published"}) || body["total"] != 2.0 || body["total_pages"] != 1.0 {
			t.Fatalf("anonymous: %v, total %v", names, body["total"])
		}
		if names, body := k.list(t, app, "?only_with_upcoming=true&per_page=1&page=2", ""); !reflect.DeepEqual(names,
			[]string{"future published"}) || body["total"] != 2.0 || body["total_pages"] != 2.0 {
			t.Fatalf("anonymous, page 2: %v, total %v", names, body["total"])
		}
		if names, body := k.list(t, app, "?only_with_upcoming=true&status=publish", editor); !reflect.DeepEqual(names,
			[]string{"later today", "future private", "future published"}) || body["total"] != 3.0 {
			t.Fatalf("editor, published records: %v, total %v", names, body["total"])
		}
		if names, _ := k.list(t, app, "?only_with_upcoming=1", editor); !reflect.DeepEqual(names,
			[]string{"private record", "draft record", "later today", "future private", "future published"}) {
			t.Fatalf("editor: %v", names)
		}
		if names, _ := k.list(t, app, "?only_with_upcoming=false", ""); len(names) != len(cases) {
			t.Fatalf("only_with_upcoming=false filtered: %v", names)
		}
	})
}

func TestAListRunsAFixedNumberOfQueriesWhateverItsSize(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		for i := 0; i < 12; i++ {
			k.create(t, app, token, fmt.Sprintf("R%d", i), map[string]any{"image": fmt.Sprintf("https://img.example.com/%d.png", i)})
		}
		small := app.statementsDuring(func() { k.list(t, app, "?per_page=2&has_events=false&search=r", "") })
		large := app.statementsDuring(func() { k.list(t, app, "?per_page=12&has_events=false&search=r", "") })
		if small != large || small > 4 {
			t.Fatalf("%d statements for 2 items, %d for 12", small, large)
		}
	})
}

// resolveApp is the controller state the event engineer's code calls ResolveVenues on.
func resolveApp(app *App) *controllers.App {
	return controllers.NewApp(app.Config, app.Store, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// resolve runs ResolveVenues or ResolveOrganizers in a transaction on a raw JSON value: every event write
// resolves its venue and organizer parameters through them, so their rules are tested on them directly.
func resolve(t *testing.T, app *App, k linkedKind, user *models.User, raw string) ([]uint64, error) {
	t.Helper()
	var v any
	if raw != "" {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	c := resolveApp(app)
	var ids []uint64
	err := app.Store.Tx(t.Context(), func(tx *models.Store) error {
		var err error
		if k.name == "venue" {
			ids, err = c.ResolveVenues(tx, user, v)
		} else {
			ids, err = c.ResolveOrganizers(tx, user, v)
		}
		return err
	})
	return ids, err
}

// model creates a user with the role and returns it as the resolvers take it.
func (a *App) model(role models.Role) *models.User {
	a.t.Helper()
	login, _ := a.User(role)
	u, err := a.Store.UserByID(a.t.Context(), a.userID(login))
	if err != nil {
		a.t.Fatal(err)
	}
	return u
}

func TestResolvingTheLinkedParameterOfAnEventWrite(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		token := app.Token(models.RoleEditor)
		admin := app.model(models.RoleAdministrator)
		a := idOf(t, k.create(t, app, token, "A", nil))
		b := idOf(t, k.create(t, app, token, "B", nil))
		trashed := idOf(t, k.create(t, app, token, "T", nil))
		app.Do(Request{Method: http.MethodDelete, Path: k.path(trashed), Token: token}).ExpectStatus(t, http.StatusOK)
		for raw, want := range map[string][]uint64{
			"": nil, "null": nil, "0": nil, `""`: nil, `"0"`: nil, "[]": nil, `[0, ""]`: nil,
			fmt.Sprint(a): {a}, fmt.Sprintf(`"%d,%d"`, b, a): {b, a}, fmt.Sprintf(`[%d, "%d"]`, b, a): {b, a},
			fmt.Sprintf(`{"id": %d}`, a): {a}, fmt.Sprintf(`[{"id": "%d"}, %d, %d]`, b, a, b): {b, a},
		} {
			ids, err := resolve(t, app, k, admin, raw)
			if err != nil || !reflect.DeepEqual(ids, want) {
				t.Errorf("%s resolved to %v, %v; want %v", raw, ids, err, want)
			}
		}
		for raw, mention := range map[string]string{
			"999999": "999999", fmt.Sprint(trashed): "trash", "true": "", "1.5": "", `"abc"`: "", "[[1]]": "",
			`{"id": "x"}`: "id", `{"city": "x"}`: k.name, fmt.Sprintf(`{"%s": ""}`, k.name): "[" + k.name + "]",
			fmt.Sprintf(`{"%s": "X", "website": "foo"}`, k.name):    "[website]",
			fmt.Sprintf(`[%d, {"%s": "X", "phone": 5}]`, a, k.name): "[phone]",
		} {
			_, err := resolve(t, app, k, admin, raw)
			var e *models.Error
			if !errors.As(err, &e) || e.Kind != models.KindInvalid || !strings.Contains(e.Params[k.name], mention) {
				t.Errorf("%s: error %v (params %v), want one naming %s that mentions %q", raw, err, e, k.name, mention)
			}
		}
		// Inline data is created like POST, with the duplicate rule, in the order given.
		inline := fmt.Sprintf(`[{"%[1]s": "Inline", "phone": "1"}, %[2]d, {"%[1]s": "inline", "phone": "1"}, {"%[1]s": "Other"}]`, k.name, a)
		ids, err := resolve(t, app, k, admin, inline)
		if err != nil || len(ids) != 3 || ids[1] != a {
			t.Fatalf("inline resolved to %v, %v", ids, err)
		}
		again, err := resolve(t, app, k, admin, fmt.Sprintf(`{"%s": "INLINE", "phone": "1"}`, k.name))
		if err != nil || !reflect.DeepEqual(again, ids[:1]) {
			t.Fatalf("an identical inline record resolved to %v, %v; want %v", again, err, ids[:1])
		}
		rec := app.Get(k.path(ids[0])).ExpectStatus(t, http.StatusOK).JSON(t)
		if rec[k.name] != "Inline" || rec["status"] != "publish" || rec["phone"] != "1" {
			t.Fatalf("inline record = %v", rec)
		}
		// A contributor's inline record is a draft; a failed resolution writes nothing.
		drafts, err := resolve(t, app, k, app.model(models.RoleContributor), fmt.Sprintf(`{"%s": "By contributor"}`, k.name))
		if err != nil {
			t.Fatal(err)
		}
		if got := app.Get(k.path(drafts[0]), token).JSON(t); got["status"] != "draft" {
			t.Fatalf("contributor's inline record = %v", got)
		}
		if _, err := resolve(t, app, k, admin, fmt.Sprintf(`[{"%s": "Half"}, 999999]`, k.name)); err == nil {
			t.Fatal("an unknown ID after inline data resolved")
		}
		if names, _ := k.list(t, app, "?search=Half", token); len(names) != 0 {
			t.Fatalf("a failed resolution left %v", names)
		}
	})
}

func TestConcurrentIdenticalInlineRecordsBecomeOne(t *testing.T) {
	forEachKind(t, func(t *testing.T, k linkedKind) {
		app := NewApp(t)
		admin := app.model(models.RoleAdministrator)
		const n = 8
		results := make([][]uint64, n)
		errs := make([]error, n)
		concurrently(t, app, n, func(i int) {
			// Two names in opposite orders: the locks are taken in one order whatever the input order.
			raw := fmt.Sprintf(`[{"%[1]s": "Same"}, {"%[1]s": "Twin"}]`, k.name)
			if i%2 == 1 {
				raw = fmt.Sprintf(`[{"%[1]s": "Twin"}, {"%[1]s": "Same"}]`, k.name)
			}
			results[i], errs[i] = resolve(t, app, k, admin, raw)
		})
		for i := range results {
			if errs[i] != nil {
				t.Fatalf("resolution %d: %v", i, errs[i])
			}
		}
		names, body := k.list(t, app, "", "")
		if len(names) != 2 || body["total"] != 2.0 {
			t.Fatalf("records after concurrent inline creations: %v", names)
		}
	})
}
