package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// injectionPayloads are SQL injection attempts for both dialects, LIKE wildcards, control characters (no NUL: the
// sweep sends that) and JSON in a string. None is a substring of the plain records' texts.
var injectionPayloads = []string{
	"' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE events; --", `"; DROP TABLE venues; --`,
	"1) UNION SELECT id, login, role, name FROM users --", "' UNION SELECT NULL, hash, NULL FROM tokens --",
	"/* comment */ OR /**/ 1=1", "-- ", "%", "_", "%_%", "100%", `\`, `\%`, "tab\there\nnew\rline\x0b\x0c\x1f\x7f",
	`{"$ne": null}`, `["publish","draft"]`,
	// PostgreSQL: casts, dollar quoting, escape strings, functions.
	"'::text", "1::int; SELECT pg_sleep(1)", "$$ OR $$1$$=$$1", `E'\x27'`, "' || current_user || '",
	// SQLite: functions, quoted identifiers, ATTACH.
	"' || (SELECT sqlite_version()) || '", "' AND randomblob(100000000) --", "[events]", "`events`",
	"ATTACH DATABASE '/tmp/x' AS x; --",
}

// plainMark is in the names of the records no payload may match.
const plainMark = "Plain Zebra"

// TestInjectionPayloadsAreOnlyText sends every injection payload as every parameter of every read route of the
// route table, and as every path slug and ID, anonymously and as an editor. Every answer is a 2xx or a 4xx naming
// the parameter, never a 5xx; nothing changes in the database; search and slug filters never match the plain
// records (a payload is text, not SQL or a pattern); orderby and order only reorder; and searching the literal
// text of a record with quotes, % and _ finds exactly that record. Writes with the payloads store them as plain
// text. The models side is TestNoUserInputIsSplicedIntoSQL (models/sql_audit_test.go).
func TestInjectionPayloadsAreOnlyText(t *testing.T) {
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	app.createEvent(t, editor, eventBody(plainMark+" Gathering", 3, "description", "Quiet evening",
		"categories", []any{plainMark + " Cat"}, "tags", []any{"plain-zebra-tag"},
		"venue", map[string]any{"venue": plainMark + " Hall"}, "organizer", map[string]any{"organizer": plainMark + " Org"}))
	special := app.createEvent(t, editor, eventBody(`O'Reilly 100% _special_ "quoted"`, 3,
		"categories", []any{"O'Reilly's %"}, "venue", map[string]any{"venue": "O'Reilly 100% Hall"},
		"organizer", map[string]any{"organizer": "O'Reilly_Org"}))
	before := checksum(t, app)
	baseline := map[string][]uint64{}
	for _, terms := range []string{"categories", "tags"} {
		baseline[terms] = sortedTermIDs(t, app.Get("/"+terms).ExpectStatus(t, http.StatusOK), terms)
	}

	tried := 0
	for _, route := range app.Table {
		for i, e := range route.Endpoints {
			if e.Methods[0] != http.MethodGet {
				continue
			}
			for _, arg := range app.endpoint(route.Path, i).Args() {
				for _, payload := range injectionPayloads {
					for _, token := range []string{"", editor} {
						tried++
						res, what := app.injectInto(route.Path, arg, payload, token)
						checkAnswer(t, what, res)
						if e.Auth && token == "" {
							// A route for authenticated callers answers anonymous ones before it reads anything
							// (a payload with a slash makes another path, which no route has).
							if res.Status != http.StatusUnauthorized && res.Status != http.StatusNotFound {
								t.Errorf("%s: %d, want 401 (or 404 for no route)", what, res.Status)
							}
							continue
						}
						expectSensibleAnswer(t, what, route.Path, arg.Name, res, baseline)
					}
				}
			}
		}
	}
	if after := checksum(t, app); after != before {
		t.Fatal("reads with injection payloads changed the database")
	}

	t.Run("searching a record's literal text finds exactly it", func(t *testing.T) {
		for _, q := range []string{"O'Reilly", "100%", "_special_", "%", "_", `"quoted"`} {
			if ids := app.listIDs(t, "search="+url.QueryEscape(q), editor); !slices.Equal(ids, []uint64{idOf(t, special)}) {
				t.Errorf("events search %q: %v, want [%d]", q, ids, idOf(t, special))
			}
		}
		venues := app.Get("/venues?search="+url.QueryEscape("O'Reilly 100")).ExpectStatus(t, http.StatusOK).JSON(t)
		if names := namesOf(venues["venues"], "venue"); len(names) != 1 || names[0] != "O'Reilly 100% Hall" {
			t.Errorf("venue search: %v", names)
		}
		cats := app.Get("/categories?search="+url.QueryEscape("%")).ExpectStatus(t, http.StatusOK).JSON(t)
		if names := namesOf(cats["categories"], "name"); len(names) != 1 || names[0] != "O'Reilly's %" {
			t.Errorf("category search %%: %v", names)
		}
	})

	t.Run("writes store the payloads as text", func(t *testing.T) {
		for _, payload := range injectionPayloads {
			tried++
			users := app.count(t, "users")
			events := app.count(t, "events")
			title := "Injected " + payload
			res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: editor,
				Body: eventBody(title, 4, "categories", []any{"Cat " + payload}, "venue", map[string]any{"venue": "Hall " + payload})})
			checkAnswer(t, "POST /events titled "+payload, res)
			if strings.ContainsFunc(payload, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				expectInvalid(t, res, "title") // control characters are refused, naming the field
				continue
			}
			if res.Status != http.StatusCreated {
				t.Errorf("POST /events titled %q: %d %s", payload, res.Status, truncate(res.Body, 300))
				continue
			}
			got := app.Get(eventPath(res.JSON(t)), editor).ExpectStatus(t, http.StatusOK).JSON(t)
			if want := input.PlainText(title); got["title"] != want {
				t.Errorf("title %q read back as %q, want %q", title, got["title"], want)
			}
			if app.count(t, "events") != events+1 || app.count(t, "users") != users {
				t.Errorf("POST /events titled %q: %d events (was %d), %d users (was %d)", payload, app.count(t, "events"),
					events, app.count(t, "users"), users)
			}
		}
	})
	t.Logf("injection: %d requests with %d payloads, none 5xx, nothing changed by a read, no payload matched as a "+
		"pattern", tried, len(injectionPayloads))
}

// injectInto sends payload as one parameter of a GET route (in the query string, or in place of a path parameter)
// and says what it sent.
func (a *App) injectInto(pattern string, arg endpoint.Arg, payload, token string) (*Response, string) {
	a.t.Helper()
	path := pattern
	if arg.In == "path" {
		path = strings.Replace(pattern, ":"+arg.Name, url.PathEscape(payload), 1)
	} else {
		path += "?" + url.Values{arg.Name: {payload}}.Encode()
	}
	return a.Do(Request{Path: path, Token: token}), fmt.Sprintf("GET %s with %s = %q (token %v)", pattern, arg.Name, payload, token != "")
}

// expectSensibleAnswer checks what a payload may do to a read: a 400 names the parameter; search and slug never
// match the plain records; a path slug or ID finds nothing; orderby and order keep the same terms.
func expectSensibleAnswer(t *testing.T, what, pattern, param string, res *Response, baseline map[string][]uint64) {
	t.Helper()
	if res.Status >= 400 {
		var body struct {
			Code string
			Data struct{ Params map[string]any }
		}
		_ = json.Unmarshal(res.Body, &body)
		if body.Code == "rest_invalid_param" && body.Data.Params[param] == nil {
			t.Errorf("%s: rest_invalid_param does not name %s: %s", what, param, truncate(res.Body, 300))
		}
	}
	switch {
	case (param == "slug" || param == "id") && strings.Contains(pattern, ":"+param):
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404 (no record has this address)", what, res.Status)
		}
	case (param == "search" || param == "slug") && res.Status == http.StatusOK:
		if strings.Contains(string(res.Body), plainMark) {
			t.Errorf("%s matched a record that does not contain it: %s", what, truncate(res.Body, 300))
		}
	case (param == "orderby" || param == "order") && (pattern == "/categories" || pattern == "/tags"):
		key := strings.TrimPrefix(pattern, "/")
		if res.Status != http.StatusOK && res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 200 (unknown sort keys sort by name) or 400 naming it", what, res.Status)
		} else if res.Status == http.StatusOK {
			if ids := sortedTermIDs(t, res, key); fmt.Sprint(ids) != fmt.Sprint(baseline[key]) {
				t.Errorf("%s: terms %v, want the same as without it %v", what, ids, baseline[key])
			}
		}
	}
}

// sortedTermIDs are the IDs of a term list, sorted.
func sortedTermIDs(t *testing.T, res *Response, key string) []uint64 {
	t.Helper()
	ids := idsOf(res.JSON(t)[key])
	slices.Sort(ids)
	return ids
}

// namesOf lists one field of the records of a list.
func namesOf(list any, field string) []string {
	var names []string
	for _, item := range list.([]any) {
		names = append(names, fmt.Sprint(item.(map[string]any)[field]))
	}
	return names
}
