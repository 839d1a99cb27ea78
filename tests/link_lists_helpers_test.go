package tests

import (
	"slices"
	"strings"
	"testing"

	"calendar/models"
)

// expectLinkListsMatchLinks holds every event's link lists (migration 00009, which every read of events shows) to
// its link rows, which filters and counts use: each test's database is checked this way when the test ends, so
// every write path the suite drives (creates in one statement or in a transaction, updates, concurrent writes,
// deletes of events and of the records they link to) is checked too.
func expectLinkListsMatchLinks(t *testing.T, store *models.Store) {
	t.Helper()
	var events []struct {
		ID                                                  uint64
		VenueLinks, OrganizerLinks, CategoryLinks, TagLinks *string
	}
	if err := store.DB().Raw(`SELECT id, venue_links, organizer_links, category_links, tag_links FROM events`).
		Scan(&events).Error; err != nil {
		t.Logf("link lists not checked: %v", err) // a test that took the database away
		return
	}
	rows, err := linkRowsByEvent(store)
	if err != nil {
		t.Logf("link lists not checked: %v", err)
		return
	}
	for _, e := range events {
		var listed []string
		for _, l := range []struct {
			kind string
			list *string
		}{{"venues", e.VenueLinks}, {"organizers", e.OrganizerLinks}, {"categories", e.CategoryLinks}, {"tags", e.TagLinks}} {
			if l.list != nil {
				for _, item := range strings.Split(*l.list, ",") {
					listed = append(listed, l.kind+" "+item)
				}
			}
		}
		slices.Sort(listed)
		linked := rows[e.ID]
		slices.Sort(linked)
		for _, item := range listed {
			if !slices.Contains(linked, item) {
				t.Errorf("event %d lists %q without a link row to it (lists %v, link rows %v)", e.ID, item, listed, linked)
			}
		}
		for _, item := range linked {
			if !slices.Contains(listed, item) {
				t.Errorf("event %d has a link row %q its lists leave out (lists %v, link rows %v)", e.ID, item, listed, linked)
			}
		}
	}
}

// linkRowsByEvent returns each event's link rows in the lists' form, each item prefixed with its kind's table.
func linkRowsByEvent(store *models.Store) (map[uint64][]string, error) {
	var rows []struct {
		Kind    string
		EventID uint64
		Item    string
	}
	err := store.DB().Raw(`SELECT 'venues' AS kind, event_id, position || ':' || venue_id AS item FROM event_venues
		UNION ALL SELECT 'organizers', event_id, position || ':' || organizer_id FROM event_organizers
		UNION ALL SELECT 'categories', event_id, CAST(category_id AS TEXT) FROM event_categories
		UNION ALL SELECT 'tags', event_id, CAST(tag_id AS TEXT) FROM event_tags`).Scan(&rows).Error
	byEvent := map[uint64][]string{}
	for _, r := range rows {
		byEvent[r.EventID] = append(byEvent[r.EventID], r.Kind+" "+r.Item)
	}
	return byEvent, err
}
