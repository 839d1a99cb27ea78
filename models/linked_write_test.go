package models

import (
	"context"
	"errors"
	"testing"
	"time"
)

// testUser creates a user with the role and returns it as a caller.
func testUser(t *testing.T, s *Store, login string, role Role) *User {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateUser(ctx, login, login, role); err != nil {
		t.Fatal(err)
	}
	u, err := s.userByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLinkedUpdatesAndRemovalsOwnTheirRules(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	editor := testUser(t, s, "editor", RoleEditor)
	now := time.Now().UTC().Truncate(time.Second)
	venue := func(name string) *Venue {
		t.Helper()
		v := &Venue{AuthorID: author.ID, Status: StatusPublish, Name: name, PublishedAt: now, ShowMap: true}
		if err := s.Tx(ctx, func(tx *Store) error { return CreateLinked[Venue](tx, v) }); err != nil {
			t.Fatal(err)
		}
		return v
	}
	hall := venue("Hall")
	event := Event{AuthorID: author.ID, Status: StatusPublish, Title: "Concert", Slug: "concert", Timezone: "UTC",
		StartUTC: now.Add(time.Hour), EndUTC: now.Add(2 * time.Hour), PublishedAt: now}
	if err := s.DB().Omit("Venues", "Organizers", "Categories", "Tags").Create(&event).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Create(&EventVenue{EventID: event.ID, VenueID: hall.ID}).Error; err != nil {
		t.Fatal(err)
	}
	links := func() int64 {
		t.Helper()
		var n int64
		if err := s.DB().Model(&EventVenue{}).Where("venue_id = ?", hall.ID).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	if _, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: editor, ID: 999999}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown venue: %v", err)
	}
	if _, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: contributor, ID: hall.ID}}); errorCode(err) != "rest_forbidden" {
		t.Fatalf("a contributor trashing another user's published venue: %v", err)
	}
	stale := errors.New("stale")
	if _, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author,
		Slug: hall.Slug, Check: func(*Store, *Venue) error { return stale }}}); !errors.Is(err, stale) {
		t.Fatalf("a failed precondition: %v", err)
	}
	if got, _ := FindLinked[Venue](s, hall.ID, false); got.Status != StatusPublish || got.Name != "Hall" || links() != 1 {
		t.Fatalf("refused removals changed the venue (%s) or its links (%d)", got.Status, links())
	}

	rename := func(name string) func(*Store, *Venue) error {
		return func(_ *Store, v *Venue) error { v.Name = name; return nil }
	}
	if _, err := UpdateLinked[Venue](ctx, s, LinkedUpdate[Venue]{LinkedChange: LinkedChange[Venue]{Caller: contributor,
		ID: hall.ID}, Apply: rename("Mine")}); errorCode(err) != "rest_forbidden" {
		t.Fatalf("a contributor editing another user's published venue: %v", err)
	}
	invalid := InvalidParam("venue", "must not be empty")
	if _, err := UpdateLinked[Venue](ctx, s, LinkedUpdate[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author,
		ID: hall.ID}, Apply: func(_ *Store, v *Venue) error { v.Name = ""; return invalid }}); !errors.Is(err, invalid) {
		t.Fatalf("an update whose input is bad: %v", err)
	}
	renamed, err := UpdateLinked[Venue](ctx, s, LinkedUpdate[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author,
		Slug: hall.Slug}, Apply: rename("Great Hall")})
	if got, _ := FindLinked[Venue](s, hall.ID, false); err != nil || renamed.Name != "Great Hall" ||
		got.Name != "Great Hall" || got.Slug != hall.Slug {
		t.Fatalf("renaming by slug: %v, %+v", err, got)
	}

	var answered Venue
	trashed, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author, ID: hall.ID},
		Done: func(_ *Store, v *Venue) error { answered = *v; return nil }})
	if err != nil || trashed.Status != StatusTrash || answered.Status != StatusTrash || links() != 0 {
		t.Fatalf("trashing: %v, status %s, answered %s, links %d", err, trashed.Status, answered.Status, links())
	}
	var gone *Error
	if _, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author, ID: hall.ID}}); !errors.As(err, &gone) ||
		gone.Kind != KindGone || gone.Code != "venue-is-in-trash" {
		t.Fatalf("trashing twice: %v, want venue-is-in-trash", err)
	}
	deleted, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: editor, ID: hall.ID}, Force: true,
		Done: func(tx *Store, v *Venue) error {
			_, err := FindLinked[Venue](tx, v.ID, false) // still there while the answer is built
			return err
		}})
	if err != nil || deleted.ID != hall.ID {
		t.Fatalf("deleting for good: %v", err)
	}
	if _, err := FindLinked[Venue](s, hall.ID, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the deleted venue is still there: %v", err)
	}
}

func TestLinkedCreatesOwnTheDuplicateRule(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	subscriber := testUser(t, s, "subscriber", RoleSubscriber)
	// create adds a venue named name in city as caller, with the status the caller may give status, sending the
	// name and the city.
	create := func(caller *User, name, status, city string) (*Venue, bool, error) {
		return AddLinked[Venue](ctx, s, LinkedCreation[Venue]{Caller: caller, Sent: map[string]bool{"venue": true, "city": true},
			Assign: func(_ *Store, v *Venue) error {
				v.Name, v.City, v.Status = name, city, caller.ScaleBackStatus(status, "", true)
				return nil
			}})
	}

	if _, _, err := create(subscriber, "Hall", StatusPublish, "Paris"); errorCode(err) != "rest_forbidden" {
		t.Fatalf("a subscriber's create: %v", err)
	}
	if _, _, err := create(nil, "Hall", StatusPublish, "Paris"); errorCode(err) != "rest_forbidden" {
		t.Fatalf("an anonymous create: %v", err)
	}
	if n := rows(t, s, "venues"); n != 0 {
		t.Fatalf("refused creates wrote %d venues", n)
	}

	hall, created, err := create(author, "Hall", StatusPublish, "Paris")
	if err != nil || !created || hall.Slug != "hall" || hall.AuthorID != author.ID || hall.PublishedAt.IsZero() {
		t.Fatalf("the first Hall: %+v, created %v, %v", hall, created, err)
	}
	t.Run("the same name ignoring case with the same values is the existing record", func(t *testing.T) {
		again, created, err := create(contributor, "HALL", StatusPublish, "Paris")
		if err != nil || created || again.ID != hall.ID {
			t.Fatalf("%+v, created %v, %v", again, created, err)
		}
	})
	t.Run("other values make another record with a slug of its own", func(t *testing.T) {
		other, created, err := create(author, "Hall", StatusPublish, "Lyon")
		if err != nil || !created || other.ID == hall.ID || other.Slug != "hall-2" {
			t.Fatalf("%+v, created %v, %v", other, created, err)
		}
	})
	t.Run("a value the request did not send is not compared", func(t *testing.T) {
		again, created, err := AddLinked[Venue](ctx, s, LinkedCreation[Venue]{Caller: author,
			Sent: map[string]bool{"venue": true}, Assign: func(_ *Store, v *Venue) error {
				v.Name, v.Status, v.Phone = "Hall", StatusPublish, "+33 1 23 45 67 89"
				return nil
			}})
		if err != nil || created || again.ID != hall.ID {
			t.Fatalf("%+v, created %v, %v", again, created, err)
		}
	})
	t.Run("a password sent must match the existing record's", func(t *testing.T) {
		withPassword := func(name, password string) (*Venue, bool, error) {
			return AddLinked[Venue](ctx, s, LinkedCreation[Venue]{Caller: author,
				Sent: map[string]bool{"venue": true, "password": true}, Password: password,
				Assign: func(_ *Store, v *Venue) error {
					v.Name, v.Status, v.Password = name, StatusPublish, HashRecordPassword(password)
					return nil
				}})
		}
		vault, _, err := withPassword("Vault", "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		if again, created, err := withPassword("Vault", "s3cret"); err != nil || created || again.ID != vault.ID {
			t.Fatalf("the same password: %+v, created %v, %v", again, created, err)
		}
		if other, created, err := withPassword("Vault", "other"); err != nil || !created || other.ID == vault.ID {
			t.Fatalf("another password: %+v, created %v, %v", other, created, err)
		}
		if open, created, err := withPassword("Vault", ""); err != nil || !created || open.ID == vault.ID {
			t.Fatalf("no password: %+v, created %v, %v", open, created, err)
		}
	})
	t.Run("a record the caller may not read is no duplicate", func(t *testing.T) {
		attic, _, err := create(author, "Attic", StatusDraft, "Paris")
		if err != nil {
			t.Fatal(err)
		}
		mine, created, err := create(contributor, "attic", StatusPublish, "Paris")
		if err != nil || !created || mine.ID == attic.ID || mine.Status != StatusPending {
			t.Fatalf("%+v, created %v, %v", mine, created, err)
		}
	})
	t.Run("a trashed record is no duplicate", func(t *testing.T) {
		cellar, _, err := create(author, "Cellar", StatusPublish, "Paris")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RemoveLinked[Venue](ctx, s, LinkedRemoval[Venue]{LinkedChange: LinkedChange[Venue]{Caller: author,
			ID: cellar.ID}}); err != nil {
			t.Fatal(err)
		}
		again, created, err := create(author, "Cellar", StatusPublish, "Paris")
		if err != nil || !created || again.ID == cellar.ID {
			t.Fatalf("%+v, created %v, %v", again, created, err)
		}
	})
	t.Run("a create whose input is bad, or whose write fails later, leaves nothing written", func(t *testing.T) {
		before := rows(t, s, "venues")
		invalid := InvalidParam("venue", "must not be empty")
		_, _, err := AddLinked[Venue](ctx, s, LinkedCreation[Venue]{Caller: author,
			Assign: func(*Store, *Venue) error { return invalid }})
		if !errors.Is(err, invalid) {
			t.Fatalf("bad input: %v", err)
		}
		later := errors.New("the event write failed")
		err = s.Tx(ctx, func(tx *Store) error {
			if _, _, err := InsertLinked[Venue](tx, LinkedCreation[Venue]{Caller: author,
				Assign: func(_ *Store, v *Venue) error { v.Name, v.Status = "Inline", StatusPublish; return nil }}); err != nil {
				return err
			}
			return later
		})
		if !errors.Is(err, later) || rows(t, s, "venues") != before {
			t.Fatalf("%v; venues %d, want %d", err, rows(t, s, "venues"), before)
		}
	})
}
