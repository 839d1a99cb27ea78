package tests

import (
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"calendar/models"
)

// expectDayCountsMatchEvents checks, at the end of every test that migrated its database, that the kept day counts
// (event_day_counts, which list totals are summed from) equal a fresh count of the listed events by status, start
// day and end day: whatever the test wrote, the triggers kept the counts exact. The days are computed here from
// the stored instants, not by the database's own day expression.
func expectDayCountsMatchEvents(t *testing.T, store *models.Store) {
	t.Helper()
	var events []struct {
		Status           string
		StartUTC, EndUTC time.Time
		HideFromListings bool
	}
	if err := store.DB().Raw(`SELECT status, start_utc, end_utc, hide_from_listings FROM events`).Scan(&events).Error; err != nil {
		t.Logf("day counts not checked: %v", err) // a test that took the database away
		return
	}
	var kept []struct {
		Status           string
		StartDay, EndDay int64
		N                int64
	}
	if err := store.DB().Raw(`SELECT status, start_day, end_day, n FROM event_day_counts WHERE n <> 0`).Scan(&kept).Error; err != nil {
		t.Logf("day counts not checked: %v", err)
		return
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
	if !maps.Equal(got, fresh) {
		keys := slices.Sorted(maps.Keys(fresh))
		t.Errorf("kept day counts %v, a fresh count of the events %v (keys %v)", got, fresh, keys)
	}
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

// expectLastStartsMatchEvents checks, at the end of every test that migrated its database, that the latest starts
// kept per venue and organizer (linked_last_starts, which only_with_upcoming reads) equal a fresh computation
// from the links and the events, for the published and the private events of each.
func expectLastStartsMatchEvents(t *testing.T, store *models.Store) {
	t.Helper()
	read := func(query string) ([]string, error) {
		rows, err := store.SQLDB().Query(query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var kind string
			var id uint64
			var published, private sql.NullString // times read as text: SQLite gives text where no type is declared
			if err := rows.Scan(&kind, &id, &published, &private); err != nil {
				return nil, err
			}
			out = append(out, fmt.Sprintf("%s%d %s %s", kind, id, instantText(t, published), instantText(t, private)))
		}
		slices.Sort(out)
		return out, rows.Err()
	}
	kept, err := read(`SELECT kind, id, published, private FROM linked_last_starts
		WHERE published IS NOT NULL OR private IS NOT NULL`)
	if err != nil {
		t.Logf("latest starts not checked: %v", err) // a test that took the database away
		return
	}
	fresh, err := read(`SELECT * FROM (
		SELECT 'v' AS kind, l.venue_id AS id,
			max(CASE WHEN e.status = 'publish' THEN e.start_utc END) AS published,
			max(CASE WHEN e.status = 'private' THEN e.start_utc END) AS private
		FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id
		UNION ALL
		SELECT 'o', l.organizer_id, max(CASE WHEN e.status = 'publish' THEN e.start_utc END),
			max(CASE WHEN e.status = 'private' THEN e.start_utc END)
		FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id) AS f
		WHERE published IS NOT NULL OR private IS NOT NULL`)
	if err != nil {
		t.Errorf("latest starts not checked: %v", err)
		return
	}
	if !slices.Equal(kept, fresh) {
		t.Errorf("kept latest starts %v, fresh from the links %v", kept, fresh)
	}
}

// instantText writes an instant read as text (in any of the forms the drivers give) as RFC 3339 in UTC.
func instantText(t *testing.T, v sql.NullString) string {
	t.Helper()
	if !v.Valid {
		return "-"
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999-07"} {
		if parsed, err := time.Parse(layout, v.String); err == nil {
			return parsed.UTC().Format(time.RFC3339)
		}
	}
	t.Errorf("%q is not an instant", v.String)
	return v.String
}

// expectTermCountsMatchLinks checks, at the end of every test that migrated its database, that each category's
// and tag's kept count (its row's count plus its deltas not yet folded, which every answer shows) equals a fresh
// count of the published events linked to it. expectTermCounts does the same through the API.
func expectTermCountsMatchLinks(t *testing.T, store *models.Store) {
	t.Helper()
	for _, tax := range []struct{ table, join, column string }{
		{"categories", "event_categories", "category_id"}, {"tags", "event_tags", "tag_id"},
	} {
		var wrong []struct {
			ID          uint64
			Kept, Fresh int64
		}
		err := store.DB().Raw(`SELECT id, kept, fresh FROM (SELECT t.id,
			t.count + COALESCE((SELECT SUM(d.delta) FROM term_count_deltas d
				WHERE d.taxonomy = '` + tax.table + `' AND d.term_id = t.id), 0) AS kept,
			(SELECT COUNT(*) FROM ` + tax.join + ` j JOIN events e ON e.id = j.event_id
				WHERE j.` + tax.column + ` = t.id AND e.status = 'publish') AS fresh
			FROM ` + tax.table + ` t) AS c WHERE kept <> fresh ORDER BY id`).Scan(&wrong).Error
		if err != nil {
			t.Logf("term counts not checked: %v", err) // a test that took the database away
			return
		}
		for _, w := range wrong {
			t.Errorf("%s %d: kept count %d, a fresh count of its published events %d", tax.table, w.ID, w.Kept, w.Fresh)
		}
	}
}

// expectKeptTotalsMatchEvents checks every total the writes keep for the lists against a fresh count: the day
// counts, the latest starts of venues and organizers, and the term counts.
func expectKeptTotalsMatchEvents(t *testing.T, store *models.Store) {
	t.Helper()
	expectDayCountsMatchEvents(t, store)
	expectLastStartsMatchEvents(t, store)
	expectTermCountsMatchLinks(t, store)
}
