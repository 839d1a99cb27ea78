package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"calendar/controllers"
	"calendar/models"
)

func TestReadingAnOrganizerMatchesTheCapturedShape(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	// Captures 58 and 84: Organizer 1 with phone, website and e-mail.
	rec := organizerTestKind.create(t, app, token, "Organizer 1", map[string]any{"phone": "555-0200",
		"website": "https://org1.example.com", "email": "org1@example.com"})
	want := []string{"id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "organizer", "slug",
		"phone", "website", "email", "json_ld", "global_id", "global_id_lineage"}
	for _, path := range []string{organizerTestKind.path(idOf(t, rec)), "/organizers/by-slug/organizer-1"} {
		r := app.Get(path).ExpectStatus(t, http.StatusOK)
		if got := jsonKeys(t, r.Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("keys %v, want %v", got, want)
		}
		ld := r.JSON(t)["json_ld"].(map[string]any)
		for key, want := range map[string]any{"@type": "Person", "name": "Organizer 1", "telephone": "555-0200",
			"email": "org1@example.com", "sameAs": "https://org1.example.com", "description": "",
			"url": "https://org1.example.com"} {
			if ld[key] != want {
				t.Errorf("json_ld.%s = %v, want %v", key, ld[key], want)
			}
		}
	}
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

func TestPerPageIsClampedToTheMaximum(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_MAX_PER_PAGE", "4"))
	token := app.Token(models.RoleEditor)
	for i := 0; i < 5; i++ {
		venueTestKind.create(t, app, token, fmt.Sprintf("V%d", i), nil)
	}
	names, body := venueTestKind.list(t, app, "?per_page=100", "")
	if len(names) != 4 || body["total_pages"] != 2.0 || !strings.Contains(body["rest_url"].(string), "per_page=4") {
		t.Fatalf("per_page=100 gave %d items, %v", len(names), body)
	}
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
		link := testEvent{}
		if k.name == "venue" {
			link.Venues = []uint64{a, b}
		} else {
			link.Organizers = []uint64{a, b}
		}
		e := app.insertEvent(link)
		lonely := app.insertEvent(testEvent{})
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
				e := testEvent{Status: es}
				if k.name == "venue" {
					e.Venues = []uint64{ids[status]}
				} else {
					e.Organizers = []uint64{ids[status]}
				}
				app.insertEvent(e)
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
		soon := testEvent{Status: "publish"}
		soon.Start = soon.Start.AddDate(0, 0, 0)
		cases := []struct {
			name   string
			status string
			past   bool
		}{
			{"future published", "publish", false}, {"past published", "publish", true}, {"future draft", "draft", false},
			{"future pending", "pending", false}, {"future private", "private", false}, {"none", "", false},
		}
		for _, c := range cases {
			rid := idOf(t, k.create(t, app, editor, c.name, nil))
			if c.status == "" {
				continue
			}
			e := testEvent{Status: c.status}
			if c.past {
				e.Start = e.Start.AddDate(0, 0, -30)
			}
			if k.name == "venue" {
				e.Venues = []uint64{rid}
			} else {
				e.Organizers = []uint64{rid}
			}
			app.insertEvent(e)
		}
		if names, body := k.list(t, app, "?only_with_upcoming=true", ""); !reflect.DeepEqual(names, []string{"future published"}) ||
			body["total"] != 1.0 {
			t.Fatalf("anonymous: %v", names)
		}
		if names, _ := k.list(t, app, "?only_with_upcoming=1", editor); !reflect.DeepEqual(names, []string{"future private", "future published"}) {
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

// resolve runs ResolveVenues or ResolveOrganizers in a transaction on a raw JSON value.
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

func TestInlineCoordinatesFollowTheGeolocationSwitch(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_GEOLOCATION", "off"))
	_, err := resolve(t, app, venueTestKind, app.model(models.RoleAdministrator), `{"venue": "Geo", "geo_lat": 1, "geo_lng": 2}`)
	var e *models.Error
	if !errors.As(err, &e) || !strings.Contains(e.Params["venue"], "geolocation is not enabled") {
		t.Fatalf("error %v", err)
	}
}
