package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// getJSON reads a path of the API root from a running server, anonymously, and decodes the object it answers.
func getJSON(t *testing.T, addr, path string) (map[string]any, http.Header) {
	t.Helper()
	res, err := http.Get("http://" + addr + "/calendar/events/v1" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
	}
	return body, res.Header
}

// TestDemoLoadsASampleCalendarOnce runs `demo` on a fresh database and reads the sample through the API: a few
// hundred published events over the coming months, at venues with coordinates, with organizers, categories in a
// hierarchy and tags. A second `demo` is refused while events exist; `demo --force` adds a second sample that
// reuses the terms of the first.
func TestDemoLoadsASampleCalendarOnce(t *testing.T) {
	db := testDatabaseURL(t)
	out, err := cli(t, db, "demo")
	if err != nil || !strings.Contains(out, fmt.Sprintf("%d events", demoEvents)) {
		t.Fatalf("demo: %q, %v", out, err)
	}

	addr, stop := startServer(t, db)
	events, header := getJSON(t, addr, "/events?per_page=50")
	if header.Get("X-TEC-Total") != fmt.Sprint(demoEvents) {
		t.Fatalf("anonymous visitors see %s events in the default window, want %d", header.Get("X-TEC-Total"),
			demoEvents)
	}
	for _, item := range events["events"].([]any) {
		e := item.(map[string]any)
		venue, _ := e["venue"].(map[string]any)
		if venue == nil || venue["geo_lat"] == nil || len(e["organizer"].([]any)) == 0 ||
			len(e["categories"].([]any)) != 1 || e["status"] != "publish" {
			t.Fatalf("a sample event lacks a venue with coordinates, an organizer or a category: %v", e)
		}
	}
	if _, h := getJSON(t, addr, "/events?geoloc_lat=41.88&geoloc_lng=-87.63&geoloc_radius=5"); h.Get("X-TEC-Total") == "0" {
		t.Fatal("no sample event is within 5 miles of downtown Chicago")
	}
	if _, h := getJSON(t, addr, "/events?tags=free"); h.Get("X-TEC-Total") == "0" {
		t.Fatal("no sample event is tagged free")
	}
	if _, h := getJSON(t, addr, "/venues"); h.Get("X-TEC-Total") != fmt.Sprint(len(demoVenues)) {
		t.Fatalf("%s venues, want %d", h.Get("X-TEC-Total"), len(demoVenues))
	}
	if _, h := getJSON(t, addr, "/organizers"); h.Get("X-TEC-Total") != fmt.Sprint(len(demoOrganizers)) {
		t.Fatalf("%s organizers, want %d", h.Get("X-TEC-Total"), len(demoOrganizers))
	}
	music, _ := getJSON(t, addr, "/categories?slug=music&hide_empty=false")
	parent := music["categories"].([]any)[0].(map[string]any)["id"]
	children, _ := getJSON(t, addr, fmt.Sprintf("/categories?parent=%v&hide_empty=false", parent))
	if len(children["categories"].([]any)) != 3 {
		t.Fatalf("Music has %d children, want Jazz, Folk and Classical", len(children["categories"].([]any)))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	if out, err := cli(t, db, "demo"); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a second demo on a database with events: %q, %v", out, err)
	}
	if out, err := cli(t, db, "demo", "--force"); err != nil {
		t.Fatalf("demo --force: %q, %v", out, err)
	}
	addr, _ = startServer(t, db)
	if _, h := getJSON(t, addr, "/events"); h.Get("X-TEC-Total") != fmt.Sprint(2*demoEvents) {
		t.Fatalf("after demo --force: %s events, want %d", h.Get("X-TEC-Total"), 2*demoEvents)
	}
	if _, h := getJSON(t, addr, "/categories?hide_empty=false"); h.Get("X-TEC-Total") != "14" {
		t.Fatalf("after demo --force: %s categories, want the same 14", h.Get("X-TEC-Total"))
	}
}
