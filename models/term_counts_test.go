package models

import (
	"context"
	"testing"
	"time"
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

// TestATermsLastChangeFollowsItsCountAndCompactionKeepsIt dates two tags long ago, moves their counts (one by a
// change that adds up to nothing), and checks that each term's last change is the count change's, before and
// after the deltas are folded into the counts, on both databases.
func TestATermsLastChangeFollowsItsCountAndCompactionKeepsIt(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	moved, back := Tag{Name: "moved", Slug: "moved", UpdatedAt: old}, Tag{Name: "back", Slug: "back", UpdatedAt: old}
	for _, tag := range []*Tag{&moved, &back} {
		if err := s.DB().Create(tag).Error; err != nil {
			t.Fatal(err)
		}
	}
	lastChange := func(id uint64) (time.Time, *Term) {
		term, err := s.Term(TagTaxonomy, id)
		if err != nil {
			t.Fatal(err)
		}
		return term.LastModified(), term
	}
	if at, _ := lastChange(moved.ID); !at.Equal(old) {
		t.Fatalf("a tag created on %s has its last change on %s", old, at)
	}
	start := time.Now().UTC().Truncate(time.Second)
	one := TermLinks{Published: true, Tags: []uint64{moved.ID, back.ID}}
	if err := s.AdjustTermCounts(TermLinks{}, one); err != nil {
		t.Fatal(err)
	}
	if err := s.AdjustTermCounts(one, TermLinks{Published: true, Tags: []uint64{moved.ID}}); err != nil {
		t.Fatal(err)
	}
	pending := map[uint64]time.Time{}
	for _, id := range []uint64{moved.ID, back.ID} {
		at, _ := lastChange(id)
		if at.Before(start.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Fatalf("tag %d: last change %s after a count change at about %s", id, at, start)
		}
		pending[id] = at
	}
	if _, err := s.CompactTermCounts(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{moved.ID, back.ID} {
		at, term := lastChange(id)
		if !at.Equal(pending[id]) || !term.UpdatedAt.Equal(pending[id]) || term.CountedAt != nil {
			t.Fatalf("tag %d: after compaction last change %s, updated %s, pending %v; before it %s", id, at,
				term.UpdatedAt, term.CountedAt, pending[id])
		}
	}
}
