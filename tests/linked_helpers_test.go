package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

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

var eventSeq atomic.Int64

// testEvent describes an event to insert directly through the models (until the events routes exist).
type testEvent struct {
	Status     string
	Start      time.Time
	AuthorID   uint64
	Venues     []uint64
	Organizers []uint64
}

// insertEvent stores an event with its links and returns its ID.
func (a *App) insertEvent(e testEvent) uint64 {
	a.t.Helper()
	if e.Status == "" {
		e.Status = models.StatusPublish
	}
	if e.Start.IsZero() {
		e.Start = time.Now().Add(24 * time.Hour)
	}
	if e.AuthorID == 0 {
		login, _ := a.User(models.RoleAdministrator)
		e.AuthorID = a.userID(login)
	}
	n := eventSeq.Add(1)
	ev := models.Event{AuthorID: e.AuthorID, Status: e.Status, Title: fmt.Sprintf("Event %d", n),
		Slug: fmt.Sprintf("event-%d", n), Timezone: "UTC", StartUTC: e.Start.UTC(), EndUTC: e.Start.UTC().Add(time.Hour),
		PublishedAt: time.Now().UTC()}
	err := a.Store.DB().Transaction(func(tx *gorm.DB) error {
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
		err = a.Store.RefreshEventLinkLists(ev.ID)
	}
	if err != nil {
		a.t.Fatalf("inserting an event: %v", err)
	}
	return ev.ID
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

// linkedID reads a record's numeric id.
func linkedID(t *testing.T, rec map[string]any) uint64 {
	t.Helper()
	f, ok := rec["id"].(float64)
	if !ok {
		t.Fatalf("record without an id: %v", rec)
	}
	return uint64(f)
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

// jsonKeyOrder lists the keys of a JSON object in the order the body has them.
func jsonKeyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// statementsDuring counts the statements the store runs while fn runs.
func (a *App) statementsDuring(fn func()) int {
	a.t.Helper()
	var n atomic.Int64
	name := fmt.Sprintf("count-%d", time.Now().UnixNano())
	cb := a.Store.DB().Callback()
	count := func(*gorm.DB) { n.Add(1) }
	for _, err := range []error{
		cb.Query().Before("gorm:query").Register(name, count),
		cb.Raw().Before("gorm:raw").Register(name, count),
		cb.Row().Before("gorm:row").Register(name, count),
	} {
		if err != nil {
			a.t.Fatal(err)
		}
	}
	defer func() {
		_ = cb.Query().Remove(name)
		_ = cb.Raw().Remove(name)
		_ = cb.Row().Remove(name)
	}()
	fn()
	return int(n.Load())
}
