package models

import (
	"context"
	"errors"
	"testing"

	"calendar/models/testdb"
)

// testStore is a migrated store of its own for one test: a SQLite file, or a schema of the PostgreSQL database
// named by CALENDAR_TEST_DATABASE_URL, dropped when the test ends. Units of work are tested on both.
func testStore(t *testing.T) *Store {
	t.Helper()
	driver, dsn := testdb.Fresh(t)
	return openMigrated(t, driver, dsn)
}

// ptr returns a pointer to v, for the optional fields of inputs.
func ptr[T any](v T) *T { return &v }

// errorCode is the API code of err, or "" when it is not an *Error.
func errorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestTermWritesOwnTheirRules(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	editor := &User{ID: 1, Role: RoleEditor}
	author := &User{ID: 2, Role: RoleAuthor}
	contributor := &User{ID: 3, Role: RoleContributor}
	count := func(tax *Taxonomy) int64 {
		t.Helper()
		var n int64
		if err := s.DB().Table(tax.table).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	music, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author,
		Input: TermInput{Name: ptr("Music")}})
	if err != nil || music.Name != "Music" || music.Slug != "music" {
		t.Fatalf("an author creates a category: %+v, %v", music, err)
	}

	t.Run("who may manage which taxonomy", func(t *testing.T) {
		for _, c := range []struct {
			tax    *Taxonomy
			caller *User
			may    bool
		}{
			{CategoryTaxonomy, author, true}, {CategoryTaxonomy, contributor, false}, {CategoryTaxonomy, nil, false},
			{TagTaxonomy, editor, true}, {TagTaxonomy, author, false},
		} {
			_, err := s.SaveTerm(ctx, TermWrite{Tax: c.tax, Caller: c.caller, Input: TermInput{Name: ptr("Who " + c.tax.singular)}})
			if c.may != (err == nil) {
				t.Errorf("%s by %v: %v", c.tax.singular, c.caller, err)
			}
			if !c.may && errorCode(err) != "rest_forbidden" {
				t.Errorf("a refused %s write answers %v, want rest_forbidden", c.tax.singular, err)
			}
		}
	})

	t.Run("bad input is refused before permissions", func(t *testing.T) {
		before := count(CategoryTaxonomy)
		_, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: contributor,
			Input: TermInput{Name: ptr("Orphan"), Parent: ptr(uint64(999999))}})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindInvalid || e.Params["parent"] == "" {
			t.Fatalf("a contributor naming a missing parent: %v, want 400 naming parent", err)
		}
		if count(CategoryTaxonomy) != before {
			t.Fatal("a refused write created a category")
		}
	})

	t.Run("a duplicate name under the same parent is term_exists, under another parent it is fine", func(t *testing.T) {
		_, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author, Input: TermInput{Name: ptr("MUSIC")}})
		if errorCode(err) != "term_exists" {
			t.Fatalf("a second Music: %v, want term_exists", err)
		}
		child, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author,
			Input: TermInput{Name: ptr("Music"), Parent: ptr(music.ID)}})
		if err != nil || child.ParentID == nil || *child.ParentID != music.ID || child.Slug != "music-2" {
			t.Fatalf("Music under Music: %+v, %v", child, err)
		}
	})

	t.Run("an unknown term is ErrNotFound for updates and deletes", func(t *testing.T) {
		_, err := s.SaveTerm(ctx, TermWrite{Tax: TagTaxonomy, Caller: editor, ID: 999999,
			Input: TermInput{Name: ptr("x")}})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("update: %v", err)
		}
		if _, err := s.RemoveTerm(ctx, TermWrite{Tax: TagTaxonomy, Caller: editor, ID: 999999}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("delete: %v", err)
		}
	})

	t.Run("the caller's precondition runs last and aborts the whole write", func(t *testing.T) {
		stale := errors.New("stale")
		var saw *Term
		_, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author, ID: music.ID, Lock: true,
			Input: TermInput{Name: ptr("Concerts")},
			Check: func(_ *Store, cur *Term) error { saw = cur; return stale }})
		if !errors.Is(err, stale) || saw == nil || saw.Name != "Music" {
			t.Fatalf("precondition: %v, saw %+v", err, saw)
		}
		if got, _ := s.Term(CategoryTaxonomy, music.ID); got.Name != "Music" {
			t.Fatalf("a write whose precondition failed renamed the category to %q", got.Name)
		}
		// A contributor is refused before the precondition is asked.
		saw = nil
		_, err = s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: contributor, ID: music.ID,
			Input: TermInput{Name: ptr("Concerts")}, Check: func(_ *Store, cur *Term) error { saw = cur; return nil }})
		if errorCode(err) != "rest_forbidden" || saw != nil {
			t.Fatalf("a contributor's update: %v, precondition asked: %v", err, saw != nil)
		}
	})

	t.Run("an update changes only what it sends, and Done sees the result in the transaction", func(t *testing.T) {
		var done *Term
		got, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author, ID: music.ID,
			Input: TermInput{Description: ptr("Concerts and more")},
			Done:  func(_ *Store, t *Term) error { done = t; return nil }})
		if err != nil || got.Name != "Music" || got.Description != "Concerts and more" || done != got {
			t.Fatalf("update: %+v, %v, done %+v", got, err, done)
		}
	})

	t.Run("a delete answers the term as it was and moves its children to its parent", func(t *testing.T) {
		arts, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author, Input: TermInput{Name: ptr("Arts")}})
		if err != nil {
			t.Fatal(err)
		}
		film, err := s.SaveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author,
			Input: TermInput{Name: ptr("Film"), Parent: ptr(arts.ID)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RemoveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: contributor, ID: arts.ID}); errorCode(err) != "rest_forbidden" {
			t.Fatalf("a contributor's delete: %v", err)
		}
		var before *Term
		gone, err := s.RemoveTerm(ctx, TermWrite{Tax: CategoryTaxonomy, Caller: author, ID: arts.ID,
			Done: func(tx *Store, t *Term) error {
				var err error
				before, err = tx.Term(CategoryTaxonomy, t.ID) // still there while Done runs
				return err
			}})
		if err != nil || gone.Name != "Arts" || before == nil {
			t.Fatalf("delete: %+v, %v, seen in Done: %+v", gone, err, before)
		}
		if _, err := s.Term(CategoryTaxonomy, arts.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the deleted category is still there: %v", err)
		}
		if moved, err := s.Term(CategoryTaxonomy, film.ID); err != nil || (moved.ParentID != nil && *moved.ParentID != 0) {
			t.Fatalf("Film after its parent's delete: %+v, %v", moved, err)
		}
	})
}
