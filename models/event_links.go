package models

import (
	"cmp"
	"database/sql"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// eventLink is a venue, organizer, category or tag linked to an event, read by the one query that reads all four
// kinds (eventRefsSQL): the columns are the union of theirs, and each kind leaves the others' empty.
type eventLink struct {
	Kind          string // "v" venue, "o" organizer, "c" category, "t" tag
	EventID       uint64
	Position      int
	ID            uint64
	AuthorID      uint64
	Status        string
	TrashedStatus string
	Password      string
	Name          string
	Description   string
	Excerpt       string
	Slug          string
	ImageID       *uint64
	Address       string
	City          string
	Country       string
	Province      string
	State         string
	Zip           string
	Phone         string
	Website       string
	StateProvince string
	Email         string
	ShowMap       bool
	ShowMapLink   bool
	GeoLat        *float64
	GeoLng        *float64
	PublishedAt   *time.Time
	CreatedAt     *time.Time
	UpdatedAt     *time.Time
	ImageURL      *string
	ImageExt      *string
	ImageCreated  *time.Time
	NameKey       string
	ParentID      *uint64
	Count         int64
}

// The columns of an eventLink (after kind, event and position) for each kind of record: venues (v, with their
// image i), organizers (o, with i), categories (c) and tags (t), as eventRefsSQL reads them. The columns a kind
// lacks are typed NULLs, so that each kind's select, also on its own in a sub-select (eventRefsKeySharedSQL), has
// the types of the others.
var (
	venueLinkColumns = `v.id, v.author_id, v.status, v.trashed_status, v.password, v.name, v.description, v.excerpt,
	v.slug, v.image_id, v.address, v.city, v.country, v.province, v.state, v.zip, v.phone, v.website, v.stateprovince,
	'' AS email, v.show_map, v.show_map_link, v.geo_lat, v.geo_lng, v.published_at, v.created_at, v.updated_at,
	i.url AS image_url, i.extension AS image_ext, i.created_at AS image_created, '' AS name_key,
	` + nullBigint + ` AS parent_id, 0 AS count`
	organizerLinkColumns = `o.id, o.author_id, o.status, o.trashed_status, o.password, o.name, o.description,
	o.excerpt, o.slug, o.image_id, '', '', '', '', '', '', o.phone, o.website, '', o.email, FALSE, FALSE, ` +
		nullFloat + `, ` + nullFloat + `, o.published_at, o.created_at, o.updated_at, i.url, i.extension, i.created_at,
	'', ` + nullBigint + `, 0`
	categoryLinkColumns = `c.id, 0, '', '', '', c.name, c.description, '', c.slug, ` + nullBigint + `, '', '', '', '',
	'', '', '', '', '', '', FALSE, FALSE, ` + termLinkNulls + `, c.name_key, c.parent_id, ` +
		CategoryTaxonomy.countExpr("c")
	tagLinkColumns = `t.id, 0, '', '', '', t.name, t.description, '', t.slug, ` + nullBigint + `, '', '', '', '', '',
	'', '', '', '', '', FALSE, FALSE, ` + termLinkNulls + `, t.name_key, ` + nullBigint + `, ` + TagTaxonomy.countExpr("t")
)

// Typed NULLs for the columns of an eventLink a kind of record lacks.
const (
	nullBigint = "CAST(NULL AS bigint)"
	nullFloat  = "CAST(NULL AS double precision)"
	nullTime   = "CAST(NULL AS timestamptz)"
	// termLinkNulls are the columns from geo_lat to image_created, which terms lack.
	termLinkNulls = nullFloat + ", " + nullFloat + ", " + nullTime + ", " + nullTime + ", " + nullTime + ", NULL, NULL, " +
		nullTime
)

// scanEventLinks runs query, whose columns are an eventLink's in order (eventRefsSQL), and reads its rows.
func scanEventLinks(query *gorm.DB, expected int) ([]eventLink, error) {
	return scanAll(query, expected, func(rows *sql.Rows, l *eventLink) error {
		return rows.Scan(&l.Kind, &l.EventID, &l.Position, &l.ID, &l.AuthorID, &l.Status, &l.TrashedStatus,
			&l.Password, &l.Name, &l.Description, &l.Excerpt, &l.Slug, &l.ImageID, &l.Address, &l.City, &l.Country,
			&l.Province, &l.State, &l.Zip, &l.Phone, &l.Website, &l.StateProvince, &l.Email, &l.ShowMap,
			&l.ShowMapLink, &l.GeoLat, &l.GeoLng, &l.PublishedAt, &l.CreatedAt, &l.UpdatedAt, &l.ImageURL,
			&l.ImageExt, &l.ImageCreated, &l.NameKey, &l.ParentID, &l.Count)
	})
}

// image is the link's image, if it has one.
func (l *eventLink) image() *Image {
	if l.ImageID == nil || l.ImageURL == nil {
		return nil
	}
	img := &Image{ID: *l.ImageID, URL: *l.ImageURL}
	if l.ImageExt != nil {
		img.Extension = *l.ImageExt
	}
	if l.ImageCreated != nil {
		img.CreatedAt = *l.ImageCreated
	}
	return img
}

func (l *eventLink) venue() Venue {
	return Venue{ID: l.ID, AuthorID: l.AuthorID, Status: l.Status, TrashedStatus: l.TrashedStatus, Password: l.Password,
		Name: l.Name, Description: l.Description, Excerpt: l.Excerpt, Slug: l.Slug, ImageID: l.ImageID,
		Address: l.Address, City: l.City, Country: l.Country, Province: l.Province, State: l.State, Zip: l.Zip,
		Phone: l.Phone, Website: l.Website, StateProvince: l.StateProvince, ShowMap: l.ShowMap,
		ShowMapLink: l.ShowMapLink, GeoLat: l.GeoLat, GeoLng: l.GeoLng, PublishedAt: timeOrZero(l.PublishedAt),
		CreatedAt: timeOrZero(l.CreatedAt), UpdatedAt: timeOrZero(l.UpdatedAt), Image: l.image()}
}

func (l *eventLink) organizer() Organizer {
	return Organizer{ID: l.ID, AuthorID: l.AuthorID, Status: l.Status, TrashedStatus: l.TrashedStatus,
		Password: l.Password, Name: l.Name, Description: l.Description, Excerpt: l.Excerpt, Slug: l.Slug,
		ImageID: l.ImageID, Phone: l.Phone, Website: l.Website, Email: l.Email, PublishedAt: timeOrZero(l.PublishedAt),
		CreatedAt: timeOrZero(l.CreatedAt), UpdatedAt: timeOrZero(l.UpdatedAt), Image: l.image()}
}

func (l *eventLink) category() Category {
	return Category{ID: l.ID, Name: l.Name, NameKey: l.NameKey, Slug: l.Slug, Description: l.Description,
		ParentID: l.ParentID, Count: l.Count}
}

func (l *eventLink) tag() Tag {
	return Tag{ID: l.ID, Name: l.Name, NameKey: l.NameKey, Slug: l.Slug, Description: l.Description, Count: l.Count}
}

func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// linkRow is one item of an event's link lists: the event links to the record key names, at position.
type linkRow struct {
	eventID  uint64
	position int
	key      recordKey
}

// recordKey names a linked record: its kind (as eventLink.Kind) and ID.
type recordKey struct {
	kind string
	id   uint64
}

// LoadEventLinks fills the Venues and Organizers (in the order they were given, with their images), Categories
// and Tags (by name, as WordPress returns terms) of the events, whatever their number: which records each event
// links to (its link lists, read with it), then those records in one query, except the ones remembered at the data
// version the request is answered at (see VersionMemo). A page of events shares a few venues, organizers and
// terms, which a calendar serves again and again.
func (s *Store) LoadEventLinks(events []Event) error {
	if len(events) == 0 {
		return nil
	}
	index := make(map[uint64]*Event, len(events))
	for i := range events {
		e := &events[i]
		index[e.ID] = e
		e.Venues, e.Organizers, e.Categories, e.Tags = []Venue{}, []Organizer{}, []Category{}, []Tag{}
	}
	rows, err := eventLinkRows(events)
	if err != nil {
		return err
	}
	records, err := s.linkedRecords(rows)
	if err != nil {
		return err
	}
	for run := range linkRuns(rows) {
		e := index[run[0].eventID]
		switch run[0].key.kind {
		case "v":
			e.Venues = linkedOfRun(run, records, (*eventLink).venue)
		case "o":
			e.Organizers = linkedOfRun(run, records, (*eventLink).organizer)
		case "c":
			e.Categories = linkedOfRun(run, records, (*eventLink).category)
		default:
			e.Tags = linkedOfRun(run, records, (*eventLink).tag)
		}
	}
	for i := range events {
		slices.SortFunc(events[i].Categories, func(a, b Category) int { return compareTerms(a.NameKey, a.ID, b.NameKey, b.ID) })
		slices.SortFunc(events[i].Tags, func(a, b Tag) int { return compareTerms(a.NameKey, a.ID, b.NameKey, b.ID) })
	}
	return nil
}

// linkRuns yields the runs of rows (each event's together, by kind: see eventLinkRows) that link one event to one
// kind of record.
func linkRuns(rows []linkRow) iter.Seq[[]linkRow] {
	return func(yield func([]linkRow) bool) {
		for start := 0; start < len(rows); {
			first, end := rows[start], start+1
			for end < len(rows) && rows[end].eventID == first.eventID && rows[end].key.kind == first.key.kind {
				end++
			}
			if !yield(rows[start:end]) {
				return
			}
			start = end
		}
	}
}

// linkedOfRun returns the records a run of link rows names, as record makes them, in a slice of the run's size
// (growing the slices link by link allocated about twice as much). A record deleted since its link was read is
// left out: the link is gone too now.
func linkedOfRun[T any](run []linkRow, records map[recordKey]*eventLink, record func(*eventLink) T) []T {
	out := make([]T, 0, len(run))
	for _, r := range run {
		if l := records[r.key]; l != nil {
			out = append(out, record(l))
		}
	}
	return out
}

// compareTerms orders terms as a read of an event lists them: by name key, then ID.
func compareTerms(keyA string, idA uint64, keyB string, idB uint64) int {
	if c := strings.Compare(keyA, keyB); c != 0 {
		return c
	}
	return cmp.Compare(idA, idB)
}

// eventLinkRows returns the link rows of the events, from their link lists: each event's rows together, by kind
// and, for venues and organizers, by position. Sorting all the rows of a page of 50 events by event, kind and
// position took 4% of the service's time for such pages; the lists already hold each event's rows together.
func eventLinkRows(events []Event) ([]linkRow, error) {
	var rows []linkRow
	for i := range events {
		var err error
		if rows, err = events[i].appendLinkRows(rows); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// appendLinkRows appends the link rows e's four link lists name (NULL: no link of that kind). Every event the
// store hands out has them: reads select them with the row (selectEvents, LockEvent), and creates set them before
// writing them (SetLinkLists, LinkNewEvent).
func (e *Event) appendLinkRows(rows []linkRow) ([]linkRow, error) {
	lists := []struct {
		kind       string
		text       *string
		positioned bool
	}{{"v", e.VenueLinks, true}, {"o", e.OrganizerLinks, true}, {"c", e.CategoryLinks, false}, {"t", e.TagLinks, false}}
	n := 0
	for _, list := range lists {
		if list.text != nil {
			n += strings.Count(*list.text, ",") + 1
		}
	}
	rows = slices.Grow(rows, n)
	for _, list := range lists {
		if list.text == nil {
			continue
		}
		first := len(rows)
		for item := range strings.SplitSeq(*list.text, ",") {
			r := linkRow{eventID: e.ID, key: recordKey{kind: list.kind}}
			id := item
			if list.positioned {
				position, rest, ok := strings.Cut(item, ":")
				n, err := strconv.Atoi(position)
				if !ok || err != nil {
					return nil, fmt.Errorf("models: link list %q of event %d", *list.text, e.ID)
				}
				r.position, id = n, rest
			}
			n, err := strconv.ParseUint(id, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("models: link list %q of event %d", *list.text, e.ID)
			}
			r.key.id = n
			rows = append(rows, r)
		}
		if list.positioned {
			slices.SortFunc(rows[first:], func(a, b linkRow) int { return cmp.Compare(a.position, b.position) })
		}
	}
	return rows, nil
}

// LinkLists returns the link lists (Event.VenueLinks and the three after it) of an event linked to venues and
// organizers, in this order, and to categories and tags: the venues and organizers as position:id, the
// categories and tags as IDs, each list comma-separated, and nil for none. It is the form refreshLinkListsSQL
// writes from the link rows.
func LinkLists(venues, organizers, categories, tags []uint64) (v, o, c, t *string) {
	return linkList(venues, true), linkList(organizers, true), linkList(categories, false), linkList(tags, false)
}

func linkList(ids []uint64, positioned bool) *string {
	if len(ids) == 0 {
		return nil
	}
	buf := make([]byte, 0, 12*len(ids))
	for i, id := range ids {
		if i > 0 {
			buf = append(buf, ',')
		}
		if positioned {
			buf = append(strconv.AppendInt(buf, int64(i), 10), ':')
		}
		buf = strconv.AppendUint(buf, id, 10)
	}
	list := string(buf)
	return &list
}

// SetLinkLists sets e's link lists (LinkLists) for an event about to be created with these links.
func (e *Event) SetLinkLists(venues, organizers, categories, tags []uint64) {
	e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = LinkLists(venues, organizers, categories, tags)
}

// setLinkListsSQL sets the link lists of one event, then its ID.
const setLinkListsSQL = `UPDATE events SET venue_links = ?, organizer_links = ?, category_links = ?, tag_links = ?
	WHERE id = ?`

// refreshLinkListsSQL writes the link lists of the events with the IDs @ids from their link rows (string_agg is
// PostgreSQL's and, since 3.44, SQLite's).
const refreshLinkListsSQL = `UPDATE events SET
	venue_links = (SELECT string_agg(position || ':' || venue_id, ',') FROM event_venues WHERE event_id = events.id),
	organizer_links = (SELECT string_agg(position || ':' || organizer_id, ',') FROM event_organizers
		WHERE event_id = events.id),
	category_links = (SELECT string_agg(CAST(category_id AS TEXT), ',') FROM event_categories
		WHERE event_id = events.id),
	tag_links = (SELECT string_agg(CAST(tag_id AS TEXT), ',') FROM event_tags WHERE event_id = events.id)
WHERE id IN @ids`

// RefreshEventLinkLists writes the link lists of the events from their link rows: every write that changes an
// event's links after creating it calls it in the same transaction, holding the event's row lock (LockEvent,
// unlinkEvents), so the lists it writes are the rows the transaction commits. A write to the link tables made
// behind the service's back (psql) must call it too, or run the equivalent UPDATE of migration 00009.
func (s *Store) RefreshEventLinkLists(ids ...uint64) error {
	for chunk := range slices.Chunk(ids, maxRefreshedEvents) {
		if err := s.db.Exec(refreshLinkListsSQL, map[string]any{"ids": chunk}).Error; err != nil {
			return err
		}
	}
	return nil
}

// maxRefreshedEvents bounds the IDs one refreshLinkListsSQL binds (SQLite takes 32,766 parameters at most).
const maxRefreshedEvents = 10000

// unlinkEvents runs unlink, which deletes the link rows of joinTable whose joinColumn is id (trashing or deleting
// that venue, organizer or term), and writes the link lists of the events it unlinks. The caller has locked the
// record (so no link to it can be added meanwhile); the events are locked before their links are deleted, in ID
// order, as event writes lock an event before changing its links (LockEvent), so that the lists are written from
// link rows no other transaction is changing. An event update locks the records it names before its event
// (LockEventRefs), so it and this lock a record and its events in one order. The lists of the series that link to
// it are written first (unlinkSeries). joinTable and joinColumn are the trusted names of a link table.
func (s *Store) unlinkEvents(joinTable, joinColumn string, id uint64, unlink func() error) error {
	if err := s.unlinkSeries(joinTable, id); err != nil {
		return err
	}
	q := s.db.Table("events").Where("id IN (SELECT event_id FROM "+joinTable+" WHERE "+joinColumn+" = ?)", id).
		Order("id")
	if s.dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var ids []uint64
	if err := q.Pluck("id", &ids).Error; err != nil {
		return err
	}
	if err := unlink(); err != nil {
		return err
	}
	return s.RefreshEventLinkLists(ids...)
}

// linkedRecords returns the records the rows link to: those remembered at the data version the request is
// answered at from the memo, the others read in one query (linkedRecordsSQL) and remembered. A record is shared, by
// pointer, by the memo and every page that links to it, and never changed. Pages link to the same venues,
// organizers and terms again and again; copying each record (some 400 bytes) into a map sized for the link rows
// had been a sixth of what the service allocated for a 10,000-event feed.
func (s *Store) linkedRecords(rows []linkRow) (map[recordKey]*eventLink, error) {
	version, known := VersionIn(s.db.Statement.Context)
	records := make(map[recordKey]*eventLink, len(rows))
	missing := map[string][]uint64{}
	for _, r := range rows {
		if _, seen := records[r.key]; seen {
			continue
		}
		if known {
			if l, ok := s.memos.records.Get(version, r.key); ok {
				records[r.key] = l
				continue
			}
		}
		records[r.key] = nil // asked for; set below unless deleted meanwhile
		missing[r.key.kind] = append(missing[r.key.kind], r.key.id)
	}
	if len(missing) == 0 {
		return records, nil
	}
	read, err := scanEventLinks(s.db.Raw(linkedRecordsSQL[s.dialect], s.linkedRecordsArgs(missing)),
		len(missing["v"])+len(missing["o"])+len(missing["c"])+len(missing["t"]))
	if err != nil {
		return nil, err
	}
	for i := range read {
		l := new(eventLink) // a record of its own, so that the memo does not keep the whole slice alive
		*l = read[i]
		key := recordKey{l.Kind, l.ID}
		records[key] = l
		if known {
			s.memos.records.Put(version, key, l)
		}
	}
	return records, nil
}

// TermLinks returns what the event contributes to term counts as it is stored now, from its link lists. A
// write that needs them current reads the event after locking it (LockEvent: a statement of its own sees every write
// committed before it, and every write of the lists holds that lock).
func (e *Event) TermLinks() (TermLinks, error) {
	links := TermLinks{Published: e.Status == StatusPublish}
	rows, err := e.appendLinkRows(nil)
	for _, r := range rows {
		switch r.key.kind {
		case "c":
			links.Categories = append(links.Categories, r.key.id)
		case "t":
			links.Tags = append(links.Tags, r.key.id)
		}
	}
	return links, err
}

// ReplaceEventVenues makes ids, in this order, the venues of the event; created says the event is new in this
// transaction (it has no links to delete). So for the three below.
func (s *Store) ReplaceEventVenues(eventID uint64, ids []uint64, created bool) error {
	rows := make([]EventVenue, len(ids))
	for i, id := range ids {
		rows[i] = EventVenue{EventID: eventID, VenueID: id, Position: i}
	}
	return replaceLinks(s, &EventVenue{}, eventID, rows, created)
}

// ReplaceEventOrganizers makes ids, in this order, the organizers of the event.
func (s *Store) ReplaceEventOrganizers(eventID uint64, ids []uint64, created bool) error {
	rows := make([]EventOrganizer, len(ids))
	for i, id := range ids {
		rows[i] = EventOrganizer{EventID: eventID, OrganizerID: id, Position: i}
	}
	return replaceLinks(s, &EventOrganizer{}, eventID, rows, created)
}

// ReplaceEventCategories makes ids the categories of the event.
func (s *Store) ReplaceEventCategories(eventID uint64, ids []uint64, created bool) error {
	rows := make([]EventCategory, len(ids))
	for i, id := range ids {
		rows[i] = EventCategory{EventID: eventID, CategoryID: id}
	}
	return replaceLinks(s, &EventCategory{}, eventID, rows, created)
}

// ReplaceEventTags makes ids the tags of the event.
func (s *Store) ReplaceEventTags(eventID uint64, ids []uint64, created bool) error {
	rows := make([]EventTag, len(ids))
	for i, id := range ids {
		rows[i] = EventTag{EventID: eventID, TagID: id}
	}
	return replaceLinks(s, &EventTag{}, eventID, rows, created)
}

// replaceLinks deletes the event's rows of the link table of model, unless the event was created in this
// transaction and has none, and inserts rows (a slice of that model). Callers hold the event's row lock
// (LockEvent), so concurrent replacements apply one after the other.
func replaceLinks[T any](s *Store, model *T, eventID uint64, rows []T, created bool) error {
	if !created {
		if err := s.db.Where("event_id = ?", eventID).Delete(model).Error; err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return s.db.Create(&rows).Error
}

// lockLastStarts takes on PostgreSQL, in one statement, the row locks of the kept latest starts
// (linked_last_starts) of the venues and organizers that an update relinking events to links unlinks or links,
// before their link rows change: venues before organizers, each kind in ID order, as the triggers of an event's
// new status or start take them. A record without a row gets one. The triggers of the link rows lock the rows of
// the records unlinked, then of those linked: two updates relinking events to crossing sets of venues had each
// held one set and waited for the other's. A series update relinking its occurrences takes them all at once.
func (s *Store) lockLastStarts(links EventLinkIDs, events ...*Event) error {
	if s.dialect != Postgres || (links.Venues == nil && links.Organizers == nil) {
		return nil
	}
	keys := map[recordKey]bool{}
	for _, e := range events {
		current, err := e.appendLinkRows(nil)
		if err != nil {
			return err
		}
		for _, r := range current {
			if (r.key.kind == "v" && links.Venues != nil) || (r.key.kind == "o" && links.Organizers != nil) {
				keys[r.key] = true
			}
		}
	}
	for _, id := range links.Venues {
		keys[recordKey{"v", id}] = true
	}
	for _, id := range links.Organizers {
		keys[recordKey{"o", id}] = true
	}
	if len(keys) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(keys))
	for k := range keys {
		args = append(args, k.kind, k.id)
	}
	rows := strings.TrimSuffix(strings.Repeat("(CAST(? AS CHAR(1)), CAST(? AS BIGINT)),", len(keys)), ",")
	return s.db.Exec(`INSERT INTO linked_last_starts AS s (kind, id)
	SELECT k.kind, k.id FROM (VALUES `+rows+`) AS k(kind, id) ORDER BY k.kind DESC, k.id
	ON CONFLICT (kind, id) DO UPDATE SET published = s.published`, args...).Error
}

// PairEventVenueCategories adds the venue and category pairs (EventVenueCategory) of an event whose venue or
// category links this transaction replaced: replacing either removed every pair of the event. On PostgreSQL it
// locks the links it pairs (FOR KEY SHARE), so that a link another transaction is deleting (its venue or category
// deleted meanwhile) is waited for and left out, instead of failing the pair's foreign key; SQLite runs one writer
// at a time.
func (s *Store) PairEventVenueCategories(eventID uint64) error {
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR KEY SHARE OF v, c"
	}
	return s.db.Exec(`INSERT INTO event_venue_categories (venue_id, category_id, event_id)
	SELECT v.venue_id, c.category_id, v.event_id FROM event_venues v JOIN event_categories c ON c.event_id = v.event_id
	WHERE v.event_id = ?`+lock, eventID).Error
}

// LinkNewEvent gives e, an event this transaction created, its venues and organizers (in this order), categories
// and tags, their venue and category pairs and its link lists (LinkLists, set on e too), and records what it adds
// to term counts (one for each of its terms when it is published, as AdjustTermCounts does for a write from no
// links). On PostgreSQL it is one statement, whose parts are data-modifying CTEs; SQLite, which has none, takes one
// statement per table.
func (s *Store) LinkNewEvent(e *Event, venues, organizers, categories, tags []uint64) error {
	eventID := e.ID
	e.SetLinkLists(venues, organizers, categories, tags)
	lists := []any{e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks, eventID}
	after := TermLinks{Published: e.Status == StatusPublish, Categories: categories, Tags: tags}
	if s.dialect != Postgres {
		for _, r := range []struct {
			ids []uint64
			fn  func(uint64, []uint64, bool) error
		}{{venues, s.ReplaceEventVenues}, {organizers, s.ReplaceEventOrganizers},
			{categories, s.ReplaceEventCategories}, {tags, s.ReplaceEventTags}} {
			if err := r.fn(eventID, r.ids, true); err != nil {
				return err
			}
		}
		if err := s.PairEventVenueCategories(eventID); err != nil {
			return err
		}
		if err := s.db.Exec(setLinkListsSQL, lists...).Error; err != nil {
			return err
		}
		return s.AdjustTermCounts(TermLinks{}, after)
	}
	var parts []string
	var args []any
	add := func(insert, row string, n int, values func(i int) []any) {
		if n == 0 {
			return
		}
		rows := make([]string, n)
		for i := range rows {
			rows[i] = row
			args = append(args, values(i)...)
		}
		parts = append(parts, insert+strings.Join(rows, ", "))
	}
	// PostgreSQL fires the main statement's triggers first and then those of each data-modifying CTE in the
	// reverse of their order here: the links' kept rows are then locked in the order of an update's triggers
	// (those of venues and organizers, then of categories; see migration 00035), so that a create and an
	// update of events of one day do not deadlock.
	deltas := countDeltas(TermLinks{}, after)
	add("INSERT INTO term_count_deltas (taxonomy, term_id, delta) VALUES ", "(?, ?, ?)", len(deltas),
		func(i int) []any { return []any{deltas[i].Taxonomy, deltas[i].TermID, deltas[i].Delta} })
	pairs := EventVenueCategories(eventID, venues, categories)
	add("INSERT INTO event_venue_categories (venue_id, category_id, event_id) VALUES ", "(?, ?, ?)", len(pairs),
		func(i int) []any { return []any{pairs[i].VenueID, pairs[i].CategoryID, eventID} })
	add("INSERT INTO event_tags (event_id, tag_id) VALUES ", "(?, ?)", len(tags),
		func(i int) []any { return []any{eventID, tags[i]} })
	add("INSERT INTO event_categories (event_id, category_id) VALUES ", "(?, ?)", len(categories),
		func(i int) []any { return []any{eventID, categories[i]} })
	add("INSERT INTO event_organizers (event_id, organizer_id, position) VALUES ", "(?, ?, ?)", len(organizers),
		func(i int) []any { return []any{eventID, organizers[i], i} })
	add("INSERT INTO event_venues (event_id, venue_id, position) VALUES ", "(?, ?, ?)", len(venues),
		func(i int) []any { return []any{eventID, venues[i], i} })
	parts = append(parts, setLinkListsSQL)
	args = append(args, lists...)
	sql := parts[len(parts)-1]
	if len(parts) > 1 {
		ctes := make([]string, len(parts)-1)
		for i, p := range parts[:len(parts)-1] {
			ctes[i] = "l" + strconv.Itoa(i) + " AS (" + p + ")"
		}
		sql = "WITH " + strings.Join(ctes, ", ") + " " + sql
	}
	return s.db.Exec(sql, args...).Error
}

// StoreEventLinks replaces the links an update of the existing event e sent, with the event's link lists, and
// moves the counts of the categories and tags the event counted for before the write (before) and counts for
// after it. (A new event gets its links from Store.CreateEvent.) The caller has locked the kept latest starts of
// the records it relinks (lockLastStarts), once for all the events it relinks.
func (s *Store) StoreEventLinks(e *Event, links EventLinkIDs, before TermLinks) error {
	replace := []struct {
		ids []uint64
		fn  func(uint64, []uint64, bool) error
	}{
		{links.Venues, s.ReplaceEventVenues}, {links.Organizers, s.ReplaceEventOrganizers},
		{links.Categories, s.ReplaceEventCategories}, {links.Tags, s.ReplaceEventTags},
	}
	for _, r := range replace {
		if r.ids != nil {
			if err := r.fn(e.ID, r.ids, false); err != nil {
				return err
			}
		}
	}
	if links.Venues != nil || links.Categories != nil {
		if err := s.PairEventVenueCategories(e.ID); err != nil {
			return err
		}
	}
	if links.sent() {
		if err := s.RefreshEventLinkLists(e.ID); err != nil {
			return err
		}
	}
	after := TermLinks{Published: e.Status == StatusPublish, Categories: before.Categories, Tags: before.Tags}
	if links.Categories != nil {
		after.Categories = links.Categories
	}
	if links.Tags != nil {
		after.Tags = links.Tags
	}
	return s.AdjustTermCounts(before, after)
}
