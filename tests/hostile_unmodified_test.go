package tests

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"calendar/models"
)

func TestIfUnmodifiedSinceGuardsEveryConditionalWrite(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	event := app.createEvent(t, editor, eventBody("Dated", 2))
	venue := app.create(t, editor, "/venues", map[string]any{"venue": "Hall"})
	organizer := app.create(t, editor, "/organizers", map[string]any{"organizer": "Org"})
	paths := []struct{ item, bySlug, field string }{
		{eventPath(event), fmt.Sprintf("/events/by-slug/%v", event["slug"]), "title"},
		{fmt.Sprintf("/venues/%v", venue["id"]), fmt.Sprintf("/venues/by-slug/%v", venue["slug"]), "venue"},
		{fmt.Sprintf("/organizers/%v", organizer["id"]), fmt.Sprintf("/organizers/by-slug/%v", organizer["slug"]), "organizer"},
	}
	for _, p := range paths {
		for _, path := range []string{p.item, p.bySlug} {
			read := app.Get(path, editor).ExpectStatus(t, http.StatusOK)
			lastModified, err := http.ParseTime(read.Header.Get("Last-Modified"))
			if err != nil {
				t.Fatalf("%s: Last-Modified %q", path, read.Header.Get("Last-Modified"))
			}
			before := lastModified.Add(-time.Second).Format(http.TimeFormat)
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
				res := app.Do(Request{Method: method, Path: path, Token: editor, Body: map[string]any{p.field: "Changed"},
					Header: http.Header{"If-Unmodified-Since": {before}}})
				res.ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
				if now := app.Get(path, editor).ExpectStatus(t, http.StatusOK); string(now.Body) != string(read.Body) {
					t.Fatalf("%s %s with an older If-Unmodified-Since changed the record", method, path)
				}
			}
			// If-Match, when sent, decides alone.
			app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{p.field: "By tag"},
				Header: http.Header{"If-Unmodified-Since": {before}, "If-Match": {read.Header.Get("ETag")}}}).
				ExpectStatus(t, http.StatusOK)
			// A date at or after the last change lets the write through; so does one that is not a date.
			current := app.Get(path, editor).ExpectStatus(t, http.StatusOK).Header.Get("Last-Modified")
			app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{p.field: "Later"},
				Header: http.Header{"If-Unmodified-Since": {current}}}).ExpectStatus(t, http.StatusOK)
			app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{p.field: "Again"},
				Header: http.Header{"If-Unmodified-Since": {"yesterday"}}}).ExpectStatus(t, http.StatusOK)
		}
	}
	// An event's last change includes its venue's.
	linked := app.createEvent(t, editor, eventBody("Linked", 2, "venue", venue["id"]))
	stamp := app.Get(eventPath(linked), editor).Header.Get("Last-Modified")
	time.Sleep(1100 * time.Millisecond)
	app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/venues/%v", venue["id"]), Token: editor,
		Body: map[string]any{"venue": "Renamed hall"}}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodPatch, Path: eventPath(linked), Token: editor, Body: map[string]any{"title": "x"},
		Header: http.Header{"If-Unmodified-Since": {stamp}}}).ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
}

// TestIfUnmodifiedSinceGuardsTermWrites is the same rule for categories and tags, whose last change is what moves
// their ETag: their own fields, their counts (which move without a write of the term), and for a category the
// slugs and line of its ancestors, which its URL shows.
func TestIfUnmodifiedSinceGuardsTermWrites(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	for _, collection := range []string{"/categories", "/tags"} {
		term := app.create(t, editor, collection, map[string]any{"name": "Guarded"})
		path := fmt.Sprintf("%s/%v", collection, term["id"])
		read := app.Get(path, editor).ExpectStatus(t, http.StatusOK)
		before := termLastModified(t, read).Add(-time.Second).Format(http.TimeFormat)
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			app.Do(Request{Method: method, Path: path, Token: editor, Body: map[string]any{"name": "Changed"},
				Header: http.Header{"If-Unmodified-Since": {before}}}).
				ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
			if now := app.Get(path, editor).ExpectStatus(t, http.StatusOK); string(now.Body) != string(read.Body) {
				t.Fatalf("%s %s with an older If-Unmodified-Since changed the term", method, path)
			}
		}
		// If-Match, when sent, decides alone.
		app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{"name": "By tag"},
			Header: http.Header{"If-Unmodified-Since": {before}, "If-Match": {read.Header.Get("ETag")}}}).
			ExpectStatus(t, http.StatusOK)
		// A date at or after the last change lets the write through; so does one that is not a date.
		current := app.Get(path, editor).ExpectStatus(t, http.StatusOK).Header.Get("Last-Modified")
		app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{"name": "Later"},
			Header: http.Header{"If-Unmodified-Since": {current}}}).ExpectStatus(t, http.StatusOK)
		app.Do(Request{Method: http.MethodPatch, Path: path, Token: editor, Body: map[string]any{"name": "Again"},
			Header: http.Header{"If-Unmodified-Since": {"yesterday"}}}).ExpectStatus(t, http.StatusOK)
		current = app.Get(path, editor).ExpectStatus(t, http.StatusOK).Header.Get("Last-Modified")
		app.Do(Request{Method: http.MethodDelete, Path: path, Token: editor,
			Header: http.Header{"If-Unmodified-Since": {current}}}).ExpectStatus(t, http.StatusOK)
		app.Get(path, editor).ExpectError(t, http.StatusNotFound, "rest_term_invalid")
	}

	// Changes that are not writes of the term move its last change too; a term they do not concern keeps its own.
	counted := app.create(t, editor, "/tags", map[string]any{"name": "Counted"})
	untouched := app.create(t, editor, "/tags", map[string]any{"name": "Untouched"})
	parent := app.create(t, editor, "/categories", map[string]any{"name": "Parent"})
	child := app.create(t, editor, "/categories", map[string]any{"name": "Child", "parent": parent["id"]})
	grandchild := app.create(t, editor, "/categories", map[string]any{"name": "Grandchild", "parent": child["id"]})
	doomed := app.create(t, editor, "/categories", map[string]any{"name": "Doomed"})
	orphan := app.create(t, editor, "/categories", map[string]any{"name": "Orphan", "parent": doomed["id"]})
	paths := map[string]string{"counted": fmt.Sprintf("/tags/%v", counted["id"]),
		"untouched": fmt.Sprintf("/tags/%v", untouched["id"]), "grandchild": fmt.Sprintf("/categories/%v", grandchild["id"]),
		"orphan": fmt.Sprintf("/categories/%v", orphan["id"])}
	stamps := map[string]string{}
	for name, path := range paths {
		stamps[name] = app.Get(path, editor).ExpectStatus(t, http.StatusOK).Header.Get("Last-Modified")
	}
	time.Sleep(1100 * time.Millisecond) // Last-Modified counts seconds
	app.createEvent(t, editor, eventBody("Counts", 2, "status", "publish", "tags", []any{counted["id"]}))
	app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/categories/%v", parent["id"]), Token: editor,
		Body: map[string]any{"slug": "renamed-parent"}}).ExpectStatus(t, http.StatusOK)
	app.Do(Request{Method: http.MethodDelete, Path: fmt.Sprintf("/categories/%v", doomed["id"]), Token: editor}).
		ExpectStatus(t, http.StatusOK)
	for _, name := range []string{"counted", "grandchild", "orphan"} {
		res := app.Get(paths[name], editor).ExpectStatus(t, http.StatusOK)
		if !termLastModified(t, res).After(mustHTTPTime(t, stamps[name])) {
			t.Errorf("%s %s: Last-Modified %s after its answer changed, as before", name, paths[name], res.Header.Get("Last-Modified"))
		}
		app.Do(Request{Method: http.MethodPatch, Path: paths[name], Token: editor, Body: map[string]any{"description": "x"},
			Header: http.Header{"If-Unmodified-Since": {stamps[name]}}}).
			ExpectError(t, http.StatusPreconditionFailed, "rest_precondition_failed")
	}
	if got := app.Get(paths["untouched"], editor).Header.Get("Last-Modified"); got != stamps["untouched"] {
		t.Errorf("an untouched tag's Last-Modified moved from %s to %s", stamps["untouched"], got)
	}

	// Folding the pending count changes into the counts changes neither the answer nor its date. The reads are
	// authenticated, so that they are built, not taken from the response cache.
	unfolded := app.Get(paths["counted"], editor).ExpectStatus(t, http.StatusOK)
	if _, err := app.Store.CompactTermCounts(t.Context()); err != nil {
		t.Fatal(err)
	}
	folded := app.Get(paths["counted"], editor).ExpectStatus(t, http.StatusOK)
	if folded.Header.Get("Last-Modified") != unfolded.Header.Get("Last-Modified") || folded.Header.Get("ETag") != unfolded.Header.Get("ETag") {
		t.Errorf("compaction moved the counted tag from %s %s to %s %s", unfolded.Header.Get("Last-Modified"),
			unfolded.Header.Get("ETag"), folded.Header.Get("Last-Modified"), folded.Header.Get("ETag"))
	}
}

// termLastModified is the Last-Modified of a term's answer, which every term read carries.
func termLastModified(t *testing.T, res *Response) time.Time {
	t.Helper()
	return mustHTTPTime(t, res.Header.Get("Last-Modified"))
}

// mustHTTPTime parses an HTTP date.
func mustHTTPTime(t *testing.T, value string) time.Time {
	t.Helper()
	at, err := http.ParseTime(value)
	if err != nil {
		t.Fatalf("%q is not an HTTP date", value)
	}
	return at
}
