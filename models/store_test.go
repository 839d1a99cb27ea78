package models

import (
	"context"
	"path/filepath"
	"testing"
)

func TestRefreshStatisticsGivesSQLitesPlannerItsStatistics(t *testing.T) {
	ctx := context.Background()
	s, err := Open(SQLite, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
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
