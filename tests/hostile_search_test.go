package tests

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"calendar/models"
)

// searchAnswer is what a list search shows: the total (header and body) and the IDs listed.
func searchAnswer(t *testing.T, app *App, path, key, search, token string) (string, string) {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	res := app.Get(path+sep+"search="+url.QueryEscape(search), token)
	if res.Status == http.StatusNotFound { // a page past the last: nothing listed
		return "0", "[]"
	}
	res.ExpectStatus(t, http.StatusOK)
	body := res.JSON(t)
	return res.Header.Get("X-TEC-Total") + "/" + fmt.Sprint(body["total"]), fmt.Sprint(idsOf(body[key]))
}

func TestSearchLooksOnlyInWhatTheCallerMaySee(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	_, authorToken := app.User(models.RoleAuthor)
	contributor := app.Token(models.RoleContributor)
	author := authorToken

	event := app.createEvent(t, author, eventBody("Open title", 2, "password", "pw",
		"description", "<p>the hidden zebraword</p>", "excerpt", "quokkaword"))
	venue := app.create(t, author, "/venues", map[string]any{
		"venue": "Plain Hall", "address": "12 Zebrastreet", "city": "Quokkaville", "phone": "+1 555 0199", "password": "pw"})
	organizer := app.create(t, author, "/organizers", map[string]any{
		"organizer": "Plain Org", "email": "zebra@hidden.example", "website": "https://quokka.example", "password": "pw"})
	// Unprotected twins: the same hidden words match them for everyone, so the lists are not trivially empty.
	app.createEvent(t, author, eventBody("Twin", 2, "description", "zebraword too"))
	app.create(t, author, "/venues", map[string]any{
		"venue": "Twin Hall", "address": "13 Zebrastreet"})
	app.create(t, author, "/organizers", map[string]any{
		"organizer": "Twin Org", "email": "zebra@twin.example"})

	cases := []struct {
		path, key string
		id        any
		hidden    []string // words only in protected fields
		visible   string   // a word in the visible title or name
	}{
		{"/events?include=%v", "events", event["id"], []string{"zebraword", "hidden zebra", "quokkaword"}, "Open"},
		{"/venues", "venues", venue["id"], []string{"zebrastreet", "quokkaville", "0199"}, "Plain"},
		{"/organizers", "organizers", organizer["id"], []string{"zebra", "hidden.example", "quokka"}, "Plain"},
	}
	for _, c := range cases {
		path := c.path
		if strings.Contains(path, "%v") {
			path = fmt.Sprintf(path, c.id)
		}
		for _, who := range []struct {
			name, token string
			sees        bool
		}{{"anonymous", "", false}, {"a contributor", contributor, false}, {"the author", author, true}, {"an editor", editor, true}} {
			_, none := searchAnswer(t, app, path, c.key, "nomatchatall", who.token)
			for _, word := range c.hidden {
				total, ids := searchAnswer(t, app, path, c.key, word, who.token)
				found := strings.Contains(ids, fmt.Sprint(c.id))
				if found != who.sees {
					t.Fatalf("%s searching %s for %q (a protected field): listed %s (total %s); want found=%v",
						who.name, path, word, ids, total, who.sees)
				}
				if !who.sees && strings.Contains(c.path, "include") && (ids != none || total != "0/0") {
					t.Fatalf("%s: %s?search=%s answers %s %s, a search matching nothing %s", who.name, path, word, total, ids, none)
				}
			}
			if _, ids := searchAnswer(t, app, path, c.key, c.visible, who.token); !strings.Contains(ids, fmt.Sprint(c.id)) {
				t.Fatalf("%s searching %s for its visible name %q: %s", who.name, path, c.visible, ids)
			}
		}
	}
	// The feed: the protected event is in it for its title, not for its hidden description.
	uid := fmt.Sprintf("UID:event-%v@", event["id"])
	if feed := string(app.Get("/events.ics?search=zebraword").ExpectStatus(t, http.StatusOK).Body); strings.Contains(feed, uid) {
		t.Fatal("the anonymous feed searched for a hidden word holds the protected event")
	}
	if feed := string(app.Get("/events.ics?search=Open").ExpectStatus(t, http.StatusOK).Body); !strings.Contains(feed, uid) {
		t.Fatal("the anonymous feed searched for the visible title lacks the protected event")
	}
	if feed := string(app.Get("/events.ics?search=zebraword", editor).ExpectStatus(t, http.StatusOK).Body); !strings.Contains(feed, uid) {
		t.Fatal("the editor's feed searched for the description lacks the protected event")
	}
}
