package main

import (
	"context"
	"fmt"
	"log"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"calendar/models"
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
	for _, check := range []func(*gorm.DB) ([]string, error){checkLinkLists, checkDayCounts, checkLastStarts,
		checkTermCounts, checkSeries} {
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

// linkListsRow is an event's link lists.
type linkListsRow struct {
	ID                                                  uint64
	VenueLinks, OrganizerLinks, CategoryLinks, TagLinks *string
}

// items are the entries of the lists, each prefixed with its link table's kind, sorted.
func (r linkListsRow) items() []string {
	var out []string
	for _, l := range []struct {
		kind string
		list *string
	}{{"venues", r.VenueLinks}, {"organizers", r.OrganizerLinks}, {"categories", r.CategoryLinks}, {"tags", r.TagLinks}} {
		if l.list != nil {
			for _, item := range strings.Split(*l.list, ",") {
				out = append(out, l.kind+" "+item)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkLinkLists finds the events whose link lists and link rows differ.
func checkLinkLists(db *gorm.DB) ([]string, error) {
	var events []linkListsRow
	if err := db.Raw(`SELECT id, venue_links, organizer_links, category_links, tag_links FROM events`).Scan(&events).Error; err != nil {
		return nil, err
	}
	var rows []struct {
		Kind    string
		EventID uint64
		Item    string
	}
	err := db.Raw(`SELECT 'venues' AS kind, event_id, position || ':' || venue_id AS item FROM event_venues
		UNION ALL SELECT 'organizers', event_id, position || ':' || organizer_id FROM event_organizers
		UNION ALL SELECT 'categories', event_id, CAST(category_id AS TEXT) FROM event_categories
		UNION ALL SELECT 'tags', event_id, CAST(tag_id AS TEXT) FROM event_tags`).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	linked := map[uint64][]string{}
	for _, r := range rows {
		linked[r.EventID] = append(linked[r.EventID], r.Kind+" "+r.Item)
	}
	var problems []string
	for _, e := range events {
		rowsOf := linked[e.ID]
		slices.Sort(rowsOf)
		if listed := e.items(); !slices.Equal(listed, rowsOf) {
			problems = append(problems, fmt.Sprintf("event %d lists %v but has link rows %v", e.ID, listed, rowsOf))
		}
	}
	return problems, nil
}

// checkDayCounts compares the kept day counts with a fresh count of the listed events by status, start day and
// end day (days in UTC, computed here from the instants).
func checkDayCounts(db *gorm.DB) ([]string, error) {
	var events []struct {
		Status           string
		StartUTC, EndUTC time.Time
		HideFromListings bool
	}
	if err := db.Raw(`SELECT status, start_utc, end_utc, hide_from_listings FROM events`).Scan(&events).Error; err != nil {
		return nil, err
	}
	var kept []struct {
		Status           string
		StartDay, EndDay int64
		N                int64
	}
	if err := db.Raw(`SELECT status, start_day, end_day, n FROM event_day_counts WHERE n <> 0`).Scan(&kept).Error; err != nil {
		return nil, err
	}
	fresh := map[string]int64{}
	for _, e := range events {
		if !e.HideFromListings {
			fresh[fmt.Sprintf("%s %d %d", e.Status, utcDay(e.StartUTC), utcDay(e.EndUTC))]++
		}
	}
	got := map[string]int64{}
	for _, k := range kept {
		got[fmt.Sprintf("%s %d %d", k.Status, k.StartDay, k.EndDay)] = k.N
	}
	var problems []string
	for _, key := range slices.Sorted(maps.Keys(fresh)) {
		if got[key] != fresh[key] {
			problems = append(problems, fmt.Sprintf("day count %q is %d, the events %d", key, got[key], fresh[key]))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(got)) {
		if _, ok := fresh[key]; !ok {
			problems = append(problems, fmt.Sprintf("day count %q is %d, no event has it", key, got[key]))
		}
	}
	return problems, nil
}

// utcDay is the day of t in days since 1970-01-01, in UTC.
func utcDay(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s < 0 && s%86400 != 0 {
		d--
	}
	return d
}

// checkLastStarts compares the latest starts kept per venue and organizer with a fresh computation from the links.
func checkLastStarts(db *gorm.DB) ([]string, error) {
	var wrong []struct {
		Kind string
		ID   uint64
	}
	err := db.Raw(`WITH fresh AS (
		SELECT 'v' AS kind, l.venue_id AS id,
			max(CASE WHEN e.status = 'publish' THEN e.start_utc END) AS published,
			max(CASE WHEN e.status = 'private' THEN e.start_utc END) AS private
		FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id
		UNION ALL
		SELECT 'o', l.organizer_id, max(CASE WHEN e.status = 'publish' THEN e.start_utc END),
			max(CASE WHEN e.status = 'private' THEN e.start_utc END)
		FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id),
	kept AS (SELECT kind, id, published, private FROM linked_last_starts
		WHERE published IS NOT NULL OR private IS NOT NULL)
	SELECT f.kind, f.id FROM fresh f LEFT JOIN kept k ON k.kind = f.kind AND k.id = f.id
		WHERE (f.published IS NOT NULL OR f.private IS NOT NULL) AND (k.id IS NULL
			OR k.published IS DISTINCT FROM f.published OR k.private IS DISTINCT FROM f.private)
	UNION ALL
	SELECT k.kind, k.id FROM kept k LEFT JOIN fresh f ON f.kind = k.kind AND f.id = k.id WHERE f.id IS NULL`).
		Scan(&wrong).Error
	var problems []string
	for _, w := range wrong {
		problems = append(problems, fmt.Sprintf("the kept latest start of %s%d differs from its links'", w.Kind, w.ID))
	}
	return problems, err
}

// checkTermCounts compares each category's and tag's kept count (its count plus its deltas not yet folded) with a
// fresh count of its published events.
func checkTermCounts(db *gorm.DB) ([]string, error) {
	var problems []string
	for _, tax := range []struct{ table, join, column string }{
		{"categories", "event_categories", "category_id"}, {"tags", "event_tags", "tag_id"},
	} {
		var wrong []struct {
			ID          uint64
			Kept, Fresh int64
		}
		err := db.Raw(`SELECT id, kept, fresh FROM (SELECT t.id,
			t.count + COALESCE((SELECT SUM(d.delta) FROM term_count_deltas d
				WHERE d.taxonomy = '` + tax.table + `' AND d.term_id = t.id), 0) AS kept,
			(SELECT COUNT(*) FROM ` + tax.join + ` j JOIN events e ON e.id = j.event_id
				WHERE j.` + tax.column + ` = t.id AND e.status = 'publish') AS fresh
			FROM ` + tax.table + ` t) AS c WHERE kept <> fresh ORDER BY id`).Scan(&wrong).Error
		if err != nil {
			return nil, err
		}
		for _, w := range wrong {
			problems = append(problems, fmt.Sprintf("%s %d: kept count %d, published events %d", tax.table, w.ID, w.Kept, w.Fresh))
		}
	}
	return problems, nil
}

// seriesMember is an event of a series as the series check reads it.
type seriesMember struct {
	ID                                                  uint64
	VenueLinks, OrganizerLinks, CategoryLinks, TagLinks *string
	SeriesID                                            uint64
	HideFromListings                                    bool
}

// items are the entries of the member's link lists (linkListsRow.items).
func (m seriesMember) items() []string {
	return linkListsRow{VenueLinks: m.VenueLinks, OrganizerLinks: m.OrganizerLinks, CategoryLinks: m.CategoryLinks,
		TagLinks: m.TagLinks}.items()
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
	lists := linkListsRow{VenueLinks: ser.VenueLinks, OrganizerLinks: ser.OrganizerLinks,
		CategoryLinks: ser.CategoryLinks, TagLinks: ser.TagLinks}.items()
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
