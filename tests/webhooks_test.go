package tests

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calendar/models"
)

// received is one delivery as a receiver saw it.
type received struct {
	delivery  string
	signature string
	body      []byte
	msg       struct {
		ID         uint64         `json:"id"`
		Type       string         `json:"type"`
		OccurredAt string         `json:"occurred_at"`
		Data       map[string]any `json:"data"`
		Changed    []string       `json:"changed"`
	}
}

// receiver is a webhook receiver inside the test process. answer decides the answer to each request (nil: 200).
type receiver struct {
	mu     sync.Mutex
	got    []received
	server *httptest.Server
	answer func(n int, w http.ResponseWriter, r *http.Request) bool // false: the default 200 is not written
	calls  int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.calls++
		n := rc.calls
		answer := rc.answer
		rc.mu.Unlock()
		if answer != nil && !answer(n, w, r) {
			return
		}
		var got received
		got.delivery, got.signature, got.body = r.Header.Get("X-Calendar-Delivery"), r.Header.Get("X-Calendar-Signature"), body
		if err := json.Unmarshal(body, &got.msg); err != nil || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("a delivery that is not JSON (%v, %q): %s", err, r.Header.Get("Content-Type"), body)
		}
		rc.mu.Lock()
		rc.got = append(rc.got, got)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.server.Close)
	return rc
}

// unavailableWhile answers 503 while *down (read under the receiver's lock).
func (rc *receiver) unavailableWhile(down *bool) func(int, http.ResponseWriter, *http.Request) bool {
	return func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if *down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return false
		}
		return true
	}
}

// wait waits until the receiver accepted n deliveries, and returns them.
func (rc *receiver) wait(t *testing.T, n int, within time.Duration) []received {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		rc.mu.Lock()
		got := append([]received{}, rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver accepted %d deliveries within %s, want %d", len(got), within, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fastWebhooks is the configuration of webhook tests: the receiver is on loopback, retries come quickly.
func fastWebhooks(extra ...string) Option {
	env := append([]string{"CALENDAR_WEBHOOK_ALLOW_PRIVATE", "true", "CALENDAR_WEBHOOK_RETRY_DELAYS", "50ms",
		"CALENDAR_WEBHOOK_POLL", "20ms", "CALENDAR_WEBHOOK_TIMEOUT", "500ms"}, extra...)
	return WithEnv(env...)
}

// runSender runs the app's webhook sender until the test ends (or the returned stop is called).
func (a *App) runSender(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.API.Webhooks.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// subscribe creates a subscription as an administrator and returns its ID and secret.
func (a *App) subscribe(t *testing.T, admin string, body map[string]any) (uint64, string) {
	t.Helper()
	res := a.Do(Request{Method: http.MethodPost, Path: "/webhooks", Token: admin, Body: body}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
	return idOf(t, res), res["secret"].(string)
}

// deliveryLog reads a page of subscription id's delivery log (query: its parameters, if any) as an administrator.
func (a *App) deliveryLog(t *testing.T, admin string, id uint64, query string) []any {
	t.Helper()
	return a.Get(fmt.Sprintf("/webhooks/%d/deliveries?%s", id, query), admin).ExpectStatus(t, http.StatusOK).
		JSON(t)["deliveries"].([]any)
}

// verify checks a delivery's signature as a receiver would: HMAC-SHA256 of "<t>.<body>" with the secret.
func verify(secret string, r received) bool {
	var ts, sig string
	for _, part := range strings.Split(r.signature, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(r.body)))
	want := hex.EncodeToString(mac.Sum(nil))
	t, err := strconv.ParseInt(ts, 10, 64)
	return err == nil && time.Since(time.Unix(t, 0)) < time.Minute && hmac.Equal([]byte(sig), []byte(want))
}

// TestWebhooksAreForAdministratorsOnly: anonymous callers get 401 and other roles 403 on every webhook route; the
// secret is shown by the create alone.
func TestWebhooksAreForAdministratorsOnly(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	editor := app.Token(models.RoleEditor)
	id, secret := app.subscribe(t, admin, map[string]any{"url": "https://example.com/hook", "events": "event.created,venue.deleted"})
	item := fmt.Sprintf("/webhooks/%d", id)
	routes := []Request{{Path: "/webhooks"}, {Method: http.MethodPost, Path: "/webhooks", Body: map[string]any{"url": "https://example.com/x"}},
		{Path: item}, {Method: http.MethodPatch, Path: item, Body: map[string]any{"events": "*"}},
		{Method: http.MethodDelete, Path: item}, {Path: item + "/deliveries"},
		{Method: http.MethodPost, Path: item + "/deliveries/1/redeliver"}}
	for _, r := range routes {
		r.Token = ""
		app.Do(r).ExpectStatus(t, http.StatusUnauthorized)
		r.Token = editor
		app.Do(r).ExpectError(t, http.StatusForbidden, "rest_forbidden")
	}
	for _, r := range []Request{{Path: "/webhooks"}, {Path: item}, {Method: http.MethodPatch, Path: item,
		Body: map[string]any{"url": "https://example.com/other"}}, {Path: item + "/deliveries"}} {
		r.Token = admin
		res := app.Do(r).ExpectStatus(t, http.StatusOK)
		if strings.Contains(string(res.Body), secret) || strings.Contains(string(res.Body), `"secret"`) {
			t.Errorf("%s %s shows the secret: %s", r.Method, r.Path, res.Body)
		}
	}
	got := app.Get(item, admin).JSON(t)
	if got["url"] != "https://example.com/other" || fmt.Sprint(got["events"]) != "[event.created venue.deleted]" {
		t.Errorf("the subscription reads %v", got)
	}
	// A secret sent on create is the one shown.
	_, chosen := app.subscribe(t, admin, map[string]any{"url": "https://example.com/y", "secret": "0123456789abcdef-mine"})
	if chosen != "0123456789abcdef-mine" {
		t.Errorf("the create shows secret %q", chosen)
	}
	app.Do(Request{Method: http.MethodPost, Path: "/webhooks", Token: admin,
		Body: map[string]any{"url": "https://example.com/z", "events": "event.exploded"}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	app.Do(Request{Method: http.MethodDelete, Path: item, Token: admin}).ExpectStatus(t, http.StatusOK)
	app.Get(item, admin).ExpectError(t, http.StatusNotFound, "rest-webhook-not-found")
}

// TestWebhookURLsToPrivateAddressesAreRefused: without the allow flag, a URL whose host is or resolves to a
// loopback, private, link-local or metadata address is 400 naming url.
func TestWebhookURLsToPrivateAddressesAreRefused(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	for _, u := range []string{"http://127.0.0.1/hook", "http://10.0.0.8/hook", "http://169.254.169.254/latest/meta-data",
		"http://localhost:8080/hook", "http://[::1]/hook", "http://192.168.1.1/", "http://172.16.0.1/",
		"http://0.0.0.0/", "http://[fe80::1]/", "ftp://example.com/", "not a url"} {
		body := app.Do(Request{Method: http.MethodPost, Path: "/webhooks", Token: admin, Body: map[string]any{"url": u}}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		if params, _ := body["data"].(map[string]any)["params"].(map[string]any); params["url"] == nil {
			t.Errorf("%s: refused without naming url: %v", u, body)
		}
	}
	id, _ := app.subscribe(t, admin, map[string]any{"url": "https://93.184.216.34/hook"})
	app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/webhooks/%d", id), Token: admin,
		Body: map[string]any{"url": "http://127.0.0.1/hook"}}).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	// With the flag, the test's own receiver on loopback is accepted.
	allowed := NewApp(t, WithEnv("CALENDAR_WEBHOOK_ALLOW_PRIVATE", "true"))
	allowed.subscribe(t, allowed.Token(models.RoleAdministrator), map[string]any{"url": "http://127.0.0.1:9/hook"})
}

// TestWebhookDeliveriesAreSignedAndInOrder: every change of every kind reaches the receiver as a signed JSON
// POST, one record's changes in order, with the record as an administrator reads it (or as it was).
func TestWebhookDeliveriesAreSignedAndInOrder(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	_, secret := app.subscribe(t, admin, map[string]any{"url": rc.server.URL + "/all"})
	app.subscribe(t, admin, map[string]any{"url": rc.server.URL + "/venues", "events": []string{"venue.deleted"}})
	app.runSender(t)

	ev := app.createEvent(t, admin, eventBody("Launch", 2, "status", "publish", "password", "s3cret"))
	path := eventPath(ev)
	time.Sleep(100 * time.Millisecond) // let the dispatcher take each change in a batch of its own
	app.updateEvent(t, http.MethodPatch, path, admin, map[string]any{"title": "Launch party", "featured": true})
	time.Sleep(100 * time.Millisecond)
	app.Do(Request{Method: http.MethodDelete, Path: path, Token: admin}).ExpectStatus(t, http.StatusOK)
	venue := app.Do(Request{Method: http.MethodPost, Path: "/venues", Token: admin,
		Body: map[string]any{"venue": "Dock", "status": "publish"}}).ExpectStatus(t, http.StatusCreated).JSON(t)
	time.Sleep(100 * time.Millisecond)
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/venues/%d?force=true", idOf(t, venue)),
		Token: admin}).ExpectStatus(t, http.StatusOK)
	tag := app.Do(Request{Method: http.MethodPost, Path: "/tags", Token: admin, Body: map[string]any{"name": "news"}}).
		ExpectStatus(t, http.StatusCreated).JSON(t)

	got := rc.wait(t, 7, 10*time.Second)
	var all []received
	venueHook := 0
	for _, r := range got {
		if !verify(secret, r) && r.msg.Type != "venue.deleted" {
			t.Errorf("delivery %s: the signature %q does not verify", r.delivery, r.signature)
		}
		if r.delivery != strconv.FormatUint(r.msg.ID, 10) {
			t.Errorf("X-Calendar-Delivery %s, body id %d", r.delivery, r.msg.ID)
		}
		all = append(all, r)
	}
	var types, eventTypes []string
	for _, r := range all {
		types = append(types, r.msg.Type)
		if r.msg.Type == "venue.deleted" {
			venueHook++
		}
		if strings.HasPrefix(r.msg.Type, "event.") {
			eventTypes = append(eventTypes, r.msg.Type)
		}
	}
	joined := strings.Join(types, " ")
	if got := strings.Join(eventTypes, " "); got != "event.created event.updated event.deleted" {
		t.Errorf("the event's deliveries came as %s, want created, updated, deleted in that order", got)
	}
	for _, want := range []string{"venue.created", "tag.created"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the receiver got %s; want %s", joined, want)
		}
	}
	if venueHook != 2 {
		t.Errorf("venue.deleted reached %d subscriptions, want 2: %s", venueHook, joined)
	}
	for _, r := range all {
		switch r.msg.Type {
		case "event.created":
			if r.msg.Data["id"] != ev["id"] || r.msg.Data["description"] == nil {
				t.Errorf("event.created carries %v", r.msg.Data)
			}
			if at, err := time.Parse("2006-01-02 15:04:05", r.msg.OccurredAt); err != nil || time.Since(at).Abs() > time.Hour {
				t.Errorf("event.created occurred_at %q, want the UTC time of the create (%v)", r.msg.OccurredAt, err)
			}
			var top map[string]json.RawMessage
			if _ = json.Unmarshal(r.body, &top); top["changed"] != nil {
				t.Errorf("event.created carries changed: %s", top["changed"])
			}
		case "event.updated":
			if r.msg.Data["title"] != "Launch party" && r.msg.Data["status"] != "trash" {
				t.Errorf("event.updated carries %v", r.msg.Data)
			}
			if !strings.Contains(strings.Join(r.msg.Changed, ","), "title") {
				t.Errorf("event.updated says %v changed", r.msg.Changed)
			}
		case "event.deleted":
			if r.msg.Data["status"] != "trash" {
				t.Errorf("a trashed event's event.deleted carries status %v", r.msg.Data["status"])
			}
		case "venue.deleted":
			if r.msg.Data["venue"] != "Dock" {
				t.Errorf("venue.deleted carries %v", r.msg.Data)
			}
		case "tag.created":
			if r.msg.Data["id"] != tag["id"] {
				t.Errorf("tag.created carries %v", r.msg.Data)
			}
		}
		if strings.Contains(string(r.body), "s3cret") {
			t.Errorf("a delivery carries the event's password: %s", r.body)
		}
	}
}

// delivered waits until the receiver accepted a delivery of type typ about the record id, and returns it.
func (rc *receiver) delivered(t *testing.T, typ string, id any) received {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		for _, r := range rc.got {
			if r.msg.Type == typ && r.msg.Data["id"] == id {
				rc.mu.Unlock()
				return r
			}
		}
		rc.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %s delivery about record %v within 10s", typ, id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookChangeWaitsForTheEarlierOneUnderWay: a record's change made while the delivery of its previous change
// is still being answered is sent only after that answer, so the receiver gets them in order.
func TestWebhookChangeWaitsForTheEarlierOneUnderWay(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	asked := make(chan struct{}, 1)
	rc.answer = func(n int, _ http.ResponseWriter, _ *http.Request) bool {
		if n == 1 {
			asked <- struct{}{}
			time.Sleep(300 * time.Millisecond) // within the 500 ms timeout
		}
		return true
	}
	app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)
	ev := app.createEvent(t, admin, eventBody("Slowly answered", 2))
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the creation was not delivered")
	}
	app.updateEvent(t, http.MethodPatch, eventPath(ev), admin, map[string]any{"title": "Answered at last"})
	got := rc.wait(t, 2, 10*time.Second)
	if got[0].msg.Type != "event.created" || got[1].msg.Type != "event.updated" {
		t.Errorf("the receiver got %s, then %s; want event.created, then event.updated", got[0].msg.Type,
			got[1].msg.Type)
	}
}

// TestWebhookDeletionCarriesTheRecordAsItWas: after a permanent delete, data is the record in the same shape an
// administrator's list read gives (the shape its *.created carried), for an event with its venue and terms
// embedded, a venue and a tag; never the stored columns.
func TestWebhookDeletionCarriesTheRecordAsItWas(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)

	venue := app.create(t, admin, "/venues", map[string]any{"venue": "Harbour Hall", "city": "Duluth",
		"status": "publish", "show_map": false})
	tag := app.create(t, admin, "/tags", map[string]any{"name": "jazz"})
	ev := app.createEvent(t, admin, eventBody("Quay concert", 3, "status", "publish", "all_day", true,
		"venue", venue["id"], "tags", []any{tag["id"]}, "categories", []string{"Music"}, "cost", "12",
		"featured", true))
	created := map[string]received{
		"event": rc.delivered(t, "event.created", ev["id"]), "venue": rc.delivered(t, "venue.created", venue["id"]),
		"tag": rc.delivered(t, "tag.created", tag["id"]),
	}
	if emb, _ := created["event"].msg.Data["venue"].(map[string]any); emb == nil || emb["venue"] != "Harbour Hall" {
		t.Fatalf("event.created embeds the venue as %v", created["event"].msg.Data["venue"])
	}

	for _, del := range []struct {
		kind, path string
		id         any
	}{
		{"event", eventPath(ev) + "?force=true", ev["id"]},
		{"venue", fmt.Sprintf("/venues/%d?force=true", idOf(t, venue)), venue["id"]},
		{"tag", fmt.Sprintf("/tags/%d", idOf(t, tag)), tag["id"]},
	} {
		app.Do(Request{Method: http.MethodDelete, Path: del.path, Token: admin}).ExpectStatus(t, http.StatusOK)
		deleted := rc.delivered(t, del.kind+".deleted", del.id).msg.Data
		want := created[del.kind].msg.Data
		// Terms count published events: the deleted event no longer counts for its tag and category.
		uncounted(want, del.kind)
		uncounted(deleted, del.kind)
		// SQLite's history keeps no modification date of a deleted row: the time of its last write stands in,
		// to the second.
		for _, key := range []string{"modified", "modified_utc"} {
			if w, ok := want[key]; ok {
				a, errA := time.Parse(dateTimeLayout, fmt.Sprint(deleted[key]))
				b, errB := time.Parse(dateTimeLayout, fmt.Sprint(w))
				if errA != nil || errB != nil || a.Sub(b).Abs() > time.Second {
					t.Errorf("%s.deleted says %s %v, %s.created %v", del.kind, key, deleted[key], del.kind, w)
				}
				delete(want, key)
				delete(deleted, key)
			}
		}
		if !reflect.DeepEqual(deleted, want) {
			t.Errorf("%s.deleted carries\n%v\nwant the record as %s.created carried it\n%v", del.kind, deleted, del.kind, want)
		}
		for _, column := range []string{"start_utc", "name_key", "author_id", "published_at", "trashed_status"} {
			if _, ok := deleted[column]; ok {
				t.Errorf("%s.deleted carries the stored column %s: %v", del.kind, column, deleted)
			}
		}
	}
}

// uncounted removes the event counts from a record of kind: a term's own, or those of the terms an event embeds.
func uncounted(rec map[string]any, kind string) {
	if kind == "tag" {
		delete(rec, "count")
	}
	for _, key := range []string{"categories", "tags"} {
		terms, _ := rec[key].([]any)
		for _, term := range terms {
			delete(term.(map[string]any), "count")
		}
	}
}

// TestWebhookFailuresAreRetriedAndLogged: a receiver that answers 500, times out, closes the connection or
// redirects gets the delivery again, and the delivery log shows each failed attempt until the one that succeeds.
func TestWebhookFailuresAreRetriedAndLogged(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	rc.answer = func(n int, w http.ResponseWriter, r *http.Request) bool {
		switch n {
		case 1:
			w.WriteHeader(http.StatusInternalServerError)
			return false
		case 2:
			time.Sleep(time.Second) // past the 500 ms timeout
			return false
		case 3:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return false
		case 4:
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return false
		}
		return true
	}
	id, _ := app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)
	app.createEvent(t, admin, eventBody("Flaky", 2))
	rc.wait(t, 1, 15*time.Second)
	var log []any
	deadline := time.Now().Add(5 * time.Second)
	for {
		log = app.deliveryLog(t, admin, id, "")
		if len(log) == 1 && log[0].(map[string]any)["status"] == "sent" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(log) != 1 {
		t.Fatalf("the log holds %d deliveries", len(log))
	}
	d := log[0].(map[string]any)
	if d["status"] != "sent" || d["attempts"] != float64(5) || d["last_status"] != float64(204) ||
		d["type"] != "event.created" || d["next_attempt_at"] != nil || d["done_at"] == nil {
		t.Errorf("the log shows %v; want sent after 5 attempts", d)
	}
	rc.mu.Lock()
	calls := rc.calls
	rc.mu.Unlock()
	if calls != 5 {
		t.Errorf("the receiver was called %d times, want 5", calls)
	}
}

// TestWebhookLogShowsEachDeliverysOwnAnswer: outcomes are recorded many at a time, and each delivery in the log
// still shows the answer its own request got, whichever 2xx it was, and the one failure among them stays pending.
func TestWebhookLogShowsEachDeliverysOwnAnswer(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks("CALENDAR_WEBHOOK_RETRY_DELAYS", "1h"))
	admin := app.Token(models.RoleAdministrator)
	statuses := []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent, http.StatusInternalServerError}
	var mu sync.Mutex
	answered := map[string]int{}
	rc := newReceiver(t)
	rc.answer = func(n int, w http.ResponseWriter, r *http.Request) bool {
		status := statuses[n%len(statuses)]
		mu.Lock()
		answered[r.Header.Get("X-Calendar-Delivery")] = status
		mu.Unlock()
		w.WriteHeader(status)
		return false
	}
	id, _ := app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	for i := range 24 {
		app.createEvent(t, admin, eventBody(fmt.Sprint("Answered ", i), 2))
	}
	app.runSender(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(answered)
		mu.Unlock()
		if n == 24 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver was asked %d deliveries, want 24", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		log := app.deliveryLog(t, admin, id, "per_page=50")
		var wrong []string
		for _, entry := range log {
			d := entry.(map[string]any)
			mu.Lock()
			want := answered[fmt.Sprint(d["id"])]
			mu.Unlock()
			status := "sent"
			if want >= 300 {
				status = "pending"
			}
			if d["last_status"] != float64(want) || d["status"] != status || d["attempts"] != float64(1) {
				wrong = append(wrong, fmt.Sprintf("%v: %v %v after %v attempts, want %s %d", d["id"], d["status"],
					d["last_status"], d["attempts"], status, want))
			}
		}
		if len(log) == 24 && len(wrong) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log holds %d deliveries; %d differ from their answers: %v", len(log), len(wrong), wrong)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookLogIsPrunedWithTheHistory: the maintenance that prunes the change history removes from the delivery
// log the deliveries sent or failed before its cutoff, with what they carried, and keeps those still waiting to be
// sent: redelivered after the pruning, one arrives whole.
func TestWebhookLogIsPrunedWithTheHistory(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks("CALENDAR_WEBHOOK_RETRY_DELAYS", "1h"))
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	rc.answer = func(n int, w http.ResponseWriter, _ *http.Request) bool {
		if n == 2 { // the second delivery's first attempt fails, and is retried in an hour
			w.WriteHeader(http.StatusServiceUnavailable)
			return false
		}
		return true
	}
	id, _ := app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)
	app.createEvent(t, admin, eventBody("First", 2))
	rc.wait(t, 1, 10*time.Second)
	app.createEvent(t, admin, eventBody("Second", 3))
	logged := func() map[string]int {
		byStatus := map[string]int{}
		for _, entry := range app.deliveryLog(t, admin, id, "") {
			byStatus[entry.(map[string]any)["status"].(string)]++
		}
		return byStatus
	}
	deadline := time.Now().Add(10 * time.Second)
	for got := logged(); got["sent"] != 1 || got["pending"] != 1; got = logged() {
		if time.Now().After(deadline) {
			t.Fatalf("the log holds %v, want one sent and one pending", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pruned, err := app.Store.PruneDeliveries(context.Background(), time.Now().Add(-time.Hour)); err != nil || pruned != 0 {
		t.Fatalf("pruning before the deliveries were made removed %d (%v)", pruned, err)
	}
	if pruned, err := app.Store.PruneDeliveries(context.Background(), time.Now().Add(time.Minute)); err != nil || pruned != 1 {
		t.Fatalf("pruning after the deliveries were made removed %d (%v), want the sent one", pruned, err)
	}
	if got := logged(); got["sent"] != 0 || got["pending"] != 1 {
		t.Errorf("after pruning the log holds %v, want only the pending delivery", got)
	}
	if n := app.count(t, "webhook_payloads"); n != 1 {
		t.Errorf("after pruning %d payloads are stored, want the pending delivery's alone", n)
	}
	pending := app.deliveryLog(t, admin, id, "")[0].(map[string]any)
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/webhooks/%d/deliveries/%d/redeliver", id, idOf(t, pending)),
		Token: admin}).ExpectStatus(t, http.StatusAccepted)
	if got := rc.wait(t, 2, 10*time.Second)[1]; got.msg.Type != "event.created" || got.msg.Data["title"] != "Second" {
		t.Errorf("the pending delivery, redelivered after pruning, carried %s", got.body)
	}
}

// TestWebhookFailsAfterItsRetriesAndCanBeRedelivered: a delivery that never gets a 2xx within the retry span is
// marked failed, with the last answer in the log; redelivery sends it again, with the same body.
func TestWebhookFailsAfterItsRetriesAndCanBeRedelivered(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks("CALENDAR_WEBHOOK_RETRY_FOR", "120ms"))
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	down := true
	rc.answer = rc.unavailableWhile(&down)
	id, _ := app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)
	app.createEvent(t, admin, eventBody("Doomed", 2))
	var d map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := app.Get(fmt.Sprintf("/webhooks/%d/deliveries", id), admin).JSON(t)["deliveries"].([]any)
		if len(log) == 1 {
			d = log[0].(map[string]any)
			if d["status"] == "failed" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed delivery in the log: %v", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d["last_status"] != float64(503) || d["attempts"].(float64) < 2 || !strings.Contains(d["last_error"].(string), "503") {
		t.Errorf("the failed delivery shows %v", d)
	}
	rc.mu.Lock()
	down = false
	rc.mu.Unlock()
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/webhooks/%d/deliveries/%d/redeliver", id, idOf(t, d)),
		Token: admin}).ExpectStatus(t, http.StatusAccepted)
	got := rc.wait(t, 1, 10*time.Second)
	if got[0].delivery != strconv.FormatUint(idOf(t, d), 10) || got[0].msg.Type != "event.created" {
		t.Errorf("redelivered %s %s", got[0].delivery, got[0].msg.Type)
	}
	app.Do(Request{Method: http.MethodPost, Path: fmt.Sprintf("/webhooks/%d/deliveries/999999/redeliver", id),
		Token: admin}).ExpectError(t, http.StatusNotFound, "rest-delivery-not-found")
}

// TestWebhookDeliveriesSurviveARestart: deliveries pending when the service stops, and those an instance claimed
// and died before sending, are all sent by the instance that runs next.
func TestWebhookDeliveriesSurviveARestart(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	down := true
	rc.answer = rc.unavailableWhile(&down)
	app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	stop := app.runSender(t)
	for i := range 6 {
		app.createEvent(t, admin, eventBody(fmt.Sprint("Pending ", i), 2))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _, err := app.Store.DeliveryQueue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries queued", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	// An instance claims two and dies before sending them: they stay leased to it until the lease ends. On
	// PostgreSQL a statement of the stopped sender that its stop cancelled can hold its rows' locks for a moment
	// after the stop (its session ends once the statement does), and a claim skips locked rows: claim until two.
	claimed := map[uint64]bool{}
	for deadline := time.Now().Add(5 * time.Second); len(claimed) < 2; time.Sleep(20 * time.Millisecond) {
		got, err := app.Store.ClaimDeliveries(context.Background(), time.Now().Add(time.Hour),
			time.Now().Add(time.Second), 2-len(claimed))
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("claimed %d: %v", len(claimed), err)
		}
		for _, d := range got {
			claimed[d.ID] = true
		}
	}
	rc.mu.Lock()
	down = false
	rc.mu.Unlock()
	next := app.Twin()
	next.runSender(t)
	got := rc.wait(t, 6, 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	rc.mu.Lock()
	total := len(rc.got)
	rc.mu.Unlock()
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r.delivery] {
			t.Errorf("delivery %s arrived twice", r.delivery)
		}
		seen[r.delivery] = true
	}
	if total != 6 {
		t.Errorf("the receiver accepted %d deliveries, want 6", total)
	}
}

// TestWebhookMetrics: /metrics reports the sender's counters and the queue.
func TestWebhookMetrics(t *testing.T) {
	t.Parallel()
	app := NewApp(t, fastWebhooks())
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	app.subscribe(t, admin, map[string]any{"url": rc.server.URL})
	app.runSender(t)
	app.createEvent(t, admin, eventBody("Counted", 2))
	rc.wait(t, 1, 10*time.Second)
	time.Sleep(100 * time.Millisecond)
	body := string(app.Get("//metrics").ExpectStatus(t, http.StatusOK).Body)
	for _, want := range []string{"calendar_webhook_deliveries_sent_total 1", "calendar_webhook_deliveries_failed_total 0",
		"calendar_webhook_deliveries_retried_total 0", "calendar_webhook_queue_depth", "calendar_webhook_oldest_pending_seconds"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestTwoInstancesDeliverEachChangeOnce: two instances on one PostgreSQL database share the queue, and the
// receiver gets each of 10,000 changes exactly once. The events are written by one raw batch insert: the change
// history's triggers see writes that bypass the service too.
func TestTwoInstancesDeliverEachChangeOnce(t *testing.T) {
	if postgresURL == "" {
		t.Skip("several instances share one PostgreSQL database; SQLite serves one instance")
	}
	t.Parallel()
	const total = 10000
	// A receiver that answers at once must never see an attempt time out: an attempt whose answer comes after the
	// timeout is retried, and the receiver, which did accept it, gets it twice (at-least-once, as documented). On a
	// loaded machine 10,000 deliveries from two senders can wait longer than fastWebhooks' 500 ms for the test
	// process to answer, so this test gives attempts the service's default timeout; what it tests is that two
	// instances never send one delivery both.
	app := NewApp(t, fastWebhooks("CALENDAR_WEBHOOK_CONCURRENCY", "16", "CALENDAR_WEBHOOK_TIMEOUT", "10s"))
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	hook, _ := app.subscribe(t, admin, map[string]any{"url": rc.server.URL, "events": "event.created"})
	first := app.createEvent(t, admin, eventBody("Copy", 2, "status", "publish"))
	// 9,999 copies of the event in one statement behind the service's back: as many creates through the API would
	// take minutes, and the change history's triggers see such writes too.
	db := app.Store.DB()
	var columns []string
	if err := db.Raw(`SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'events' AND column_name NOT IN ('id', 'slug')
		ORDER BY ordinal_position`).Scan(&columns).Error; err != nil {
		t.Fatal(err)
	}
	list := strings.Join(columns, ", ")
	if err := db.Exec("INSERT INTO events ("+list+", slug) SELECT "+list+", slug || '-' || g FROM events, "+
		"generate_series(1, ?) g WHERE id = ?", total-1, first["id"]).Error; err != nil {
		t.Fatal(err)
	}
	twin := app.Twin()
	stops := []func(){app.runSender(t), twin.runSender(t)}
	// Wait for every delivery to arrive and to be recorded as sent, then stop both senders, which lets the attempts
	// under way finish: whatever the receiver got by then is all it will get.
	deadline := time.Now().Add(120 * time.Second)
	for {
		pending, _, err := app.Store.DeliveryQueue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		made := int(app.Get(fmt.Sprintf("/webhooks/%d/deliveries?per_page=1", hook), admin).ExpectStatus(t, http.StatusOK).
			JSON(t)["total"].(float64))
		if made >= total && pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			// Tell a stall from a slow machine: the deliveries still waiting, and what each database session is
			// doing, which no API shows (diagnostics only, read in one statement each).
			var waiting, activity []map[string]any
			db.Raw("SELECT id, attempts, next_attempt_at, created_at FROM webhook_deliveries WHERE status = 'pending' ORDER BY id LIMIT 5").Scan(&waiting)
			db.Raw(`SELECT state, wait_event_type, wait_event, LEFT(query, 100) AS query,
				EXTRACT(EPOCH FROM now() - xact_start) AS age FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&activity)
			t.Logf("at the deadline: %d made, %d pending, e.g. %+v (now %d); sessions: %+v", made, pending, waiting,
				time.Now().UnixMilli(), activity)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, stop := range stops {
		stop()
	}
	// Diagnostics only: the deliveries by state in one statement (the log would take 100 pages), and the change
	// history, which has no API.
	var states []struct {
		Status    string
		Attempts  int
		LastError string
		N         int
	}
	db.Raw("SELECT status, attempts, last_error, COUNT(*) AS n FROM webhook_deliveries GROUP BY status, attempts, last_error").Scan(&states)
	var changes []struct {
		Op string
		N  int
	}
	db.Raw("SELECT op, COUNT(*) AS n FROM changes WHERE kind = 1 GROUP BY op").Scan(&changes)
	t.Logf("deliveries by status, attempts and last error: %+v; event changes by op: %+v", states, changes)
	var got []received
	rc.mu.Lock()
	got = append([]received{}, rc.got...)
	rc.mu.Unlock()
	deliveries, records := map[string]int{}, map[float64]int{}
	for _, r := range got {
		deliveries[r.delivery]++
		records[r.msg.Data["id"].(float64)]++
	}
	if len(got) != total || len(deliveries) != total || len(records) != total {
		t.Errorf("the receiver accepted %d deliveries: %d distinct deliveries, %d distinct events; want 10000 of each",
			len(got), len(deliveries), len(records))
	}
	for id, n := range deliveries {
		if n > 1 {
			var attempts int // for the message only: the log would have to be paged to find the delivery
			db.Raw("SELECT attempts FROM webhook_deliveries WHERE id = ?", id).Scan(&attempts)
			t.Errorf("delivery %s arrived %d times in %d attempts", id, n, attempts)
		}
	}
	// The queue emptied: so must the log's deliveries waiting to be sent (a delivery that left the queue unsent
	// would never be sent).
	var unsent int64
	if err := db.Table("webhook_deliveries").Where("status <> ?", models.DeliverySent).Count(&unsent).Error; err != nil || unsent != 0 {
		t.Errorf("the queue is empty, and the log holds %d deliveries not sent (%v)", unsent, err)
	}
}

// expectAdminOnly sends method to the route pattern as every actor: anonymous callers get 401, every role but
// administrator 403 rest_forbidden, and administrators neither.
func (a *App) expectAdminOnly(t *testing.T, actors []actor, method, pattern string) {
	t.Helper()
	path := strings.NewReplacer(":id", "1", ":delivery", "1").Replace(pattern)
	for _, who := range actors {
		res := a.Do(Request{Method: method, Path: path, Token: who.token,
			Body: map[string]any{"url": "https://93.184.216.34/hook"}})
		switch {
		case who.role == "anonymous":
			res.ExpectStatus(t, http.StatusUnauthorized)
		case who.role != string(models.RoleAdministrator):
			res.ExpectError(t, http.StatusForbidden, "rest_forbidden")
		case res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden:
			t.Errorf("%s %s as an administrator: %d", method, path, res.Status)
		}
	}
}

// TestWebhookSenderRefusesPrivateAddressesAtConnection: a subscription whose host resolves to a private address
// only when the delivery is sent (DNS rebinding; here a row written around the API's check) is never connected to,
// and the log says why.
func TestWebhookSenderRefusesPrivateAddressesAtConnection(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_WEBHOOK_RETRY_DELAYS", "50ms", "CALENDAR_WEBHOOK_POLL", "20ms"))
	admin := app.Token(models.RoleAdministrator)
	rc := newReceiver(t)
	id, _ := app.subscribe(t, admin, map[string]any{"url": "https://93.184.216.34/hook"})
	// The API refuses a private address, so only the store can point the subscription at the local receiver.
	if err := app.Store.DB().Exec("UPDATE webhooks SET url = ? WHERE id = ?", rc.server.URL, id).Error; err != nil {
		t.Fatal(err)
	}
	app.runSender(t)
	app.createEvent(t, admin, eventBody("Rebound", 2))
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := app.Get(fmt.Sprintf("/webhooks/%d/deliveries", id), admin).JSON(t)["deliveries"].([]any)
		if len(log) == 1 && log[0].(map[string]any)["attempts"].(float64) >= 2 {
			if e := log[0].(map[string]any)["last_error"].(string); !strings.Contains(e, "not a public address") {
				t.Errorf("the log says %q", e)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no refused attempt in the log: %v", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.calls != 0 {
		t.Errorf("the receiver on loopback was called %d times", rc.calls)
	}
}
