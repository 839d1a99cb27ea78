package models

import (
	"context"
	"testing"
)

func TestTermCountsAddPendingDeltasAndCompactionFoldsThem(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	cat := Category{Name: "Music", Slug: "music"}
	tag := Tag{Name: "outdoor", Slug: "outdoor"}
	if err := s.DB().Create(&cat).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Create(&tag).Error; err != nil {
		t.Fatal(err)
	}
	counts := func() (int64, int64) {
		c, err := s.Term(CategoryTaxonomy, cat.ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.Term(TagTaxonomy, tag.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Count, g.Count
	}
	published := TermLinks{Published: true, Categories: []uint64{cat.ID}, Tags: []uint64{tag.ID}}
	for i := 0; i < 3; i++ { // three published events
		if err := s.AdjustTermCounts(TermLinks{}, published); err != nil {
			t.Fatal(err)
		}
	}
	draft := TermLinks{Categories: []uint64{cat.ID}, Tags: []uint64{tag.ID}}
	if err := s.AdjustTermCounts(published, draft); err != nil { // one goes back to draft
		t.Fatal(err)
	}
	if err := s.AdjustTermCounts(published, TermLinks{Published: true, Categories: []uint64{cat.ID}}); err != nil { // one loses its tag
		t.Fatal(err)
	}
	if c, g := counts(); c != 2 || g != 1 {
		t.Fatalf("before compaction: counts %d and %d, want 2 and 1", c, g)
	}
	before, _ := s.Version(ctx)
	folded, err := s.CompactTermCounts(ctx)
	if err != nil || folded != 9 { // 3×2 for the creates, 2 for the draft, 1 for the lost tag
		t.Fatalf("compaction folded %d deltas (%v), want 9", folded, err)
	}
	if after, _ := s.Version(ctx); after != before {
		t.Fatalf("compaction moved the data version from %d to %d: it changes no answer, cached ones must stay", before, after)
	}
	if c, g := counts(); c != 2 || g != 1 {
		t.Fatalf("after compaction: counts %d and %d, want 2 and 1", c, g)
	}
	var pending int64
	s.DB().Model(&TermCountDelta{}).Count(&pending)
	if folded, _ := s.CompactTermCounts(ctx); pending != 0 || folded != 0 {
		t.Fatalf("%d deltas left, a second compaction folded %d", pending, folded)
	}
}
