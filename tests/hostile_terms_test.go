package tests

import (
	"net/http"
	"strings"
	"testing"

	"calendar/models"
)

func termNamed(t *testing.T, app *App, kind, name string) bool {
	t.Helper()
	body := app.Get("/"+kind+"?hide_empty=false&per_page=50&search="+strings.ReplaceAll(name, " ", "+")).
		ExpectStatus(t, http.StatusOK).JSON(t)
	for _, term := range body[kind].([]any) {
		if strings.EqualFold(term.(map[string]any)["name"].(string), name) {
			return true
		}
	}
	return false
}

func TestNamingANewTermInAnEventNeedsTheRightToCreateIt(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	contributor := app.Token(models.RoleContributor)
	author := app.Token(models.RoleAuthor)
	app.create(t, editor, "/categories", map[string]any{"name": "Existing"})
	app.create(t, editor, "/tags", map[string]any{"name": "Known"})

	refused := func(res *Response, param, name string) {
		t.Helper()
		body := res.ExpectError(t, http.StatusForbidden, "rest_forbidden")
		params, _ := body["data"].(map[string]any)["params"].(map[string]any)
		if reason, _ := params[param].(string); !strings.Contains(reason, name) {
			t.Fatalf("the 403 does not name %s and %q: %s", param, name, res.Body)
		}
	}
	events := app.count(t, "events")
	refused(app.Do(Request{Method: http.MethodPost, Path: "/events", Token: contributor,
		Body: eventBody("Sneaky", 2, "categories", []any{"Existing", "Brand New"})}), "categories", "Brand New")
	refused(app.Do(Request{Method: http.MethodPost, Path: "/events", Token: contributor,
		Body: eventBody("Sneaky", 2, "tags", "Known,Fresh tag")}), "tags", "Fresh tag")
	// Authors create categories but not tags.
	refused(app.Do(Request{Method: http.MethodPost, Path: "/events", Token: author,
		Body: eventBody("Sneaky", 2, "categories", "Author cat", "tags", "Author tag")}), "tags", "Author tag")
	if app.count(t, "events") != events {
		t.Fatal("a refused event was written")
	}
	for kind, name := range map[string]string{"categories": "Brand New", "tags": "Fresh tag"} {
		if termNamed(t, app, kind, name) {
			t.Fatalf("%s %q was created by a refused write", kind, name)
		}
	}
	if termNamed(t, app, "categories", "Author cat") {
		t.Fatal("the refused write created its category")
	}

	// Existing terms are linked by name, slug or ID whoever writes.
	ev := app.createEvent(t, contributor, eventBody("Linked", 2, "categories", "existing", "tags", "known"))
	if len(ev["categories"].([]any)) != 1 || len(ev["tags"].([]any)) != 1 {
		t.Fatalf("existing terms were not linked: %v %v", ev["categories"], ev["tags"])
	}
	// Updates follow the same rule, and change nothing when refused.
	refused(app.Do(Request{Method: http.MethodPatch, Path: eventPath(ev), Token: contributor,
		Body: map[string]any{"title": "Renamed", "tags": []any{"Known", "Another"}}}), "tags", "Another")
	if got := app.Get(eventPath(ev), contributor).JSON(t)["title"]; got != "Linked" {
		t.Fatalf("a refused update changed the title to %v", got)
	}
	// Those who may create terms still do so through events.
	app.createEvent(t, author, eventBody("Mine", 2, "categories", "Author cat"))
	app.createEvent(t, editor, eventBody("Theirs", 2, "tags", "Editor tag"))
	if !termNamed(t, app, "categories", "Author cat") || !termNamed(t, app, "tags", "Editor tag") {
		t.Fatal("terms named by those allowed to create them were not created")
	}
}
