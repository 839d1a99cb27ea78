package tests

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"calendar/models"
)

// syncResult is what a client learns from one whole sync: every page's records and deleted IDs.
type syncResult struct {
	records map[uint64]map[string]any
	deleted []uint64
	token   string // the X-Sync-Token of the last page
	pages   int
}

// sync lists path (e.g. "/events?sync_token=T") as the holder of token, following the next links, and collects
// what every page answers. key is the list's key ("events").
func (a *App) sync(t *testing.T, path, key, token string) syncResult {
	t.Helper()
	out := syncResult{records: map[uint64]map[string]any{}}
	for path != "" {
		res := a.Get(path, token).ExpectStatus(t, http.StatusOK)
		body := res.JSON(t)
		if _, ok := body["deleted"]; !ok {
			t.Fatalf("%s: an answer to sync_token without deleted: %s", path, res.Body)
		}
		for _, r := range body[key].([]any) {
			rec := r.(map[string]any)
			out.records[idOf(t, rec)] = rec
		}
		for _, id := range body["deleted"].([]any) {
			out.deleted = append(out.deleted, uint64(id.(float64)))
		}
		out.token = res.Header.Get("X-Sync-Token")
		if out.token == "" {
			t.Fatalf("%s: no X-Sync-Token", path)
		}
		out.pages++
		next, _ := body["next_rest_url"].(string)
		path = ""
		if next != "" {
			u, err := url.Parse(next)
			if err != nil {
				t.Fatal(err)
			}
			path = strings.TrimPrefix(u.Path, a.Config.APIRoot()) + "?" + u.RawQuery
		}
	}
	return out
}

// syncToken is the X-Sync-Token of a plain list answer.
func (a *App) syncToken(t *testing.T, path, token string) string {
	t.Helper()
	tok := a.Get(path, token).ExpectStatus(t, http.StatusOK).Header.Get("X-Sync-Token")
	if tok == "" {
		t.Fatalf("%s: no X-Sync-Token", path)
	}
	return tok
}

func syncedIDs(m map[uint64]map[string]any) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestEveryListCarriesASyncToken: the five lists answer X-Sync-Token, which browsers on other origins may read.
func TestEveryListCarriesASyncToken(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_CORS_ORIGINS", "*"))
	for _, path := range []string{"/events", "/venues", "/organizers", "/categories", "/tags"} {
		res := app.Do(Request{Path: path, Header: http.Header{"Origin": {"https://example.org"}}}).
			ExpectStatus(t, http.StatusOK)
		if res.Header.Get("X-Sync-Token") == "" {
			t.Errorf("%s: no X-Sync-Token", path)
		}
		if !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "X-Sync-Token") {
			t.Errorf("%s: X-Sync-Token is not exposed: %q", path, res.Header.Get("Access-Control-Expose-Headers"))
		}
	}
}

// TestSyncEventsReportsChangesAndDeletions: a sync lists what changed since the token and passes the filters, and
// puts in deleted what changed and does not: trashed, deleted for good, made private, no longer matching. An
// event outside the default date window is listed: a sync has no default window.
func TestSyncEventsReportsChangesAndDeletions(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	unchanged := app.createEvent(t, editor, eventBody("Unchanged", 3, "status", "publish"))
	updated := app.createEvent(t, editor, eventBody("Updated", 3, "status", "publish"))
	trashed := app.createEvent(t, editor, eventBody("Trashed", 3, "status", "publish"))
	purged := app.createEvent(t, editor, eventBody("Purged", 3, "status", "publish"))
	hidden := app.createEvent(t, editor, eventBody("Made private", 3, "status", "publish"))
	featured := app.createEvent(t, editor, eventBody("No longer featured", 3, "status", "publish", "featured", true))
	token := app.syncToken(t, "/events", "")

	app.updateEvent(t, http.MethodPatch, eventPath(updated), editor, map[string]any{"title": "Updated again"})
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(trashed), Token: editor}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(purged) + "?force=true", Token: editor}).
		ExpectStatus(t, http.StatusOK)
	app.updateEvent(t, http.MethodPatch, eventPath(hidden), editor, map[string]any{"status": "private"})
	app.updateEvent(t, http.MethodPatch, eventPath(featured), editor, map[string]any{"featured": false})
	far := app.createEvent(t, editor, eventBody("Far ahead", 1000, "status", "publish"))

	got := app.sync(t, "/events?sync_token="+url.QueryEscape(token), "events", "")
	if want := []uint64{idOf(t, updated), idOf(t, featured), idOf(t, far)}; !slices.Equal(syncedIDs(got.records), want) {
		t.Errorf("listed %v, want %v (the updated, the no longer featured, the new far ahead)", syncedIDs(got.records), want)
	}
	if got.records[idOf(t, updated)]["title"] != "Updated again" {
		t.Errorf("the updated event shows %v", got.records[idOf(t, updated)]["title"])
	}
	if want := []uint64{idOf(t, trashed), idOf(t, purged), idOf(t, hidden)}; !slices.Equal(got.deleted, want) {
		t.Errorf("deleted %v, want %v (trashed, purged, made private)", got.deleted, want)
	}
	if _, ok := got.records[idOf(t, unchanged)]; ok {
		t.Error("an unchanged event was listed")
	}

	// The same sync with a filter: what no longer matches is deleted; the editor sees the private event.
	filtered := app.sync(t, "/events?featured=true&sync_token="+url.QueryEscape(token), "events", editor)
	if len(filtered.records) != 0 {
		t.Errorf("featured=true listed %v", syncedIDs(filtered.records))
	}
	if want := []uint64{idOf(t, updated), idOf(t, trashed), idOf(t, purged), idOf(t, hidden), idOf(t, featured), idOf(t, far)}; !slices.Equal(filtered.deleted, want) {
		t.Errorf("featured=true deleted %v, want %v", filtered.deleted, want)
	}
	editorSync := app.sync(t, "/events?sync_token="+url.QueryEscape(token), "events", editor)
	if _, ok := editorSync.records[idOf(t, hidden)]; !ok {
		t.Errorf("the editor's sync does not list the private event: %v", syncedIDs(editorSync.records))
	}

	// Nothing changed since the new token: an empty sync, whose token is as good.
	again := app.sync(t, "/events?sync_token="+url.QueryEscape(got.token), "events", "")
	if len(again.records) != 0 || len(again.deleted) != 0 {
		t.Errorf("a sync from the last token listed %v and deleted %v", syncedIDs(again.records), again.deleted)
	}
}

// TestSyncRedactsProtectedEvents: a password-protected event comes in a sync as in a list, redacted.
func TestSyncRedactsProtectedEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	token := app.syncToken(t, "/events", "")
	ev := app.createEvent(t, editor, eventBody("Secret party", 2, "status", "publish",
		"password", "hunter2", "description", "<p>The address is 1 Main St.</p>"))
	got := app.sync(t, "/events?sync_token="+url.QueryEscape(token), "events", "")
	rec := got.records[idOf(t, ev)]
	if rec == nil {
		t.Fatalf("the protected event is not listed: %v", syncedIDs(got.records))
	}
	if rec["title"] != "Secret party" || strings.Contains(fmt.Sprint(rec["description"]), "Main St") {
		t.Errorf("the protected event is not redacted as in lists: title %v, description %v", rec["title"], rec["description"])
	}
	list := app.Get("/events", "").ExpectStatus(t, http.StatusOK).JSON(t)["events"].([]any)
	if fmt.Sprint(list[0]) != fmt.Sprint(rec) {
		t.Errorf("the sync shows the event as\n%v\nthe list as\n%v", rec, list[0])
	}
}

// TestSyncPagesAreFixed: the pages of one sync, followed by their links, list every changed record once although
// records change between the pages; every page carries the same X-Sync-Token, and the next sync brings what
// changed during this one.
func TestSyncPagesAreFixed(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	token := app.syncToken(t, "/events", "")
	var ids []uint64
	for i := range 7 {
		ids = append(ids, idOf(t, app.createEvent(t, editor, eventBody(fmt.Sprint("Event ", i), 2, "status", "publish"))))
	}
	first := app.Get("/events?per_page=3&sync_token="+url.QueryEscape(token), "").ExpectStatus(t, http.StatusOK)
	body := first.JSON(t)
	if body["total"] != float64(7) || first.Header.Get("X-TEC-Total") != "7" || first.Header.Get("X-TEC-TotalPages") != "3" {
		t.Fatalf("total %v, headers %s/%s; want 7 in 3 pages", body["total"], first.Header.Get("X-TEC-Total"),
			first.Header.Get("X-TEC-TotalPages"))
	}
	// A change between the pages: a new event with a lower ID cannot exist, so change an early one and add one.
	app.updateEvent(t, http.MethodPatch, fmt.Sprintf("/events/%d", ids[0]), editor, map[string]any{"title": "Changed meanwhile"})
	late := idOf(t, app.createEvent(t, editor, eventBody("Late", 2, "status", "publish")))
	time.Sleep(1100 * time.Millisecond) // the next pages are answered in another second than the first
	seen := idsOf(body["events"])
	tokens := map[string]bool{first.Header.Get("X-Sync-Token"): true}
	next, _ := body["next_rest_url"].(string)
	for next != "" {
		u, _ := url.Parse(next)
		res := app.Get(strings.TrimPrefix(u.Path, app.Config.APIRoot())+"?"+u.RawQuery, "").ExpectStatus(t, http.StatusOK)
		b := res.JSON(t)
		seen = append(seen, idsOf(b["events"])...)
		tokens[res.Header.Get("X-Sync-Token")] = true
		next, _ = b["next_rest_url"].(string)
	}
	if !slices.Equal(seen, ids) {
		t.Errorf("the pages listed %v, want %v", seen, ids)
	}
	if len(tokens) != 1 {
		t.Errorf("the pages of one sync carry %d different tokens", len(tokens))
	}
	var last string
	for tok := range tokens {
		last = tok
	}
	after := app.sync(t, "/events?sync_token="+url.QueryEscape(last), "events", "")
	if want := []uint64{ids[0], late}; !slices.Equal(syncedIDs(after.records), want) {
		t.Errorf("the next sync listed %v, want %v", syncedIDs(after.records), want)
	}
	if after.records[ids[0]]["title"] != "Changed meanwhile" {
		t.Errorf("the next sync shows %v", after.records[ids[0]]["title"])
	}
	// A page past the last of a sync is a 404, as in the plain list.
	app.Get("/events?per_page=3&page=4&sync_token="+url.QueryEscape(token), "").
		ExpectError(t, http.StatusNotFound, "event-archive-page-not-found")
}

// TestSyncTokensRefused: an unknown, tampered, foreign or expired token is 410 sync_token_expired, and an empty
// one 400 naming sync_token.
func TestSyncTokensRefused(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	good := app.syncToken(t, "/events", "")
	// Expired and foreign tokens are forged with the service's key, which no answer shows.
	key, err := app.Store.ServiceKey(context.Background(), "sync_token")
	if err != nil {
		t.Fatal(err)
	}
	pos, err := app.Store.SyncPosition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	old := models.EncodeSyncToken(key, models.SyncToken{From: pos, Minted: time.Now().Add(-721 * time.Hour)})
	foreign := models.EncodeSyncToken([]byte("another service's key"), models.SyncToken{From: pos, Minted: time.Now()})
	tampered := []byte(good)
	tampered[len(tampered)/2] ^= 1
	for _, path := range []string{"/events", "/venues", "/organizers", "/categories", "/tags"} {
		for name, tok := range map[string]string{"garbage": "not-a-token", "tampered": string(tampered),
			"foreign": foreign, "expired": old} {
			res := app.Get(path+"?sync_token="+url.QueryEscape(tok), "")
			if res.Status != http.StatusGone {
				t.Errorf("%s with a %s token: %d %s", path, name, res.Status, res.Body)
				continue
			}
			res.ExpectError(t, http.StatusGone, "sync_token_expired")
		}
		body := app.Get(path+"?sync_token=", "").ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if params, _ := body["data"].(map[string]any)["params"].(map[string]any); params["sync_token"] == nil {
			t.Errorf("%s: an empty token is refused without naming sync_token: %v", path, body)
		}
		app.Get(path+"?sync_token="+url.QueryEscape(good), "").ExpectStatus(t, http.StatusOK)
	}
	// Within the retention a token works, also one minted long ago.
	recent := models.EncodeSyncToken(key, models.SyncToken{From: pos, Minted: time.Now().Add(-719 * time.Hour)})
	app.Get("/events?sync_token="+url.QueryEscape(recent), "").ExpectStatus(t, http.StatusOK)
}

// TestSyncLinkedAndTerms: venues, organizers, categories and tags sync as events do; an event's new links list the
// linked venue and organizer again, and its terms, whose counts changed.
func TestSyncLinkedAndTerms(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	venue := app.post(t, editor, "/venues", map[string]any{"venue": "Hall", "status": "publish"})
	gone := app.post(t, editor, "/venues", map[string]any{"venue": "Barn", "status": "publish"})
	organizer := app.post(t, editor, "/organizers", map[string]any{"organizer": "Ann", "status": "publish"})
	category := app.post(t, editor, "/categories", map[string]any{"name": "Music"})
	tag := app.post(t, editor, "/tags", map[string]any{"name": "jazz"})
	lists := []string{"/venues", "/organizers", "/categories", "/tags"}
	tokens := map[string]string{}
	for _, l := range lists {
		tokens[l] = app.syncToken(t, l+"?hide_empty=false", editor)
	}
	app.createEvent(t, editor, eventBody("Concert", 2, "status", "publish", "venue", venue, "organizer", organizer,
		"categories", []uint64{category}, "tags", []uint64{tag}))
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%d?force=true", gone), Token: editor}).
		ExpectStatus(t, http.StatusOK)
	for l, want := range map[string]uint64{"/venues": venue, "/organizers": organizer, "/categories": category, "/tags": tag} {
		key := strings.TrimPrefix(l, "/")
		got := app.sync(t, l+"?hide_empty=false&sync_token="+url.QueryEscape(tokens[l]), key, editor)
		if keys := syncedIDs(got.records); !slices.Equal(keys, []uint64{want}) {
			t.Errorf("%s listed %v, want [%d]", l, keys, want)
		}
		if l == "/venues" && !slices.Equal(got.deleted, []uint64{gone}) {
			t.Errorf("/venues deleted %v, want [%d]", got.deleted, gone)
		}
		if l == "/categories" && got.records[category]["count"] != float64(1) {
			t.Errorf("the category's count is %v in the sync", got.records[category]["count"])
		}
	}
	// A term renamed is listed again; one deleted is in deleted.
	before := app.syncToken(t, "/tags?hide_empty=false", editor)
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/tags/%d", tag), Token: editor,
		Body: map[string]any{"name": "Jazz"}}).ExpectStatus(t, http.StatusOK)
	other := app.post(t, editor, "/tags", map[string]any{"name": "folk"})
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/tags/%d", other), Token: editor}).ExpectStatus(t, http.StatusOK)
	got := app.sync(t, "/tags?hide_empty=false&sync_token="+url.QueryEscape(before), "tags", editor)
	if !slices.Equal(syncedIDs(got.records), []uint64{tag}) || !slices.Equal(got.deleted, []uint64{other}) {
		t.Errorf("/tags listed %v and deleted %v, want [%d] and [%d]", syncedIDs(got.records), got.deleted, tag, other)
	}
}

// TestSyncNeverListsARolledBackChange: a write whose transaction rolls back after its rows (and so its change
// history rows) were written is never listed by a sync.
func TestSyncNeverListsARolledBackChange(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	token := app.syncToken(t, "/venues", editor)
	// Only the store can fail a write after its rows are written; the API's writes fail before.
	failed := errors.New("the write fails after its insert")
	err := app.Store.Tx(context.Background(), func(tx *models.Store) error {
		if err := tx.DB().Exec(`INSERT INTO venues (author_id, status, trashed_status, name, slug, published_at,
			created_at, updated_at) VALUES (1, 'publish', '', 'Ghost', 'ghost', ?, ?, ?)`,
			time.Now(), time.Now(), time.Now()).Error; err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("the transaction ended with %v", err)
	}
	app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: editor,
		Body: map[string]any{"venue": "Real", "status": "publish"}}).ExpectStatus(t, http.StatusCreated)
	got := app.sync(t, "/venues?sync_token="+url.QueryEscape(token), "venues", editor)
	if len(got.records) != 1 || len(got.deleted) != 0 {
		t.Errorf("the sync listed %v and deleted %v; want the one real venue only", syncedIDs(got.records), got.deleted)
	}
	for _, v := range got.records {
		if v["venue"] != "Real" {
			t.Errorf("the sync listed %v", v["venue"])
		}
	}
}

// TestSyncAcrossConcurrentWriters: a client that syncs again and again while writers create, update, trash and
// delete events ends, after a last sync, with exactly the events the server lists.
func TestSyncAcrossConcurrentWriters(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	mirror := map[uint64]string{}
	apply := func(r syncResult) {
		for id, rec := range r.records {
			mirror[id] = rec["title"].(string)
		}
		for _, id := range r.deleted {
			delete(mirror, id)
		}
	}
	first := app.Get("/events?per_page=50", "").ExpectStatus(t, http.StatusOK)
	token := first.Header.Get("X-Sync-Token")

	const writers, rounds = 4, 15
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		concurrently(t, app, writers, func(w int) {
			var mine []string
			for i := range rounds {
				res := app.Do(Request{Method: http.MethodPost, Path: "/events", Token: editor,
					Body: eventBody(fmt.Sprintf("w%d-%d", w, i), 1+i%5, "status", "publish")})
				if res.Status != http.StatusCreated {
					t.Errorf("create: %d %s", res.Status, res.Body)
					return
				}
				path := eventPath(res.JSON(t))
				mine = append(mine, path)
				switch i % 4 {
				case 1:
					app.Do(Request{Method: http.MethodPatch, Path: mine[len(mine)-2], Token: editor,
						Body: map[string]any{"title": fmt.Sprintf("w%d-%d renamed", w, i)}})
				case 2:
					app.Do(Request{Method: http.MethodDelete, Path: mine[len(mine)-2], Token: editor})
				case 3:
					app.Do(Request{Method: http.MethodDelete, Path: mine[len(mine)-3] + "?force=true", Token: editor})
				}
			}
		})
		close(done)
	}()
	syncs := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		r := app.sync(t, "/events?per_page=7&sync_token="+url.QueryEscape(token), "events", "")
		apply(r)
		token = r.token
		syncs++
	}
	wg.Wait()
	apply(app.sync(t, "/events?per_page=7&sync_token="+url.QueryEscape(token), "events", ""))

	want := map[uint64]string{}
	for page := 1; ; page++ {
		body := app.Get(fmt.Sprintf("/events?per_page=50&page=%d&starts_after=2000-01-01", page), "").JSON(t)
		for _, e := range body["events"].([]any) {
			rec := e.(map[string]any)
			want[idOf(t, rec)] = rec["title"].(string)
		}
		if body["next_rest_url"] == nil {
			break
		}
	}
	if len(want) == 0 || fmt.Sprint(mirror) != fmt.Sprint(want) {
		t.Errorf("after %d syncs the mirror holds\n%v\nthe server lists\n%v", syncs, mirror, want)
	}
}

// TestChangeHistoryIsPruned: pruning deletes the changes recorded before the cutoff and keeps the others.
func TestChangeHistoryIsPruned(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	app.createEvent(t, editor, eventBody("Old", 2))
	db := app.Store.DB() // the change history has no API, and a test cannot wait for it to age

	if err := db.Exec("UPDATE changes SET at = at - 3600").Error; err != nil {
		t.Fatal(err)
	}
	app.createEvent(t, editor, eventBody("New", 2))
	count := func() (n int64) {
		if err := db.Raw("SELECT COUNT(*) FROM changes").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	pruned, err := app.Store.PruneChanges(context.Background(), time.Now().Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if pruned == 0 || count() != before-pruned || count() == 0 {
		t.Errorf("pruned %d of %d changes, %d left", pruned, before, count())
	}
	if again, _ := app.Store.PruneChanges(context.Background(), time.Now().Add(-30*time.Minute)); again != 0 {
		t.Errorf("a second prune deleted %d", again)
	}
}
