package tests

import (
	"testing"

	"gorm.io/gorm"

	"calendar/models"
	"calendar/models/invariants"
)

// expectLinkListsMatchLinks holds every event's link lists (which every read of events shows) to its link rows,
// which filters and counts use: each test's database is checked this way when the test ends, so every write path
// the suite drives (creates in one statement or in a transaction, updates, concurrent writes, deletes of events and
// of the records they link to) is checked too.
func expectLinkListsMatchLinks(t *testing.T, store *models.Store) {
	t.Helper()
	expectNoProblems(t, "link lists", store, invariants.LinkLists)
}

// expectKeptTotalsMatchEvents checks every total the writes keep for the lists against a fresh count: the day
// counts, the latest starts of venues and organizers, and the term counts (expectTermCounts does the last through
// the API).
func expectKeptTotalsMatchEvents(t *testing.T, store *models.Store) {
	t.Helper()
	expectNoProblems(t, "kept totals", store, invariants.KeptTotals)
}

// expectNoProblems fails the test with each problem check finds in the store's database: the link rows and kept
// totals it compares are tables no answer shows whole. A database the test took away is not checked, and says so.
func expectNoProblems(t *testing.T, what string, store *models.Store, check func(*gorm.DB) ([]string, error)) {
	t.Helper()
	problems, err := check(store.DB())
	for _, p := range problems {
		t.Error(p)
	}
	if err != nil {
		t.Logf("%s not checked: %v", what, err)
	}
}
