package models

import (
	"context"
	"errors"
)

// EventChange addresses a change of one event by a caller: the event with ID, or with Slug when it is set.
type EventChange struct {
	Caller *User
	ID     uint64
	Slug   string
	// Check, when set, runs once the event is found, locked and the change allowed, before anything changes: the
	// caller's precondition (If-Match, If-Unmodified-Since). Its error aborts the change.
	Check func(tx *Store, e *Event) error
}

// EventUpdate is an update of an event: Apply writes the values sent, in the transaction, to the event found and
// locked with its series facts; the series rules (series_write.go) do what a series record, an occurrence or an
// event becoming a series needs. Apply's error (the bad values it found, say) aborts the update.
type EventUpdate struct {
	EventChange
	// Trash tells that the update moves the event to the trash, which needs the right to delete it.
	Trash bool
	// Edit is what the update sends that the series rules read, and Clock when it happens.
	Edit  SeriesEdit
	Clock SeriesClock
	// Refs are the existing records the values sent name. UpdateEvent reads them, and locks them against
	// deletion (LockEventRefs), before it locks the event.
	Refs EventRefs
	// Apply writes the values sent into e, reading through tx and creating the records they name (terms, inline
	// venues and organizers, images), and returns the links sent; found are the records of Refs. It runs once, on
	// the event the update changes (for scope=following, the new series record).
	Apply func(tx *Store, e *Event, found *FoundRefs) (EventLinkIDs, error)
	// found are the records of Refs, as UpdateEvent read them in its transaction.
	found *FoundRefs
}

// apply runs u.Apply on e with the records UpdateEvent found.
func (u EventUpdate) apply(tx *Store, e *Event) (EventLinkIDs, error) {
	return u.Apply(tx, e, u.found)
}

// EventLinkIDs are the venues, organizers, categories and tags a write sets; a nil list was not sent.
type EventLinkIDs struct {
	Venues, Organizers, Categories, Tags []uint64
}

// sent tells whether any list was sent.
func (l EventLinkIDs) sent() bool {
	return l.Venues != nil || l.Organizers != nil || l.Categories != nil || l.Tags != nil
}

// EventRemoval is the delete of an event: Force deletes it for good, else it goes to the trash.
type EventRemoval struct {
	EventChange
	Force bool
	// Scope is the scope sent, if any: ScopeFollowing removes an occurrence and every later one.
	Scope *string
}

// EventPlan is what a create's Apply settled beside the event's columns: the base of its slug (the create makes
// it unique) and the existing records it links to.
type EventPlan struct {
	Slug string
	EventLinkIDs
	// Found are the linked records as Apply read them (FindEventRefs); when they hold every link, the answer is
	// built from them instead of read back.
	Found *FoundRefs
}

// EventCreation is the create of an event by a caller.
type EventCreation struct {
	Caller *User
	// Apply fills the new event e (whose author is the caller) from the request, reading through s, and settles
	// its plan; bad values are its error. It may run twice, each time on a new event: first with a read-only store
	// outside any transaction (the one-statement path), and when that path cannot take the write, in the
	// transaction. It may create records (terms, inline venues and organizers, images) only in the transaction:
	// the read-only store refuses writes with ErrNeedsTransaction.
	Apply func(s *Store, e *Event) (*EventPlan, error)
	// Recurrence, when it has lines, makes the new event a series instead of a single event, with its occurrences
	// up to Clock's horizon.
	Recurrence []string
	Clock      SeriesClock
}

// EventNotFound is the answer for an event that does not exist: named by its slug when slug is set, else by id.
func EventNotFound(id uint64, slug string) error {
	if slug != "" {
		return Errorf(KindNotFound, "rest-event-not-found", "Event with slug %.200s does not exist.", slug) // capped: the path may be long
	}
	return Errorf(KindNotFound, "rest-event-not-found", "Event with ID %d does not exist.", id)
}

// CreateEvent creates an event, and returns it with its links as a read would show them. In this order: a caller
// who may not create events is Forbidden; then c.Apply, whose error aborts; then the insert. A single event whose
// links all exist is written in one statement where the database has one (InsertEvent); anything else (a series,
// a link the write creates, a slug already taken) is written in one transaction, which finds a free slug.
func (s *Store) CreateEvent(ctx context.Context, c EventCreation) (*Event, error) {
	if !c.Caller.CanCreate() {
		return nil, Forbidden()
	}
	if len(c.Recurrence) == 0 && s.InsertsEventsInOneStatement() {
		e, err := s.createInOneStatement(ctx, c)
		if !errors.Is(err, ErrNeedsTransaction) && !errors.Is(err, ErrSlugTaken) {
			return e, err
		}
	}
	return s.createInTransaction(ctx, c)
}

// createInOneStatement applies c with its reads outside any transaction and writes the event in one statement. It
// answers ErrNeedsTransaction when the write needs more than that statement (a record to create), and ErrSlugTaken
// when the slug asked for is taken.
func (s *Store) createInOneStatement(ctx context.Context, c EventCreation) (*Event, error) {
	e := &Event{AuthorID: c.Caller.ID}
	p, err := c.Apply(s.WithContext(ctx).ReadOnly(), e)
	if err != nil {
		return nil, err
	}
	if !p.Found.NewEventLinks(e, p.Venues, p.Organizers, p.Categories, p.Tags) {
		return nil, ErrNeedsTransaction
	}
	e.Slug = p.Slug
	err = s.InsertEvent(&NewEvent{Event: e, Venues: p.Venues, Organizers: p.Organizers, Categories: p.Categories,
		Tags: p.Tags})
	return e, err
}

// createInTransaction applies and writes c in one transaction, with the records Apply creates.
func (s *Store) createInTransaction(ctx context.Context, c EventCreation) (*Event, error) {
	var out *Event
	err := s.Tx(ctx, func(tx *Store) error {
		e := &Event{AuthorID: c.Caller.ID}
		p, err := c.Apply(tx, e)
		if err != nil {
			return err
		}
		if len(c.Recurrence) > 0 {
			if err := tx.createSeries(e, p, c.Recurrence, c.Clock); err != nil {
				return err
			}
			out, err = tx.EventWithLinks(e.ID)
			return err
		}
		if err := tx.CreateEventWithSlug(e, p.Slug); err != nil {
			return err
		}
		if err := tx.LinkNewEvent(e, p.Venues, p.Organizers, p.Categories, p.Tags); err != nil {
			return err
		}
		// The answer is what a read would show: the row as inserted, and its links as found, unless the write
		// created some of them, which are read back.
		out = e
		if p.Found.NewEventLinks(e, p.Venues, p.Organizers, p.Categories, p.Tags) {
			return nil
		}
		out, err = tx.WithEventLinks(e)
		return err
	})
	return out, err
}

// UpdateEvent changes an event in one transaction of its own and returns it as saved, with its links. In this
// order: a caller who may not write events is Forbidden; an unknown event is rest-event-not-found; a caller who
// may not edit it is Forbidden, and so is one who may not delete it when u.Trash; then u.Check; then a scope
// sent for an event that is not an occurrence is refused; then u.Apply with the series rules. The records u names
// are read and locked first (LockEventRefs).
func (s *Store) UpdateEvent(ctx context.Context, u EventUpdate) (*Event, error) {
	if !u.Caller.CanCreate() {
		return nil, Forbidden()
	}
	var out *Event
	err := s.Tx(ctx, func(tx *Store) error {
		found, err := tx.LockEventRefs(u.Refs)
		if err != nil {
			return err
		}
		u.found = found
		e, err := tx.lockEventFor(u.EventChange, (*User).CanEdit)
		if err != nil {
			return err
		}
		if u.Trash && !u.Caller.CanDelete(e.Owned()) {
			return Forbidden()
		}
		if err := u.check(tx, e); err != nil {
			return err
		}
		if err := tx.LoadSeriesFactsOf(e); err != nil {
			return err
		}
		if err := tx.applyUpdate(e, u); err != nil {
			return err
		}
		out, err = tx.EventWithLinks(e.ID)
		return err
	})
	return out, err
}

// RemoveEvent trashes or deletes an event in one transaction of its own, and returns it as the answer shows it:
// as it was before a permanent delete, trashed after a trashing. In this order: a caller who may not write events
// is Forbidden; an unknown event is rest-event-not-found; a caller who may not delete it is Forbidden; an event
// already in the trash is Gone (event-is-in-trash) unless Force; then r.Check; then the series rules for a series
// record or an occurrence (with r.Scope), or for any other event the trash or the delete. An event trashed or deleted counts for none of its categories and tags.
func (s *Store) RemoveEvent(ctx context.Context, r EventRemoval) (*Event, error) {
	if !r.Caller.CanCreate() {
		return nil, Forbidden()
	}
	var out *Event
	err := s.Tx(ctx, func(tx *Store) error {
		e, err := tx.lockEventFor(r.EventChange, (*User).CanDelete)
		if err != nil {
			return err
		}
		if !r.Force && e.Status == StatusTrash {
			return Errorf(KindGone, "event-is-in-trash", "The event is already trashed")
		}
		if err := r.check(tx, e); err != nil {
			return err
		}
		if e, err = tx.EventWithLinks(e.ID); err != nil {
			return err
		}
		out = e
		if handled, err := tx.removeInSeries(e, r.Force, r.Scope); handled {
			if err != nil || r.Force {
				return err
			}
			out, err = tx.EventWithLinks(e.ID)
			return err
		}
		return tx.trashOrDeleteEvent(e, r.Force)
	})
	return out, err
}

// trashOrDeleteEvent deletes e for good (force) or moves it to the trash, remembering its status, and takes its
// terms' counts back.
func (s *Store) trashOrDeleteEvent(e *Event, force bool) error {
	before, err := e.TermLinks()
	if err != nil {
		return err
	}
	if force {
		err = s.DeleteEvent(e.ID)
	} else {
		e.TrashedStatus, e.Status = e.Status, StatusTrash
		err = s.SaveEvent(e)
	}
	if err != nil {
		return err
	}
	return s.AdjustTermCounts(before, TermLinks{})
}

// check runs c.Check when it is set.
func (c EventChange) check(tx *Store, e *Event) error {
	if c.Check == nil {
		return nil
	}
	return c.Check(tx, e)
}

// lockEventFor finds and locks the event c addresses, then refuses a caller who may not change it (allowed is
// CanEdit or CanDelete): rest-event-not-found first, Forbidden second.
func (s *Store) lockEventFor(c EventChange, allowed func(*User, Owned) bool) (*Event, error) {
	e, err := s.LockEventRef(c.ID, c.Slug)
	if err != nil {
		return nil, err
	}
	if !allowed(c.Caller, e.Owned()) {
		return nil, Forbidden()
	}
	return e, nil
}

// LockEventRef looks the event with slug (when set) or id up and locks it for changing it in the current
// transaction; an unknown event is rest-event-not-found.
func (s *Store) LockEventRef(id uint64, slug string) (*Event, error) {
	if slug != "" {
		var err error
		if id, err = s.EventIDBySlug(slug); errors.Is(err, ErrNotFound) {
			return nil, EventNotFound(id, slug)
		} else if err != nil {
			return nil, err
		}
	}
	e, err := s.LockEvent(id)
	if errors.Is(err, ErrNotFound) {
		return nil, EventNotFound(id, slug)
	}
	return e, err
}

// EventWithLinks reads the event with id with its series facts, venues, organizers, categories and tags.
func (s *Store) EventWithLinks(id uint64) (*Event, error) {
	e, err := s.EventByID(id)
	if err != nil {
		return nil, err
	}
	return s.WithEventLinks(e)
}

// WithEventLinks returns e, as the store read it (with its series facts) or as it was created, with its venues,
// organizers, categories and tags loaded.
func (s *Store) WithEventLinks(e *Event) (*Event, error) {
	events := []Event{*e}
	if err := s.LoadEventLinks(events); err != nil {
		return nil, err
	}
	return &events[0], nil
}

// LoadSeriesFactsOf reads the series facts of e, an event read otherwise than with selectEvents (which reads them
// with the row), into it; a series record gets its series' link lists too.
func (s *Store) LoadSeriesFactsOf(e *Event) error {
	if e.SeriesID == nil {
		return nil
	}
	read, err := s.EventByID(e.ID)
	if err != nil {
		return err
	}
	series := read.Series
	if series == nil {
		series = read.OccurrenceSeries
	}
	e.setSeriesFacts(read.Occurrence, series)
	return nil
}
