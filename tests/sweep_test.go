package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"calendar/controllers/endpoint"
	"calendar/models"
)

// payload is one bad (or odd) value the sweep sends for a parameter.
type payload struct {
	name  string
	value any // a JSON value; for query strings and forms, strings are sent as they are and others as JSON text
}

var sweepPayloads = []payload{
	{"an empty string", ""},
	{"null", nil},
	{"a string for a number", "not-a-number"},
	{"an object", map[string]any{"a": 1}},
	{"an array of booleans", []any{true, false}},
	{"a float", 1.5},
	{"a negative number", -1},
	{"zero", 0},
	{"a huge number", json.Number("99999999999999999999999")},
	{"a huge float", json.Number("1e308")},
	{"a 100 KB string", strings.Repeat("x", 100*1024)},
	{"invalid UTF-8", "\xff\xfe\xfd"},
	{"control characters", "a\x00b\x01c\x1b"},
	{"emoji", "🎉 party 🎶"},
	{"SQL metacharacters", "' OR 1=1; DROP TABLE events; --"},
	{"LIKE wildcards", "%_%\\"},
	{"HTML", `<script>alert(1)</script><img src=x onerror=alert(1)>`},
	{"a date-looking string", "2027-13-45 25:61:61"},
	{"a long list", strings.Repeat("1,", 2000) + "1"},
}

// sweepPathValues are values sent in place of a path parameter.
var sweepPathValues = []string{"abc", "-1", "0", "99999999999999999999", "1.5", "%00", "%27%20OR%201%3D1", "..%2F..", "🎉"}

// requiredSamples are valid values for the parameters routes require, so that a request reaches the validation
// of the parameter being swept.
var requiredSamples = map[string]any{
	"title": "Sweep", "start_date": "2030-01-01 10:00:00", "end_date": "2030-01-01 12:00:00",
	"venue": "Sweep venue", "organizer": "Sweep organizer", "name": "Sweep term",
}

// TestBadInputSweep sends every payload as every declared parameter of every route and method (taken from the
// route table that builds the router and /doc), plus bad path values, malformed bodies and mismatched content
// types, as an administrator and anonymously. No answer may be a 5xx; every 4xx is the API's error body, naming the
// parameter when it is rest_invalid_param; a rejected write leaves the database exactly as it was.
func TestBadInputSweep(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the sweep is long; skipped with -short")
	}
	var tried, rejected, params atomic.Int64
	table := NewApp(t).Table
	t.Run("endpoints", func(t *testing.T) {
		for _, route := range table {
			for i := range route.Endpoints {
				t.Run(fmt.Sprintf("%s#%d", route.Path, i), func(t *testing.T) {
					t.Parallel()
					// A fresh database per endpoint keeps the before/after checksums cheap.
					app := NewApp(t, WithEnv("CALENDAR_AUTH_FAILURES_PER_MINUTE", "1000000"))
					admin := app.Token(models.RoleAdministrator)
					ids := sweepRecords(t, app, admin)
					e := app.endpoint(route.Path, i)
					for _, arg := range e.Args() {
						if arg.In != "path" {
							params.Add(int64(len(e.Methods)))
						}
					}
					a, r := sweepEndpoint(t, app, route.Path, e, ids, admin)
					tried.Add(int64(a))
					rejected.Add(int64(r))
				})
			}
		}
	})
	t.Logf("bad-input sweep: %d requests over %d routes: %d method and parameter pairs × %d payloads (and anonymously "+
		"once each), %d bad values per path parameter, malformed bodies per write; %d rejected with a 4xx, none 5xx",
		tried.Load(), len(table), params.Load(), len(sweepPayloads), len(sweepPathValues), rejected.Load())
}

// endpoint returns the i-th endpoint of the route with this path in the app's own table.
func (a *App) endpoint(path string, i int) endpoint.Endpoint {
	for _, r := range a.Table {
		if r.Path == path {
			return r.Endpoints[i]
		}
	}
	a.t.Fatalf("no route %s", path)
	return endpoint.Endpoint{}
}

// sweepEndpoint sweeps every method and declared parameter of one endpoint; it returns the requests sent and
// how many were rejected.
func sweepEndpoint(t *testing.T, app *App, pattern string, e endpoint.Endpoint, ids map[string]string, admin string) (tried, rejected int) {
	for _, method := range e.Methods {
		path := fillPath(pattern, ids)
		base := map[string]any{}
		for _, r := range e.Required {
			if v, ok := requiredSamples[r]; ok {
				base[r] = v
			}
		}
		for _, arg := range e.Args() {
			if arg.In == "path" {
				continue
			}
			for i, p := range sweepPayloads {
				tokens := []string{admin}
				if i == 0 {
					tokens = append(tokens, "") // anonymous callers once per parameter
				}
				for _, token := range tokens {
					tried++
					if sweepOne(t, app, method, path, arg.Name, p, base, token) {
						rejected++
					}
				}
			}
		}
		tried += sweepPaths(t, app, method, pattern, ids, admin)
		tried += sweepBodies(t, app, method, path, admin)
	}
	return tried, rejected
}

// sweepOne sends one payload as one parameter and checks the answer; it reports whether it was a 4xx.
func sweepOne(t *testing.T, app *App, method, path, name string, p payload, base map[string]any, token string) bool {
	t.Helper()
	params := map[string]any{}
	for k, v := range base {
		params[k] = v
	}
	params[name] = p.value
	req := Request{Method: method, Path: path, Token: token}
	write := method != http.MethodGet && method != http.MethodHead
	if write {
		raw, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		req.Body = raw
	} else {
		req.Path += "?" + queryOf(params)
	}
	before := ""
	if write {
		before = checksum(t, app)
	}
	res := app.Do(req)
	what := fmt.Sprintf("%s %s with %s = %s", method, path, name, p.name)
	checkAnswer(t, what, res)
	if res.Status < 400 {
		return false
	}
	if write {
		if after := checksum(t, app); after != before {
			t.Errorf("%s: rejected with %d but the database changed", what, res.Status)
		}
	}
	var body struct {
		Code string
		Data struct{ Params map[string]any }
	}
	_ = json.Unmarshal(res.Body, &body)
	if body.Code == "rest_invalid_param" && !namesCulprit(body.Data.Params, name, params) {
		t.Errorf("%s: rest_invalid_param does not name %s: %s", what, name, res.Body)
	}
	return true
}

// namesCulprit tells whether an invalid-parameter error names the swept parameter, or a partner parameter the
// request did not send (geo_lat needs geo_lng: the error may well name the missing one).
func namesCulprit(named map[string]any, swept string, sent map[string]any) bool {
	if _, ok := named[swept]; ok {
		return true
	}
	for n := range named {
		if _, wasSent := sent[n]; !wasSent {
			return true
		}
	}
	return false
}

// sweepPaths replaces each path parameter with bad values: the answer is a 4xx, never a 5xx.
func sweepPaths(t *testing.T, app *App, method, pattern string, ids map[string]string, token string) int {
	t.Helper()
	if !strings.Contains(pattern, ":") {
		return 0
	}
	n := 0
	for _, v := range sweepPathValues {
		path := pattern
		for _, part := range strings.Split(pattern, "/") {
			if strings.HasPrefix(part, ":") {
				path = strings.Replace(path, part, v, 1)
			}
		}
		path = fillPath(path, ids)
		res := app.Do(Request{Method: method, Path: path, Token: token, Body: jsonIfWrite(method)})
		checkAnswer(t, fmt.Sprintf("%s %s", method, path), res)
		if res.Status < 400 && !strings.Contains(pattern, ":slug") {
			t.Errorf("%s %s: a bad path value was accepted with %d", method, path, res.Status)
		}
		n++
	}
	return n
}

// sweepBodies sends malformed JSON, mismatched content types and an oversized body.
func sweepBodies(t *testing.T, app *App, method, path, token string) int {
	t.Helper()
	if method == http.MethodGet {
		return 0
	}
	cases := []Request{
		{Body: `{"title": `, ContentType: "application/json"},
		{Body: `[1, 2, 3]`, ContentType: "application/json"},
		{Body: `"just a string"`, ContentType: "application/json"},
		{Body: `{"a":1}{"b":2}`, ContentType: "application/json"},
		{Body: `{"title":"x"}`, ContentType: "text/plain"},
		{Body: `title=x&start_date=`, ContentType: "application/json"},
		{Body: `{"title":"x"}`, ContentType: "application/x-www-form-urlencoded"},
		{Body: "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx\r\n--b--\r\n", ContentType: "multipart/form-data; boundary=c"},
		{Body: `{"title":"` + strings.Repeat("y", 1<<20) + `"}`, ContentType: "application/json"},
	}
	for _, c := range cases {
		c.Method, c.Path, c.Token = method, path, token
		before := checksum(t, app)
		res := app.Do(c)
		what := fmt.Sprintf("%s %s with a %s body %.30q", method, path, c.ContentType, c.Body)
		checkAnswer(t, what, res)
		if res.Status >= 400 && checksum(t, app) != before {
			t.Errorf("%s: rejected with %d but the database changed", what, res.Status)
		}
	}
	return len(cases)
}

func jsonIfWrite(method string) any {
	if method == http.MethodGet {
		return nil
	}
	return map[string]any{}
}

// checkAnswer fails on a 5xx, and on a 4xx that is not the API's error body.
func checkAnswer(t *testing.T, what string, res *Response) {
	t.Helper()
	if res.Status >= 500 {
		t.Errorf("%s: %d %s", what, res.Status, res.Body)
		return
	}
	if res.Status < 400 {
		return
	}
	var body struct {
		Code    string
		Message string
		Data    struct{ Status int }
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Code == "" || body.Message == "" || body.Data.Status != res.Status {
		t.Errorf("%s: %d without the API's error body: %.300s", what, res.Status, res.Body)
	}
}

// queryOf encodes parameters for a query string: strings as they are, other values as JSON text.
func queryOf(params map[string]any) string {
	q := url.Values{}
	for k, v := range params {
		switch s := v.(type) {
		case string:
			q.Set(k, s)
		case nil:
			q.Set(k, "")
		default:
			raw, _ := json.Marshal(s)
			q.Set(k, string(raw))
		}
	}
	return q.Encode()
}

// fillPath puts the sweep's record IDs and slugs into a route pattern.
func fillPath(pattern string, ids map[string]string) string {
	parts := strings.Split(strings.TrimSuffix(pattern, "/"), "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ":") {
			continue
		}
		collection := ""
		for j := i - 1; j >= 0; j-- {
			if parts[j] != "by-slug" && !strings.HasPrefix(parts[j], ":") {
				collection = parts[j]
				break
			}
		}
		parts[i] = ids[collection+"/"+p[1:]]
	}
	return strings.Join(parts, "/")
}

// sweepRecords creates one record of each kind through the API as the administrator holding admin, and returns
// their IDs and slugs, keyed like "events/id" and "events/slug".
func sweepRecords(t *testing.T, app *App, admin string) map[string]string {
	t.Helper()
	venue := app.create(t, admin, "/venues", map[string]any{"venue": "Sweep Hall"})
	organizer := app.create(t, admin, "/organizers", map[string]any{"organizer": "Sweep Org"})
	category := app.create(t, admin, "/categories", map[string]any{"name": "Sweep Cat"})
	tag := app.create(t, admin, "/tags", map[string]any{"name": "Sweep Tag"})
	event := app.createEvent(t, admin, eventBody("Sweep Event", 1))
	id := func(rec map[string]any) string { return fmt.Sprint(idOf(t, rec)) }
	return map[string]string{
		"events/id": id(event), "events/slug": event["slug"].(string),
		"venues/id": id(venue), "venues/slug": venue["slug"].(string),
		"organizers/id": id(organizer), "organizers/slug": organizer["slug"].(string),
		"categories/id": id(category), "tags/id": id(tag),
	}
}

// checksum fingerprints every row of every content table, so a test can prove a request changed nothing: every
// row and column, including what no answer shows (trash, drafts, users, tokens, password digests).
func checksum(t *testing.T, app *App) string {
	t.Helper()
	h := sha256.New()
	tables := []string{"events", "venues", "organizers", "categories", "tags", "images",
		"event_venues", "event_organizers", "event_categories", "event_tags", "users", "tokens"}
	sort.Strings(tables)
	for _, table := range tables {
		lines := tableRows(t, app, table)
		fmt.Fprintf(h, "%s:%d:%s\n", table, len(lines), strings.Join(lines, "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// tableRows prints every row of a table, one line per row, sorted. It reads through database/sql: GORM's
// map scanning made the checksum the slowest part of the tests that take it around every request.
func tableRows(t *testing.T, app *App, table string) []string {
	t.Helper()
	rows, err := app.Store.SQLDB().Query("SELECT * FROM " + table) // table names are the constants above
	if err != nil {
		t.Fatalf("reading %s: %v", table, err)
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	values := make([]any, len(columns))
	ptrs := make([]any, len(columns))
	for i := range values {
		ptrs[i] = &values[i]
	}
	var lines []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("reading %s: %v", table, err)
		}
		var line strings.Builder
		for i, v := range values {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(&line, "%s=%v;", columns[i], v)
		}
		lines = append(lines, line.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("reading %s: %v", table, err)
	}
	sort.Strings(lines)
	return lines
}
