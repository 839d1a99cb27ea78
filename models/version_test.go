package models

import (
	"context"
	"sync"
	"testing"
)

func TestEveryWriteAdvancesTheDataVersion(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	version := func() int64 {
		v, err := s.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	if _, err := s.CreateUser(ctx, "ann", "Ann", RoleEditor); err != nil { // a transaction
		t.Fatal(err)
	}
	v1 := version()
	if v1 != v0+1 {
		t.Fatalf("a transaction moved the version from %d to %d", v0, v1)
	}
	if err := s.DB().Create(&Tag{Name: "x", Slug: "x"}).Error; err != nil { // a single statement outside Tx
		t.Fatal(err)
	}
	v2 := version()
	if v2 != v1+1 {
		t.Fatalf("a write outside a transaction moved the version from %d to %d", v1, v2)
	}
	if err := s.DB().Where("slug = ?", "none").Delete(&Tag{}).Error; err != nil { // changes nothing
		t.Fatal(err)
	}
	if v3 := version(); v3 != v2 {
		t.Fatalf("a write that changed nothing moved the version from %d to %d", v2, v3)
	}
	if version() != v2 {
		t.Fatal("reading moved the version")
	}
}

func TestRawWritesOutsideATransactionAdvanceTheDataVersion(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	before, _ := s.Version(ctx)
	if err := s.DB().Exec("INSERT INTO tags (name, slug) VALUES ('a', 'a')").Error; err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := s.DB().Raw("SELECT COUNT(*) FROM tags").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	after, _ := s.Version(ctx)
	if after != before+1 {
		t.Fatalf("a raw insert moved the version from %d to %d (reads must not move it)", before, after)
	}
}

// TestAVersionReadNeverPredatesTheCall proves the coalesced reader's guarantee under concurrency: a version
// obtained after a write committed is never older than that write.
func TestAVersionReadNeverPredatesTheCall(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	reader := s.NewVersionReader()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				if err := s.Tx(ctx, func(*Store) error { return nil }); err != nil {
					t.Error(err)
					return
				}
				committed, err := s.Version(ctx) // at least this write
				if err != nil {
					t.Error(err)
					return
				}
				got, err := reader.Version(ctx)
				if err != nil || got < committed {
					t.Errorf("reader gave %d (%v) after the version reached %d", got, err, committed)
					return
				}
			}
		}(w)
	}
	wg.Wait()
}
