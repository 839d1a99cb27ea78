package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"calendar/models"
)

// actor is a user of a permission test: a role with a token and an ID ("" token for anonymous callers).
type actor struct {
	role  string
	id    uint64
	token string
}

func (a *App) actors(t *testing.T) []actor {
	t.Helper()
	out := []actor{{role: "anonymous"}}
	for _, role := range []models.Role{models.RoleSubscriber, models.RoleContributor, models.RoleAuthor,
		models.RoleEditor, models.RoleAdministrator} {
		login, token := a.User(role)
		out = append(out, actor{role: string(role), id: a.userID(login), token: token})
	}
	return out
}

func TestScaleBackOfTheStatus(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	contributor := app.Token(models.RoleContributor)
	author := app.Token(models.RoleAuthor)
	editor := app.Token(models.RoleEditor)
	cases := []struct {
		token, sent, want string
	}{
		{contributor, "publish", "pending"},
		{contributor, "future", "pending"},
		{contributor, "", "draft"},
		{contributor, "draft", "draft"},
		{contributor, "pending", "pending"},
		{contributor, "private", "private"},
		{author, "", "publish"},
		{author, "publish", "publish"},
		{author, "draft", "draft"},
		{editor, "future", "future"},
		{editor, "private", "private"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d %s", i, c.sent), func(t *testing.T) {
			body := eventBody("S", 2)
			if c.sent != "" {
				body["status"] = c.sent
			}
			if e := app.createEvent(t, c.token, body); e["status"] != c.want {
				t.Fatalf("status %v, want %s", e["status"], c.want)
			}
		})
	}
	t.Run("an update without status keeps it", func(t *testing.T) {
		draft := app.createEvent(t, editor, eventBody("Draft", 2, "status", "draft"))
		if u := app.updateEvent(t, http.MethodPost, eventPath(draft), editor, map[string]any{"title": "Still"}); u["status"] != "draft" {
			t.Fatalf("status %v", u["status"])
		}
		if u := app.updateEvent(t, http.MethodPost, eventPath(draft), editor, map[string]any{"status": "publish"}); u["status"] != "publish" {
			t.Fatalf("status %v", u["status"])
		}
	})
	t.Run("a contributor's update to publish becomes pending", func(t *testing.T) {
		own := app.createEvent(t, contributor, eventBody("Mine", 2))
		if u := app.updateEvent(t, http.MethodPatch, eventPath(own), contributor, map[string]any{"status": "publish"}); u["status"] != "pending" {
			t.Fatalf("status %v", u["status"])
		}
	})
}

func TestThePermissionMatrixOfEventWrites(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	actors := app.actors(t)
	allowed := map[string]map[string]bool{ // role → "own/others published/unpublished" → may update and delete
		"anonymous":     {},
		"subscriber":    {},
		"contributor":   {"own unpublished": true},
		"author":        {"own unpublished": true, "own published": true},
		"editor":        {"own unpublished": true, "own published": true, "others unpublished": true, "others published": true},
		"administrator": {"own unpublished": true, "own published": true, "others unpublished": true, "others published": true},
	}
	other := actors[len(actors)-2] // the editor owns the others' events
	for _, a := range actors {
		for _, owner := range []string{"own", "others"} {
			for _, status := range []string{"published", "unpublished"} {
				for _, op := range []string{"update", "delete"} {
					name := fmt.Sprintf("%s %s %s %s", a.role, op, owner, status)
					t.Run(name, func(t *testing.T) {
						authorID := other.id
						if owner == "own" {
							if a.id == 0 {
								t.Skip("anonymous callers own nothing")
							}
							authorID = a.id
						}
						if owner == "others" && a.id == other.id {
							authorID = actors[len(actors)-1].id
						}
						st := "publish"
						if status == "unpublished" {
							st = "draft"
						}
						e := app.createEvent(t, admin, eventBody(name, 3, "author", authorID, "status", st))
						var res *Response
						if op == "update" {
							res = app.Do(Request{Method: http.MethodPut, Path: eventPath(e), Token: a.token,
								Body: map[string]any{"title": "Changed"}})
						} else {
							res = app.Do(Request{Method: http.MethodDelete, Path: eventPath(e), Token: a.token})
						}
						switch {
						case a.token == "":
							res.ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
						case allowed[a.role][owner+" "+status]:
							res.ExpectStatus(t, http.StatusOK)
						default:
							res.ExpectError(t, http.StatusForbidden, "rest_forbidden")
						}
					})
				}
			}
		}
	}
}

func TestOnlyEditorsAssignEventsToOthers(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	actors := app.actors(t)
	contributor, author, editor := actors[2], actors[3], actors[4]
	expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: author.token,
		Body: eventBody("Gift", 1, "author", editor.id)}), "author")
	expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: contributor.token,
		Body: eventBody("Gift", 1, "author", author.id)}), "author")
	own := app.createEvent(t, author.token, eventBody("Self", 1, "author", author.id))
	if own["author"] != strconv.FormatUint(author.id, 10) {
		t.Fatalf("author %v", own["author"])
	}
	given := app.createEvent(t, editor.token, eventBody("Given", 1, "author", contributor.id))
	if given["author"] != strconv.FormatUint(contributor.id, 10) {
		t.Fatalf("author %v", given["author"])
	}
}

func TestReadingSingleEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	actors := app.actors(t)
	contributor, editor := actors[2], actors[4]
	published := app.createEvent(t, editor.token, eventBody("Public", 3))
	for _, status := range []string{"draft", "pending", "private", "future"} {
		t.Run(status+" is not accessible to visitors", func(t *testing.T) {
			e := app.createEvent(t, editor.token, eventBody(status, 3, "status", status))
			app.Get(eventPath(e)).ExpectError(t, http.StatusForbidden, "event-not-accessible")
			app.Get(eventPath(e), actors[1].token).ExpectError(t, http.StatusForbidden, "event-not-accessible")
			app.Get("/events/by-slug/"+e["slug"].(string)).ExpectError(t, http.StatusForbidden, "event-not-accessible")
			app.Get(eventPath(e), editor.token).ExpectStatus(t, http.StatusOK)
		})
	}
	t.Run("a contributor reads their own draft", func(t *testing.T) {
		e := app.createEvent(t, contributor.token, eventBody("Mine", 3))
		if got := app.Get(eventPath(e), contributor.token).ExpectStatus(t, http.StatusOK).JSON(t); got["status"] != "draft" {
			t.Fatalf("status %v", got["status"])
		}
		app.Get(eventPath(e), actors[3].token).ExpectError(t, http.StatusForbidden, "event-not-accessible")
	})
	t.Run("by ID and by slug answer the same record with JSON-LD", func(t *testing.T) {
		byID := app.Get(eventPath(published)).ExpectStatus(t, http.StatusOK).JSON(t)
		bySlug := app.Get("/events/by-slug/public").ExpectStatus(t, http.StatusOK).JSON(t)
		if !jsonEqual(byID, bySlug) {
			t.Fatalf("by ID %v\nby slug %v", byID, bySlug)
		}
		ld, _ := byID["json_ld"].(map[string]any)
		if ld["@type"] != "Event" || ld["@context"] != "http://schema.org" || ld["name"] != "Public" ||
			ld["url"] != byID["url"] || ld["startDate"] != byID["start_date"].(string)[:10]+"T10:00:00+00:00" {
			t.Fatalf("json_ld = %v", ld)
		}
	})
}

func TestTrashRestoreAndPermanentDelete(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	actors := app.actors(t)
	contributor, author, editor := actors[2], actors[3], actors[4]
	e := app.createEvent(t, author.token, eventBody("Doomed", 3))
	trashed := app.Do(Request{Method: http.MethodDelete, Path: eventPath(e), Token: author.token}).
		ExpectStatus(t, http.StatusOK).JSON(t)
	if trashed["status"] != "trash" || trashed["id"] != e["id"] || trashed["slug"] != "doomed" {
		t.Fatalf("trashed: %v %v", trashed["status"], trashed["slug"])
	}
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(e), Token: author.token}).
		ExpectError(t, http.StatusGone, "event-is-in-trash")
	app.Do(Request{Method: http.MethodDelete, Path: "/events/by-slug/doomed", Token: editor.token}).
		ExpectError(t, http.StatusGone, "event-is-in-trash")
	t.Run("only its editors read a trashed event", func(t *testing.T) {
		for _, a := range []actor{actors[0], actors[1], contributor} {
			app.Get(eventPath(e), a.token).ExpectError(t, http.StatusForbidden, "event-no-longer-available")
		}
		for _, a := range []actor{author, editor} {
			if got := app.Get(eventPath(e), a.token).ExpectStatus(t, http.StatusOK).JSON(t); got["status"] != "trash" {
				t.Fatalf("status %v", got["status"])
			}
		}
	})
	t.Run("a trashed event is not listed", func(t *testing.T) {
		if ids := app.listIDs(t, "", editor.token); len(ids) != 0 {
			t.Fatalf("listed %v", ids)
		}
		if ids := app.listIDs(t, "status=trash", editor.token); !slices.Equal(ids, []uint64{idOf(t, e)}) {
			t.Fatalf("status=trash lists %v", ids)
		}
	})
	t.Run("an update that sets a status restores it", func(t *testing.T) {
		kept := app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"title": "Doomed still"})
		if kept["status"] != "trash" {
			t.Fatalf("an update without status restored the event: %v", kept["status"])
		}
		restored := app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"status": "publish"})
		if restored["status"] != "publish" {
			t.Fatalf("status %v", restored["status"])
		}
		app.Get(eventPath(e)).ExpectStatus(t, http.StatusOK)
	})
	t.Run("status trash on update trashes", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(e), editor.token, map[string]any{"status": "trash"})
		if u["status"] != "trash" {
			t.Fatalf("status %v", u["status"])
		}
		app.updateEvent(t, http.MethodPatch, eventPath(e), editor.token, map[string]any{"status": "publish"})
	})
	t.Run("force deletes permanently and answers the record as it was", func(t *testing.T) {
		gone := app.Do(Request{Method: http.MethodDelete, Path: eventPath(e) + "?force=true", Token: editor.token}).
			ExpectStatus(t, http.StatusOK).JSON(t)
		if gone["status"] != "publish" || gone["title"] != "Doomed still" {
			t.Fatalf("deleted record: %v %v", gone["status"], gone["title"])
		}
		app.Get(eventPath(e), editor.token).ExpectError(t, http.StatusNotFound, "rest-event-not-found")
		if n := app.count(t, "events"); n != 0 {
			t.Fatalf("%d events left", n)
		}
	})
	t.Run("a contributor deletes their own draft, even from the trash", func(t *testing.T) {
		own := app.createEvent(t, contributor.token, eventBody("Draft", 3))
		app.Do(Request{Method: http.MethodDelete, Path: "/events/by-slug/draft", Token: contributor.token}).ExpectStatus(t, http.StatusOK)
		app.Do(Request{Method: http.MethodDelete, Path: eventPath(own), Token: contributor.token, Body: map[string]any{"force": true}}).
			ExpectStatus(t, http.StatusOK)
	})
}

func TestPasswordProtectedEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	actors := app.actors(t)
	author, editor := actors[3], actors[4]
	e := app.createEvent(t, author.token, eventBody("Secret Gala", 3, "password", "opensesame", "cost", "50",
		"description", "<p>Hidden</p>", "featured", true, "website", "https://gala.example"))
	if _, ok := e["password"]; ok {
		t.Fatal("the password is returned")
	}
	app.Get(eventPath(e)).ExpectError(t, http.StatusForbidden, "event-password-protected")
	app.Get(eventPath(e)+"?password=wrong").ExpectError(t, http.StatusForbidden, "event-password-protected")
	app.Get(eventPath(e), actors[2].token).ExpectError(t, http.StatusForbidden, "event-password-protected")
	expectInvalid(t, app.Get(eventPath(e)+"?password="), "password")
	if got := app.Get(eventPath(e)+"?password=opensesame").ExpectStatus(t, http.StatusOK).JSON(t); got["description"] != "<p>Hidden</p>" {
		t.Fatalf("unlocked description %v", got["description"])
	}
	for _, a := range []actor{author, editor} {
		app.Get(eventPath(e), a.token).ExpectStatus(t, http.StatusOK)
	}
	t.Run("lists redact it for those who cannot edit it", func(t *testing.T) {
		list := app.Get("/events").ExpectStatus(t, http.StatusOK).JSON(t)["events"].([]any)
		got := list[0].(map[string]any)
		redacted := map[string]any{"description": "", "excerpt": "", "cost": "", "website": "", "image": false,
			"all_day": nil, "show_map": nil, "show_map_link": nil, "hide_from_listings": nil, "sticky": nil,
			"featured": nil, "ticketed": nil}
		for k, v := range redacted {
			if got[k] != v {
				t.Errorf("%s = %#v, want %#v", k, got[k], v)
			}
		}
		if got["title"] != "Secret Gala" || got["slug"] != "secret-gala" || got["start_date"] != e["start_date"] ||
			got["url"] != e["url"] {
			t.Errorf("visible fields were redacted: %v", got)
		}
		cd := got["cost_details"].(map[string]any)
		if cd["currency_symbol"] != "" || len(cd["values"].([]any)) != 0 {
			t.Errorf("cost_details %v", cd)
		}
		full := app.Get("/events", editor.token).JSON(t)["events"].([]any)[0].(map[string]any)
		if full["description"] != "<p>Hidden</p>" || full["featured"] != true {
			t.Errorf("an editor sees a redacted record: %v", full)
		}
	})
	t.Run("an update changes or removes it", func(t *testing.T) {
		app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"password": "other"})
		app.Get(eventPath(e)+"?password=opensesame").ExpectError(t, http.StatusForbidden, "event-password-protected")
		app.Get(eventPath(e)+"?password=other").ExpectStatus(t, http.StatusOK)
		app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"title": "Kept"})
		app.Get(eventPath(e)+"?password=other").ExpectStatus(t, http.StatusOK)
		app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"password": ""})
		app.Get(eventPath(e)).ExpectStatus(t, http.StatusOK)
	})
	t.Run("it is stored only as a hash", func(t *testing.T) {
		app.updateEvent(t, http.MethodPatch, eventPath(e), author.token, map[string]any{"password": "opensesame"})
		// How it is stored is what is asserted (storedPasswords says why it reads the table); e is the app's only
		// event, so it is the one password stored.
		if stored := storedPasswords(t, app, "events"); len(stored) != 1 || stored[0] == "opensesame" {
			t.Fatalf("stored passwords %q", stored)
		}
	})
}
