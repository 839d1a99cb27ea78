package models

import (
	"context"
	"path/filepath"
	"testing"
)

// migratedSQLite returns a store on a new, migrated SQLite file that is closed when the test ends.
func migratedSQLite(t *testing.T) *Store {
	t.Helper()
	s, err := Open(SQLite, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRefreshStatisticsGivesSQLitesPlannerItsStatistics(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	if err := s.DB().Create(&Tag{Name: "outdoor", Slug: "outdoor"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshStatistics(ctx); err != nil {
		t.Fatal(err)
	}
	var analysed int64
	if err := s.DB().Raw("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'tags'").Scan(&analysed).Error; err != nil || analysed == 0 {
		t.Fatalf("no planner statistics for tags after RefreshStatistics (%d rows, %v)", analysed, err)
	}
}
