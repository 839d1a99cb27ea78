package models

import (
	"context"
	"testing"
	"time"
)

// TestDeletedRowsReadBackAsTheRecordsTheyWere: the row the change history keeps of a deleted event or venue, in
// either database's JSON, reads back into the record it was, with its image and the linked records that still
// exist.
func TestDeletedRowsReadBackAsTheRecordsTheyWere(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	now := time.Now().UTC().Truncate(time.Second)
	lat, lng := 46.78, -92.1
	image := Image{URL: "https://example.com/quay.jpg", Extension: "jpg", CreatedAt: now}
	if err := s.DB().Create(&image).Error; err != nil {
		t.Fatal(err)
	}
	venue := &Venue{AuthorID: author.ID, Status: StatusPublish, Name: "Harbour Hall", City: "Duluth",
		PublishedAt: now, ShowMap: false, ShowMapLink: true, GeoLat: &lat, GeoLng: &lng, ImageID: &image.ID}
	if err := s.Tx(ctx, func(tx *Store) error { return CreateLinked[Venue](tx, venue) }); err != nil {
		t.Fatal(err)
	}
	event := Event{AuthorID: author.ID, Status: StatusPublish, Title: "Quay concert", Slug: "quay-concert",
		Timezone: "Europe/Paris", StartUTC: now.Add(time.Hour), EndUTC: now.Add(3 * time.Hour), AllDay: false,
		Featured: true, Cost: `["12"]`, PublishedAt: now, ImageID: &image.ID}
	event.SetLinkLists([]uint64{venue.ID}, nil, nil, nil)
	if err := s.DB().Omit("Venues", "Organizers", "Categories", "Tags").Create(&event).Error; err != nil {
		t.Fatal(err)
	}
	oldRow := func(kind ChangeKind, id uint64) []DeletedRow {
		t.Helper()
		var old string
		if err := s.DB().Raw("SELECT CAST(old AS TEXT) FROM changes WHERE kind = ? AND record_id = ? AND op = 'd'",
			int(kind), id).Scan(&old).Error; err != nil || old == "" {
			t.Fatalf("no deletion of %d in the history (%v)", id, err)
		}
		return []DeletedRow{{ID: id, Old: old}}
	}

	if err := s.DeleteEvent(event.ID); err != nil {
		t.Fatal(err)
	}
	events, err := s.DeletedEvents(oldRow(ChangeEvent, event.ID))
	if err != nil {
		t.Fatal(err)
	}
	e := events[0]
	if e.ID != event.ID || e.Title != "Quay concert" || e.Timezone != "Europe/Paris" || !e.StartUTC.Equal(event.StartUTC) ||
		!e.PublishedAt.Equal(now) || e.UpdatedAt.Sub(event.UpdatedAt).Abs() > time.Second || e.AllDay || !e.Featured || e.Cost != `["12"]` || e.Password != "" {
		t.Errorf("the deleted event reads back as %+v", e)
	}
	if e.Image == nil || e.Image.URL != image.URL || len(e.Venues) != 1 || e.Venues[0].Name != "Harbour Hall" {
		t.Errorf("the deleted event's image %+v and venues %+v", e.Image, e.Venues)
	}

	if err := s.DB().Delete(&Venue{}, venue.ID).Error; err != nil {
		t.Fatal(err)
	}
	venues, err := DeletedLinked[Venue](s, ChangeVenue, oldRow(ChangeVenue, venue.ID))
	if err != nil {
		t.Fatal(err)
	}
	v := venues[0]
	if v.ID != venue.ID || v.Name != "Harbour Hall" || v.City != "Duluth" || v.ShowMap || !v.ShowMapLink ||
		v.GeoLat == nil || *v.GeoLat != lat || v.Image == nil || v.Image.ID != image.ID || !v.PublishedAt.Equal(now) ||
		v.UpdatedAt.Sub(venue.UpdatedAt).Abs() > time.Second {
		t.Errorf("the deleted venue reads back as %+v", v)
	}
}
