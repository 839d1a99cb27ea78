package models

import "gorm.io/gorm"

// The link rows read back with their records: one query per kind of link joins the link table, the records and
// (for venues and organizers) their images.
type venueLink struct {
	EventID  uint64
	VenueID  uint64
	Position int
	Venue    Venue `gorm:"foreignKey:VenueID"`
}

func (venueLink) TableName() string { return "event_venues" }

type organizerLink struct {
	EventID     uint64
	OrganizerID uint64
	Position    int
	Organizer   Organizer `gorm:"foreignKey:OrganizerID"`
}

func (organizerLink) TableName() string { return "event_organizers" }

// termLink is a category or tag linked to an event, read by the one query that loads both.
type termLink struct {
	Kind        string // "c" for a category, "t" for a tag
	EventID     uint64
	ID          uint64
	Name        string
	NameKey     string
	Slug        string
	Description string
	ParentID    *uint64
	Count       int64
}

// termLinksSQL reads the categories and tags of a set of events in one statement, each by name within its event.
var termLinksSQL = `SELECT 'c' AS kind, l.event_id, c.id, c.name, c.name_key, c.slug, c.description, c.parent_id, ` +
	CategoryTaxonomy.countExpr("c") + ` AS count
	FROM event_categories l JOIN categories c ON c.id = l.category_id WHERE l.event_id IN ?
UNION ALL
SELECT 't', l.event_id, t.id, t.name, t.name_key, t.slug, t.description, NULL, ` + TagTaxonomy.countExpr("t") + `
	FROM event_tags l JOIN tags t ON t.id = l.tag_id WHERE l.event_id IN ?
ORDER BY 2, 1, 5, 3`

// LoadEventLinks fills the Venues and Organizers (in the order they were given, with their images), Categories
// and Tags (by name, as WordPress returns terms) of the events: three queries whatever the number of events.
func (s *Store) LoadEventLinks(events []Event) error {
	if len(events) == 0 {
		return nil
	}
	ids := make([]uint64, len(events))
	index := make(map[uint64]*Event, len(events))
	for i := range events {
		e := &events[i]
		ids[i] = e.ID
		index[e.ID] = e
		e.Venues, e.Organizers, e.Categories, e.Tags = []Venue{}, []Organizer{}, []Category{}, []Tag{}
	}
	var venues []venueLink
	if err := s.linkQuery(ids, "Venue", "event_venues.position, event_venues.venue_id").Find(&venues).Error; err != nil {
		return err
	}
	for _, l := range venues {
		index[l.EventID].Venues = append(index[l.EventID].Venues, l.Venue)
	}
	var organizers []organizerLink
	if err := s.linkQuery(ids, "Organizer", "event_organizers.position, event_organizers.organizer_id").
		Find(&organizers).Error; err != nil {
		return err
	}
	for _, l := range organizers {
		index[l.EventID].Organizers = append(index[l.EventID].Organizers, l.Organizer)
	}
	var terms []termLink
	if err := s.db.Raw(termLinksSQL, ids, ids).Scan(&terms).Error; err != nil {
		return err
	}
	for _, l := range terms {
		e := index[l.EventID]
		if l.Kind == "c" {
			e.Categories = append(e.Categories, Category{ID: l.ID, Name: l.Name, NameKey: l.NameKey, Slug: l.Slug,
				Description: l.Description, ParentID: l.ParentID, Count: l.Count})
		} else {
			e.Tags = append(e.Tags, Tag{ID: l.ID, Name: l.Name, NameKey: l.NameKey, Slug: l.Slug,
				Description: l.Description, Count: l.Count})
		}
	}
	return nil
}

// linkQuery reads the links of events ids with the linked records (relation) joined, and for venues and
// organizers their images too, ordered within each event.
func (s *Store) linkQuery(ids []uint64, relation, order string) *gorm.DB {
	db := s.db.Joins(relation)
	if relation == "Venue" || relation == "Organizer" {
		db = db.Joins(relation + ".Image")
	}
	return db.Where("event_id IN ?", ids).Order("event_id, " + order)
}

// EventTermLinks returns what the event contributes to term counts as it is stored now.
func (s *Store) EventTermLinks(e *Event) (TermLinks, error) {
	links := TermLinks{Published: e.Status == StatusPublish}
	if err := s.db.Model(&EventCategory{}).Where("event_id = ?", e.ID).Pluck("category_id", &links.Categories).Error; err != nil {
		return links, err
	}
	return links, s.db.Model(&EventTag{}).Where("event_id = ?", e.ID).Pluck("tag_id", &links.Tags).Error
}

// ReplaceEventVenues makes ids, in this order, the venues of the event.
func (s *Store) ReplaceEventVenues(eventID uint64, ids []uint64) error {
	rows := make([]EventVenue, len(ids))
	for i, id := range ids {
		rows[i] = EventVenue{EventID: eventID, VenueID: id, Position: i}
	}
	return replaceLinks(s, &EventVenue{}, eventID, rows)
}

// ReplaceEventOrganizers makes ids, in this order, the organizers of the event.
func (s *Store) ReplaceEventOrganizers(eventID uint64, ids []uint64) error {
	rows := make([]EventOrganizer, len(ids))
	for i, id := range ids {
		rows[i] = EventOrganizer{EventID: eventID, OrganizerID: id, Position: i}
	}
	return replaceLinks(s, &EventOrganizer{}, eventID, rows)
}

// ReplaceEventCategories makes ids the categories of the event.
func (s *Store) ReplaceEventCategories(eventID uint64, ids []uint64) error {
	rows := make([]EventCategory, len(ids))
	for i, id := range ids {
		rows[i] = EventCategory{EventID: eventID, CategoryID: id}
	}
	return replaceLinks(s, &EventCategory{}, eventID, rows)
}

// ReplaceEventTags makes ids the tags of the event.
func (s *Store) ReplaceEventTags(eventID uint64, ids []uint64) error {
	rows := make([]EventTag, len(ids))
	for i, id := range ids {
		rows[i] = EventTag{EventID: eventID, TagID: id}
	}
	return replaceLinks(s, &EventTag{}, eventID, rows)
}

// replaceLinks deletes the event's rows of the link table of model and inserts rows (a slice of that model).
// Callers hold the event's row lock (LockEvent), so concurrent replacements apply one after the other.
func replaceLinks[T any](s *Store, model *T, eventID uint64, rows []T) error {
	if err := s.db.Where("event_id = ?", eventID).Delete(model).Error; err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	return s.db.Create(&rows).Error
}
