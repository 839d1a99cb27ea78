package tests

import (
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
