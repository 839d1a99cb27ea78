package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// DefaultWindow is the window of a list that chooses no dates: from the start of now's day in the site's zone to
// the last second of the same day two years ahead.
func DefaultWindow(now time.Time, site *time.Location) (from, until time.Time) {
	today := now.In(site)
	return time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, site),
		time.Date(today.Year()+2, today.Month(), today.Day(), 23, 59, 59, 0, site)
}

// KeepVenueWindow makes the window whose radius totals are summed from kept counts (venue_window and
// venue_window_counts, PostgreSQL) the default window at now, and reports whether it moved it. Moving it counts
// every kept venue link again, under the exclusive advisory lock the counts' triggers take shared: the count sees
// every write committed before it, and every later write counts against the new window. Several instances may run
// it at once: the first moves the window, the others find it moved. It moves the window forward only, so that an
// instance whose day starts earlier (another zone, a clock behind) leaves it to the others rather than moving it
// back and forth. The service calls it every minute: a window already moved is read without the lock, which
// writers of venue links would otherwise queue behind each time. A moved window's counts are vacuumed at once, as
// CompactVenueWindowCounts vacuums them: until then a radius total read every row it summed from the heap too (196
// heap fetches for 25 miles around Chicago). On SQLite, which counts radius totals, it does nothing.
func (s *Store) KeepVenueWindow(ctx context.Context, now time.Time, site *time.Location) (bool, error) {
	if s.dialect != Postgres {
		return false, nil
	}
	from, until := DefaultWindow(now, site)
	if kept, err := windowKeptFrom(s.db.WithContext(ctx), from); err != nil || kept {
		return false, err
	}
	moved := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(venue_window_lock())").Error; err != nil {
			return err
		}
		if kept, err := windowKeptFrom(tx, from); err != nil || kept {
			return err // another instance moved it meanwhile
		}
		moved = true
		if err := tx.Exec("UPDATE venue_window SET from_utc = ?, until_utc = ?", from, until).Error; err != nil {
			return err
		}
		if err := tx.Exec("DELETE FROM venue_window_counts").Error; err != nil {
			return err
		}
		return tx.Exec(insertVenueWindowCounts).Error
	})
	if err != nil || !moved {
		return moved, err
	}
	return moved, s.vacuumSmallTables(ctx, "venue_window_counts")
}

// windowKeptFrom tells whether venue_window already starts at from or later.
func windowKeptFrom(db *gorm.DB, from time.Time) (bool, error) {
	var kept int64
	err := db.Raw("SELECT count(*) FROM venue_window WHERE from_utc >= ?", from).Scan(&kept).Error
	return kept > 0, err
}

// FreshVenueWindowCounts counts, per venue and status, the kept links of events with one venue in the window
// venue_window names (no rows when it names none): what venue_window_counts keeps, which KeepVenueWindow counts
// with it and the invariant check compares with it.
const FreshVenueWindowCounts = `SELECT venue_id, status, count(*) AS n FROM venue_listed_events, venue_window w
	WHERE NOT shared AND start_utc >= w.from_utc AND end_utc <= w.until_utc GROUP BY venue_id, status`

// insertVenueWindowCounts keeps the fresh counts of the window venue_window names (FreshVenueWindowCounts), each
// with its venue's coordinates, which radius totals find the counts of a circle's box by.
const insertVenueWindowCounts = `INSERT INTO venue_window_counts (venue_id, status, n, geo_lat, geo_lng)
	SELECT f.venue_id, f.status, f.n, v.geo_lat, v.geo_lng FROM (` + FreshVenueWindowCounts + `) AS f
	LEFT JOIN venues v ON v.id = f.venue_id`

// CompactVenueWindowCounts folds the rows of deltas that writes added to venue_window_counts into one row per venue
// and status, with the venue's coordinates, and returns how many rows it wrote. Rows added meanwhile stay as they
// are: the statement's snapshot does not see them. It holds the window's advisory lock shared, as writers do: a
// window moved while it folds would keep the folded rows beside the ones counted again. After folding it vacuums
// the table, as VacuumTermCounts does the term counts' deltas: the radius totals read it by index-only scans. It
// does nothing on SQLite.
func (s *Store) CompactVenueWindowCounts(ctx context.Context) (int64, error) {
	if s.dialect != Postgres {
		return 0, nil
	}
	var folded int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock_shared(venue_window_lock())").Error; err != nil {
			return err
		}
		res := tx.Exec(`WITH moved AS (DELETE FROM venue_window_counts k WHERE (k.venue_id, k.status) IN
			(SELECT venue_id, status FROM venue_window_counts GROUP BY 1, 2 HAVING count(*) > 1)
			RETURNING k.venue_id, k.status, k.n)
		INSERT INTO venue_window_counts (venue_id, status, n, geo_lat, geo_lng)
		SELECT m.venue_id, m.status, sum(m.n), v.geo_lat, v.geo_lng FROM moved m LEFT JOIN venues v ON v.id = m.venue_id
		GROUP BY m.venue_id, m.status, v.geo_lat, v.geo_lng`)
		folded = res.RowsAffected
		return res.Error
	})
	if err != nil || folded == 0 {
		return folded, err
	}
	return folded, s.vacuumSmallTables(ctx, "venue_window_counts")
}
