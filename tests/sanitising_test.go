package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"calendar/models"
)

// dirtyHTML carries what sanitising removes (script, event handlers, javascript: URLs, in several
// spellings) next to what it keeps.
const dirtyHTML = `<p onclick="steal()">Loud <script>alert(1)</script><b>music</b> ` +
	`<a href="javascript:alert(1)">bad</a> <a href="JaVaScRiPt&#58;alert(2)">worse</a> ` +
	`<img src=x onerror=alert(3)> <a href="https://ok.example/" onmouseover="x()">safe</a>` +
	`<svg onload=alert(4)></svg><iframe src="javascript:alert(5)"></iframe><style>p{}</style></p>`

// expectClean fails when an HTML value still holds anything dangerous, or lost what is safe.
func expectClean(t *testing.T, what string, value any) {
	t.Helper()
	s, ok := value.(string)
	if !ok {
		t.Errorf("%s: %v is not a string", what, value)
		return
	}
	lower := strings.ToLower(s)
	for _, bad := range []string{"<script", "alert(", "onclick", "onerror", "onmouseover", "onload", "javascript",
		"<iframe", "<svg", "<style"} {
		if strings.Contains(lower, bad) {
			t.Errorf("%s keeps %q: %s", what, bad, s)
		}
	}
	for _, good := range []string{"Loud", "<b>music</b>", `href="https://ok.example/"`, "safe"} {
		if !strings.Contains(s, good) {
			t.Errorf("%s lost %q: %s", what, good, s)
		}
	}
}

// TestHTMLIsSanitisedOnEveryWrite sends the same dirty HTML as the description and excerpt of events, venues and
// organizers (on create, on update, and inline in an event write) and as the description of categories and tags,
// and checks the answer and a later read: scripts, event handlers and javascript: URLs are gone, the rest stays.
func TestHTMLIsSanitisedOnEveryWrite(t *testing.T) {
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	html := map[string]any{"description": dirtyHTML, "excerpt": dirtyHTML}
	with := func(body map[string]any, fields []string) map[string]any {
		for _, f := range fields {
			body[f] = dirtyHTML
		}
		return body
	}
	both := []string{"description", "excerpt"}
	cases := []struct {
		collection string
		create     map[string]any
		fields     []string
	}{
		{"events", with(eventBody("Clean gig", 3), both), both},
		{"venues", with(map[string]any{"venue": "Clean hall"}, both), both},
		{"organizers", with(map[string]any{"organizer": "Clean org"}, both), both},
		{"categories", with(map[string]any{"name": "Clean cat"}, []string{"description"}), []string{"description"}},
		{"tags", with(map[string]any{"name": "clean tag"}, []string{"description"}), []string{"description"}},
	}
	for _, c := range cases {
		t.Run(c.collection, func(t *testing.T) {
			created := app.Do(Request{Method: http.MethodPost, Path: "/" + c.collection, Token: editor, Body: c.create}).
				ExpectStatus(t, http.StatusCreated).JSON(t)
			path := fmt.Sprintf("/%s/%v", c.collection, created["id"])
			updated := app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor,
				Body: with(map[string]any{}, c.fields)}).ExpectStatus(t, http.StatusOK).JSON(t)
			read := app.Get(path, editor).ExpectStatus(t, http.StatusOK).JSON(t)
			for _, f := range c.fields {
				expectClean(t, "the created "+f, created[f])
				expectClean(t, "the updated "+f, updated[f])
				expectClean(t, "the stored "+f, read[f])
			}
		})
	}
	t.Run("inline venues and organizers of an event write", func(t *testing.T) {
		e := app.createEvent(t, editor, eventBody("Inline clean", 3,
			"venue", with(map[string]any{"venue": "Inline clean hall"}, both),
			"organizer", []any{with(map[string]any{"organizer": "Inline clean org"}, both)}))
		read := app.Get(eventPath(e), editor).ExpectStatus(t, http.StatusOK).JSON(t)
		venue := read["venue"].(map[string]any)
		organizer := read["organizer"].([]any)[0].(map[string]any)
		for key := range html {
			expectClean(t, "the inline venue's "+key, venue[key])
			expectClean(t, "the inline organizer's "+key, organizer[key])
		}
	})
}
