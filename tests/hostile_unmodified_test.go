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
