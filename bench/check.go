package main

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"calendar/models"
	"calendar/models/invariants"
)

// maxProblemsShown bounds the problems a failed check lists.
const maxProblemsShown = 10

// checkSeeded holds a seeded database to the invariants the service's own tests check every database against when a
// test ends (each event's link lists name its link rows; the kept day counts, latest starts and term counts equal a
// fresh count), and every series to what the service writes for one (a hidden series record without links whose
// series_id is its own ID, an occurrence row for each occurrence, the occurrences its rule produces up to its
// expansion, each with the series' links). It returns an error listing the first problems found.
func checkSeeded(ctx context.Context, store *models.Store) error {
	start := time.Now()
	db := store.DB().WithContext(ctx)
	var problems []string
	for _, check := range []func(*gorm.DB) ([]string, error){invariants.LinkLists, invariants.KeptTotals,
		checkSeries} {
		found, err := check(db)
		if err != nil {
			return err
		}
		problems = append(problems, found...)
	}
	if len(problems) > 0 {
		shown := problems[:min(len(problems), maxProblemsShown)]
		return fmt.Errorf("the seeded database breaks %d invariants, the first: %s", len(problems), strings.Join(shown, "; "))
	}
	log.Printf("checked the seeded database's invariants in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// seriesMember is an event of a series as the series check reads it.
type seriesMember struct {
	ID                                                  uint64
	VenueLinks, OrganizerLinks, CategoryLinks, TagLinks *string
	SeriesID                                            uint64
	HideFromListings                                    bool
}

// items are the entries of the member's link lists (invariants.ListItems).
func (m seriesMember) items() []string {
	return invariants.ListItems(m.VenueLinks, m.OrganizerLinks, m.CategoryLinks, m.TagLinks)
}

// checkSeries holds every series to what the service writes for one.
func checkSeries(db *gorm.DB) ([]string, error) {
	var series []models.EventSeries
	if err := db.Order("event_id").Find(&series).Error; err != nil {
		return nil, err
	}
	var members []seriesMember
	err := db.Raw(`SELECT id, venue_links, organizer_links, category_links, tag_links, series_id, hide_from_listings
		FROM events WHERE series_id IS NOT NULL`).Scan(&members).Error
	if err != nil {
		return nil, err
	}
	var rows []models.EventOccurrence
	if err := db.Order("series_id, recurrence_id").Find(&rows).Error; err != nil {
		return nil, err
	}
	bySeries := map[uint64][]models.EventOccurrence{}
	for _, r := range rows {
		bySeries[r.SeriesID] = append(bySeries[r.SeriesID], r)
	}
	byID := make(map[uint64]seriesMember, len(members))
	for _, m := range members {
		byID[m.ID] = m
	}
	var records []models.Event
	if err := db.Where("id IN (SELECT event_id FROM event_series)").Find(&records).Error; err != nil {
		return nil, err
	}
	recordOf := make(map[uint64]*models.Event, len(records))
	for i := range records {
		recordOf[records[i].ID] = &records[i]
	}
	var problems []string
	for i := range series {
		problems = append(problems, checkOneSeries(&series[i], recordOf[series[i].EventID], byID, bySeries[series[i].EventID])...)
	}
	problems = append(problems, strayOccurrences(members, rows, series)...)
	return problems, nil
}

// checkOneSeries holds one series to its record, its occurrence rows (by original start) and their events.
func checkOneSeries(ser *models.EventSeries, record *models.Event, byID map[uint64]seriesMember,
	rows []models.EventOccurrence) []string {
	var problems []string
	report := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("series %d: ", ser.EventID)+fmt.Sprintf(format, args...))
	}
	rec, ok := byID[ser.EventID]
	if !ok {
		report("its record's series_id is not its own ID")
		return problems
	}
	if !rec.HideFromListings || len(rec.items()) > 0 {
		report("its record is listed or has links of its own")
	}
	set, err := ser.Rule(record)
	if err != nil {
		report("its rule does not parse: %v", err)
		return problems
	}
	end := record.StartUTC.AddDate(1000, 0, 0)
	if ser.ExpandedUntil != nil {
		end = *ser.ExpandedUntil
	}
	want := set.Until(end, len(rows)+1)
	if len(want) != len(rows) {
		report("its rule makes %d occurrences up to its expansion (or more), it has %d", len(want), len(rows))
		return problems
	}
	lists := invariants.ListItems(ser.VenueLinks, ser.OrganizerLinks, ser.CategoryLinks, ser.TagLinks)
	for i, r := range rows {
		o, ok := byID[r.EventID]
		switch {
		case !r.RecurrenceID.Equal(want[i]):
			report("occurrence %d starts at %s originally, the rule's is %s", r.EventID, r.RecurrenceID, want[i])
		case !ok || o.SeriesID != ser.EventID:
			report("occurrence %d's event does not name the series", r.EventID)
		case !slices.Equal(o.items(), lists) && !overridesLinks(r):
			report("occurrence %d links %v, the series %v", r.EventID, o.items(), lists)
		}
	}
	return problems
}

// overridesLinks says whether an occurrence changed its links on its own.
func overridesLinks(r models.EventOccurrence) bool {
	return r.Overridden("venue") || r.Overridden("organizer") || r.Overridden("categories") || r.Overridden("tags")
}

// strayOccurrences finds the events that name a series without being its record or one of its occurrence rows.
func strayOccurrences(members []seriesMember, rows []models.EventOccurrence, series []models.EventSeries) []string {
	known := make(map[uint64]bool, len(rows)+len(series))
	for _, r := range rows {
		known[r.EventID] = true
	}
	for _, s := range series {
		known[s.EventID] = true
	}
	var problems []string
	for _, m := range members {
		if !known[m.ID] {
			problems = append(problems, fmt.Sprintf("event %d names series %d but is no occurrence of it", m.ID, m.SeriesID))
		}
	}
	return problems
}
