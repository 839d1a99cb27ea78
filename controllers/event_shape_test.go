package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"calendar/config"
	"calendar/models"
)

// plainEventRecord is EventRecord without its own JSON writer: what encoding/json writes for the API type.
type plainEventRecord struct {
	eventFields
	embeddedRecords
}

// plainEventList is EventList without its own JSON writer.
type plainEventList struct {
	Events []EventRecord `json:"events"`
	eventListTail
}

// shapeTestEvents are events with every kind of link: none, one venue, several venues, a protected venue, terms,
// organizers, an image and a password.
func shapeTestEvents() []models.Event {
	at := time.Date(2027, 3, 14, 18, 30, 0, 0, time.UTC)
	venue := func(id uint64, name, password string) models.Venue {
		lat, lng := 41.88, -87.63
		return models.Venue{ID: id, AuthorID: 1, Status: "publish", Password: password, Name: name,
			Description: "<p>Hall & <b>bar</b></p>", Slug: name, Address: "1 Main St", City: "Chicago",
			Country: "United States", State: "IL", StateProvince: "IL", ShowMap: true, GeoLat: &lat, GeoLng: &lng,
			PublishedAt: at, CreatedAt: at, UpdatedAt: at}
	}
	organizer := models.Organizer{ID: 7, AuthorID: 1, Status: "publish", Name: "Org <One>", Slug: "org-one",
		Email: "org@example.com", Website: "https://org.example.com", PublishedAt: at, UpdatedAt: at}
	parent := uint64(3)
	base := func(id uint64) models.Event {
		return models.Event{ID: id, AuthorID: 1, Status: "publish", Title: "Jazz & <Blues>", Description: "<p>Night</p>",
			Excerpt: "<p>Short</p>", Slug: "jazz", Timezone: "America/Chicago", TimezoneAbbr: "CDT", StartUTC: at,
			EndUTC: at.Add(2 * time.Hour), Cost: `["10","20"]`, PublishedAt: at, CreatedAt: at, UpdatedAt: at}
	}
	plain := base(1)
	one := base(2)
	one.Venues = []models.Venue{venue(5, "hall", "")}
	one.Organizers = []models.Organizer{organizer}
	one.Categories = []models.Category{{ID: 11, Name: "Music", Slug: "music", ParentID: &parent, Count: 2}}
	one.Tags = []models.Tag{{ID: 12, Name: "Jazz", Slug: "jazz", Count: 1}}
	one.Image = &models.Image{ID: 9, URL: "https://example.com/a.png", Extension: "png"}
	several := base(3)
	several.Venues = []models.Venue{venue(5, "hall", ""), venue(6, "club", "secret")}
	several.Organizers = []models.Organizer{organizer, organizer}
	protected := base(4)
	protected.Password = "secret"
	protected.Venues = one.Venues
	protected.Categories = one.Categories
	return []models.Event{plain, one, several, protected}
}

func shapeTestShaper(t *testing.T) eventShaper {
	t.Helper()
	cfg, _, err := config.Load(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	app := &App{Config: cfg, passwords: NewPasswordAttempts(cfg.PasswordFailuresPerMinute),
		embedded: models.NewVersionMemo[embeddedKey, json.RawMessage](16)}
	site := Site{Home: "https://example.com", Root: "https://example.com/calendar/events/v1", Host: "example.com"}
	return eventShaper{app: app, site: site}
}

// TestAnEventRecordWritesWhatEncodingJSONWrites proves that the fast writer of events and event lists is only
// faster: for single reads, list entries (redacted or not) and remembered embeds, its bytes are encoding/json's.
func TestAnEventRecordWritesWhatEncodingJSONWrites(t *testing.T) {
	shaper := shapeTestShaper(t)
	remembering := shaper.rememberingAt(models.ContextWithVersion(context.Background(), 1))
	if !remembering.remember {
		t.Fatal("an anonymous shaper does not remember embeds at a data version")
	}
	events := shapeTestEvents()
	var list EventList
	for _, s := range []eventShaper{shaper, remembering, remembering} { // the second remembering pass reuses JSON
		for i := range events {
			for _, r := range []EventRecord{s.record(&events[i], true), s.listRecord(&events[i])} {
				expectEncodingJSON(t, fmt.Sprintf("event %d", events[i].ID), r, plainEventRecord{r.eventFields, r.embeddedRecords})
				list.Events = append(list.Events, r)
			}
		}
	}
	deleted := []uint64{4, 5}
	list.eventListTail = eventListTail{Deleted: &deleted, RestURL: "https://example.com/x", NextRestURL: "https://n",
		Total: 9, TotalPages: 2}
	expectEncodingJSON(t, "the list", list, plainEventList{list.Events, list.eventListTail})
}

// expectEncodingJSON fails unless v's own JSON writer writes what encoding/json writes for plain.
func expectEncodingJSON(t *testing.T, what string, v json.Marshaler, plain any) {
	t.Helper()
	fast, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	if string(fast) != string(want) {
		t.Errorf("%s:\n fast %s\n want %s", what, fast, want)
	}
}
