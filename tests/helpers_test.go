package tests

// The suite's one vocabulary: record IDs, whole lists, JSON key order, golden files, inserting events behind the API,
// and counting statements. Every test file uses these, and none defines its own.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"calendar/models"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from what the service answers")

// idOf reads a record's numeric id (an event, venue, organizer or term).
func idOf(t testing.TB, rec map[string]any) uint64 {
	t.Helper()
	id, ok := rec["id"].(float64)
	if !ok || id <= 0 {
		t.Fatalf("record without an id: %v", rec)
	}
	return uint64(id)
}

// idsOf lists the IDs of a JSON list of records (an answer's "events", "venues" …), in order.
func idsOf(list any) []uint64 {
	ids := []uint64{}
	for _, e := range list.([]any) {
		ids = append(ids, uint64(e.(map[string]any)["id"].(float64)))
	}
	return ids
}

// idsIn lists the IDs of records, in order.
func idsIn(t testing.TB, records []map[string]any) []uint64 {
	ids := make([]uint64, len(records))
	for i, r := range records {
		ids[i] = idOf(t, r)
	}
	return ids
}

// itemIDs lists the IDs of the records of the list under key in an answer's body, in order.
func itemIDs(t *testing.T, body map[string]any, key string) []uint64 {
	t.Helper()
	items, ok := body[key].([]any)
	if !ok {
		t.Fatalf("body has no %s array: %v", key, body)
	}
	ids := make([]uint64, len(items))
	for i, item := range items {
		ids[i] = idOf(t, item.(map[string]any))
	}
	return ids
}

// linkIDs are the IDs of an event's venue (an object or a list), organizers, categories or tags, in their order.
func linkIDs(t testing.TB, v any) []uint64 {
	switch x := v.(type) {
	case map[string]any:
		return []uint64{idOf(t, x)}
	case []any:
		return idsOf(x)
	}
	return nil
}

// uidIDs are the event IDs of the UIDs of events in a feed, in order.
func uidIDs(t *testing.T, events []icalEvent) []uint64 {
	t.Helper()
	ids := []uint64{}
	for _, e := range events {
		rest, ok := strings.CutPrefix(e.UID, "event-")
		id, err := strconv.ParseUint(strings.SplitN(rest, "@", 2)[0], 10, 64)
		if !ok || err != nil || !strings.HasSuffix(e.UID, "@example.com") {
			t.Fatalf("UID %q is not event-{id}@example.com", e.UID)
		}
		ids = append(ids, id)
	}
	return ids
}

// listIDs lists /events with the query as the holder of token (anonymous when ""), expects 200 and returns the IDs.
func (a *App) listIDs(t *testing.T, query, token string) []uint64 {
	t.Helper()
	body := a.Get("/events?"+query, token).ExpectStatus(t, http.StatusOK).JSON(t)
	return idsOf(body["events"])
}

// post creates a record at path (/venues, /categories, …) as the token's holder and returns its ID.
func (a *App) post(t *testing.T, token, path string, body map[string]any) uint64 {
	t.Helper()
	return idOf(t, a.Do(Request{Method: http.MethodPost, Path: path, Token: token, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t))
}

// joinIDs writes IDs as the API's list parameters take them: "3,1,2".
func joinIDs(ids ...uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(parts, ",")
}

// sortedIDs is a sorted copy of ids, for comparing lists whose order is not under test.
func sortedIDs(ids []uint64) []uint64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// expectIDs fails unless got lists exactly the IDs want, in that order.
func expectIDs(t *testing.T, what string, got []uint64, want ...uint64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got IDs %v, want %v", what, got, want)
	}
}

// userID returns the ID of the user with this login. Users have no API (the harness makes them as the users
// command does), so the store is the only place that shows their IDs.
func (a *App) userID(login string) uint64 {
	a.t.Helper()
	var u models.User
	if err := a.Store.DB().Where("login = ?", login).Take(&u).Error; err != nil {
		a.t.Fatalf("user %s: %v", login, err)
	}
	return u.ID
}

// storedPasswords reads the stored password of every record of table that has one, in ID order: how a password is stored is
// the fact, and no API shows a password.
func storedPasswords(t *testing.T, app *App, table string) []string {
	t.Helper()
	var out []string
	if err := app.Store.DB().Raw("SELECT password FROM " + table + " WHERE password <> '' ORDER BY id").Scan(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}

// count counts the rows of a table, to prove what a write left behind (nothing, after a refused or failed write or
// a permanent delete; one event and no user, after a create): every row, drafts, trash, hidden events and records
// the caller may not read included, which no list shows all of, and users, which have no API.
func (a *App) count(t *testing.T, table string) int64 {
	t.Helper()
	var n int64
	if err := a.Store.DB().Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// listAll GETs every page of a list as the holder of token (anonymous when "") and returns its records: path is the
// collection with its query ("/venues?search=hall"), key the envelope's key ("venues").
func (a *App) listAll(t *testing.T, path, key, token string) []map[string]any {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var out []map[string]any
	for page := 1; ; page++ {
		body := a.Get(fmt.Sprintf("%s%sper_page=50&page=%d", path, sep, page), token).ExpectStatus(t, http.StatusOK).JSON(t)
		items, ok := body[key].([]any)
		if !ok {
			t.Fatalf("GET %s: no %s list: %v", path, key, body)
		}
		for _, item := range items {
			out = append(out, item.(map[string]any))
		}
		if float64(page) >= body["total_pages"].(float64) {
			return out
		}
	}
}

// sortedKeys lists an object's keys, sorted.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonKeys lists the keys of the JSON object raw in the order they appear.
func jsonKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// expectKeys fails unless the JSON object raw has exactly the keys want, in that order.
func expectKeys(t *testing.T, what string, raw []byte, want ...string) {
	t.Helper()
	if got := jsonKeys(t, raw); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s keys %v, want %v", what, got, want)
	}
}

// expectGolden compares an answer with testdata/name, or rewrites the file with -update.
func expectGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tests -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(body, want) {
		t.Errorf("the answer differs from %s; review it and run go test ./tests -run %s -update\n%s", path,
			strings.Split(t.Name(), "/")[0], firstDifference(string(want), string(body)))
	}
}

// firstDifference shows the first differing line of two texts, with a little context.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  golden: %s\n  served: %s", i+1, wl, gl)
		}
	}
	return ""
}

var eventSeq atomic.Int64

// testEvent describes an event to insert directly through the models.
type testEvent struct {
	Status     string
	Start      time.Time
	AuthorID   uint64
	Venues     []uint64
	Organizers []uint64
}

// insertEventIn stores an event with its links through store (a transaction of the caller's, or from another
// goroutine), behind the API, for tests of store functions that no route runs in a write's transaction; it returns
// the error instead of failing the test. e must name its author.
func (a *App) insertEventIn(store *models.Store, e testEvent) (uint64, error) {
	if e.Status == "" {
		e.Status = models.StatusPublish
	}
	if e.Start.IsZero() {
		e.Start = time.Now().Add(24 * time.Hour)
	}
	n := eventSeq.Add(1)
	ev := models.Event{AuthorID: e.AuthorID, Status: e.Status, Title: fmt.Sprintf("Event %d", n),
		Slug: fmt.Sprintf("event-%d", n), Timezone: "UTC", StartUTC: e.Start.UTC(), EndUTC: e.Start.UTC().Add(time.Hour),
		PublishedAt: time.Now().UTC()}
	err := store.DB().Transaction(func(tx *gorm.DB) error {
		if err := tx.Omit("Venues", "Organizers", "Categories", "Tags").Create(&ev).Error; err != nil {
			return err
		}
		for i, v := range e.Venues {
			if err := tx.Create(&models.EventVenue{EventID: ev.ID, VenueID: v, Position: i}).Error; err != nil {
				return err
			}
		}
		for i, o := range e.Organizers {
			if err := tx.Create(&models.EventOrganizer{EventID: ev.ID, OrganizerID: o, Position: i}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = store.RefreshEventLinkLists(ev.ID)
	}
	return ev.ID, err
}

// statementCounters numbers the counters registered, so that each has a callback name of its own.
var statementCounters atomic.Int64

// countQueries counts every statement the store sends from now on (queries, row scans, raw statements, creates,
// updates and deletes); the dry runs GORM makes to build subqueries send nothing and do not count.
func countQueries(t *testing.T, app *App) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	onEveryStatement(t, app, fmt.Sprintf("test:count%d", statementCounters.Add(1)), func(*gorm.DB) { n.Add(1) })
	return &n
}

// statementsDuring counts the statements the store sends while fn runs, by the rule of countQueries.
func (a *App) statementsDuring(fn func()) int {
	a.t.Helper()
	n := countQueries(a.t, a)
	before := n.Load()
	fn()
	return int(n.Load() - before)
}

// onEveryStatement calls fn, registered under name, for every statement the store sends from now on (queries,
// row scans, raw statements, creates, updates and deletes); the dry runs GORM makes to build subqueries send
// nothing and are left out. It hooks into the store because what a request sends to the database is the fact,
// and no answer shows it.
func onEveryStatement(t *testing.T, app *App, name string, fn func(*gorm.DB)) {
	t.Helper()
	call := func(db *gorm.DB) {
		if !db.DryRun {
			fn(db)
		}
	}
	cb := app.Store.DB().Callback()
	for _, err := range []error{
		cb.Query().After("gorm:query").Register(name+"_query", call),
		cb.Row().After("gorm:row").Register(name+"_row", call),
		cb.Raw().After("gorm:raw").Register(name+"_raw", call),
		cb.Create().After("gorm:create").Register(name+"_create", call),
		cb.Update().After("gorm:update").Register(name+"_update", call),
		cb.Delete().After("gorm:delete").Register(name+"_delete", call),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// recordQueries records the SQL of every statement the store sends from now on, for tests that check which
// tables a request touches.
func recordQueries(t *testing.T, app *App) func() []string {
	t.Helper()
	var mu sync.Mutex
	var sqls []string
	onEveryStatement(t, app, "test:record", func(db *gorm.DB) {
		mu.Lock()
		sqls = append(sqls, db.Statement.SQL.String())
		mu.Unlock()
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sqls...)
	}
}
