package tests

import (
	"net/http"
	"testing"

	"calendar/models"
)

func TestEventImages(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAuthor)
	first := app.createEvent(t, token, eventBody("One", 2, "image", "http://example.localhost/some-image.png"))
	img := first["image"].(map[string]any)
	if img["url"] != "http://example.localhost/some-image.png" || img["extension"] != "png" {
		t.Fatalf("image %v", img)
	}
	again := app.createEvent(t, token, eventBody("Two", 2, "image", "http://example.localhost/some-image.png"))
	if again["image"].(map[string]any)["id"] != img["id"] {
		t.Fatalf("the same URL was recorded twice: %v / %v", again["image"], img)
	}
	byID := app.createEvent(t, token, eventBody("Three", 2, "image", img["id"]))
	if !jsonEqual(byID["image"], img) {
		t.Fatalf("by ID %v", byID["image"])
	}
	noExt := app.createEvent(t, token, eventBody("Four", 2, "image", "https://cdn.example/images/12345"))
	if e := noExt["image"].(map[string]any); e["extension"] != nil || e["url"] != "https://cdn.example/images/12345" {
		t.Fatalf("image without extension %v", e)
	}
	t.Run("contributors may only use known images", func(t *testing.T) {
		contributor := app.Token(models.RoleContributor)
		expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: contributor,
			Body: eventBody("C", 2, "image", "https://new.example/x.jpg")}), "image")
		app.createEvent(t, contributor, eventBody("C", 2, "image", img["id"]))
	})
	t.Run("an update replaces or removes it", func(t *testing.T) {
		u := app.updateEvent(t, http.MethodPatch, eventPath(first), token, map[string]any{"image": "https://x.example/b.JPEG"})
		if u["image"].(map[string]any)["extension"] != "jpeg" {
			t.Fatalf("image %v", u["image"])
		}
		if u := app.updateEvent(t, http.MethodPatch, eventPath(first), token, map[string]any{"title": "Same"}); u["image"] == false {
			t.Fatal("an update without image removed it")
		}
		for _, none := range []any{nil, "", 0} {
			app.updateEvent(t, http.MethodPatch, eventPath(first), token, map[string]any{"image": img["id"]})
			if u := app.updateEvent(t, http.MethodPatch, eventPath(first), token, map[string]any{"image": none}); u["image"] != false {
				t.Fatalf("image %#v did not remove it: %v", none, u["image"])
			}
		}
	})
}

func TestEventCosts(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	cases := []struct {
		name     string
		cost     any
		want     string
		symbol   string
		position string
		values   []string
	}{
		{"a postfix symbol", "20$", "20$", "$", "postfix", []string{"20"}},
		{"a list of values", []any{"0$", "20$", "30$"}, "Free – 30$", "$", "postfix", []string{"0", "20", "30"}},
		{"a number without symbol takes the site currency", 15, "$15", "$", "prefix", []string{"15"}},
		{"a prefix euro", "€ 12.50", "€12.50", "€", "prefix", []string{"12.50"}},
		{"free", "0", "Free", "$", "prefix", []string{"0"}},
		{"text only", "Donation", "Donation", "", "", []string{}},
		{"none", "", "", "", "", []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := app.createEvent(t, token, eventBody(c.name, 2, "cost", c.cost))
			d := e["cost_details"].(map[string]any)
			if e["cost"] != c.want || d["currency_symbol"] != c.symbol || d["currency_position"] != c.position ||
				!jsonEqual(d["values"], c.values) {
				t.Fatalf("cost %q details %v", e["cost"], d)
			}
		})
	}
	t.Run("the site currency is configurable", func(t *testing.T) {
		euro := NewApp(t, WithEnv("CALENDAR_CURRENCY_SYMBOL", "€", "CALENDAR_CURRENCY_POSITION", "postfix"))
		e := euro.createEvent(t, euro.Token(models.RoleEditor), eventBody("E", 2, "cost", "25"))
		if e["cost"] != "25€" {
			t.Fatalf("cost %v", e["cost"])
		}
	})
}

func TestEventWebsitesAndFlags(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleAuthor)
	plain := app.createEvent(t, token, eventBody("Plain", 2))
	if plain["website"] != plain["url"] {
		t.Fatalf("website %v, want the event's page %v", plain["website"], plain["url"])
	}
	for _, k := range []string{"show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "ticketed", "all_day"} {
		if plain[k] != false {
			t.Errorf("%s defaults to %v", k, plain[k])
		}
	}
	for _, flag := range []string{"show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "ticketed"} {
		t.Run(flag, func(t *testing.T) {
			for _, v := range []any{true, "true", 1, "1", "yes", "on"} {
				if e := app.createEvent(t, token, eventBody(flag, 2, flag, v)); e[flag] != true {
					t.Fatalf("%s=%#v gives %v", flag, v, e[flag])
				}
			}
			for _, v := range []any{false, "false", 0, "0", "no", "off"} {
				if e := app.createEvent(t, token, eventBody(flag, 2, flag, v)); e[flag] != false {
					t.Fatalf("%s=%#v gives %v", flag, v, e[flag])
				}
			}
		})
	}
	site := app.createEvent(t, token, eventBody("Site", 2, "website", "http://tri.be"))
	if site["website"] != "http://tri.be" {
		t.Fatalf("website %v", site["website"])
	}
}

func TestParentEvents(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	root := app.createEvent(t, token, eventBody("Root", 2))
	child := app.createEvent(t, token, eventBody("Child", 2, "parent", root["id"]))
	grandchild := app.createEvent(t, token, eventBody("Grandchild", 2, "parent", child["id"]))
	if child["parent"] != root["id"] || grandchild["parent"] != child["id"] || root["parent"] != float64(0) {
		t.Fatalf("parents %v %v %v", root["parent"], child["parent"], grandchild["parent"])
	}
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(root), Token: token,
		Body: map[string]any{"parent": root["id"]}}), "parent")
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(root), Token: token,
		Body: map[string]any{"parent": grandchild["id"]}}), "parent")
	expectInvalid(t, app.Do(Request{Method: http.MethodPatch, Path: eventPath(root), Token: token,
		Body: map[string]any{"parent": 2389}}), "parent")
	t.Run("a parent the caller cannot read does not exist for them", func(t *testing.T) {
		draft := app.createEvent(t, token, eventBody("Hidden", 2, "status", "draft"))
		contributor := app.Token(models.RoleContributor)
		expectInvalid(t, app.Do(Request{Method: http.MethodPost, Path: "/events", Token: contributor,
			Body: eventBody("Mine", 2, "parent", draft["id"])}), "parent")
	})
	for _, none := range []any{0, "", nil} {
		app.updateEvent(t, http.MethodPatch, eventPath(grandchild), token, map[string]any{"parent": child["id"]})
		if u := app.updateEvent(t, http.MethodPatch, eventPath(grandchild), token, map[string]any{"parent": none}); u["parent"] != float64(0) {
			t.Fatalf("parent %#v did not remove it: %v", none, u["parent"])
		}
	}
	app.Do(Request{Method: http.MethodDelete, Path: eventPath(root) + "?force=1", Token: token}).ExpectStatus(t, http.StatusOK)
	if got := app.Get(eventPath(child)).JSON(t); got["parent"] != float64(0) {
		t.Fatalf("a child of a deleted event keeps parent %v", got["parent"])
	}
}

func TestLinkedRecordsAreEmptyUntilLinked(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor)
	e := app.createEvent(t, token, eventBody("Alone", 2, "venue", 0, "organizer", []any{}, "categories", "", "tags", nil))
	for _, k := range []string{"venue", "organizer", "categories", "tags"} {
		if list, ok := e[k].([]any); !ok || len(list) != 0 {
			t.Fatalf("%s = %v", k, e[k])
		}
	}
}
