package tests

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"calendar/models"
)

// If-Match on the item writes: a write sent with the ETag of a GET that is no longer current gets 412
// rest_precondition_failed and changes nothing; with the current ETag (or *) it goes through; of concurrent writes
// sent with the same ETag exactly one does.

// matchTarget is an item route whose writes honour If-Match, with a record made for it.
type matchTarget struct {
	what string
	path string
	// change is an update body that changes the record; n makes each use distinct.
	change func(n int64) map[string]any
}

// matchSeq makes the values of the updates distinct.
var matchSeq atomic.Int64

// matchTargets creates one record of every kind and returns every item route that addresses one: events, venues
// and organizers by ID and by slug, categories and tags by ID.
func matchTargets(t *testing.T, app *App, token string) []matchTarget {
	t.Helper()
	create := func(path string, body map[string]any) map[string]any {
		return app.Do(Request{Method: http.MethodPost, Path: path, Token: token, Body: body}).
			ExpectStatus(t, http.StatusCreated).JSON(t)
	}
	field := func(name string) func(int64) map[string]any {
		return func(n int64) map[string]any { return map[string]any{name: fmt.Sprintf("Changed %d", n)} }
	}
	var targets []matchTarget
	for _, k := range []struct{ plural, name string }{{"events", "title"}, {"venues", "venue"}, {"organizers", "organizer"}} {
		for _, by := range []string{"id", "slug"} {
			n := matchSeq.Add(1)
			body := map[string]any{k.name: fmt.Sprintf("Matched %s %d", k.plural, n)}
			if k.plural == "events" {
				body = eventBody(body["title"].(string), 3)
			}
			rec := create("/"+k.plural, body)
			path := fmt.Sprintf("/%s/%v", k.plural, rec["id"])
			if by == "slug" {
				path = fmt.Sprintf("/%s/by-slug/%s", k.plural, rec["slug"])
			}
			targets = append(targets, matchTarget{what: k.plural + " by " + by, path: path, change: field(k.name)})
		}
	}
	for _, kind := range []string{"categories", "tags"} {
		rec := create("/"+kind, map[string]any{"name": fmt.Sprintf("Matched %s %d", kind, matchSeq.Add(1))})
		targets = append(targets, matchTarget{what: kind, path: fmt.Sprintf("/%s/%v", kind, rec["id"]),
			change: field("description")})
	}
	return targets
}

// write sends an update (PATCH) or a DELETE of the target with If-Match.
func (m matchTarget) write(app *App, method, token, ifMatch string) *Response {
	r := Request{Method: method, Path: m.path, Token: token, Header: http.Header{"If-Match": {ifMatch}}}
	if method != http.MethodDelete {
		r.Body = m.change(matchSeq.Add(1))
	}
	return app.Do(r)
}

// TestIfMatchRefusesStaleWrites updates and deletes every kind of record through every item route with an ETag
// that a later write made stale: 412, and a read shows the record as it was; with a weak tag (If-Match compares
// strongly): 412; with the current tag, a list holding it, or *: the write goes through.
func TestIfMatchRefusesStaleWrites(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	for _, target := range matchTargets(t, app, editor) {
		t.Run(target.what, func(t *testing.T) {
			stale := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK).Header.Get("ETag")
			app.Do(Request{Method: http.MethodPatch, Path: target.path, Token: editor, Body: target.change(matchSeq.Add(1))}).
				ExpectStatus(t, http.StatusOK)
			before := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK)
			current := before.Header.Get("ETag")
			if current == stale {
				t.Fatalf("the update did not change the ETag %s", current)
			}
			for _, method := range []string{http.MethodPatch, http.MethodPut, http.MethodPost, http.MethodDelete} {
				target.write(app, method, editor, stale).ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
			}
			target.write(app, http.MethodPatch, editor, "W/"+current).
				ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
			if after := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK); string(after.Body) != string(before.Body) {
				t.Fatalf("refused writes changed the record:\n%s\n%s", before.Body, after.Body)
			}

			updated := target.write(app, http.MethodPatch, editor, current).ExpectStatus(t, http.StatusOK)
			next := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK).Header.Get("ETag")
			if next == current || !strings.Contains(string(updated.Body), "Changed") {
				t.Fatalf("the update with the current ETag: %s", updated.Body)
			}
			target.write(app, http.MethodPatch, editor, `"other", `+next).ExpectStatus(t, http.StatusOK)
			target.write(app, http.MethodPatch, editor, "*").ExpectStatus(t, http.StatusOK)
			last := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK).Header.Get("ETag")
			target.write(app, http.MethodDelete, editor, last).ExpectStatus(t, http.StatusOK)
		})
	}
}

// TestIfMatchComesAfterNotFoundAndPermissions answers a write with If-Match as it would answer it without, when
// that answer is an error (RFC 9110 §13.2.1): 404 for an unknown record, 401 and 403 for callers who may not
// write, 410 for a second trashing; and If-Match on a read or a create changes nothing.
func TestIfMatchComesAfterNotFoundAndPermissions(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	subscriber := app.Token(models.RoleSubscriber)
	stale := http.Header{"If-Match": {`"stale"`}}
	app.Do(Request{Method: http.MethodPatch, Path: "/events/999999", Token: editor, Header: stale, Body: map[string]any{"title": "X"}}).
		ExpectError(t, http.StatusNotFound, "rest-event-not-found")
	app.Do(Request{Method: http.MethodPatch, Path: "/tags/999999", Token: editor, Header: stale, Body: map[string]any{"name": "X"}}).
		ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	event := app.createEvent(t, editor, eventBody("Guarded", 3))
	app.Do(Request{Method: http.MethodPatch, Path: eventPath(event), Header: stale, Body: map[string]any{"title": "X"}}).
		ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
	app.Do(Request{Method: http.MethodPatch, Path: eventPath(event), Token: subscriber, Header: stale, Body: map[string]any{"title": "X"}}).
		ExpectError(t, http.StatusForbidden, "rest_forbidden")
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(event), Token: editor}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(event), Token: editor, Header: stale}).
		ExpectError(t, http.StatusGone, "event-is-in-trash")
	app.Do(Request{Path: eventPath(event), Token: editor, Header: stale}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodPost, Path: "/tags", Token: editor, Header: stale, Body: map[string]any{"name": "Fresh"}}).
		ExpectStatus(t, http.StatusCreated)
}

// TestConcurrentWritesWithOneETagLetOneThrough sends, round after round, eight updates of one record at once, each
// with the same current ETag and a different value, for every kind: exactly one answers 200 and the others 412,
// and the record holds the value of the one that went through.
func TestConcurrentWritesWithOneETagLetOneThrough(t *testing.T) {
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	const writers = 8
	for round := 0; round < concurrencyRounds(t); round++ {
		for _, target := range matchTargets(t, app, editor) {
			if strings.Contains(target.what, "slug") {
				continue // the same rows as by ID
			}
			etag := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK).Header.Get("ETag")
			answers := make([]*Response, writers)
			concurrently(t, app, writers, func(i int) {
				answers[i] = target.write(app, http.MethodPatch, editor, etag)
			})
			won := 0
			var winner *Response
			for _, res := range answers {
				switch res.Status {
				case http.StatusOK:
					won++
					winner = res
				case http.StatusPreconditionFailed:
				default:
					t.Fatalf("%s: a concurrent write answered %d %s", target.what, res.Status, res.Body)
				}
			}
			if won != 1 {
				t.Fatalf("%s: %d of %d writes with one ETag went through", target.what, won, writers)
			}
			now := app.Get(target.path, editor).ExpectStatus(t, http.StatusOK)
			if !sameRecord(t, winner, now) {
				t.Fatalf("%s: the record is not the one the winner was told:\n%s\n%s", target.what, winner.Body, now.Body)
			}
		}
	}
	t.Logf("%d rounds of %d concurrent writes with one ETag on 5 kinds", concurrencyRounds(t), writers)
}

// sameRecord tells whether a write's answer and a later read show the same field values (a read adds json_ld).
func sameRecord(t *testing.T, written, read *Response) bool {
	t.Helper()
	w, r := written.JSON(t), read.JSON(t)
	for key, v := range w {
		if fmt.Sprint(v) != fmt.Sprint(r[key]) {
			return false
		}
	}
	return true
}
