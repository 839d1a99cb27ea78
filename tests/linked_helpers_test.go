package tests

import (
	"fmt"
	"net/http"
	"testing"

	"calendar/models"
)

// linkedKind names one of the two kinds of linked records for tests that run on both.
type linkedKind struct {
	name   string // the name parameter and singular: "venue"
	plural string // "venues"
	// fields are optional parameters with values, each echoed as given in the record.
	fields map[string]string
	// searched and unsearched are text fields that list search does and does not look at.
	searched, unsearched string
}

var (
	venueTestKind = linkedKind{name: "venue", plural: "venues",
		fields: map[string]string{"address": "9 Side St", "city": "Bristol", "country": "United States",
			"province": "Avon", "state": "IL", "zip": "60000", "phone": "555-0100",
			"stateprovince": "IL", "website": "https://venue.example.com"},
		searched: "city", unsearched: "country"}
	organizerTestKind = linkedKind{name: "organizer", plural: "organizers",
		fields:   map[string]string{"phone": "555-0200", "website": "https://org.example.com", "email": "org@example.com"},
		searched: "email", unsearched: ""}
	linkedTestKinds = []linkedKind{venueTestKind, organizerTestKind}
)

// forEachKind runs a test for venues and for organizers.
func forEachKind(t *testing.T, test func(t *testing.T, k linkedKind)) {
	for _, k := range linkedTestKinds {
		t.Run(k.plural, func(t *testing.T) { test(t, k) })
	}
}

// create posts a record of kind k with name and extra parameters and expects 201.
func (k linkedKind) create(t *testing.T, app *App, token, name string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{k.name: name}
	for key, v := range extra {
		body[key] = v
	}
	return app.Do(Request{Method: http.MethodPost, Path: "/" + k.plural, Body: body, Token: token}).
		ExpectStatus(t, http.StatusCreated).JSON(t)
}

// path is the item path of a record.
func (k linkedKind) path(id any) string { return fmt.Sprintf("/%s/%v", k.plural, id) }

// list gets a list and returns the records' names in order, and the body.
func (k linkedKind) list(t *testing.T, app *App, query, token string) ([]string, map[string]any) {
	t.Helper()
	r := Request{Path: "/" + k.plural + query, Token: token}
	body := app.Do(r).ExpectStatus(t, http.StatusOK).JSON(t)
	items, ok := body[k.plural].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %v", k.plural, body)
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i], _ = it.(map[string]any)[k.name].(string)
	}
	return names, body
}

// userID returns the ID of the user with this login.
func (a *App) userID(login string) uint64 {
	a.t.Helper()
	var u models.User
	if err := a.Store.DB().Where("login = ?", login).Take(&u).Error; err != nil {
		a.t.Fatalf("user %s: %v", login, err)
	}
	return u.ID
}

// linkedIDs returns the venue or organizer IDs linked to an event, in their order.
func (a *App) linkedIDs(k linkedKind, eventID uint64) []uint64 {
	a.t.Helper()
	column := k.name + "_id"
	var ids []uint64
	err := a.Store.DB().Table("event_"+k.plural).Where("event_id = ?", eventID).Order("position").
		Pluck(column, &ids).Error
	if err != nil {
		a.t.Fatal(err)
	}
	return ids
}
