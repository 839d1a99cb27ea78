package tests

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"testing"

	"calendar/models"
)

// formField is one text part of a multipart body; fields keep their order, and a name may repeat.
type formField struct{ name, value string }

// multipartBody builds a multipart/form-data body as `curl -F` sends it: the text fields in order, then a file
// part (which every route ignores). It returns the body and its Content-Type with the boundary.
func multipartBody(t *testing.T, fields ...formField) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f.name, f.value); err != nil {
			t.Fatal(err)
		}
	}
	file, err := w.CreateFormFile("attachment", "notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := file.Write([]byte("a file part that the service ignores\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// sendMultipart sends a multipart body to the route and expects the status.
func (a *App) sendMultipart(t *testing.T, method, path, token string, want int, fields ...formField) map[string]any {
	t.Helper()
	body, contentType := multipartBody(t, fields...)
	return a.Do(Request{Method: method, Path: path, Token: token, Body: body, ContentType: contentType}).
		ExpectStatus(t, want).JSON(t)
}

func TestEveryKindOfWriteAcceptsAMultipartBody(t *testing.T) {
	app := NewApp(t)
	token := app.Token(models.RoleAdministrator)

	t.Run("an event is created from a multipart body, lists and all", func(t *testing.T) {
		venue := venueTestKind.create(t, app, token, "Multipart Hall", nil)
		event := app.sendMultipart(t, http.MethodPost, "/events", token, http.StatusCreated,
			formField{"title", "Form-posted concert"}, formField{"start_date", daysFromNow(3, 19)},
			formField{"end_date", daysFromNow(3, 21)}, formField{"tags[]", "jazz"}, formField{"tags[]", "live"},
			formField{"venue", fmt.Sprint(venue["id"])}, formField{"featured", "yes"})
		if event["title"] != "Form-posted concert" || event["featured"] != true {
			t.Fatalf("title %v, featured %v", event["title"], event["featured"])
		}
		if tags := event["tags"].([]any); len(tags) != 2 {
			t.Fatalf("tags %v, want jazz and live", tags)
		}
		if v, ok := event["venue"].(map[string]any); !ok || v["id"] != venue["id"] {
			t.Fatalf("venue %v, want %v", event["venue"], venue["id"])
		}
	})

	t.Run("an event is updated from a multipart body by POST, PUT and PATCH, by ID and by slug", func(t *testing.T) {
		event := app.createEvent(t, token, eventBody("Before", 4))
		for _, c := range []struct{ method, path string }{
			{http.MethodPost, eventPath(event)},
			{http.MethodPut, eventPath(event)},
			{http.MethodPatch, "/events/by-slug/" + event["slug"].(string)},
		} {
			title := "After " + c.method
			got := app.sendMultipart(t, c.method, c.path, token, http.StatusOK, formField{"title", title})
			if got["title"] != title || got["slug"] != event["slug"] {
				t.Fatalf("%s %s: title %v, slug %v", c.method, c.path, got["title"], got["slug"])
			}
		}
	})

	t.Run("an event is deleted with a multipart body's force", func(t *testing.T) {
		event := app.createEvent(t, token, eventBody("Doomed", 5))
		app.sendMultipart(t, http.MethodDelete, eventPath(event), token, http.StatusOK, formField{"force", "true"})
		app.Get(eventPath(event), token).ExpectStatus(t, http.StatusNotFound)
	})

	forEachKind(t, func(t *testing.T, k linkedKind) {
		rec := app.sendMultipart(t, http.MethodPost, "/"+k.plural, token, http.StatusCreated,
			formField{k.name, "Form " + k.name}, formField{"phone", "555-0199"})
		if rec[k.name] != "Form "+k.name || rec["phone"] != "555-0199" {
			t.Fatalf("created %v", rec)
		}
		rec = app.sendMultipart(t, http.MethodPatch, k.path(rec["id"]), token, http.StatusOK,
			formField{"phone", "555-0198"})
		if rec[k.name] != "Form "+k.name || rec["phone"] != "555-0198" {
			t.Fatalf("updated %v", rec)
		}
		app.sendMultipart(t, http.MethodDelete, k.path(rec["id"]), token, http.StatusOK, formField{"force", "1"})
		app.Get(k.path(rec["id"]), token).ExpectStatus(t, http.StatusNotFound)
	})

	for _, collection := range []string{"categories", "tags"} {
		t.Run(collection+" are created and updated from multipart bodies", func(t *testing.T) {
			term := app.sendMultipart(t, http.MethodPost, "/"+collection, token, http.StatusCreated,
				formField{"name", "Form term"}, formField{"description", "Sent as form data"})
			if term["name"] != "Form term" || term["description"] != "Sent as form data" {
				t.Fatalf("created %v", term)
			}
			path := fmt.Sprintf("/%s/%v", collection, term["id"])
			term = app.sendMultipart(t, http.MethodPut, path, token, http.StatusOK, formField{"name", "Renamed term"})
			if term["name"] != "Renamed term" {
				t.Fatalf("updated %v", term)
			}
		})
	}

	t.Run("a multipart body whose boundary does not match is still 400 rest_invalid_form", func(t *testing.T) {
		body, _ := multipartBody(t, formField{"title", "x"})
		app.Do(Request{Method: http.MethodPost, Path: "/events", Token: token, Body: body,
			ContentType: "multipart/form-data; boundary=not-the-one"}).
			ExpectError(t, http.StatusBadRequest, "rest_invalid_form")
	})
}
