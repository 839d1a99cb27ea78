package tests

import (
	"fmt"
	"net/http"
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
