package models

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The series rules, tested through the writes that run them (CreateEvent, UpdateEvent, RemoveEvent) as a handler
// calls them, on both databases.

// seriesStart is the first occurrence of the test series: a Monday evening, after testClock's moment.
var seriesStart = time.Date(2030, 1, 7, 18, 0, 0, 0, time.UTC)

// testClock is a write's clock before seriesStart, with a year's horizon.
func testClock() SeriesClock {
	return SeriesClock{Now: seriesStart.AddDate(0, -1, 0), Span: 365 * 24 * time.Hour}
}

// invalidParams are the parameters err names as invalid.
func invalidParams(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Params
	}
	return nil
}

// createSeries creates a published series titled title, an hour long from seriesStart, with lines, as caller.
func createSeries(t *testing.T, s *Store, caller *User, title string, lines ...string) *Event {
	t.Helper()
	e, err := s.CreateEvent(context.Background(), EventCreation{Caller: caller, Recurrence: lines, Clock: testClock(),
		Apply: func(_ *Store, e *Event) (*EventPlan, error) {
			e.Title, e.Timezone, e.Status, e.PublishedAt = title, "UTC", StatusPublish, testClock().Now
			e.StartUTC, e.EndUTC = seriesStart, seriesStart.Add(time.Hour)
			return &EventPlan{Slug: Slugify(title, "event")}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// occurrence is one occurrence as a test compares it: its event and its row.
type occurrence struct {
	Event
	row EventOccurrence
}

// occurrencesOf reads the occurrences of series record id, by original start.
func occurrencesOf(t *testing.T, s *Store, id uint64) []occurrence {
	t.Helper()
	rows, err := s.OccurrencesOf(id)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]occurrence, len(rows))
	for i, r := range rows {
		e, err := s.EventByID(r.EventID)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = occurrence{Event: *e, row: r}
	}
	return out
}

// eventIDs are the IDs of occurrences.
func eventIDs(occurrences []occurrence) []uint64 {
	out := make([]uint64, len(occurrences))
	for i, o := range occurrences {
		out[i] = o.ID
	}
	return out
}

// seriesRule reads the stored lines of series record id.
func seriesRule(t *testing.T, s *Store, id uint64) string {
	t.Helper()
	e, err := s.EventWithLinks(id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Series == nil {
		t.Fatalf("event %d is not a series record", id)
	}
	return e.Series.Recurrence
}

// update changes event id as caller: apply writes the values, fields names them.
func update(s *Store, caller *User, id uint64, edit SeriesEdit, apply func(*Event)) (*Event, error) {
	return s.UpdateEvent(context.Background(), EventUpdate{EventChange: EventChange{Caller: caller, ID: id},
		Edit: edit, Clock: testClock(), Apply: func(_ *Store, e *Event, _ *FoundRefs) (EventLinkIDs, error) {
			apply(e)
			return EventLinkIDs{}, nil
		}})
}

// retitled sets the title.
func retitled(title string) func(*Event) { return func(e *Event) { e.Title = title } }

func TestSeriesCreateWritesItsOccurrences(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Weekly class", "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20300114T180000Z")
	occ := occurrencesOf(t, s, e.ID)
	var starts []time.Time
	for _, o := range occ {
		starts = append(starts, o.StartUTC)
		if o.Title != "Weekly class" || o.SeriesID == nil || *o.SeriesID != e.ID || o.Status != StatusPublish {
			t.Fatalf("occurrence %+v", o.Event)
		}
	}
	want := []time.Time{seriesStart, seriesStart.AddDate(0, 0, 14), seriesStart.AddDate(0, 0, 21)}
	if !slices.EqualFunc(starts, want, time.Time.Equal) {
		t.Fatalf("occurrences start at %v, want %v (the EXDATE cancels the second)", starts, want)
	}
	if !e.HideFromListings || e.Series == nil || e.Series.HideFromListings {
		t.Fatalf("the series record is never listed; its occurrences are: %+v", e)
	}
}

func TestSeriesUpdatesKeepTheOccurrencesOwnChanges(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Yoga", "RRULE:FREQ=WEEKLY;COUNT=5")
	before := occurrencesOf(t, s, e.ID)
	special := before[1]

	if _, err := update(s, author, special.ID, SeriesEdit{Fields: []string{"title"}}, retitled("Yoga outdoors")); err != nil {
		t.Fatal(err)
	}
	if _, err := update(s, author, e.ID, SeriesEdit{Fields: []string{"title", "description"}}, func(e *Event) {
		e.Title, e.Description = "Morning yoga", "Bring a mat"
	}); err != nil {
		t.Fatal(err)
	}
	after := occurrencesOf(t, s, e.ID)
	if !slices.Equal(eventIDs(after), eventIDs(before)) {
		t.Fatalf("a series update changed the occurrences' IDs: %v, then %v", eventIDs(before), eventIDs(after))
	}
	for _, o := range after {
		wantTitle := "Morning yoga"
		if o.ID == special.ID {
			wantTitle = "Yoga outdoors"
			if !o.row.IsException() || !o.row.Overridden("title") || o.row.Overridden("description") {
				t.Fatalf("the edited occurrence records %q as its own changes", o.row.Overrides)
			}
		}
		if o.Title != wantTitle || o.Description != "Bring a mat" {
			t.Fatalf("occurrence %d: %q, %q; want %q with the series' description", o.ID, o.Title, o.Description, wantTitle)
		}
	}
}

func TestSeriesStartMoveKeepsOccurrenceIDsAndCancellations(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Market", "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20300121T180000Z")
	before := occurrencesOf(t, s, e.ID)
	moved := before[1]
	later := moved.StartUTC.Add(30 * time.Minute)
	if _, err := update(s, author, moved.ID, SeriesEdit{Fields: []string{"dates"}}, func(e *Event) {
		e.StartUTC, e.EndUTC = later, later.Add(time.Hour)
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := update(s, author, e.ID, SeriesEdit{Fields: []string{"dates"}}, func(e *Event) {
		e.StartUTC, e.EndUTC = e.StartUTC.Add(2*time.Hour), e.EndUTC.Add(2*time.Hour)
	}); err != nil {
		t.Fatal(err)
	}
	after := occurrencesOf(t, s, e.ID)
	if !slices.Equal(eventIDs(after), eventIDs(before)) {
		t.Fatalf("moving the start changed the occurrences: %v, then %v", eventIDs(before), eventIDs(after))
	}
	for i, o := range after {
		wantStart := before[i].StartUTC.Add(2 * time.Hour)
		if o.ID == moved.ID {
			wantStart = later // it moved on its own, and keeps its time
		}
		if !o.StartUTC.Equal(wantStart) || !o.row.RecurrenceID.Equal(before[i].row.RecurrenceID.Add(2*time.Hour)) {
			t.Fatalf("occurrence %d starts %v (original start %v), want %v", o.ID, o.StartUTC, o.row.RecurrenceID, wantStart)
		}
	}
	if rule := seriesRule(t, s, e.ID); !strings.Contains(rule, "EXDATE:20300121T200000") {
		t.Fatalf("the cancelled date did not move with the start: %q", rule)
	}
}

func TestSeriesSplitsFromAnOccurrenceOn(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Choir", "RRULE:FREQ=WEEKLY;COUNT=6")
	before := occurrencesOf(t, s, e.ID)

	tail, err := update(s, author, before[3].ID, SeriesEdit{Fields: []string{"title"}, Scope: ptr(ScopeFollowing)},
		retitled("Choir (new room)"))
	if err != nil {
		t.Fatal(err)
	}
	if tail.Occurrence == nil || tail.Occurrence.SeriesID == e.ID {
		t.Fatalf("the answer is the occurrence, now in a new series: %+v", tail.Occurrence)
	}
	newSeries := tail.Occurrence.SeriesID
	head, rest := occurrencesOf(t, s, e.ID), occurrencesOf(t, s, newSeries)
	if !slices.Equal(eventIDs(head), eventIDs(before[:3])) || !slices.Equal(eventIDs(rest), eventIDs(before[3:])) {
		t.Fatalf("split into %v and %v, want %v and %v", eventIDs(head), eventIDs(rest), eventIDs(before[:3]),
			eventIDs(before[3:]))
	}
	for _, o := range head {
		if o.Title != "Choir" {
			t.Fatalf("an earlier occurrence changed: %q", o.Title)
		}
	}
	for _, o := range rest {
		if o.Title != "Choir (new room)" {
			t.Fatalf("a later occurrence kept its title: %q", o.Title)
		}
	}
	if rule := seriesRule(t, s, e.ID); !strings.Contains(rule, "COUNT=3") && !strings.Contains(rule, "UNTIL=") {
		t.Fatalf("the first series does not end before the split: %q", rule)
	}
}

func TestSeriesRemovalsCancelOccurrences(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Lecture", "RRULE:FREQ=WEEKLY;COUNT=6")
	occ := occurrencesOf(t, s, e.ID)
	remove := func(id uint64, scope *string) (*Event, error) {
		return s.RemoveEvent(ctx, EventRemoval{EventChange: EventChange{Caller: author, ID: id}, Scope: scope})
	}

	t.Run("one occurrence is trashed and becomes an EXDATE", func(t *testing.T) {
		got, err := remove(occ[2].ID, nil)
		if err != nil || got.Status != StatusTrash {
			t.Fatalf("%+v, %v", got, err)
		}
		if rule := seriesRule(t, s, e.ID); !strings.Contains(rule, "EXDATE:20300121T180000") {
			t.Fatalf("rule %q", rule)
		}
	})

	t.Run("the first occurrence moves the series' start to the next one", func(t *testing.T) {
		if _, err := remove(occ[0].ID, nil); err != nil {
			t.Fatal(err)
		}
		head, err := s.EventByID(e.ID)
		if err != nil || !head.StartUTC.Equal(occ[1].StartUTC) {
			t.Fatalf("the series starts %v, want %v (%v)", head.StartUTC, occ[1].StartUTC, err)
		}
	})

	t.Run("scope following trashes the occurrence and the later ones, and ends the rule before it", func(t *testing.T) {
		if _, err := remove(occ[4].ID, ptr(ScopeFollowing)); err != nil {
			t.Fatal(err)
		}
		for _, o := range occurrencesOf(t, s, e.ID) {
			trashed := o.Status == StatusTrash
			if want := o.ID != occ[1].ID && o.ID != occ[3].ID; trashed != want {
				t.Fatalf("occurrence %d trashed: %v, want %v", o.ID, trashed, want)
			}
		}
		if rule := seriesRule(t, s, e.ID); strings.Contains(rule, "COUNT=6") {
			t.Fatalf("the rule still runs past the removed occurrences: %q", rule)
		}
	})

	t.Run("force deletes the series record with every occurrence", func(t *testing.T) {
		if _, err := s.RemoveEvent(ctx, EventRemoval{EventChange: EventChange{Caller: author, ID: e.ID}, Force: true}); err != nil {
			t.Fatal(err)
		}
		if n := rows(t, s, "events"); n != 0 {
			t.Fatalf("%d events left", n)
		}
	})
}

func TestSeriesBeginAndEndOnAnEvent(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	single := createSeries(t, s, author, "Talk")
	if single.Series != nil || rows(t, s, "events") != 1 {
		t.Fatalf("no lines make a single event: %+v", single.Series)
	}

	e, err := update(s, author, single.ID, SeriesEdit{RecurrenceSent: true,
		Recurrence: []string{"RRULE:FREQ=DAILY;COUNT=3"}}, func(*Event) {})
	if err != nil || e.Series == nil || len(occurrencesOf(t, s, single.ID)) != 3 {
		t.Fatalf("the event did not become a series of 3: %+v, %v", e, err)
	}
	e, err = update(s, author, single.ID, SeriesEdit{RecurrenceSent: true}, func(*Event) {})
	if err != nil || e.Series != nil || rows(t, s, "events") != 1 || e.HideFromListings {
		t.Fatalf("ending the series leaves the single, listed event: %+v, %v, %d events", e, err, rows(t, s, "events"))
	}
}

func TestSeriesRulesRefuseAndChangeNothing(t *testing.T) {
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Quiz", "RRULE:FREQ=WEEKLY;COUNT=3")
	single := createSeries(t, s, author, "Gig")
	occ := occurrencesOf(t, s, e.ID)
	changesNothing := func(t *testing.T) {
		t.Helper()
		for _, o := range occurrencesOf(t, s, e.ID) {
			if o.Title != "Quiz" || o.row.IsException() {
				t.Fatalf("a refused write changed occurrence %d: %q, %q", o.ID, o.Title, o.row.Overrides)
			}
		}
	}

	for _, c := range []struct {
		name, param string
		id          uint64
		edit        SeriesEdit
	}{
		{"recurrence sent for an occurrence", "recurrence", occ[1].ID,
			SeriesEdit{RecurrenceSent: true, Recurrence: []string{"RRULE:FREQ=DAILY"}}},
		{"a scope that is not following", "scope", occ[1].ID, SeriesEdit{Scope: ptr("all")}},
		{"a scope for an event outside any series", "scope", single.ID, SeriesEdit{Scope: ptr(ScopeFollowing)}},
		{"a scope for the series record", "scope", e.ID, SeriesEdit{Scope: ptr(ScopeFollowing)}},
		{"a rule that cannot be parsed", "recurrence", e.ID,
			SeriesEdit{RecurrenceSent: true, Recurrence: []string{"RRULE:FREQ=FORTNIGHTLY"}}},
		{"a first occurrence excluded by its own EXDATE", "recurrence", e.ID,
			SeriesEdit{RecurrenceSent: true, Recurrence: []string{"RRULE:FREQ=WEEKLY", "EXDATE:20300107T180000Z"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := update(s, author, c.id, c.edit, retitled("Changed"))
			if invalidParams(err)[c.param] == "" {
				t.Fatalf("want %s named invalid, got %v", c.param, err)
			}
			changesNothing(t)
		})
	}

	t.Run("a series update whose Apply fails after its own writes", func(t *testing.T) {
		bad := InvalidParam("title", "too long")
		_, err := s.UpdateEvent(context.Background(), EventUpdate{EventChange: EventChange{Caller: author, ID: e.ID},
			Edit: SeriesEdit{Fields: []string{"title"}}, Clock: testClock(),
			Apply: func(tx *Store, e *Event, _ *FoundRefs) (EventLinkIDs, error) {
				e.Title = "Half done"
				if err := tx.SaveEvent(e); err != nil {
					return EventLinkIDs{}, err
				}
				return EventLinkIDs{}, bad
			}})
		if !errors.Is(err, bad) {
			t.Fatal(err)
		}
		if head, _ := s.EventByID(e.ID); head.Title != "Quiz" {
			t.Fatalf("the series record kept a failed write: %q", head.Title)
		}
		changesNothing(t)
	})
}

func TestACancelledOccurrenceMovesWithItsSeriesAndComesBackWhenRestored(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	e := createSeries(t, s, author, "Club", "RRULE:FREQ=WEEKLY;COUNT=5")
	occ := occurrencesOf(t, s, e.ID)
	cancelled, ended := occ[1], occ[4]
	for _, r := range []struct {
		id    uint64
		scope *string
	}{{cancelled.ID, nil}, {ended.ID, ptr(ScopeFollowing)}} {
		if _, err := s.RemoveEvent(ctx, EventRemoval{EventChange: EventChange{Caller: author, ID: r.id}, Scope: r.scope}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := update(s, author, e.ID, SeriesEdit{Fields: []string{"dates"}}, func(e *Event) {
		e.StartUTC, e.EndUTC = e.StartUTC.Add(time.Hour), e.EndUTC.Add(time.Hour)
	}); err != nil {
		t.Fatal(err)
	}
	for _, o := range occurrencesOf(t, s, e.ID) {
		if o.ID == cancelled.ID && (o.Status != StatusTrash || !o.StartUTC.Equal(cancelled.StartUTC.Add(time.Hour)) ||
			!o.row.RecurrenceID.Equal(cancelled.row.RecurrenceID.Add(time.Hour))) {
			t.Fatalf("the cancelled occurrence did not move with its EXDATE: %s at %v (original start %v)", o.Status,
				o.StartUTC, o.row.RecurrenceID)
		}
	}

	restore := func(id uint64) {
		t.Helper()
		if _, err := update(s, author, id, SeriesEdit{Fields: []string{"status"}}, func(e *Event) {
			e.TrashedStatus, e.Status = "", StatusPublish
		}); err != nil {
			t.Fatal(err)
		}
	}
	restore(cancelled.ID)
	restore(ended.ID)
	rule := seriesRule(t, s, e.ID)
	if strings.Contains(rule, "EXDATE") || !strings.Contains(rule, "RDATE:20300204T190000") {
		t.Fatalf("restoring did not put the occurrences back into the rule: %q", rule)
	}
	if _, err := update(s, author, e.ID, SeriesEdit{Fields: []string{"title"}}, retitled("Book club")); err != nil {
		t.Fatal(err)
	}
	after := occurrencesOf(t, s, e.ID)
	if !slices.Equal(eventIDs(after), eventIDs(occ)) {
		t.Fatalf("a series edit after restoring left %v, want %v", eventIDs(after), eventIDs(occ))
	}
	for _, o := range after {
		if o.Status != StatusPublish || o.Title != "Book club" {
			t.Fatalf("occurrence %d: %s %q", o.ID, o.Status, o.Title)
		}
	}
}
