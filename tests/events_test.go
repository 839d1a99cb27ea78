package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"calendar/models"
)

// eventKeys are the keys of an event record, in order: The Events Calendar's plus ticketed and parent.
var eventKeys = []string{"id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified",
	"modified_utc", "url", "rest_url", "title", "description", "excerpt", "slug", "image", "all_day", "start_date",
	"start_date_details", "end_date", "end_date_details", "utc_start_date", "utc_start_date_details", "utc_end_date",
	"utc_end_date_details", "timezone", "timezone_abbr", "cost", "cost_details", "website", "show_map",
	"show_map_link", "hide_from_listings", "sticky", "featured", "ticketed", "parent", "series_id", "recurrence",
	"recurrence_text", "recurrence_id", "is_exception", "categories", "tags", "venue",
	"organizer", "custom_fields"}

func TestCreatingAnEventAnswersTheFullRecord(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: map[string]any{
		"title": "Rock &amp; <b>Roll</b>", "description": `<p onclick="x()">Loud <script>alert(1)</script>music</p>`,
		"excerpt": "<em>Short</em>", "start_date": "2030-01-05 14:23:36", "end_date": "2030-01-05 16:23:36",
		"timezone": "America/New_York", "cost": "23", "website": "https://tri.be/x?a=1&b=2",
		"show_map": true, "show_map_link": "yes", "hide_from_listings": "false", "sticky": 1, "featured": "on",
		"ticketed": true, "image": "https://img.example.com/pics/Poster.PNG?size=large",
	}})
	res.ExpectStatus(t, http.StatusCreated)
	e := res.JSON(t)
	if got := jsonKeys(t, res.Body); strings.Join(got, ",") != strings.Join(eventKeys, ",") {
		t.Fatalf("keys\n got %v\nwant %v", got, eventKeys)
	}
	id := idOf(t, e)
	if loc := res.Header.Get("Location"); loc != "http://example.com/calendar/events/v1/events/"+strconv.FormatUint(id, 10) {
		t.Fatalf("Location = %q", loc)
	}
	want := map[string]any{
		"global_id": "example.com?id=" + strconv.FormatUint(id, 10), "author": "1", "status": "publish",
		"url": "http://example.com/event/rock-and-roll/", "rest_url": "http://example.com/calendar/events/v1/events/" + strconv.FormatUint(id, 10),
		"title": "Rock & Roll", "description": "<p>Loud music</p>", "excerpt": "<em>Short</em>", "slug": "rock-and-roll",
		"all_day": false, "start_date": "2030-01-05 14:23:36", "end_date": "2030-01-05 16:23:36",
		"utc_start_date": "2030-01-05 19:23:36", "utc_end_date": "2030-01-05 21:23:36",
		"timezone": "America/New_York", "timezone_abbr": "EST", "cost": "$23", "website": "https://tri.be/x?a=1&b=2",
		"show_map": true, "show_map_link": true, "hide_from_listings": false, "sticky": true, "featured": true,
		"ticketed": true, "parent": float64(0),
	}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("%s = %#v, want %#v", k, e[k], v)
		}
	}
	details := e["start_date_details"].(map[string]any)
	if details["year"] != "2030" || details["month"] != "01" || details["day"] != "05" || details["hour"] != "14" ||
		details["minutes"] != "23" || details["seconds"] != "36" {
		t.Errorf("start_date_details = %v", details)
	}
	if d := e["utc_end_date_details"].(map[string]any); d["hour"] != "21" {
		t.Errorf("utc_end_date_details = %v", d)
	}
	cost := e["cost_details"].(map[string]any)
	if cost["currency_symbol"] != "$" || cost["currency_position"] != "prefix" || len(cost["values"].([]any)) != 1 ||
		cost["values"].([]any)[0] != "23" {
		t.Errorf("cost_details = %v", cost)
	}
	img := e["image"].(map[string]any)
	if img["url"] != "https://img.example.com/pics/Poster.PNG?size=large" || img["extension"] != "png" || img["id"] == nil {
		t.Errorf("image = %v", img)
	}
	for _, k := range []string{"categories", "tags", "venue", "organizer", "custom_fields"} {
		if list, ok := e[k].([]any); !ok || len(list) != 0 {
			t.Errorf("%s = %v, want []", k, e[k])
		}
	}
	if _, ok := e["json_ld"]; ok {
		t.Error("a create answer carries json_ld")
	}
	if _, ok := e["password"]; ok {
		t.Error("the record shows a password field")
	}
	read := app.Get("/events/"+strconv.FormatUint(id, 10)).ExpectStatus(t, http.StatusOK).JSON(t)
	for k, v := range want {
		if read[k] != v {
			t.Errorf("read back %s = %#v, want %#v", k, read[k], v)
		}
	}
}

func TestCreateReportsEveryMissingRequiredParameterAtOnce(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	cases := []struct {
		name    string
		body    any
		ctype   string
		missing []string
	}{
		{"nothing", map[string]any{"description": "no title, no dates"}, "", []string{"title", "start_date", "end_date"}},
		{"only the title", map[string]any{"start_date": "2030-01-01 10:00:00", "end_date": "2030-01-01 11:00:00"}, "",
			[]string{"title"}},
		{"JSON null counts as missing", map[string]any{"title": nil, "start_date": "2030-01-01", "end_date": nil}, "",
			[]string{"title", "end_date"}},
		{"an empty JSON body", "", "application/json", []string{"title", "start_date", "end_date"}},
		{"a form body", url.Values{"title": {"x"}}, "", []string{"start_date", "end_date"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: c.body, ContentType: c.ctype}).
				ExpectError(t, http.StatusBadRequest, "rest_missing_callback_param")
			got, _ := json.Marshal(body["data"].(map[string]any)["params"])
			want, _ := json.Marshal(c.missing)
			if string(got) != string(want) {
				t.Fatalf("params = %s, want %s", got, want)
			}
			if !strings.HasPrefix(body["message"].(string), "Missing parameter(s): "+strings.Join(c.missing, ", ")) {
				t.Fatalf("message = %v", body["message"])
			}
		})
	}
	if n := app.count(t, "events"); n != 0 {
		t.Fatalf("%d events were written", n)
	}
}

func TestCreateRejectsBadValuesNamingThemAndWritesNothing(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	cases := []struct {
		name  string
		field string
		value any
	}{
		{"an empty title", "title", ""},
		{"a title of tags only", "title", "<b></b>"},
		{"an empty start", "start_date", ""},
		{"a start that is no date", "start_date", "tomorrow-ish"},
		{"an end that is no date", "end_date", "before my birthday"},
		{"an unknown author", "author", 2389},
		{"an empty author", "author", ""},
		{"a publication date that is no date", "date", "foo"},
		{"a UTC publication date that is no date", "date_utc", "foo"},
		{"a website that is no URL", "website", "foo"},
		{"a javascript website", "website", "javascript:alert(1)"},
		{"an unknown status", "status", "kinda_thinking_about_it"},
		{"a status of trash on create", "status", "trash"},
		{"an unknown timezone", "timezone", "Mars/Olympus_Mons"},
		{"an offset beyond 14 hours", "timezone", "UTC+15"},
		{"an image that is neither ID nor URL", "image", "foo bar"},
		{"an unknown image ID", "image", 23},
		{"an unknown image ID as text", "image", "23"},
		{"a cost that is an object", "cost", map[string]any{"a": 1}},
		{"a flag that is no boolean", "featured", "maybe"},
		{"an unknown parent", "parent", 2389},
		{"a negative parent", "parent", -1},
		{"a password longer than 255 characters", "password", strings.Repeat("x", 256)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := eventBody("Bad", 3, c.field, c.value)
			expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body}), c.field)
		})
	}
	t.Run("every bad parameter is named at once", func(t *testing.T) {
		body := eventBody("Bad", 3, "website", "foo", "status", "trash", "timezone", "Nowhere/Else")
		expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body}),
			"website", "status", "timezone")
	})
	if n := app.count(t, "events"); n != 0 {
		t.Fatalf("%d events were written by refused requests", n)
	}
}

func TestTheEndMayNotComeBeforeTheStart(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: map[string]any{
		"title": "Backwards", "start_date": "2030-01-02 10:00:00", "end_date": "2030-01-01 10:00:00"}})
	expectInvalid(t, res, "end_date")
	e := app.createEvent(t, token, map[string]any{"title": "Forwards", "start_date": "2030-01-02 10:00:00",
		"end_date": "2030-01-02 12:00:00"})
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(e), Token: token,
		Body: map[string]any{"end_date": "2030-01-01 10:00:00"}}), "end_date")
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(e), Token: token,
		Body: map[string]any{"start_date": "2030-01-03 10:00:00"}}), "start_date")
	same := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"end_date": "2030-01-02 10:00:00"})
	if same["start_date"] != same["end_date"] {
		t.Fatalf("an end equal to the start was refused or changed: %v / %v", same["start_date"], same["end_date"])
	}
}

func TestAnonymousWritesAre401AndSubscribersAre403(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	e := app.createEvent(t, admin, eventBody("Mine", 2))
	for _, r := range []Request{
		{Method: http.MethodPost, Path: "/events", Body: eventBody("Anon", 1)},
		{Method: http.MethodPost, Path: "/events", Body: map[string]any{}},
		{Method: http.MethodPost, Path: eventPath(e), Body: map[string]any{"title": "x"}},
		{Method: http.MethodPut, Path: eventPath(e), Body: map[string]any{"title": "x"}},
		{Method: http.MethodPatch, Path: "/events/by-slug/mine", Body: map[string]any{"title": "x"}},
		{Method: http.MethodDelete, Path: eventPath(e)},
		{Method: http.MethodDelete, Path: "/events/by-slug/mine"},
	} {
		app.Do(r).ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
	}
	sub := app.Token(models.RoleSubscriber)
	app.Do(Request{Method: http.MethodPost, Path: "/events", Token: sub, Body: eventBody("Sub", 1)}).
		ExpectError(t, http.StatusForbidden, "rest_forbidden")
	if n := app.count(t, "events"); n != 1 {
		t.Fatalf("%d events, want 1", n)
	}
}

func TestEventSlugsAreGeneratedUniqueAndChangeable(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	first := app.createEvent(t, token, eventBody("Summer Fair!", 1))
	second := app.createEvent(t, token, eventBody("Summer  fair", 2))
	third := app.createEvent(t, token, eventBody("Other", 3, "slug", "Summer Fair"))
	emoji := app.createEvent(t, token, eventBody("🎉🎉", 4))
	for e, want := range map[*map[string]any]string{&first: "summer-fair", &second: "summer-fair-2",
		&third: "summer-fair-3", &emoji: "event"} {
		if (*e)["slug"] != want {
			t.Errorf("slug %v, want %s", (*e)["slug"], want)
		}
	}
	changed := app.updateEvent(t, http.MethodPost, eventPath(first), token, map[string]any{"slug": "an-interesting-event"})
	if changed["slug"] != "an-interesting-event" || changed["url"] != "http://example.com/event/an-interesting-event/" {
		t.Fatalf("slug change: %v %v", changed["slug"], changed["url"])
	}
	app.Get("/events/by-slug/an-interesting-event").ExpectStatus(t, http.StatusOK)
	app.Get("/events/by-slug/summer-fair").ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	retitled := app.updateEvent(t, http.MethodPost, eventPath(second), token, map[string]any{"title": "Winter"})
	if retitled["slug"] != "summer-fair-2" {
		t.Fatalf("a new title changed the slug: %v", retitled["slug"])
	}
	fresh := app.updateEvent(t, http.MethodPost, eventPath(second), token, map[string]any{"slug": ""})
	if fresh["slug"] != "winter" {
		t.Fatalf("an empty slug did not regenerate it from the title: %v", fresh["slug"])
	}
	expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: eventPath(second), Token: token,
		Body: map[string]any{"slug": "!!!"}}), "slug")
}

func TestGeneratedFieldsSentOnInputHaveNoEffect(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	garbage := map[string]any{"id": 999, "url": "http://evil.example/", "rest_url": "http://evil.example/",
		"utc_start_date": "1999-01-01 00:00:00", "utc_end_date": "1999-01-01 00:00:00", "timezone_abbr": "XYZ",
		"start_date_details": map[string]any{"year": "1999"}, "cost_details": map[string]any{"values": []any{"9"}},
		"global_id": "evil", "modified": "1999-01-01 00:00:00"}
	body := eventBody("Plain", 5)
	for k, v := range garbage {
		body[k] = v
	}
	e := app.createEvent(t, token, body)
	if e["id"] == float64(999) || e["url"] == "http://evil.example/" || e["utc_start_date"] == "1999-01-01 00:00:00" ||
		e["timezone_abbr"] == "XYZ" || e["global_id"] == "evil" || e["modified"] == "1999-01-01 00:00:00" {
		t.Fatalf("a generated field took the input: %v", e)
	}
	updated := app.updateEvent(t, http.MethodPut, eventPath(e), token, garbage)
	if updated["url"] != e["url"] || updated["utc_start_date"] != e["utc_start_date"] {
		t.Fatalf("an update changed generated fields: %v", updated)
	}
}

func TestUpdatesKeepWhatTheyDoNotSend(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	e := app.createEvent(t, token, map[string]any{"title": "Full", "description": "<p>D</p>", "excerpt": "E",
		"start_date": "2030-03-01 09:00:00", "end_date": "2030-03-01 17:00:00", "timezone": "Europe/Paris",
		"all_day": false, "cost": "10€", "website": "https://full.example", "show_map": true, "show_map_link": true,
		"sticky": true, "featured": true, "ticketed": true, "image": "https://img.example/a.jpg",
		"date": "2029-12-01 08:00:00"})
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
		t.Run(method, func(t *testing.T) {
			u := app.updateEvent(t, method, eventPath(e), token, map[string]any{"title": "Full " + method})
			if u["title"] != "Full "+method {
				t.Fatalf("title = %v", u["title"])
			}
			for _, k := range []string{"description", "excerpt", "start_date", "end_date", "utc_start_date", "timezone",
				"timezone_abbr", "all_day", "cost", "website", "show_map", "show_map_link", "sticky", "featured",
				"ticketed", "status", "slug", "date", "date_utc", "author"} {
				if !jsonEqual(u[k], e[k]) {
					t.Errorf("%s changed from %v to %v", k, e[k], u[k])
				}
			}
			if !jsonEqual(u["image"], e["image"]) || !jsonEqual(u["cost_details"], e["cost_details"]) {
				t.Errorf("image or cost changed: %v %v", u["image"], u["cost_details"])
			}
		})
	}
	t.Run("by slug too", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPut, "/events/by-slug/full", token, map[string]any{"excerpt": "short text"})
		if u["excerpt"] != "short text" || u["description"] != "<p>D</p>" || u["id"] != e["id"] {
			t.Fatalf("by-slug update: %v", u)
		}
	})
	t.Run("clearable fields clear with null or empty values", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"cost": nil, "website": "",
			"image": "", "description": ""})
		if u["cost"] != "" || len(u["cost_details"].(map[string]any)["values"].([]any)) != 0 ||
			u["website"] != u["url"] || u["image"] != false || u["description"] != "" {
			t.Fatalf("not cleared: cost %v website %v image %v description %v", u["cost"], u["website"], u["image"], u["description"])
		}
		if u["title"] != "Full PATCH" {
			t.Fatalf("a null for a scalar field changed it: %v", u["title"])
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestUpdatingAnUnknownEventIs404(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	for _, r := range []Request{
		{Method: http.MethodPost, Path: "/events/2389", Body: map[string]any{"title": "x"}},
		{Method: http.MethodPut, Path: "/events/by-slug/nothing-here", Body: map[string]any{"title": "x"}},
		{Method: http.MethodDelete, Path: "/events/23"},
		{Method: http.MethodDelete, Path: "/events/by-slug/nothing-here"},
		{Path: "/events/0"},
		{Path: "/events/999999"},
		{Path: "/events/by-slug/no-such-event-slug"},
	} {
		r.Token = token
		app.Do(r).ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	}
	for _, path := range []string{"/events/abc", "/events/-1", "/events/1.5", "/events/by-slug", "/events/1/x"} {
		app.Get(path).ExpectError(t, http.StatusNotFound, "rest_no_route")
	}
	body := app.Get("/events/23").JSON(t)
	if body["message"] != "Event with ID 23 does not exist." {
		t.Fatalf("message = %v", body["message"])
	}
}

func TestValidationAnswersBeforeTheRecordIsLookedUp(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	sub := app.Token(models.RoleSubscriber)
	expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events/2389", Token: sub,
		Body: map[string]any{"website": "foo"}}), "website")
	app.Do(Request{Method: http.MethodPost, Path: "/events/2389", Token: sub, Body: map[string]any{"title": "x"}}).
		ExpectError(t, http.StatusForbidden, "rest_forbidden")
}
