package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"calendar/models"
)

func TestLinkingVenuesAndOrganizers(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	v1 := app.post(t, token, "/venues", map[string]any{"venue": "Hall One", "city": "Salem"})
	v2 := app.post(t, token, "/venues", map[string]any{"venue": "Hall Two"})
	o1 := app.post(t, token, "/organizers", map[string]any{"organizer": "Org One", "image": "https://img.example/o1.png"})
	o2 := app.post(t, token, "/organizers", map[string]any{"organizer": "Org Two"})
	o3 := app.post(t, token, "/organizers", map[string]any{"organizer": "Org Three"})

	e := app.createEvent(t, token, eventBody("Linked", 3, "venue", v1, "organizer", []any{o2, o1}))
	venue, ok := e["venue"].(map[string]any)
	if !ok || idOf(t, venue) != v1 || venue["venue"] != "Hall One" || venue["city"] != "Salem" {
		t.Fatalf("venue %v", e["venue"])
	}
	if got := linkIDs(t, e["organizer"]); !slices.Equal(got, []uint64{o2, o1}) {
		t.Fatalf("organizers %v, want [%d %d] in the order given", got, o2, o1)
	}
	if img := e["organizer"].([]any)[1].(map[string]any)["image"].(map[string]any); img["url"] != "https://img.example/o1.png" {
		t.Fatalf("organizer image %v", img)
	}
	cases := []struct {
		name      string
		body      map[string]any
		venues    []uint64
		organizer []uint64
	}{
		{"an omitted link is unchanged", map[string]any{"title": "Renamed"}, []uint64{v1}, []uint64{o2, o1}},
		{"organizers as CSV", map[string]any{"organizer": fmt.Sprintf("%d,%d,%d", o3, o1, o2)}, []uint64{v1}, []uint64{o3, o1, o2}},
		{"objects with id", map[string]any{"venue": map[string]any{"id": v2}, "organizer": []any{map[string]any{"id": o1}}}, []uint64{v2}, []uint64{o1}},
		{"several venues", map[string]any{"venue": []any{v1, v2}}, []uint64{v1, v2}, []uint64{o1}},
		{"venue 0 removes it", map[string]any{"venue": 0}, nil, []uint64{o1}},
		{"venue \"\" removes it", map[string]any{"venue": v1}, []uint64{v1}, []uint64{o1}},
		{"", map[string]any{"venue": ""}, nil, []uint64{o1}},
		{"venue [] removes it", map[string]any{"venue": v2}, []uint64{v2}, []uint64{o1}},
		{"", map[string]any{"venue": []any{}}, nil, []uint64{o1}},
		{"venue null removes it", map[string]any{"venue": v2}, []uint64{v2}, []uint64{o1}},
		{"", map[string]any{"venue": nil, "organizer": []any{}}, nil, nil},
	}
	for i, c := range cases {
		name := c.name
		if name == "" {
			name = fmt.Sprintf("step %d", i)
		}
		t.Run(name, func(t *testing.T) {
			u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, c.body)
			if got := linkIDs(t, u["venue"]); !slices.Equal(got, c.venues) && !(len(got) == 0 && len(c.venues) == 0) {
				t.Fatalf("venues %v, want %v", got, c.venues)
			}
			if len(c.venues) > 1 {
				if _, isList := u["venue"].([]any); !isList {
					t.Fatalf("several venues are not an array: %v", u["venue"])
				}
			}
			if got := linkIDs(t, u["organizer"]); !slices.Equal(got, c.organizer) && !(len(got) == 0 && len(c.organizer) == 0) {
				t.Fatalf("organizers %v, want %v", got, c.organizer)
			}
		})
	}
}

func TestInlineVenuesAndOrganizersAreCreatedWithTheEvent(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	existing := app.post(t, token, "/organizers", map[string]any{"organizer": "Known"})
	e := app.createEvent(t, token, map[string]any{"title": "Inline Linked", "start_date": "2030-02-15 09:00:00",
		"end_date": "2030-02-15 10:00:00", "all_day": true,
		"venue": map[string]any{"venue": "Inline Venue", "city": "Salem", "image": "https://img.example/v.jpg"},
		"organizer": []any{map[string]any{"organizer": "Organizer A", "email": "a@example.com"},
			map[string]any{"id": existing}, map[string]any{"organizer": "Organizer C"}}})
	venue := e["venue"].(map[string]any)
	if venue["venue"] != "Inline Venue" || venue["city"] != "Salem" || venue["image"].(map[string]any)["extension"] != "jpg" {
		t.Fatalf("inline venue %v", venue)
	}
	orgs := e["organizer"].([]any)
	if len(orgs) != 3 || orgs[0].(map[string]any)["organizer"] != "Organizer A" || idOf(t, orgs[1].(map[string]any)) != existing ||
		orgs[2].(map[string]any)["organizer"] != "Organizer C" {
		t.Fatalf("organizers %v", orgs)
	}
	app.Get(fmt.Sprintf("/venues/%d", idOf(t, venue))).ExpectStatus(t, http.StatusOK)

	t.Run("a bad link leaves nothing written", func(t *testing.T) {
		before, venues := app.count(t, "events"), app.count(t, "venues")
		for _, c := range []struct {
			field string
			value any
		}{
			{"venue", 2389},
			{"venue", "abc"},
			{"venue", map[string]any{"city": "no name"}},
			{"organizer", []any{map[string]any{"organizer": "Fine"}, 2389}},
			{"organizer", []any{map[string]any{"organizer": "Fine"}, map[string]any{"email": "no name"}}},
		} {
			body := eventBody("Bad link", 2, c.field, c.value, "venue", map[string]any{"venue": "Would be new"})
			if c.field == "venue" {
				body["venue"] = c.value
			}
			res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body})
			if res.Status != http.StatusBadRequest {
				t.Fatalf("%s=%v: status %d %s", c.field, c.value, res.Status, res.Body)
			}
			if !strings.Contains(string(res.Body), `"`+c.field+`"`) {
				t.Fatalf("%s=%v: the error does not name it: %s", c.field, c.value, res.Body)
			}
		}
		if after := app.count(t, "venues"); app.count(t, "events") != before || after != venues {
			t.Fatalf("a refused write left rows: events %d→%d, venues %d→%d", before, app.count(t, "events"), venues, after)
		}
	})
}

func TestLinkingCategoriesAndTags(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music", "description": "Loud"})
	theatre := app.post(t, token, "/categories", map[string]any{"name": "Theatre"})
	outdoor := app.post(t, token, "/tags", map[string]any{"name": "outdoor"})
	res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: eventBody("Termed", 3,
		"categories", []any{music, "theatre", "Brand New"}, "tags", fmt.Sprintf("%d,live", outdoor))})
	e := res.ExpectStatus(t, http.StatusCreated).JSON(t)
	cats := e["categories"].([]any)
	if len(cats) != 3 {
		t.Fatalf("categories %v", cats)
	}
	names := []string{}
	for _, c := range cats {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "Brand New,Music,Theatre" {
		t.Fatalf("category names %v (by name)", names)
	}
	first := cats[1].(map[string]any)
	if idOf(t, first) != music || first["taxonomy"] != "tribe_events_cat" || first["description"] != "Loud" ||
		first["count"] != float64(1) || first["filter"] != "raw" ||
		first["urls"].(map[string]any)["self"] != fmt.Sprintf("http://example.com/calendar/events/v1/categories/%d", music) {
		t.Fatalf("embedded category %v", first)
	}
	if got := jsonKeys(t, rawItem(t, res.Body, "categories", 1)); strings.Join(got, ",") !=
		"name,slug,term_group,term_taxonomy_id,taxonomy,description,parent,count,filter,id,urls" {
		t.Fatalf("embedded term keys %v", got)
	}
	tags := e["tags"].([]any)
	if len(tags) != 2 || tags[1].(map[string]any)["taxonomy"] != "post_tag" {
		t.Fatalf("tags %v", tags)
	}
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(e), Token: token,
		Body: map[string]any{"categories": []any{2389}}}), "categories")
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(e), Token: token,
		Body: map[string]any{"tags": map[string]any{"x": 1}}}), "tags")
	u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"categories": []any{theatre}})
	if got := linkIDs(t, u["categories"]); !slices.Equal(got, []uint64{theatre}) || len(linkIDs(t, u["tags"])) != 2 {
		t.Fatalf("replace: categories %v tags %v", got, linkIDs(t, u["tags"]))
	}
	for _, none := range []any{"", []any{}, nil} {
		app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"tags": []any{outdoor}})
		if u := app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"tags": none}); len(linkIDs(t, u["tags"])) != 0 {
			t.Fatalf("tags %#v did not remove them: %v", none, u["tags"])
		}
	}
}

func TestTermCountsFollowEventWrites(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	cat := app.post(t, token, "/categories", map[string]any{"name": "Counted"})
	tag := app.post(t, token, "/tags", map[string]any{"name": "counted"})
	count := func() (int, int) {
		c := app.Get(fmt.Sprintf("/categories/%d", cat)).ExpectStatus(t, http.StatusOK).JSON(t)["count"].(float64)
		g := app.Get(fmt.Sprintf("/tags/%d", tag)).ExpectStatus(t, http.StatusOK).JSON(t)["count"].(float64)
		return int(c), int(g)
	}
	expect := func(step string, want int) {
		t.Helper()
		if c, g := count(); c != want || g != want {
			t.Fatalf("%s: counts %d and %d, want %d", step, c, g, want)
		}
	}
	e := app.createEvent(t, token, eventBody("One", 2, "categories", []any{cat}, "tags", []any{tag}))
	expect("created published", 1)
	draft := app.createEvent(t, token, eventBody("Two", 2, "categories", []any{cat}, "tags", []any{tag}, "status", "draft"))
	expect("a draft does not count", 1)
	app.updateEvent(t, http.MethodPatch, eventPath(draft), token, map[string]any{"status": "publish"})
	expect("published", 2)
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(e), Token: token}).ExpectStatus(t, http.StatusOK)
	expect("trashed", 1)
	app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"status": "publish"})
	expect("restored", 2)
	app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"categories": []any{}, "tags": ""})
	expect("unlinked", 1)
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(draft) + "?force=true", Token: token}).ExpectStatus(t, http.StatusOK)
	expect("deleted", 0)
}

func TestListFiltersOnLinks(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	music := app.post(t, token, "/categories", map[string]any{"name": "Music"})
	jazz := app.post(t, token, "/categories", map[string]any{"name": "Jazz", "parent": music})
	film := app.post(t, token, "/categories", map[string]any{"name": "Film"})
	unused := app.post(t, token, "/categories", map[string]any{"name": "Unused"})
	outdoor := app.post(t, token, "/tags", map[string]any{"name": "outdoor"})
	free := app.post(t, token, "/tags", map[string]any{"name": "free"})
	v1 := app.post(t, token, "/venues", map[string]any{"venue": "V1"})
	v2 := app.post(t, token, "/venues", map[string]any{"venue": "V2"})
	v3 := app.post(t, token, "/venues", map[string]any{"venue": "V3"})
	o1 := app.post(t, token, "/organizers", map[string]any{"organizer": "O1"})
	o2 := app.post(t, token, "/organizers", map[string]any{"organizer": "O2"})
	a := idOf(t, app.createEvent(t, token, eventBody("A", 1, "categories", []any{music}, "tags", []any{outdoor}, "venue", v1, "organizer", []any{o1})))
	b := idOf(t, app.createEvent(t, token, eventBody("B", 2, "categories", []any{jazz}, "tags", []any{free}, "venue", v2, "organizer", []any{o1, o2})))
	c := idOf(t, app.createEvent(t, token, eventBody("C", 3, "categories", []any{film}, "tags", []any{outdoor, free}, "venue", v1, "organizer", []any{o2})))
	d := idOf(t, app.createEvent(t, token, eventBody("D", 4, "categories", []any{music}, "venue", v2, "status", "draft")))
	cases := []struct {
		query, token string
		want         []uint64
	}{
		{fmt.Sprintf("categories=%d", music), "", []uint64{a, b}},
		{"categories=music", "", []uint64{a, b}},
		{fmt.Sprintf("categories=%d", music), token, []uint64{a, b, d}},
		{"categories=jazz", "", []uint64{b}},
		{"categories[]=jazz&categories[]=film", "", []uint64{b, c}},
		{fmt.Sprintf("categories=%d,%d", film, music), "", []uint64{a, b, c}},
		{fmt.Sprintf("categories=%d", unused), "", []uint64{}},
		{"tags=outdoor", "", []uint64{a, c}},
		{fmt.Sprintf("tags=%d,%d", outdoor, free), "", []uint64{a, b, c}},
		{"categories=music&tags=free", "", []uint64{b}},
		{"categories=film&tags=outdoor,free", "", []uint64{c}},
		{fmt.Sprintf("venue=%d", v1), "", []uint64{a, c}},
		{fmt.Sprintf("venue=%d,%d", v1, v2), "", []uint64{a, b, c}},
		{fmt.Sprintf("venue[]=%d&venue[]=%d", v2, v3), token, []uint64{b, d}},
		{fmt.Sprintf("venue=%d", v3), "", []uint64{}},
		{fmt.Sprintf("organizer=%d", o1), "", []uint64{a, b}},
		{fmt.Sprintf("organizer=%d,%d", o1, o2), "", []uint64{a, b, c}},
		{fmt.Sprintf("organizer=%d&venue=%d", o2, v1), "", []uint64{c}},
		{fmt.Sprintf("organizer=%d&categories=music&tags=free", o1), "", []uint64{b}},
	}
	for _, tc := range cases {
		if got := app.listIDs(t, tc.query, tc.token); !slices.Equal(got, tc.want) {
			t.Errorf("%s lists %v, want %v", tc.query, got, tc.want)
		}
	}
	for _, bad := range []string{"categories=no-such-cat", "categories=2389", "categories[]=music&categories[]=nope",
		"tags=nope", "venue=abc", "venue=2389", fmt.Sprintf("venue=%d,2389", v1), "organizer=foo", "organizer=2389"} {
		name := strings.SplitN(strings.SplitN(bad, "=", 2)[0], "[", 2)[0]
		expectInvalid(t, app.Get("/events?"+bad), name)
	}
	q := restQuery(t, app.Get(fmt.Sprintf("/events?venue=%d&organizer=%d&categories=music&tags=free&per_page=1", v2, o1)).
		JSON(t)["rest_url"].(string))
	if q.Get("venue") != fmt.Sprint(v2) || q.Get("organizer") != fmt.Sprint(o1) || q.Get("categories") != "music" || q.Get("tags") != "free" {
		t.Fatalf("rest_url %v", q)
	}
}

func TestEmbeddedLinksOfSingleReadsAndLists(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	v := app.post(t, token, "/venues", map[string]any{"venue": "Place", "address": "1 Main St", "city": "Springfield"})
	o := app.post(t, token, "/organizers", map[string]any{"organizer": "Person", "email": "p@example.com"})
	e := app.createEvent(t, token, eventBody("Show", 3, "venue", v, "organizer", []any{o}, "cost", "10"))
	read := app.Get(eventPath(e)).ExpectStatus(t, http.StatusOK).JSON(t)
	ld := read["json_ld"].(map[string]any)
	loc, _ := ld["location"].(map[string]any)
	org, _ := ld["organizer"].(map[string]any)
	if loc["@type"] != "Place" || loc["name"] != "Place" || org["@type"] != "Person" || org["name"] != "Person" {
		t.Fatalf("json_ld location %v organizer %v", loc, org)
	}
	if _, ok := read["venue"].(map[string]any)["json_ld"]; !ok {
		t.Fatal("the venue of a single read has no json_ld")
	}
	listed := app.Get("/events").JSON(t)["events"].([]any)[0].(map[string]any)
	if _, ok := listed["venue"].(map[string]any)["json_ld"]; ok {
		t.Fatal("a listed venue carries json_ld")
	}
	t.Run("a protected event's links are redacted in lists", func(t *testing.T) {
		app.updateEvent(t, http.MethodPatch, eventPath(e), token, map[string]any{"password": "pw", "categories": "Rock"})
		got := app.Get("/events").JSON(t)["events"].([]any)[0].(map[string]any)
		for _, k := range []string{"venue", "organizer", "categories", "tags"} {
			if list, ok := got[k].([]any); !ok || len(list) != 0 {
				t.Fatalf("%s = %v", k, got[k])
			}
		}
	})
}

func TestConcurrentLinkUpdatesLeaveOneRequestsSet(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	e := app.createEvent(t, token, eventBody("Contended", 3, "categories", "start"))
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			body := map[string]any{"categories": []any{fmt.Sprintf("set %d a", i), fmt.Sprintf("set %d b", i)},
				"tags": fmt.Sprintf("t%d", i)}
			statuses[i] = app.Do(Request{Method: http.MethodPatch, Path: eventPath(e), Token: token, Body: body}).Status
		}()
	}
	close(start)
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("request %d answered %d", i, s)
		}
	}
	got := app.Get(eventPath(e)).ExpectStatus(t, http.StatusOK).JSON(t)
	var names []string
	for _, c := range got["categories"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	tags := got["tags"].([]any)
	if len(names) != 2 || len(tags) != 1 || strings.TrimSuffix(names[0], " a") != strings.TrimSuffix(names[1], " b") ||
		"set "+strings.TrimPrefix(tags[0].(map[string]any)["name"].(string), "t") != strings.TrimSuffix(names[0], " a") {
		t.Fatalf("the links mix requests: categories %v, tags %v", names, tags)
	}
	for _, c := range got["categories"].([]any) {
		if c.(map[string]any)["count"] != float64(1) {
			t.Fatalf("category count %v", c)
		}
	}
}

func TestEventWritesFromFormsAndQueryStrings(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	o1 := app.post(t, token, "/organizers", map[string]any{"organizer": "First"})
	o2 := app.post(t, token, "/organizers", map[string]any{"organizer": "Second"})
	form := url.Values{"title": {"Form event"}, "start_date": {"2030-05-01 10:00"}, "end_date": {"2030-05-01 12:00"},
		"featured": {"yes"}, "categories[]": {"Alpha", "Beta"}, "tags": {"x,y"},
		"organizer[]": {fmt.Sprint(o2), fmt.Sprint(o1)}, "venue[venue]": {"Form Hall"}, "venue[city]": {"Leeds"}}
	e := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: form}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
	if e["featured"] != true || len(e["categories"].([]any)) != 2 || len(e["tags"].([]any)) != 2 ||
		!slices.Equal(linkIDs(t, e["organizer"]), []uint64{o2, o1}) || e["venue"].(map[string]any)["city"] != "Leeds" {
		t.Fatalf("form create: %v", e)
	}
	query := "?title=" + url.QueryEscape("From the query") + "&organizer=" + fmt.Sprint(o1)
	u := app.Do(Request{Method: http.MethodPut, Path: eventPath(e) + query, Token: token}).ExpectStatus(t, http.StatusOK).JSON(t)
	if u["title"] != "From the query" || !slices.Equal(linkIDs(t, u["organizer"]), []uint64{o1}) {
		t.Fatalf("query update: %v %v", u["title"], u["organizer"])
	}
	body := app.Do(Request{Method: http.MethodPatch, Path: eventPath(e) + "?title=query", Token: token,
		Body: map[string]any{"title": "body"}}).ExpectStatus(t, http.StatusOK).JSON(t)
	if body["title"] != "body" {
		t.Fatalf("the JSON body does not win over the query string: %v", body["title"])
	}
	app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: `{"title": "broken"`}).
		ExpectError(t, http.StatusBadRequest, "rest_invalid_json")
}

// TestCreateAnswersWhatAReadShows creates events whose links exist already (by ID, slug and name, with images,
// repeated), are created by the write (inline venues, new term names), or are absent, published and not: each
// create's answer is the record GET /events/{id} shows right after (without the JSON-LD only single reads carry),
// and, for listed events, byte for byte the list's record of it.
func TestCreateAnswersWhatAReadShows(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	post := func(path string, body map[string]any) map[string]any {
		t.Helper()
		return app.Do(Request{Method: http.MethodPost, Path: path, Token: token, Body: body}).
			ExpectStatus(t, http.StatusCreated).JSON(t)
	}
	hall := post("/venues", map[string]any{"venue": "Hall", "city": "Oslo", "image": "https://img.example.com/hall.jpg",
		"geo_lat": 59.9, "geo_lng": 10.7})
	club := post("/venues", map[string]any{"venue": "Club", "description": "<p>Small</p>"})
	ann := post("/organizers", map[string]any{"organizer": "Ann", "email": "ann@example.com",
		"image": "https://img.example.com/ann.png"})
	bob := post("/organizers", map[string]any{"organizer": "Bob"})
	music := post("/categories", map[string]any{"name": "Music"})
	jazz := post("/categories", map[string]any{"name": "Jazz Nights", "parent": music["id"]})
	outdoor := post("/tags", map[string]any{"name": "Outdoor"})
	post("/tags", map[string]any{"name": "a b"})
	post("/tags", map[string]any{"name": "ab"})
	post("/tags", map[string]any{"name": "Zebra"})
	// Earlier events give the terms counts to show.
	for i := 0; i < 3; i++ {
		app.createEvent(t, token, eventBody(fmt.Sprintf("Earlier %d", i), 5+i, "categories", []any{"Music"},
			"tags", []any{"outdoor", "zebra"}))
	}
	cases := []struct {
		name string
		body map[string]any
	}{
		{"links that exist, named every way", map[string]any{
			"venue": []any{hall["id"], map[string]any{"id": club["id"]}}, "organizer": []any{bob["id"], ann["id"], bob["id"]},
			"categories": []any{"music", jazz["slug"], music["id"]}, "tags": []any{"Zebra", outdoor["id"], "AB", "a b", "OUTDOOR"},
			"image": "https://img.example.com/poster.png", "cost": "10-20", "website": "https://example.com/x"}},
		{"a draft with links that exist", map[string]any{"status": "draft", "venue": club["id"],
			"categories": []any{"Jazz Nights"}, "tags": "zebra,outdoor"}},
		{"links the write creates", map[string]any{"venue": []any{hall["id"], map[string]any{"venue": "New Hall"}},
			"organizer": map[string]any{"organizer": "Carol"}, "categories": []any{"Brand New", "music"},
			"tags": []any{"fresh tag", "outdoor"}}},
		{"no links", map[string]any{"all_day": true, "timezone": "Europe/Oslo"}},
		{"empty links", map[string]any{"venue": []any{}, "organizer": "", "categories": []any{}, "tags": ""}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := eventBody(fmt.Sprintf("Answered %d", i), 20+i)
			for k, v := range c.body {
				body[k] = v
			}
			res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body})
			res.ExpectStatus(t, http.StatusCreated)
			created := res.JSON(t)
			read := app.Get(eventPath(created), token).ExpectStatus(t, http.StatusOK).JSON(t)
			if got, want := withoutJSONLD(created), withoutJSONLD(read); !reflect.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Fatalf("the create answered\n%s\nGET shows\n%s", g, w)
			}
			if created["status"] != "publish" {
				return
			}
			var list struct{ Events []json.RawMessage }
			if err := json.Unmarshal(app.Get("/events?per_page=50", token).ExpectStatus(t, http.StatusOK).Body, &list); err != nil {
				t.Fatal(err)
			}
			for _, raw := range list.Events {
				var head struct{ ID float64 }
				if err := json.Unmarshal(raw, &head); err != nil {
					t.Fatal(err)
				}
				if head.ID == created["id"] {
					if !bytes.Equal(bytes.TrimSpace(res.Body), bytes.TrimSpace(raw)) {
						t.Fatalf("the create answered\n%s\nthe list shows\n%s", res.Body, raw)
					}
					return
				}
			}
			t.Fatalf("event %v is not listed", created["id"])
		})
	}
}

// withoutJSONLD is a decoded record without its json_ld keys, at any depth.
func withoutJSONLD(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "json_ld" {
				out[k] = withoutJSONLD(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutJSONLD(e)
		}
		return out
	}
	return v
}

// TestCreateAdvancesTheDataVersionOnce checks that an event create, with links and without, advances the data
// version that cached answers and ETags derive from by exactly one (on PostgreSQL the statement that stores the
// links advances it, and the transaction must not do so again).
func TestCreateAdvancesTheDataVersionOnce(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)
	venue := app.post(t, token, "/venues", map[string]any{"venue": "Versioned Hall"})
	for _, extra := range [][]any{
		{"venue", venue, "categories", []any{"Versioned"}, "tags", "one,two"},
		{},
		{"status", "draft", "tags", "two"},
	} {
		ctx := context.Background()
		// Answers show the data version only through ETags, which also change with what they hash.
		before, err := app.Store.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		app.createEvent(t, token, eventBody("Versioned", 4, extra...))
		after, err := app.Store.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after != before+1 {
			t.Fatalf("a create with %v moved the data version from %d to %d, want one step", extra, before, after)
		}
	}
}
