package tests

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"calendar/models"
)

// validBodies are bodies each create route accepts, which the test then spoils one field at a time.
func validBodies() map[string]map[string]any {
	return map[string]map[string]any{
		"/events":     eventBody("Lengths", 2),
		"/venues":     {"venue": "Hall"},
		"/organizers": {"organizer": "Org"},
		"/categories": {"name": "Cat"},
		"/tags":       {"name": "Tag"},
	}
}

func TestEveryTextParameterHasADocumentedMaximum(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	doc, _ := loadDoc(t, app)
	checked := 0
	for _, route := range app.Table {
		base, ok := validBodies()[route.Path]
		if !ok {
			continue
		}
		for _, e := range route.Endpoints {
			if e.Methods[0] != http.MethodPost {
				continue
			}
			opID := ""
			for _, op := range doc.Paths.Find(route.Path).Operations() {
				if op.OperationID != "" && op.RequestBody != nil {
					opID = op.OperationID
				}
			}
			for _, arg := range e.Args() {
				if arg.MaxLength == 0 || arg.In == "path" {
					continue
				}
				// /doc states the maximum.
				body := doc.Paths.Find(route.Path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
				prop := body.Properties[arg.Name]
				for _, part := range body.AllOf {
					if p := part.Value.Properties[arg.Name]; p != nil {
						prop = p
					}
				}
				if prop == nil || !mentionsMaxLength(prop.Value, arg.MaxLength) {
					t.Errorf("%s (%s): /doc does not state %s's maximum of %d", route.Path, opID, arg.Name, arg.MaxLength)
				}
				// One character more is 400 naming the parameter, and nothing is written.
				spoiled := map[string]any{}
				for k, v := range base {
					spoiled[k] = v
				}
				spoiled[arg.Name] = strings.Repeat("é", arg.MaxLength+1)
				res := app.Do(Request{Method: http.MethodPost, Path: route.Path, Token: editor, Body: spoiled})
				body2 := res.ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
				params, _ := body2["data"].(map[string]any)["params"].(map[string]any)
				if _, named := params[arg.Name]; !named {
					t.Errorf("POST %s with %d characters of %s: %s", route.Path, arg.MaxLength+1, arg.Name, res.Body)
				}
				checked++
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d text parameters checked", checked)
	}
	if app.count(t, "events") != 0 {
		t.Fatal("a refused event was written")
	}
}

func mentionsMaxLength(s any, n int) bool {
	b, _ := jsonMarshal(s)
	return strings.Contains(string(b), `"maxLength":`+strconv.Itoa(n))
}

func TestTheLongestAllowedTextsAreKeptWhole(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	title := strings.Repeat("T", 1000)
	description := "<p>" + strings.Repeat("d", 100_000-7) + "</p>"
	ev := app.createEvent(t, editor, eventBody(title, 2, "description", description))
	if ev["title"] != title || ev["description"] != description {
		t.Fatalf("the longest title and description were not kept whole (%d, %d characters)",
			len(ev["title"].(string)), len(ev["description"].(string)))
	}
	venue := app.create(t, editor, "/venues", map[string]any{
		"venue": strings.Repeat("V", 1000), "address": strings.Repeat("a", 1000)})
	if len(venue["venue"].(string)) != 1000 {
		t.Fatalf("venue name of %d characters", len(venue["venue"].(string)))
	}
	// An inline venue inside an event is held to the same limits.
	res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: editor,
		Body: eventBody("Inline", 2, "venue", map[string]any{"venue": "Hall", "city": strings.Repeat("c", 201)})})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "200 characters") {
		t.Fatalf("an inline venue with a 201-character city: %d %s", res.Status, res.Body)
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
