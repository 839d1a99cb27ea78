package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// eventApply is a create's Apply as a handler writes one: the title, an hour from now, the status the caller may
// give a published event, and the categories named, created when the caller may create categories. calls counts
// its runs.
func eventApply(title string, caller *User, calls *int, categories ...string) func(*Store, *Event) (*EventPlan, error) {
	return func(s *Store, e *Event) (*EventPlan, error) {
		*calls++
		now := time.Now().UTC().Truncate(time.Second)
		e.Title, e.Timezone, e.PublishedAt = title, "UTC", now
		e.StartUTC, e.EndUTC = now.Add(time.Hour), now.Add(2*time.Hour)
		e.Status = caller.ScaleBackStatus(StatusPublish, "", true)
		found, err := s.FindEventRefs(EventRefs{Categories: categories})
		if err != nil {
			return nil, err
		}
		plan := &EventPlan{Slug: Slugify(title, "event"), Found: found}
		if categories != nil {
			if plan.Categories, err = s.ResolveCategoriesFound(categories, found, caller); err != nil {
				return nil, err
			}
		}
		return plan, nil
	}
}

// rows counts the rows of table.
func rows(t *testing.T, s *Store, table string) int64 {
	t.Helper()
	var n int64
	if err := s.DB().Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// categoryNamed returns the category with name, or nil.
func categoryNamed(t *testing.T, s *Store, name string) *Term {
	t.Helper()
	var ids []uint64
	if err := s.DB().Table("categories").Where("name = ?", name).Pluck("id", &ids).Error; err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		return nil
	}
	c, err := s.Term(CategoryTaxonomy, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createEvent creates a published (for authors and above) event titled title as caller.
func createEvent(t *testing.T, s *Store, caller *User, title string, categories ...string) *Event {
	t.Helper()
	var calls int
	e, err := s.CreateEvent(context.Background(), EventCreation{Caller: caller,
		Apply: eventApply(title, caller, &calls, categories...)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEventCreatesOwnTheirRules(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	subscriber := testUser(t, s, "subscriber", RoleSubscriber)
	oneStatement := s.InsertsEventsInOneStatement()

	t.Run("a subscriber or an anonymous caller is refused before anything is applied", func(t *testing.T) {
		for _, caller := range []*User{subscriber, nil} {
			var calls int
			_, err := s.CreateEvent(ctx, EventCreation{Caller: caller, Apply: eventApply("Nope", author, &calls)})
			if errorCode(err) != "rest_forbidden" || calls != 0 {
				t.Fatalf("%v: %v, Apply ran %d times", caller, err, calls)
			}
		}
		if n := rows(t, s, "events"); n != 0 {
			t.Fatalf("refused creates wrote %d events", n)
		}
	})

	t.Run("an author's event links the category it creates, and counts for it", func(t *testing.T) {
		var calls int
		e, err := s.CreateEvent(ctx, EventCreation{Caller: author,
			Apply: eventApply("Jazz night", author, &calls, "Jazz")})
		if err != nil {
			t.Fatal(err)
		}
		if e.ID == 0 || e.Slug != "jazz-night" || e.AuthorID != author.ID || e.Status != StatusPublish {
			t.Fatalf("created %+v", e)
		}
		if len(e.Categories) != 1 || e.Categories[0].Name != "Jazz" || e.Categories[0].Count != 1 {
			t.Fatalf("the answer's categories: %+v", e.Categories)
		}
		if jazz := categoryNamed(t, s, "Jazz"); jazz == nil || jazz.Count != 1 {
			t.Fatalf("the category as stored: %+v", jazz)
		}
		// Creating a term is a write the one-statement path cannot make: it runs Apply again in a transaction.
		want := 1
		if oneStatement {
			want = 2
		}
		if calls != want {
			t.Fatalf("Apply ran %d times, want %d", calls, want)
		}
	})

	t.Run("an event whose links all exist takes one run of Apply, and its answer shows them", func(t *testing.T) {
		var calls int
		e, err := s.CreateEvent(ctx, EventCreation{Caller: author,
			Apply: eventApply("Jazz brunch", author, &calls, "jazz")})
		if err != nil || calls != 1 {
			t.Fatalf("%v, Apply ran %d times", err, calls)
		}
		if len(e.Categories) != 1 || e.Categories[0].Name != "Jazz" || e.Categories[0].Count != 2 {
			t.Fatalf("the answer's categories: %+v", e.Categories)
		}
	})

	t.Run("a contributor may not create categories: nothing is written", func(t *testing.T) {
		events := rows(t, s, "events")
		var calls int
		_, err := s.CreateEvent(ctx, EventCreation{Caller: contributor,
			Apply: eventApply("Folk night", contributor, &calls, "Folk")})
		var e *Error
		if !errors.As(err, &e) || e.Code != "rest_forbidden" || e.Data["params"] == nil {
			t.Fatalf("a contributor naming a new category: %v, want rest_forbidden naming categories", err)
		}
		if categoryNamed(t, s, "Folk") != nil || rows(t, s, "events") != events {
			t.Fatal("a refused create wrote a category or an event")
		}
		// An existing category is fine, and a contributor's event waits for review.
		var calls2 int
		own, err := s.CreateEvent(ctx, EventCreation{Caller: contributor,
			Apply: eventApply("Jazz jam", contributor, &calls2, "Jazz")})
		if err != nil || own.Status != StatusPending || len(own.Categories) != 1 {
			t.Fatalf("a contributor's event in an existing category: %+v, %v", own, err)
		}
	})

	t.Run("a create that fails after creating a category leaves nothing written", func(t *testing.T) {
		events := rows(t, s, "events")
		bad := InvalidParam("end_date", "must not be before the start date")
		var calls int
		apply := eventApply("Rollback", author, &calls, "Rollback")
		_, err := s.CreateEvent(ctx, EventCreation{Caller: author, Apply: func(s *Store, e *Event) (*EventPlan, error) {
			if _, err := apply(s, e); err != nil {
				return nil, err
			}
			return nil, bad
		}})
		if !errors.Is(err, bad) {
			t.Fatalf("%v, want the Apply's error", err)
		}
		if categoryNamed(t, s, "Rollback") != nil || rows(t, s, "events") != events {
			t.Fatal("a failed create left a category or an event behind")
		}
	})

	t.Run("a taken slug gets the next free one", func(t *testing.T) {
		first := createEvent(t, s, author, "Concert")
		second := createEvent(t, s, author, "Concert")
		if first.Slug != "concert" || second.Slug != "concert-2" {
			t.Fatalf("slugs %q and %q", first.Slug, second.Slug)
		}
	})

	t.Run("a series is written in the transaction, and a bad rule leaves nothing", func(t *testing.T) {
		events := rows(t, s, "events")
		var calls int
		_, err := s.CreateEvent(ctx, EventCreation{Caller: author, Apply: eventApply("Weekly", author, &calls),
			Recurrence: []string{"RRULE:FREQ=SECONDLY"}, Clock: testClock()})
		if errorCode(err) != "rest_invalid_param" || invalidParams(err)["recurrence"] == "" || calls != 1 ||
			rows(t, s, "events") != events {
			t.Fatalf("%v, Apply ran %d times, %d events written", err, calls, rows(t, s, "events")-events)
		}
		e, err := s.CreateEvent(ctx, EventCreation{Caller: author, Apply: eventApply("Weekly", author, &calls),
			Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=3"}, Clock: testClock()})
		if err != nil || e.ID == 0 || e.Slug != "weekly" || e.Series == nil || rows(t, s, "events") != events+4 {
			t.Fatalf("the series record: %+v, %v, %d events written", e, err, rows(t, s, "events")-events)
		}
	})
}

func TestEventUpdatesOwnTheirRules(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	subscriber := testUser(t, s, "subscriber", RoleSubscriber)
	concert := createEvent(t, s, author, "Concert", "Music")
	retitle := func(title string, calls *int) func(*Store, *Event, *FoundRefs) (EventLinkIDs, error) {
		return func(tx *Store, e *Event, _ *FoundRefs) (EventLinkIDs, error) {
			*calls++
			e.Title = title
			return EventLinkIDs{}, nil
		}
	}
	title := func() string {
		t.Helper()
		e, err := s.EventByID(concert.ID)
		if err != nil {
			t.Fatal(err)
		}
		return e.Title
	}

	t.Run("an unknown event is rest-event-not-found, by ID and by slug", func(t *testing.T) {
		for _, c := range []EventChange{{Caller: author, ID: 999999}, {Caller: author, Slug: "no-such-event"}} {
			var calls int
			_, err := s.UpdateEvent(ctx, EventUpdate{EventChange: c, Apply: retitle("x", &calls)})
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindNotFound || e.Code != "rest-event-not-found" || calls != 0 {
				t.Fatalf("%+v: %v", c, err)
			}
		}
	})

	t.Run("who may edit another user's published event", func(t *testing.T) {
		for _, c := range []struct {
			caller *User
			code   string
		}{{subscriber, "rest_forbidden"}, {contributor, "rest_forbidden"}, {nil, "rest_forbidden"}} {
			var calls int
			_, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: c.caller, ID: concert.ID},
				Apply: retitle("Mine", &calls)})
			if errorCode(err) != c.code || calls != 0 {
				t.Fatalf("%v: %v, Apply ran %d times", c.caller, err, calls)
			}
		}
		if title() != "Concert" {
			t.Fatal("a refused update changed the event")
		}
	})

	t.Run("the precondition runs after the permission check and aborts the update", func(t *testing.T) {
		stale := errors.New("stale")
		var calls int
		var saw *Event
		_, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: author, Slug: "concert",
			Check: func(_ *Store, e *Event) error { saw = e; return stale }}, Apply: retitle("Late", &calls)})
		if !errors.Is(err, stale) || calls != 0 || saw == nil || saw.ID != concert.ID {
			t.Fatalf("%v, Apply ran %d times, precondition saw %+v", err, calls, saw)
		}
		saw = nil
		_, err = s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: contributor, ID: concert.ID,
			Check: func(_ *Store, e *Event) error { saw = e; return nil }}, Apply: retitle("Late", &calls)})
		if errorCode(err) != "rest_forbidden" || saw != nil {
			t.Fatalf("a contributor's update: %v, precondition asked: %v", err, saw != nil)
		}
	})

	t.Run("an Apply that fails after saving leaves the event as it was", func(t *testing.T) {
		bad := InvalidParam("title", "must not be empty")
		_, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: author, ID: concert.ID},
			Apply: func(tx *Store, e *Event, _ *FoundRefs) (EventLinkIDs, error) {
				e.Title = "Half done"
				if err := tx.SaveEvent(e); err != nil {
					return EventLinkIDs{}, err
				}
				return EventLinkIDs{}, bad
			}})
		if !errors.Is(err, bad) || title() != "Concert" {
			t.Fatalf("%v, title %q", err, title())
		}
	})

	t.Run("an update answers the event as saved, with its links", func(t *testing.T) {
		var calls int
		e, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: author, ID: concert.ID},
			Apply: retitle("Concerto", &calls)})
		if err != nil || e.Title != "Concerto" || len(e.Categories) != 1 || e.Categories[0].Name != "Music" {
			t.Fatalf("%+v, %v", e, err)
		}
	})

	t.Run("a contributor edits and trashes an event of their own", func(t *testing.T) {
		own := createEvent(t, s, contributor, "Draft idea")
		var calls int
		e, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: contributor, ID: own.ID},
			Trash: true, Apply: func(tx *Store, e *Event, _ *FoundRefs) (EventLinkIDs, error) {
				calls++
				e.TrashedStatus, e.Status = e.Status, StatusTrash
				return EventLinkIDs{}, nil
			}})
		if err != nil || e.Status != StatusTrash || e.TrashedStatus != StatusPending || calls != 1 {
			t.Fatalf("%+v, %v", e, err)
		}
	})
}

func TestEventRemovalsOwnTheirRules(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	editor := testUser(t, s, "editor", RoleEditor)
	concert := createEvent(t, s, author, "Concert", "Music")
	count := func() int64 {
		t.Helper()
		c := categoryNamed(t, s, "Music")
		return c.Count
	}
	if count() != 1 {
		t.Fatalf("a published event in Music: count %d", count())
	}
	remove := func(r EventRemoval) (*Event, error) { return s.RemoveEvent(ctx, r) }

	if _, err := remove(EventRemoval{EventChange: EventChange{Caller: editor, ID: 999999}}); errorCode(err) != "rest-event-not-found" {
		t.Fatalf("an unknown event: %v", err)
	}
	for _, caller := range []*User{contributor, nil} {
		if _, err := remove(EventRemoval{EventChange: EventChange{Caller: caller, ID: concert.ID}, Force: true}); errorCode(err) != "rest_forbidden" {
			t.Fatalf("%v deleting an author's published event: %v", caller, err)
		}
	}
	stale := errors.New("stale")
	if _, err := remove(EventRemoval{EventChange: EventChange{Caller: author, Slug: "concert",
		Check: func(*Store, *Event) error { return stale }}}); !errors.Is(err, stale) {
		t.Fatalf("a failed precondition: %v", err)
	}
	following := ScopeFollowing
	if _, err := remove(EventRemoval{EventChange: EventChange{Caller: author, ID: concert.ID},
		Scope: &following}); invalidParams(err)["scope"] == "" {
		t.Fatalf("a scope for an event outside any series: %v", err)
	}
	if got, _ := s.EventByID(concert.ID); got.Status != StatusPublish || count() != 1 {
		t.Fatalf("refused removals changed the event (%s) or its category's count (%d)", got.Status, count())
	}

	trashed, err := remove(EventRemoval{EventChange: EventChange{Caller: author, ID: concert.ID}})
	if err != nil || trashed.Status != StatusTrash || trashed.TrashedStatus != StatusPublish {
		t.Fatalf("trashing: %+v, %v", trashed, err)
	}
	if count() != 0 {
		t.Fatalf("a trashed event still counts for its category: %d", count())
	}
	_, err = remove(EventRemoval{EventChange: EventChange{Caller: author, ID: concert.ID}})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindGone || e.Code != "event-is-in-trash" {
		t.Fatalf("trashing twice: %v", err)
	}

	gone, err := remove(EventRemoval{EventChange: EventChange{Caller: author, ID: concert.ID}, Force: true})
	if err != nil || gone.ID != concert.ID || gone.Status != StatusTrash || gone.Title != "Concert" {
		t.Fatalf("deleting for good answers the event as it was: %+v, %v", gone, err)
	}
	if _, err := s.EventByID(concert.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the deleted event is still there: %v", err)
	}
}

// TestEventUpdatesLockTheRecordsTheyNameBeforeTheEvent holds an event's row lock while an update of it that names
// a venue starts: the update must already hold the venue against deletion (FOR KEY SHARE) while it waits for the
// event. Trashing or deleting a venue locks it before its events (unlinkEvents); an update that locked the event
// first and the venue after, when writing its link, had the two wait for each other until PostgreSQL aborted one.
func TestEventUpdatesLockTheRecordsTheyNameBeforeTheEvent(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	if s.Dialect() != Postgres {
		t.Skip("SQLite runs one write transaction at a time: it takes no row locks")
	}
	author := testUser(t, s, "author", RoleAuthor)
	concert := createEvent(t, s, author, "Concert")
	hall := &Venue{AuthorID: author.ID, Status: StatusPublish, Name: "Hall", PublishedAt: time.Now().UTC()}
	if err := s.Tx(ctx, func(tx *Store) error { return CreateLinked[Venue](tx, hall) }); err != nil {
		t.Fatal(err)
	}

	holder := s.db.Begin()
	defer holder.Rollback()
	if err := holder.Exec("SELECT id FROM events WHERE id = ? FOR UPDATE", concert.ID).Error; err != nil {
		t.Fatal(err)
	}
	updated := make(chan error, 1)
	go func() {
		_, err := s.UpdateEvent(ctx, EventUpdate{EventChange: EventChange{Caller: author, ID: concert.ID},
			Refs: EventRefs{Venues: []uint64{hall.ID}},
			Apply: func(_ *Store, _ *Event, found *FoundRefs) (EventLinkIDs, error) {
				venues, _ := FoundLinked[Venue](found, []uint64{hall.ID})
				if len(venues) != 1 {
					return EventLinkIDs{}, errors.New("the venue named was not found")
				}
				return EventLinkIDs{Venues: []uint64{hall.ID}}, nil
			}})
		updated <- err
	}()

	// The update is waiting for the event; the venue must be locked already, which a NOWAIT lock tells.
	held := false
	for deadline := time.Now().Add(10 * time.Second); !held && time.Now().Before(deadline); {
		err := s.db.Transaction(func(tx *gorm.DB) error {
			return tx.Exec("SELECT id FROM venues WHERE id = ? FOR UPDATE NOWAIT", hall.ID).Error
		})
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "55P03": // lock_not_available
			held = true
		case err != nil:
			t.Fatal(err)
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !held {
		t.Fatal("an update waiting for its event's lock does not hold the venue it names")
	}
	if err := holder.Rollback().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-updated; err != nil {
		t.Fatal(err)
	}
	e, err := s.EventWithLinks(concert.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Venues) != 1 || e.Venues[0].ID != hall.ID {
		t.Fatalf("venues after the update: %+v", e.Venues)
	}
}
