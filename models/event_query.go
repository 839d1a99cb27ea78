package models

import (
	"database/sql"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Scope narrows a query. The event list is the composition of the scopes below (and of any a feature adds, such
// as geolocation): each is one WHERE condition on events, so every combination stays one indexed query.
type Scope = func(*gorm.DB) *gorm.DB

// ListEvents returns one page of the events that pass every scope, ordered by start then ID, with their images,
// and the total number that pass. The page query picks the page's IDs in a subquery that the covering listing
// indexes answer without reading rows, then reads only those rows: a filter the order index cannot narrow (an end
// date, a flag) then costs index entries, not row reads. A short page that is not empty (or is the first) ends the
// list, so it tells the total itself; only a full page, or an empty one past the first, needs the count query,
// which repeats the filtering work.
func (s *Store) ListEvents(scopes []Scope, page Page) ([]Event, int64, error) {
	return s.listCounted(scopes, page, func() (int64, error) {
		var total int64
		err := s.db.Model(&Event{}).Scopes(scopes...).Count(&total).Error
		return total, err
	})
}

// listCounted returns one page of the events that pass every scope and their total, which count gives when the
// page does not tell it (see ListEvents).
func (s *Store) listCounted(scopes []Scope, page Page, count func() (int64, error)) ([]Event, int64, error) {
	events, err := s.eventsIn(s.orderedEventIDs(scopes).Scopes(Paginate(page)), page.Size)
	if err != nil {
		return nil, 0, err
	}
	if len(events) < page.Size && (len(events) > 0 || page.Offset() == 0) {
		return events, int64(page.Offset() + len(events)), nil
	}
	total, err := count()
	return events, total, err
}

// orderedEventIDs is the subquery of the IDs of the events that pass every scope, in list order.
func (s *Store) orderedEventIDs(scopes []Scope) *gorm.DB {
	return s.db.Model(&Event{}).Select("events.id").Scopes(scopes...).Order(eventOrder)
}

// eventsIn reads, in list order and with their images, link lists and series facts, the events whose IDs the
// subquery ids selects (expected of them, for the room it makes).
func (s *Store) eventsIn(ids *gorm.DB, expected int) ([]Event, error) {
	return scanEvents(s.db.Raw(selectEvents+" WHERE events.id IN (?) ORDER BY "+eventOrder, ids), expected)
}

// selectEvents reads every column of events (its link lists included: see Event.VenueLinks), of its image (i), and
// its series facts: its occurrence row (eo) when it is an occurrence, and the row of the series it belongs to (es),
// in the order scanEvents scans them. Reading the facts with the row spares every read of events a statement of its
// own for what two primary-key probes a row find.
const selectEvents = selectEventColumns + fromEvents

// selectEventColumns and fromEvents are selectEvents' two halves, for a statement that selects one more column.
const selectEventColumns = `SELECT events.id, events.author_id, events.status, events.trashed_status, events.password,
	events.title, events.description, events.excerpt, events.slug, events.timezone, events.timezone_abbr,
	events.start_utc, events.end_utc, events.all_day, events.cost, events.website, events.show_map,
	events.show_map_link, events.hide_from_listings, events.sticky, events.featured, events.ticketed,
	events.image_id, events.parent_id, events.published_at, events.created_at, events.updated_at,
	events.venue_links, events.organizer_links, events.category_links, events.tag_links, events.series_id,
	i.url, i.extension, i.created_at,
	eo.series_id, eo.recurrence_id, eo.overrides,
	es.event_id, es.recurrence, es.recurrence_text, es.hide_from_listings, es.expanded_until, es.venue_links,
	es.organizer_links, es.category_links, es.tag_links`

const fromEvents = `
	FROM events LEFT JOIN images i ON i.id = events.image_id
	LEFT JOIN event_occurrences eo ON eo.event_id = events.id
	LEFT JOIN event_series es ON es.event_id = events.series_id`

// scanEvents runs query (selectEvents with its conditions) and reads its rows, series facts included. A query that
// selects more columns after selectEvents' scans them into extra, which keeps the last row's values.
func scanEvents(query *gorm.DB, expected int, extra ...any) ([]Event, error) {
	return scanAll(query, expected, func(rows *sql.Rows, e *Event) error {
		var (
			imageURL, imageExt            *string
			imageCreated, occurrenceStart *time.Time
			occurrenceOf, seriesID        *uint64
			overrides, seriesLines        *string
			seriesText                    *string
			seriesHidden                  *bool
			ser                           EventSeries
		)
		dest := []any{&e.ID, &e.AuthorID, &e.Status, &e.TrashedStatus, &e.Password, &e.Title,
			&e.Description, &e.Excerpt, &e.Slug, &e.Timezone, &e.TimezoneAbbr, &e.StartUTC, &e.EndUTC, &e.AllDay,
			&e.Cost, &e.Website, &e.ShowMap, &e.ShowMapLink, &e.HideFromListings, &e.Sticky, &e.Featured,
			&e.Ticketed, &e.ImageID, &e.ParentID, &e.PublishedAt, &e.CreatedAt, &e.UpdatedAt, &e.VenueLinks,
			&e.OrganizerLinks, &e.CategoryLinks, &e.TagLinks, &e.SeriesID, &imageURL, &imageExt, &imageCreated,
			&occurrenceOf, &occurrenceStart, &overrides, &seriesID, &seriesLines, &seriesText, &seriesHidden,
			&ser.ExpandedUntil, &ser.VenueLinks, &ser.OrganizerLinks, &ser.CategoryLinks, &ser.TagLinks}
		if err := rows.Scan(append(dest, extra...)...); err != nil {
			return err
		}
		if e.ImageID != nil && imageURL != nil {
			e.Image = &Image{ID: *e.ImageID, URL: *imageURL, Extension: *imageExt, CreatedAt: *imageCreated}
		}
		var occurrence *EventOccurrence
		if occurrenceOf != nil {
			occurrence = &EventOccurrence{EventID: e.ID, SeriesID: *occurrenceOf, RecurrenceID: occurrenceStart.UTC(),
				Overrides: *overrides}
		}
		var series *EventSeries
		if seriesID != nil {
			ser.EventID, ser.Recurrence, ser.RecurrenceText, ser.HideFromListings = *seriesID, *seriesLines,
				*seriesText, *seriesHidden
			series = &ser
		}
		e.setSeriesFacts(occurrence, series)
		return nil
	})
}

// eventOrder is the order of every event list: by start, then ID.
const eventOrder = "events.start_utc, events.id"

// EventsListed keeps events that are not hidden from listings (hidden events are never listed).
func EventsListed() Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where(isFalse(db, "events.hide_from_listings")) }
}

// EventsVisibleTo keeps the events u may read (User.CanRead): published ones for everyone; for contributors and
// authors also their own that they may edit; everything for editors and administrators.
func EventsVisibleTo(u *User) Scope { return readableBy("events", u) }

// readableBy keeps the rows of table (events, venues or organizers: their status and author columns) that u may
// read one by one (User.CanRead), so that a list never shows what a single read refuses. table is a trusted name.
func readableBy(table string, u *User) Scope {
	return func(db *gorm.DB) *gorm.DB {
		switch {
		case u.can(capEditOthers) && u.can(capReadPrivate) && u.can(capEditPublished):
			return db
		case u.can(capEditPublished):
			return db.Where("("+table+".status = ? OR "+table+".author_id = ?)", StatusPublish, u.ID)
		case u.can(capEdit):
			unpublished := []string{StatusDraft, StatusPending, StatusPrivate}
			return db.Where("("+table+".status = ? OR ("+table+".author_id = ? AND ("+table+".status IN ? OR "+
				"("+table+".status = ? AND "+table+".trashed_status IN ?))))",
				StatusPublish, u.ID, unpublished, StatusTrash, unpublished)
		}
		return db.Where(table+".status = ?", StatusPublish)
	}
}

// EventsNotTrashed keeps events that are not in the trash.
func EventsNotTrashed() Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where("events.status <> ?", StatusTrash) }
}

// EventsWithStatus keeps events with one of the statuses.
func EventsWithStatus(statuses ...string) Scope {
	return func(db *gorm.DB) *gorm.DB {
		if len(statuses) == 1 {
			return db.Where("events.status = ?", statuses[0])
		}
		return db.Where("events.status IN ?", statuses)
	}
}

// EventsStartingAtOrAfter keeps events that start at or after t.
func EventsStartingAtOrAfter(t time.Time) Scope { return compareTime("events.start_utc >= ?", t) }

// EventsStartingAtOrBefore keeps events that start at or before t.
func EventsStartingAtOrBefore(t time.Time) Scope { return compareTime("events.start_utc <= ?", t) }

// EventsStartingAfter keeps events that start after t.
func EventsStartingAfter(t time.Time) Scope { return compareTime("events.start_utc > ?", t) }

// EventsStartingBefore keeps events that start before t.
func EventsStartingBefore(t time.Time) Scope { return compareTime("events.start_utc < ?", t) }

// EventsEndingAtOrBefore keeps events that end at or before t.
func EventsEndingAtOrBefore(t time.Time) Scope { return compareTime("events.end_utc <= ?", t) }

// EventsEndingAtOrAfter keeps events that end at or after t.
func EventsEndingAtOrAfter(t time.Time) Scope { return compareTime("events.end_utc >= ?", t) }

// EventsEndingAfter keeps events that end after t.
func EventsEndingAfter(t time.Time) Scope { return compareTime("events.end_utc > ?", t) }

// EventsEndingBefore keeps events that end before t.
func EventsEndingBefore(t time.Time) Scope { return compareTime("events.end_utc < ?", t) }

// compareTime compares a time column with t as UTC, the form every instant is stored in: SQLite compares the
// stored text, which only orders correctly when both sides have the same offset.
func compareTime(cond string, t time.Time) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where(cond, t.UTC()) }
}

// EventsFeatured keeps featured events (featured true) or the others (false).
func EventsFeatured(featured bool) Scope { return boolColumn("events.featured", featured) }

// EventsTicketed keeps ticketed events (ticketed true) or the others (false).
func EventsTicketed(ticketed bool) Scope { return boolColumn("events.ticketed", ticketed) }

func boolColumn(column string, want bool) Scope {
	return func(db *gorm.DB) *gorm.DB {
		if want {
			return db.Where(isTrue(db, column))
		}
		return db.Where(isFalse(db, column))
	}
}

// isTrue and isFalse write a boolean test as a literal, so that the partial indexes on flags (whose predicates are
// literals) serve it on both dialects.
func isTrue(db *gorm.DB, column string) string {
	if db.Dialector.Name() == Postgres {
		return column
	}
	return column + " = 1"
}

func isFalse(db *gorm.DB, column string) string {
	if db.Dialector.Name() == Postgres {
		return "NOT " + column
	}
	return column + " = 0"
}

// EventsWithParent keeps the children of event parentID.
func EventsWithParent(parentID uint64) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where("events.parent_id = ?", parentID) }
}

// EventsWithIDs keeps the events with these IDs.
func EventsWithIDs(ids []uint64) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where("events.id IN ?", ids) }
}

// searchedColumns are the texts search looks in (title, excerpt and content).
var searchedColumns = []string{"title", "description", "excerpt"}

// EventsMatching keeps events in whose title, description or excerpt every term appears, ignoring case; a term
// may be a phrase. Of a protected event the viewer may not edit, only the title is searched (see
// ProtectedFieldsVisible). On PostgreSQL each column has a trigram index that serves the pattern.
//
// Each term makes two conditions: the term is in one of the columns, and the search rule holds (the event's
// protected fields are visible, or the term is in a column every caller sees). Together they are the rule's
// "only the title of a protected event", but the first is then exactly what PostgreSQL rechecks on every
// candidate row of the trigram indexes' bitmap, and a condition it rechecks it does not evaluate again as a
// filter; with the rule inside it, every candidate's texts were matched twice (docs/benchmarks.md, "Search
// candidates matched once").
func EventsMatching(terms []string, viewer *User) Scope {
	return func(db *gorm.DB) *gorm.DB {
		for _, term := range terms {
			inAny, rule := termConditions(db, term, viewer)
			db = db.Where(inAny).Where(rule)
		}
		return db
	}
}

// termConditions are one search term's two conditions on events (see EventsMatching): the term is in one of the
// searched columns (inAny), and the search rule holds for the viewer (rule: the event's protected fields are
// visible to it, or the term is in a column every caller sees).
func termConditions(db *gorm.DB, term string, viewer *User) (inAny, rule clause.Expr) {
	visible, visibleArgs := ProtectedFieldsVisible("events", viewer)
	pattern := "%" + escapeLike(term) + "%"
	var anyCols, ruleCols []string
	var anyArgs []any
	ruleArgs := slices.Clone(visibleArgs)
	for _, col := range searchedColumns {
		match := containsFold(db, "events."+col)
		anyCols, anyArgs = append(anyCols, match), append(anyArgs, pattern)
		if eventAlwaysVisible[col] {
			ruleCols, ruleArgs = append(ruleCols, match), append(ruleArgs, pattern)
		}
	}
	return clause.Expr{SQL: "(" + strings.Join(anyCols, " OR ") + ")", Vars: anyArgs},
		clause.Expr{SQL: "(" + strings.Join(append([]string{visible}, ruleCols...), " OR ") + ")", Vars: ruleArgs}
}

// containsFold is the case-insensitive pattern match of each dialect: ILIKE on PostgreSQL, which the trigram
// indexes on the bare columns serve (lower(column) LIKE would need indexes of its own); on SQLite, LIKE on both
// sides folded by calendar_fold, since SQLite's LIKE folds ASCII letters only.
func containsFold(db *gorm.DB, column string) string {
	if db.Dialector.Name() == Postgres {
		return column + ` ILIKE ? ESCAPE '\'`
	}
	return `calendar_fold(` + column + `) LIKE calendar_fold(?) ESCAPE '\'`
}

// EventsInCategories keeps events linked to any of the categories (the caller includes their descendants).
func EventsInCategories(ids []uint64) Scope { return linkedTo("event_categories", "category_id", ids) }

// EventsAtVenuesInCategories keeps events linked to any of the venues and any of the categories, as
// EventsAtVenues and EventsInCategories together would, from the primary key of their pairs (EventVenueCategory).
func EventsAtVenuesInCategories(venues, categories []uint64) Scope {
	return func(db *gorm.DB) *gorm.DB {
		return db.Where("events.id IN (SELECT event_id FROM event_venue_categories WHERE venue_id IN ? AND category_id IN ?)",
			venues, categories)
	}
}

// EventsWithTags keeps events linked to any of the tags.
func EventsWithTags(ids []uint64) Scope { return linkedTo("event_tags", "tag_id", ids) }

// EventsAtVenues keeps events linked to any of the venues.
func EventsAtVenues(ids []uint64) Scope { return linkedTo("event_venues", "venue_id", ids) }

// EventsByOrganizers keeps events linked to any of the organizers.
func EventsByOrganizers(ids []uint64) Scope { return linkedTo("event_organizers", "organizer_id", ids) }

// linkedTo keeps events with a row in the link table whose column is one of ids; the link table's
// (column, event_id) index serves it. table and column are trusted names, never input.
func linkedTo(table, column string, ids []uint64) Scope {
	return func(db *gorm.DB) *gorm.DB {
		return db.Where("events.id IN (SELECT event_id FROM "+table+" WHERE "+column+" IN ?)", ids)
	}
}
