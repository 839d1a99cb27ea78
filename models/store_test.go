package models

import (
	"context"
	"errors"
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

func TestAReadOnlyStoreRefusesWritesAndLeavesItsStoreWritable(t *testing.T) {
	s := migratedSQLite(t)
	ro := s.ReadOnly()
	if err := ro.DB().Create(&Tag{Name: "refused", Slug: "refused"}).Error; !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a create through the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := ro.DB().Exec("DELETE FROM tags").Error; !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a raw write through the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := ro.Tx(context.Background(), func(*Store) error { return nil }); !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a transaction on the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := s.DB().Create(&Tag{Name: "kept", Slug: "kept"}).Error; err != nil {
		t.Fatalf("a create through the store itself after ReadOnly: %v", err)
	}
	var names []string
	if err := ro.DB().Model(&Tag{}).Order("name").Pluck("name", &names).Error; err != nil || len(names) != 1 || names[0] != "kept" {
		t.Fatalf("the read-only store reads %v (%v), want [kept]", names, err)
	}
}
