package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"calendar/models"
)

func TestCreatingAVenueReturnsItWithLocationAndTheReferenceShape(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	login, token := app.User(models.RoleAdministrator)
	// The body of capture 55_POST_venue_create.
	r := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: token, Body: map[string]any{
		"venue": "Capture Venue", "address": "9 Side St", "city": "Bristol", "country": "United States"}})
	v := r.ExpectStatus(t, http.StatusCreated).JSON(t)
	vid := idOf(t, v)
	if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, fmt.Sprintf("/calendar/events/v1/venues/%d", vid)) {
		t.Fatalf("Location = %q", loc)
	}
	want := []string{"id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "venue", "slug",
		"address", "city", "country", "show_map", "show_map_link", "global_id", "global_id_lineage"}
	if got := jsonKeys(t, r.Body); !reflect.DeepEqual(got, want) {
		t.Fatalf("keys %v, want the capture's %v", got, want)
	}
	checks := map[string]any{"author": fmt.Sprint(app.userID(login)), "status": "publish", "venue": "Capture Venue",
		"slug": "capture-venue", "url": "http://example.com/venue/capture-venue/", "show_map": true,
		"show_map_link": true, "global_id": fmt.Sprintf("example.com?id=%d", vid)}
	for key, want := range checks {
		if v[key] != want {
			t.Errorf("%s = %v, want %v", key, v[key], want)
		}
	}
	if lineage := v["global_id_lineage"].([]any); len(lineage) != 1 || lineage[0] != v["global_id"] {
		t.Errorf("global_id_lineage = %v", lineage)
	}
}

func TestEveryFieldOfAVenueIsStoredAndReturned(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	body := map[string]any{"venue": "Hall <b>One</b>", "description": `<p onclick="x()">Big <script>alert(1)</script>hall</p>`,
		"excerpt": "<em>Short</em>", "status": "draft", "date": "2026-03-01 10:00:00", "show_map": "false",
		"show_map_link": false, "image": "https://img.example.com/path/hall.JPG?size=large", "geo_lat": "48.8566",
		"geo_lng": 2.3522}
	for k, v := range venueTestKind.fields {
		body[k] = v
	}
	v := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: token, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
	for k, want := range venueTestKind.fields {
		if v[k] != want {
			t.Errorf("%s = %v, want %v", k, v[k], want)
		}
	}
	checks := map[string]any{"venue": "Hall One", "description": "<p>Big hall</p>", "excerpt": "<em>Short</em>",
		"status": "draft", "date": "2026-03-01 10:00:00", "date_utc": "2026-03-01 10:00:00", "show_map": false,
		"show_map_link": false, "geo_lat": 48.8566, "geo_lng": 2.3522}
	for k, want := range checks {
		if v[k] != want {
			t.Errorf("%s = %v, want %v", k, v[k], want)
		}
	}
	img, _ := v["image"].(map[string]any)
	if img == nil || img["url"] != "https://img.example.com/path/hall.JPG?size=large" || img["extension"] != "jpg" || img["id"] == nil {
		t.Fatalf("image = %v", v["image"])
	}
	// The same URL is the same image; its ID works as the image of another venue.
	other := venueTestKind.create(t, app, token, "Other", map[string]any{"image": img["id"]})
	if other["image"].(map[string]any)["url"] != img["url"] {
		t.Fatalf("image by ID = %v", other["image"])
	}
	again := venueTestKind.create(t, app, token, "Third", map[string]any{"image": img["url"]})
	if again["image"].(map[string]any)["id"] != img["id"] {
		t.Fatalf("the same URL became another image: %v", again["image"])
	}
	// A single read has everything too, and the JSON-LD Place.
	read := app.Get(venueTestKind.path(idOf(t, v)), token).ExpectStatus(t, http.StatusOK).JSON(t)
	ld, _ := read["json_ld"].(map[string]any)
	if ld == nil || ld["@type"] != "Place" || ld["name"] != "Hall One" || ld["telephone"] != "555-0100" ||
		ld["sameAs"] != "https://venue.example.com" || ld["url"] != read["url"] {
		t.Fatalf("json_ld = %v", read["json_ld"])
	}
	address, _ := ld["address"].(map[string]any)
	if address["streetAddress"] != "9 Side St" || address["addressLocality"] != "Bristol" || address["postalCode"] != "60000" ||
		address["addressRegion"] != "IL" || address["addressCountry"] != "United States" {
		t.Fatalf("json_ld.address = %v", address)
	}
	if geo, _ := ld["geo"].(map[string]any); geo["latitude"] != 48.8566 || geo["longitude"] != 2.3522 {
		t.Fatalf("json_ld.geo = %v", ld["geo"])
	}
}

func TestStateprovinceFollowsStateOrProvinceUnlessSent(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	us := venueTestKind.create(t, app, token, "US", map[string]any{"state": "IL", "province": "P", "country": "US"})
	fr := venueTestKind.create(t, app, token, "FR", map[string]any{"state": "S", "province": "Île-de-France", "country": "France"})
	if us["stateprovince"] != "IL" || fr["stateprovince"] != "Île-de-France" {
		t.Fatalf("stateprovince %v and %v", us["stateprovince"], fr["stateprovince"])
	}
	moved := app.Do(Request{Method: http.MethodPatch, Path: venueTestKind.path(idOf(t, us)), Token: token,
		Body: map[string]any{"country": "Canada"}}).ExpectStatus(t, http.StatusOK).JSON(t)
	if moved["stateprovince"] != "P" {
		t.Fatalf("stateprovince after moving to Canada = %v", moved["stateprovince"])
	}
	kept := app.Do(Request{Method: http.MethodPatch, Path: venueTestKind.path(idOf(t, us)), Token: token,
		Body: map[string]any{"city": "Toronto"}}).ExpectStatus(t, http.StatusOK).JSON(t)
	if kept["stateprovince"] != "P" {
		t.Fatalf("an unrelated update changed stateprovince to %v", kept["stateprovince"])
	}
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
		link := testEvent{}
		if k.name == "venue" {
			link.Venues = []uint64{a, b, c}
		} else {
			link.Organizers = []uint64{a, b, c}
		}
		e1, e2 := app.insertEvent(link), app.insertEvent(link)
		app.Do(Request{Method: http.MethodDelete, Path: k.path(b), Token: token}).ExpectStatus(t, http.StatusOK)
		for _, e := range []uint64{e1, e2} {
			if got := app.linkedIDs(k, e); !reflect.DeepEqual(got, []uint64{a, c}) {
				t.Fatalf("after trashing %d, event %d links %v", b, e, got)
			}
		}
		app.Do(Request{Method: http.MethodDelete, Path: k.path(a) + "?force=1", Token: token}).ExpectStatus(t, http.StatusOK)
		for _, e := range []uint64{e1, e2} {
			if got := app.linkedIDs(k, e); !reflect.DeepEqual(got, []uint64{c}) {
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

func TestVenueCoordinates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	v := venueTestKind.create(t, app, token, "Geo", map[string]any{"geo_lat": -33.8688, "geo_lng": "151.2093"})
	path := venueTestKind.path(idOf(t, v))
	if v["geo_lat"] != -33.8688 || v["geo_lng"] != 151.2093 {
		t.Fatalf("coordinates %v %v", v["geo_lat"], v["geo_lng"])
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"venue": "X", "geo_lat": 10}, "geo_lng"},
		{map[string]any{"venue": "X", "geo_lng": 10}, "geo_lat"},
		{map[string]any{"venue": "X", "geo_lat": 90.0001, "geo_lng": 0}, "geo_lat"},
		{map[string]any{"venue": "X", "geo_lat": 0, "geo_lng": -180.5}, "geo_lng"},
		{map[string]any{"venue": "X", "geo_lat": "north", "geo_lng": 0}, "geo_lat"},
		{map[string]any{"venue": "X", "geo_lat": 0, "geo_lng": true}, "geo_lng"},
		{map[string]any{"venue": "X", "geo_lat": "NaN", "geo_lng": 0}, "geo_lat"},
	} {
		params := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: token, Body: c.body}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_param")["data"].(map[string]any)["params"].(map[string]any)
		if _, ok := params[c.field]; !ok {
			t.Errorf("%v: params %v do not name %s", c.body, params, c.field)
		}
	}
	// The bounds themselves are fine; one coordinate may move alone; removing one alone is refused.
	venueTestKind.create(t, app, token, "Pole", map[string]any{"geo_lat": 90, "geo_lng": -180})
	moved := app.Do(Request{Method: http.MethodPatch, Path: path, Token: token, Body: map[string]any{"geo_lat": 1.5}}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if moved["geo_lat"] != 1.5 || moved["geo_lng"] != 151.2093 {
		t.Fatalf("moved = %v", moved)
	}
	app.Do(Request{Method: http.MethodPatch, Path: path, Token: token, Body: map[string]any{"geo_lat": ""}}).
		ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	cleared := app.Do(Request{Method: http.MethodPatch, Path: path, Token: token, Body: map[string]any{"geo_lat": "", "geo_lng": nil}}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if _, ok := cleared["geo_lat"]; ok {
		t.Fatalf("cleared = %v", cleared)
	}
	if _, ok := cleared["geo_lng"]; ok {
		t.Fatalf("cleared = %v", cleared)
	}
}

func TestVenueCoordinatesAreRefusedWhenGeolocationIsOff(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_GEOLOCATION", "off"))
	token := app.Token(models.RoleEditor)
	body := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: token,
		Body: map[string]any{"venue": "X", "geo_lat": 1, "geo_lng": 2}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	params := body["data"].(map[string]any)["params"].(map[string]any)
	if params["geo_lat"] != "geolocation is not enabled" || params["geo_lng"] != "geolocation is not enabled" {
		t.Fatalf("params = %v", params)
	}
	v := venueTestKind.create(t, app, token, "Plain", map[string]any{"city": "Rome"})
	app.Do(Request{Method: http.MethodPatch, Path: venueTestKind.path(idOf(t, v)), Token: token,
		Body: map[string]any{"geo_lat": ""}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
}

func TestReadingAVenueMatchesTheCapturedShape(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	// Captures 51 and 52: Venue 1 Hall with a full address.
	rec := venueTestKind.create(t, app, token, "Venue 1 Hall", map[string]any{"address": "100 Main St",
		"city": "Springfield", "country": "United States", "state": "IL", "zip": "60000", "phone": "555-0100",
		"website": "https://venue1.example.com"})
	want := []string{"id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "venue", "slug",
		"address", "city", "country", "state", "zip", "phone", "website", "stateprovince", "json_ld", "show_map",
		"show_map_link", "global_id", "global_id_lineage"}
	for _, path := range []string{venueTestKind.path(idOf(t, rec)), "/venues/by-slug/venue-1-hall"} {
		r := app.Get(path).ExpectStatus(t, http.StatusOK)
		if got := jsonKeys(t, r.Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("keys %v, want %v", got, want)
		}
		ld := r.JSON(t)["json_ld"].(map[string]any)
		wantLD := map[string]any{"@context": "http://schema.org", "@type": "Place", "name": "Venue 1 Hall",
			"description": "", "url": "http://example.com/venue/venue-1-hall/", "telephone": "555-0100",
			"sameAs": "https://venue1.example.com", "address": map[string]any{"@type": "PostalAddress",
				"streetAddress": "100 Main St", "addressLocality": "Springfield", "addressRegion": "IL",
				"postalCode": "60000", "addressCountry": "United States"}}
		if !reflect.DeepEqual(ld, wantLD) {
			t.Fatalf("json_ld = %v\nwant %v", ld, wantLD)
		}
	}
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
