package models

import (
	"context"

	"gorm.io/gorm"
)

// keptCountTriggers are the PostgreSQL triggers that keep event_day_counts, linked_last_starts,
// linked_published_days, venue_listed_events, category_listed_events, category_day_counts, search_listed_events,
// search_day_counts, series_listed_gaps, series_gap_days, venue_window_counts, event_block_counts and
// series_gap_blocks, by table.
var keptCountTriggers = map[string][]string{
	"events": {"event_day_counts_insert", "event_day_counts_update", "event_day_counts_delete",
		"z1_linked_last_starts_events_update", "venue_listed_events_events_update",
		"z2_category_listed_events_events_update", "search_listed_events_insert", "search_listed_events_update",
		"search_listed_events_delete", "series_gap_days_insert", "series_gap_days_update", "series_gap_days_delete"},
	"event_venues": {"linked_last_starts_venues_insert", "linked_last_starts_venues_delete",
		"venue_listed_events_links_insert", "venue_listed_events_links_update", "venue_listed_events_links_delete"},
	"event_organizers": {"linked_last_starts_organizers_insert", "linked_last_starts_organizers_delete"},
	"linked_last_starts": {"linked_published_days_insert", "linked_published_days_update",
		"linked_published_days_delete"},
	"event_categories": {"category_listed_events_links_insert", "category_listed_events_links_update",
		"category_listed_events_links_delete"},
	"category_listed_events": {"category_day_counts_insert", "category_day_counts_update",
		"category_day_counts_delete"},
	"search_listed_events": {"search_day_counts_insert", "search_day_counts_update", "search_day_counts_delete"},
	"venue_listed_events":  {"venue_window_counts_insert", "venue_window_counts_update", "venue_window_counts_delete"},
	"event_day_counts":     {"event_block_counts_insert", "event_block_counts_update", "event_block_counts_delete"},
	"series_gap_days":      {"series_gap_blocks_insert", "series_gap_blocks_update", "series_gap_blocks_delete"},
}

// SetKeptCountTriggers turns the PostgreSQL triggers that keep the list counts (keptCountTriggers) off or on, for a
// bulk load that rebuilds the counts once at its end (RebuildKeptCounts) instead of updating them for every batch.
// It takes each table's exclusive lock: nothing else may write while they are off. On SQLite, whose triggers cannot
// be turned off, it does nothing.
func (s *Store) SetKeptCountTriggers(ctx context.Context, on bool) error {
	if s.dialect != Postgres {
		return nil
	}
	action := " DISABLE TRIGGER "
	if on {
		action = " ENABLE TRIGGER "
	}
	for table, triggers := range keptCountTriggers {
		for _, trigger := range triggers {
			if err := s.db.WithContext(ctx).Exec("ALTER TABLE " + table + action + trigger).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

// FreshVenueListedEvents computes from the links and the events what venue_listed_events keeps: for each link of a
// listed event to a venue, the event's status, start and end, and whether the event has other venues (event_id,
// venue_id, status, start_utc, end_utc, shared).
const FreshVenueListedEvents = `SELECT l.event_id, l.venue_id, e.status, e.start_utc, e.end_utc,
		count(*) OVER (PARTITION BY l.event_id) > 1 AS shared
	FROM event_venues l JOIN events e ON e.id = l.event_id WHERE NOT e.hide_from_listings`

// FreshCategoryListedEvents computes from the links and the events what category_listed_events keeps: for each link
// of a listed event to a category, the event's status, start and end (event_id, category_id, status, start_utc,
// end_utc).
const FreshCategoryListedEvents = `SELECT l.event_id, l.category_id, e.status, e.start_utc, e.end_utc
	FROM event_categories l JOIN events e ON e.id = l.event_id WHERE NOT e.hide_from_listings`

// FreshLastStarts computes from the links and the events what linked_last_starts keeps: for each venue ('v') and
// organizer ('o') with events, the latest start of its published events and of its private ones (kind, id,
// published, private).
const FreshLastStarts = `SELECT 'v' AS kind, l.venue_id AS id,
		max(CASE WHEN e.status = 'publish' THEN e.start_utc END) AS published,
		max(CASE WHEN e.status = 'private' THEN e.start_utc END) AS private
	FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id
	UNION ALL
	SELECT 'o', l.organizer_id, max(CASE WHEN e.status = 'publish' THEN e.start_utc END),
		max(CASE WHEN e.status = 'private' THEN e.start_utc END)
	FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id`

// FreshSeriesListedGaps computes from the events what series_listed_gaps keeps: the kept days of every listed
// occurrence of every series (event_id, series_id, status, before_day, start_day, until_day), by the function its
// triggers use.
const FreshSeriesListedGaps = `SELECT g.* FROM series_listed_gaps_of(ARRAY(
		SELECT DISTINCT series_id FROM events WHERE series_id IS NOT NULL)) AS g`

// FreshSeriesGapDays computes from series_listed_gaps what series_gap_days keeps (status, day, until_day, n): per
// status and pair of days, the occurrences whose predecessor started on day less those that start on it, by the
// day their kept until falls on.
const FreshSeriesGapDays = `SELECT status, day, until_day, sum(d) AS n FROM (
		SELECT status, before_day AS day, until_day, 1 AS d FROM series_listed_gaps
		UNION ALL SELECT status, start_day, until_day, -1 FROM series_listed_gaps
	) AS c GROUP BY 1, 2, 3 HAVING sum(d) <> 0`

// FreshEventBlockCounts computes from event_day_counts what event_block_counts keeps, in its shard 0: the day
// counts summed by status and blocks of 32 days of their start and end (status, start_block, end_block, shard, n,
// occurrences).
const FreshEventBlockCounts = `SELECT status, start_day >> 5, end_day >> 5, 0, sum(n), sum(occurrences)
	FROM event_day_counts GROUP BY 1, 2, 3`

// FreshSeriesGapBlocks computes from series_gap_days what series_gap_blocks keeps, in its shard 0: the gap day
// counts summed by status and blocks of 32 days of their day and until day (status, block, until_block, shard, n).
const FreshSeriesGapBlocks = `SELECT status, day >> 5, until_day >> 5, 0, sum(n) FROM series_gap_days GROUP BY 1, 2, 3`

// RebuildKeptCounts computes the list counts kept by triggers (event_day_counts, linked_last_starts,
// venue_listed_events, category_listed_events, and on PostgreSQL category_day_counts, linked_published_days,
// series_listed_gaps, series_gap_days, and the blocks event_block_counts and series_gap_blocks) again from the
// events and their links, and drops the kept searches (search_listed_events, search_day_counts), in one
// transaction: after a bulk load made with the triggers off, or to repair them.
func (s *Store) RebuildKeptCounts(ctx context.Context) error {
	day := func(col string) string {
		if s.dialect == SQLite {
			return "CAST(julianday(substr(" + col + ", 1, 10)) - 2440587.5 AS INTEGER)"
		}
		return "event_day(" + col + ")"
	}
	statements := []string{
		"DELETE FROM event_day_counts",
		"INSERT INTO event_day_counts (status, start_day, end_day, n, occurrences) SELECT status, " +
			day("start_utc") + ", " + day("end_utc") + ", count(*), count(series_id) FROM events WHERE " +
			isFalse(s.db, "hide_from_listings") + " GROUP BY 1, 2, 3",
		"DELETE FROM linked_last_starts",
		"INSERT INTO linked_last_starts (kind, id, published, private) " + FreshLastStarts,
		"DELETE FROM venue_listed_events",
		"INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc, shared) " +
			FreshVenueListedEvents,
		"DELETE FROM category_listed_events",
		"INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc) " +
			FreshCategoryListedEvents,
	}
	if s.dialect == Postgres {
		// The counts kept from other kept rows (the categories' links, the latest starts, the series' occurrence
		// days) are counted again from the rows just written, whether their triggers ran or not.
		// The kept searches are dropped rather than matched again: each is kept anew when it is asked again.
		statements = append(statements, "DELETE FROM category_day_counts",
			"INSERT INTO category_day_counts (category_id, status, start_day, end_day, n) SELECT category_id, status, "+
				"event_day(start_utc), event_day(end_utc), count(*) FROM category_listed_events GROUP BY 1, 2, 3, 4",
			"DELETE FROM linked_published_days",
			"INSERT INTO linked_published_days (kind, day, n) SELECT kind, event_day(published), count(*) "+
				"FROM linked_last_starts WHERE published IS NOT NULL GROUP BY 1, 2",
			"DELETE FROM series_listed_gaps",
			"INSERT INTO series_listed_gaps "+FreshSeriesListedGaps,
			"DELETE FROM series_gap_days",
			"INSERT INTO series_gap_days (status, day, until_day, n) "+FreshSeriesGapDays,
			"DELETE FROM event_block_counts",
			"INSERT INTO event_block_counts (status, start_block, end_block, shard, n, occurrences) "+
				FreshEventBlockCounts,
			"DELETE FROM series_gap_blocks",
			"INSERT INTO series_gap_blocks (status, block, until_block, shard, n) "+FreshSeriesGapBlocks,
			"DELETE FROM search_listed_events", "DELETE FROM search_day_counts",
			"DELETE FROM kept_searches",
			// The radius window is forgotten too: the service keeps it again (KeepVenueWindow).
			"DELETE FROM venue_window_counts", "UPDATE venue_window SET from_utc = NULL, until_utc = NULL")
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, q := range statements {
			if err := tx.Exec(q).Error; err != nil {
				return err
			}
		}
		return nil
	})
}
