package models

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm/clause"
)

// Event is a calendar event. Start and end are stored as UTC instants; the wall clock is derived from Timezone.
// Its JSON names each column as the table does: it is how InsertEvent hands events to the database (the API
// shapes events as controllers.EventRecord, never as this).
type Event struct {
	ID       uint64 `gorm:"primaryKey" json:"id"`
	AuthorID uint64 `gorm:"not null" json:"author_id"`
	Status   string `gorm:"size:20;not null" json:"status"`
	// TrashedStatus is the status the event had before it was trashed; permissions on trashed records depend on it.
	TrashedStatus string `gorm:"size:20;not null;default:''" json:"trashed_status"`
	// Password protects the event; empty means none. Never returned to clients.
	Password     string    `gorm:"size:255;not null;default:''" json:"password"`
	Title        string    `gorm:"not null" json:"title"`
	Description  string    `gorm:"not null;default:''" json:"description"`
	Excerpt      string    `gorm:"not null;default:''" json:"excerpt"`
	Slug         string    `gorm:"size:200;not null;uniqueIndex" json:"slug"`
	Timezone     string    `gorm:"size:64;not null" json:"timezone"`
	TimezoneAbbr string    `gorm:"size:64;not null;default:''" json:"timezone_abbr"`
	StartUTC     time.Time `gorm:"not null" json:"start_utc"`
	EndUTC       time.Time `gorm:"not null" json:"end_utc"`
	AllDay       bool      `gorm:"not null;default:false" json:"all_day"`
	// Cost holds the raw cost values as a JSON array of strings; empty means no cost.
	Cost             string  `gorm:"not null;default:''" json:"cost"`
	Website          string  `gorm:"not null;default:''" json:"website"`
	ShowMap          bool    `gorm:"not null;default:false" json:"show_map"`
	ShowMapLink      bool    `gorm:"not null;default:false" json:"show_map_link"`
	HideFromListings bool    `gorm:"not null;default:false" json:"hide_from_listings"`
	Sticky           bool    `gorm:"not null;default:false" json:"sticky"`
	Featured         bool    `gorm:"not null;default:false" json:"featured"`
	Ticketed         bool    `gorm:"not null;default:false" json:"ticketed"`
	ImageID          *uint64 `json:"image_id"`
	ParentID         *uint64 `json:"parent_id"`
	// SeriesID is the series record of an occurrence, and a series record's own ID; nil for a single event.
	SeriesID *uint64 `json:"series_id"`
	// PublishedAt is the publication date ("date" in the API).
	PublishedAt time.Time `gorm:"not null" json:"published_at"`
	CreatedAt   time.Time `gorm:"not null" json:"created_at"`
	// UpdatedAt is the modification date ("modified" in the API).
	UpdatedAt time.Time `gorm:"not null" json:"updated_at"`
	// VenueLinks, OrganizerLinks, CategoryLinks and TagLinks copy the event's link rows onto its row (migration
	// 00009): they are how a read learns which records the event links to (LoadEventLinks, TermLinks); see
	// LinkLists for their form. They are written when the event is created and by RefreshEventLinkLists after its
	// links change, never by saving the event.
	VenueLinks     *string `gorm:"<-:create" json:"venue_links"`
	OrganizerLinks *string `gorm:"<-:create" json:"organizer_links"`
	CategoryLinks  *string `gorm:"<-:create" json:"category_links"`
	TagLinks       *string `gorm:"<-:create" json:"tag_links"`

	// Series is set on a series record, Occurrence and OccurrenceSeries on an occurrence (selectEvents, LoadSeriesFactsOf).
	Series           *EventSeries     `gorm:"-" json:"-"`
	Occurrence       *EventOccurrence `gorm:"-" json:"-"`
	OccurrenceSeries *EventSeries     `gorm:"-" json:"-"`

	Author     *User       `gorm:"foreignKey:AuthorID" json:"-"`
	Image      *Image      `gorm:"foreignKey:ImageID" json:"-"`
	Parent     *Event      `gorm:"foreignKey:ParentID" json:"-"`
	Venues     []Venue     `gorm:"many2many:event_venues" json:"-"`
	Organizers []Organizer `gorm:"many2many:event_organizers" json:"-"`
	Categories []Category  `gorm:"many2many:event_categories" json:"-"`
	Tags       []Tag       `gorm:"many2many:event_tags" json:"-"`
}

// EventVenue links an event to a venue; Position keeps the order the venues were given in.
type EventVenue struct {
	EventID  uint64 `gorm:"primaryKey"`
	VenueID  uint64 `gorm:"primaryKey"`
	Position int    `gorm:"not null;default:0"`
}

// EventOrganizer links an event to an organizer; Position keeps the order the organizers were given in.
type EventOrganizer struct {
	EventID     uint64 `gorm:"primaryKey"`
	OrganizerID uint64 `gorm:"primaryKey"`
	Position    int    `gorm:"not null;default:0"`
}

// EventCategory links an event to a category.
type EventCategory struct {
	EventID    uint64 `gorm:"primaryKey"`
	CategoryID uint64 `gorm:"primaryKey"`
}

// EventTag links an event to a tag.
type EventTag struct {
	EventID uint64 `gorm:"primaryKey"`
	TagID   uint64 `gorm:"primaryKey"`
}

// EventVenueCategory pairs one venue of an event with one of its categories, so that a list filtered by both
// reads the pairs instead of intersecting the two link tables (EventsAtVenuesInCategories). Every write that adds
// venue or category links adds the pairs (EventVenueCategories); removing either link removes the pair with it.
type EventVenueCategory struct {
	VenueID    uint64 `gorm:"primaryKey;autoIncrement:false"`
	CategoryID uint64 `gorm:"primaryKey;autoIncrement:false"`
	EventID    uint64 `gorm:"primaryKey;autoIncrement:false"`
}

// EventVenueCategories are the pairs of an event with these venues and categories.
func EventVenueCategories(eventID uint64, venues, categories []uint64) []EventVenueCategory {
	pairs := make([]EventVenueCategory, 0, len(venues)*len(categories))
	for _, v := range venues {
		for _, c := range categories {
			pairs = append(pairs, EventVenueCategory{VenueID: v, CategoryID: c, EventID: eventID})
		}
	}
	return pairs
}

// Owned is what permission checks need to know of e.
func (e *Event) Owned() Owned {
	return Owned{AuthorID: e.AuthorID, Status: e.Status, TrashedStatus: e.TrashedStatus}
}

// Refs names the records e's answer is built from, its links loaded: the event itself, its venues, organizers,
// categories and tags (whose counts it shows). A change to any other record cannot change that answer.
func (e *Event) Refs() []RecordRef {
	refs := make([]RecordRef, 0, 1+len(e.Venues)+len(e.Organizers)+len(e.Categories)+len(e.Tags))
	refs = append(refs, RecordRef{Kind: ChangeEvent, ID: e.ID})
	for _, v := range e.Venues {
		refs = append(refs, RecordRef{Kind: ChangeVenue, ID: v.ID})
	}
	for _, o := range e.Organizers {
		refs = append(refs, RecordRef{Kind: ChangeOrganizer, ID: o.ID})
	}
	for _, c := range e.Categories {
		refs = append(refs, RecordRef{Kind: ChangeCategory, ID: c.ID})
	}
	for _, t := range e.Tags {
		refs = append(refs, RecordRef{Kind: ChangeTag, ID: t.ID})
	}
	return refs
}

// EventByID returns the event with id, its image loaded, or ErrNotFound.
func (s *Store) EventByID(id uint64) (*Event, error) {
	return s.findEvent("events.id = ?", id)
}

// EventBySlug returns the event with slug, its image loaded, or ErrNotFound.
func (s *Store) EventBySlug(slug string) (*Event, error) {
	return s.findEvent("events.slug = ?", slug)
}

func (s *Store) findEvent(cond string, arg any) (*Event, error) {
	events, err := scanEvents(s.db.Raw(selectEvents+" WHERE "+cond+" LIMIT 1", arg), 1)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, ErrNotFound
	}
	return &events[0], nil
}

// LockEvent returns the event with id for changing it in the current transaction, or ErrNotFound. On PostgreSQL
// the row stays locked until the transaction ends, so concurrent updates of one event (its link sets above all)
// apply one after the other instead of interleaving; SQLite already serialises write transactions.
//
// The series record of an occurrence is locked too, before the occurrence (rows are locked in the order the
// statement returns them): writes of a whole series lock its record and then its occurrences
// (LockSeriesOccurrences), so a write of one occurrence takes the two locks in the same order and the two writes
// wait for each other instead of deadlocking.
func (s *Store) LockEvent(id uint64) (*Event, error) {
	var events []Event
	if s.dialect != Postgres {
		if err := s.db.Where("events.id = ?", id).Limit(1).Find(&events).Error; err != nil {
			return nil, err
		}
	} else {
		err := s.db.Clauses(clause.Locking{Strength: "UPDATE", Table: clause.Table{Name: "events"}}).
			Where("events.id = ? OR events.id = (SELECT o.series_id FROM events o WHERE o.id = ? AND o.series_id <> o.id)", id, id).
			Order(clause.OrderBy{Expression: clause.Expr{SQL: "events.id = ?", Vars: []any{id}}}).Find(&events).Error
		if err != nil {
			return nil, err
		}
	}
	for i := range events {
		if events[i].ID == id {
			return &events[i], nil
		}
	}
	return nil, ErrNotFound
}

// EventIDBySlug returns the ID of the event with slug, or ErrNotFound.
func (s *Store) EventIDBySlug(slug string) (uint64, error) {
	var ids []uint64
	if err := s.db.Model(&Event{}).Where("slug = ?", slug).Limit(1).Pluck("id", &ids).Error; err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, ErrNotFound
	}
	return ids[0], nil
}

// maxSlugAttempts bounds the inserts CreateEventWithSlug tries on the careful path; each failed one means another
// writer committed the very slug chosen since it was read, which cannot go on for long.
const maxSlugAttempts = 100

// CreateEventWithSlug inserts e (without its links) with the first free slug of base, base-2, base-3, …
// and sets its ID and Slug. Call it inside the transaction that writes the event.
//
// The common case, a free base, costs one statement: the insert skips a taken slug (ON CONFLICT DO NOTHING)
// instead of failing. Only when it inserted nothing does the careful path run: UniqueSlug's advisory lock and read
// of the candidates, then the insert again, until one lands. No insert can end in a unique violation: on
// PostgreSQL, ON CONFLICT waits for a concurrent transaction that inserted the same slug, and skips it if that one
// commits; the loop then reads the candidates again. SQLite runs one write transaction at a time.
func (s *Store) CreateEventWithSlug(e *Event, base string) error {
	e.Slug = base
	inserted, err := s.insertEventIfSlugFree(e)
	for attempt := 0; err == nil && !inserted; attempt++ {
		if attempt == maxSlugAttempts {
			return fmt.Errorf("no free slug for %q after %d attempts", base, attempt)
		}
		if e.Slug, err = s.UniqueSlug("events", base, 0); err != nil {
			return err
		}
		inserted, err = s.insertEventIfSlugFree(e)
	}
	return err
}

// insertEventIfSlugFree inserts e unless an event has its slug already, and tells whether it did.
func (s *Store) insertEventIfSlugFree(e *Event) (bool, error) {
	e.ID = 0
	res := s.db.Omit(clause.Associations).
		Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "slug"}}, DoNothing: true}).Create(e)
	if res.Error != nil {
		return false, res.Error
	}
	return res.RowsAffected == 1 && e.ID != 0, nil
}

// SaveEvent writes every column of e (without its links) and sets its modification date.
func (s *Store) SaveEvent(e *Event) error {
	return s.db.Omit(clause.Associations).Save(e).Error
}

// DeleteEvent removes the event permanently. Its links go with it (ON DELETE CASCADE) and its child events lose
// their parent (ON DELETE SET NULL).
func (s *Store) DeleteEvent(id uint64) error {
	if err := s.lockDayCountsOf([]uint64{id}); err != nil {
		return err
	}
	return s.db.Delete(&Event{}, id).Error
}

// lockDayCountsOf locks, in key order, the event_day_counts rows that deleting the events ids will update, before
// the delete. A delete's links go first (ON DELETE CASCADE, with the kept rows of their venues, organizers and
// categories), and the events' own day counts only after, while a create or an update reaches the day counts
// first and the links' kept rows after: two such writes of events of one day deadlocked, and PostgreSQL aborted one
// of them after a second's wait. Locked first, the day counts make a delete wait its turn instead. SQLite runs one
// writer at a time.
func (s *Store) lockDayCountsOf(ids []uint64) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.Exec(`SELECT 1 FROM event_day_counts c WHERE (c.status, c.start_day, c.end_day) IN (
			SELECT status, event_day(start_utc), event_day(end_utc) FROM events WHERE id IN ? AND NOT hide_from_listings)
		ORDER BY c.status, c.start_day, c.end_day FOR UPDATE OF c`, ids).Error
}

// maxParentDepth bounds the walk up a parent chain; a deeper chain is refused like a cycle would be.
const maxParentDepth = 100

// ErrParentCycle is returned by CheckEventParent when the parent would make an event its own ancestor.
var ErrParentCycle = errors.New("the parent would make the event its own ancestor")

// CheckEventParent verifies that parentID may become the parent of event eventID (0 for an event not yet
// created): it exists, and it is not the event itself or one of its descendants. It returns ErrNotFound or
// ErrParentCycle.
func (s *Store) CheckEventParent(eventID, parentID uint64) error {
	current := parentID
	for depth := 0; current != 0; depth++ {
		if current == eventID || depth > maxParentDepth {
			return ErrParentCycle
		}
		var rows []struct{ ParentID *uint64 }
		if err := s.db.Model(&Event{}).Select("parent_id").Where("id = ?", current).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		switch {
		case len(rows) == 0 && current == parentID:
			return ErrNotFound
		case len(rows) == 0 || rows[0].ParentID == nil:
			return nil
		}
		current = *rows[0].ParentID
	}
	return nil
}

// PasswordMatches tells, in constant time, whether pw is the event's password (see RecordPasswordMatches). An
// event without a password matches nothing: callers check HasPassword first.
func (e *Event) PasswordMatches(pw string) bool { return RecordPasswordMatches(e.Password, pw) }

// HasPassword tells whether the event is password-protected.
func (e *Event) HasPassword() bool { return e.Password != "" }
