package models

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// LinkedFields points at the fields venues and organizers share (The Events Calendar calls both "linked posts"), so that
// one piece of code stores, filters and shows both kinds.
type LinkedFields struct {
	ID            *uint64
	AuthorID      *uint64
	Status        *string
	TrashedStatus *string
	Password      *string
	Name          *string
	Description   *string
	Excerpt       *string
	Slug          *string
	ImageID       **uint64
	Image         **Image
	PublishedAt   *time.Time
	UpdatedAt     *time.Time
}

// Owned is what permission checks need of the record.
func (f LinkedFields) Owned() Owned {
	return Owned{AuthorID: *f.AuthorID, Status: *f.Status, TrashedStatus: *f.TrashedStatus}
}

// LinkedRecord is a pointer to a venue or an organizer.
type LinkedRecord[T any] interface {
	*T
	Linked() LinkedFields
	// KindValues are the values of the kind's own fields, by the name of the parameter that writes them.
	KindValues() map[string]any
}

// paramValues are the values of a record's fields by the name of the parameter that writes them (the name and
// password aside), as the duplicate rule compares them.
func paramValues[T any, P LinkedRecord[T]](rec *T) map[string]any {
	f := P(rec).Linked()
	values := P(rec).KindValues()
	values["description"], values["excerpt"], values["status"] = *f.Description, *f.Excerpt, *f.Status
	values["author"], values["date"], values["date_utc"] = *f.AuthorID, f.PublishedAt.Unix(), f.PublishedAt.Unix()
	values["image"] = uint64(0)
	if *f.ImageID != nil {
		values["image"] = **f.ImageID
	}
	return values
}

// KindValues are a venue's own values by parameter name.
func (v *Venue) KindValues() map[string]any {
	return map[string]any{
		"address": v.Address, "city": v.City, "country": v.Country, "province": v.Province, "state": v.State,
		"zip": v.Zip, "phone": v.Phone, "stateprovince": v.StateProvince, "website": v.Website,
		"show_map": v.ShowMap, "show_map_link": v.ShowMapLink,
		"geo_lat": floatOrNil(v.GeoLat), "geo_lng": floatOrNil(v.GeoLng),
	}
}

// KindValues are an organizer's own values by parameter name.
func (o *Organizer) KindValues() map[string]any {
	return map[string]any{"phone": o.Phone, "website": o.Website, "email": o.Email}
}

// floatOrNil is *p, or nil, as a comparable value.
func floatOrNil(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// linkedKind is what the two kinds differ in below the API: their tables and the columns search looks at.
type linkedKind struct {
	table, joinTable, joinColumn string
	// code is the record's kind in linked_last_starts: v or o.
	code string
	// search lists the columns GET /venues and /organizers search; country and website of venues
	// are not searched, as in The Events Calendar.
	search []string
}

var (
	venueKind = linkedKind{table: "venues", joinTable: "event_venues", joinColumn: "venue_id", code: "v",
		search: []string{"name", "description", "excerpt", "address", "city", "province", "state", "stateprovince", "zip", "phone"}}
	organizerKind = linkedKind{table: "organizers", joinTable: "event_organizers", joinColumn: "organizer_id", code: "o",
		search: []string{"name", "description", "excerpt", "phone", "email", "website"}}
)

func kindOf[T any]() linkedKind {
	if _, ok := any(new(T)).(*Venue); ok {
		return venueKind
	}
	return organizerKind
}

// FindLinked returns the venue or organizer with this ID, its image loaded, or ErrNotFound. forUpdate locks the
// row until the transaction ends, so that concurrent updates of one record do not overwrite each other.
func FindLinked[T any, P LinkedRecord[T]](s *Store, id uint64, forUpdate bool) (*T, error) {
	return takeLinked[T, P](s, s.db.Where("id = ?", id), forUpdate)
}

// FindLinkedBySlug is FindLinked by slug.
func FindLinkedBySlug[T any, P LinkedRecord[T]](s *Store, slug string, forUpdate bool) (*T, error) {
	return takeLinked[T, P](s, s.db.Where("slug = ?", slug), forUpdate)
}

func takeLinked[T any, P LinkedRecord[T]](s *Store, q *gorm.DB, forUpdate bool) (*T, error) {
	rec := new(T)
	if forUpdate {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	err := q.Take(rec).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	// The image is loaded on its own rather than preloaded, so that the row lock does not extend to it.
	if f := P(rec).Linked(); *f.ImageID != nil {
		if *f.Image, err = FindImage(s, **f.ImageID); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// FindLinkedByIDs returns the venues or organizers with these IDs (those that exist, in no particular order), their
// images loaded: two queries whatever the number of IDs.
func FindLinkedByIDs[T any, P LinkedRecord[T]](s *Store, ids []uint64) ([]T, error) {
	var recs []T
	if len(ids) == 0 {
		return recs, nil
	}
	err := s.db.Preload("Image").Where("id IN ?", ids).Find(&recs).Error
	return recs, err
}

// LinkedDuplicates returns the records of the kind that are not in the trash and whose name equals name, ignoring
// case, oldest first: the candidates of the duplicate rule. On PostgreSQL an index on lower(name)
// serves the lookup.
func LinkedDuplicates[T any, P LinkedRecord[T]](s *Store, name string) ([]T, error) {
	var recs []T
	err := s.db.Preload("Image").Where(s.EqualFold("name", name)).Where("status <> ?", StatusTrash).
		Order("id").Limit(100).Find(&recs).Error
	return recs, err
}

// LockLinkedNames serialises, until the transaction ends, the writers that create records of the kind with any
// of these names: on PostgreSQL it takes the advisory locks of their slug bases (the same locks UniqueSlug
// takes; equal names have equal slugs), in one global order so that two transactions never wait for each other in
// a cycle. SQLite serialises write transactions already.
func LockLinkedNames[T any, P LinkedRecord[T]](s *Store, names ...string) error {
	table := kindOf[T]().table
	keys := make([]int64, 0, len(names))
	for _, n := range names {
		keys = append(keys, slugLockKey(table, Slugify(n, slugFallback(table))))
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for i, k := range keys {
		if i > 0 && k == keys[i-1] {
			continue
		}
		if err := s.lockSlug(k); err != nil {
			return err
		}
	}
	return nil
}

func slugFallback(table string) string { return strings.TrimSuffix(table, "s") }

// CreateLinked inserts rec with a slug made from its name, unique within its kind. Call it
// inside a transaction.
func CreateLinked[T any, P LinkedRecord[T]](s *Store, rec *T) error {
	f := P(rec).Linked()
	table := kindOf[T]().table
	slug, err := s.UniqueSlug(table, Slugify(*f.Name, slugFallback(table)), 0)
	if err != nil {
		return err
	}
	*f.Slug = slug
	return s.db.Omit(clause.Associations).Create(rec).Error
}

// SaveLinked writes every column of rec.
func SaveLinked[T any, P LinkedRecord[T]](s *Store, rec *T) error {
	return s.db.Omit(clause.Associations).Save(rec).Error
}

// TrashLinked moves rec to the trash (remembering its status, which permissions on trashed records depend on) and
// unlinks it, and only it, from every event. Call it inside a transaction.
func TrashLinked[T any, P LinkedRecord[T]](s *Store, rec *T) error {
	f := P(rec).Linked()
	if err := unlinkFromEvents[T](s, *f.ID); err != nil {
		return err
	}
	*f.TrashedStatus, *f.Status = *f.Status, StatusTrash
	return SaveLinked[T, P](s, rec)
}

// DeleteLinked deletes rec for good, after unlinking it from every event. Call it inside a transaction.
func DeleteLinked[T any, P LinkedRecord[T]](s *Store, rec *T) error {
	id := *P(rec).Linked().ID
	if err := unlinkFromEvents[T](s, id); err != nil {
		return err
	}
	return s.db.Where("id = ?", id).Delete(new(T)).Error
}

func unlinkFromEvents[T any](s *Store, id uint64) error {
	k := kindOf[T]()
	return s.unlinkEvents(k.joinTable, k.joinColumn, id, func() error {
		return s.db.Exec("DELETE FROM "+k.joinTable+" WHERE "+k.joinColumn+" = ?", id).Error
	})
}

// LinkedFilter is what GET /venues and GET /organizers filter by.
type LinkedFilter struct {
	// Statuses the records may have (the controller applies the visibility rules).
	Statuses []string
	// Viewer is the caller: only the records it may read one by one are listed (User.CanRead).
	Viewer *User
	// Search holds word fragments that must all appear, ignoring case, in one of the searched columns.
	Search []string
	// EventID keeps the records linked to this event.
	EventID uint64
	// HasEvents, when set, keeps the records linked (true) or not linked (false) to an event that is not a draft,
	// pending or trashed.
	HasEvents *bool
	// UpcomingSince, when non-zero, keeps the records linked to an event the viewer may see that starts at or
	// after this instant.
	UpcomingSince time.Time
	// IDs, when not nil, keeps the records with these IDs (a sync's page of changed records).
	IDs []uint64
}

// listedEventCondition (on events e) is "the event is not a draft, pending or trashed", what has_events counts.
// The statuses are written out, not bound, so that PostgreSQL can prove the partial index
// idx_events_listed usable in every plan, generic ones included.
const listedEventCondition = "e.status IN ('publish', 'future', 'private')"

// ListLinked returns one page of the venues or organizers f selects, newest first, with their
// images, and the number of records f selects: three queries whatever the page size.
func ListLinked[T any, P LinkedRecord[T]](s *Store, f LinkedFilter, p Page) ([]T, int64, error) {
	k := kindOf[T]()
	scope := func(db *gorm.DB) *gorm.DB { return k.filter(s, db, f) }
	total, counted, err := k.countUpcomingPublished(s, f)
	if err != nil {
		return nil, 0, err
	}
	if !counted {
		if err := s.db.Model(new(T)).Scopes(scope).Count(&total).Error; err != nil {
			return nil, 0, err
		}
	}
	var recs []T
	if total == 0 || int64(p.Offset()) >= total {
		return recs, total, nil
	}
	err = s.db.Scopes(scope, Paginate(p)).Preload("Image").
		Order(k.table + ".published_at DESC").Order(k.table + ".id DESC").Find(&recs).Error
	return recs, total, err
}

// filter applies f to a query on the kind's table. Every value is bound; only trusted names are spliced in.
func (k linkedKind) filter(s *Store, db *gorm.DB, f LinkedFilter) *gorm.DB {
	t := k.table
	db = readableBy(t, f.Viewer)(db.Where(t+".status IN ?", f.Statuses))
	if f.IDs != nil {
		db = db.Where(t+".id IN ?", f.IDs)
	}
	if len(f.Search) > 0 {
		db = db.Where(k.searchCondition(s, f.Search, f.Viewer))
	}
	if f.EventID != 0 {
		db = db.Where(k.linkedTo("l.event_id = ?"), f.EventID)
	}
	if f.HasEvents != nil {
		cond := k.linkedTo(listedEventCondition)
		if !*f.HasEvents {
			cond = "NOT " + cond
		}
		db = db.Where(cond)
	}
	if !f.UpcomingSince.IsZero() {
		db = k.withUpcoming(db, f.Viewer, f.UpcomingSince.UTC())
	}
	return db
}

// withUpcoming keeps the records linked to an event the viewer may see that starts at or after since. For
// visitors and for those who may read every private event, the latest starts kept per record (linked_last_starts,
// kept by triggers) answer it, one row per record; a viewer who sees only their own private events walks each
// record's events.
func (k linkedKind) withUpcoming(db *gorm.DB, viewer *User, since time.Time) *gorm.DB {
	if kept, args, ok := k.keptUpcoming(db, viewer, since); ok {
		return db.Where(k.table+".id IN (SELECT s.id "+kept+")", args...)
	}
	visible, args := visibleEventCondition(viewer)
	return db.Where(k.linkedTo("e.start_utc >= ? AND ("+visible+")"), append([]any{since}, args...)...)
}

// keptUpcoming is the FROM … WHERE clause of the kind's kept latest starts (s) "the record has an event the viewer
// may see that starts at or after since", for the viewers the kept starts answer: visitors (published events) and
// those who may read every private event. ok is false for the others. The instant is hidden from the planner
// (hiddenInstant): the page of venues with upcoming events had been planned again at every call for it (0.28 ms
// of planning against 0.06 ms of execution, always the same plan).
func (k linkedKind) keptUpcoming(db *gorm.DB, viewer *User, since time.Time) (kept string, args []any, ok bool) {
	kept = "FROM linked_last_starts s WHERE s.kind = '" + k.code + "' AND "
	at := hiddenInstant(db)
	switch {
	case viewer.can(capReadPrivate):
		return kept + "(s.published >= " + at + " OR s.private >= " + at + ")", []any{since, since}, true
	case viewer == nil:
		return kept + "s.published >= " + at, []any{since}, true
	}
	return "", nil, false
}

// hiddenInstant is the placeholder of an instant that PostgreSQL does not plan for (hiddenParam). A statement whose
// plan is the same for every instant then runs from one generic plan, where a bound instant's selectivity made
// PostgreSQL prefer planning it for each value.
func hiddenInstant(db *gorm.DB) string {
	if db.Dialector.Name() == Postgres {
		return hiddenParam("?", "timestamptz")
	}
	return "?"
}

// countUpcomingPublished counts the records of a list of published records with only_with_upcoming and no other
// filter from the kept latest starts, without reading every record: the records whose kept start is upcoming (one
// small row each, or for a visitor on PostgreSQL upcomingPublishedSQL's day counts), less those of them that are
// not published (found by the status index; few in a calendar, where the filter's plain count joined every record
// to its row). Every viewer may read every published record. counted is false when f is not such a list.
func (k linkedKind) countUpcomingPublished(s *Store, f LinkedFilter) (total int64, counted bool, err error) {
	if f.UpcomingSince.IsZero() || !slices.Equal(f.Statuses, []string{StatusPublish}) || len(f.Search) > 0 ||
		f.EventID != 0 || f.HasEvents != nil || f.IDs != nil {
		return 0, false, nil
	}
	since := f.UpcomingSince.UTC()
	kept, args, ok := k.keptUpcoming(s.db, f.Viewer, since)
	if !ok {
		return 0, false, nil
	}
	upcoming, upcomingArgs := "(SELECT count(*) "+kept+")", args
	if s.dialect == Postgres && f.Viewer == nil {
		upcoming = strings.NewReplacer("{kind}", k.code, "{at}", hiddenInstant(s.db),
			"{day}", hiddenParam("?", "integer")).Replace(upcomingPublishedSQL)
		upcomingArgs = []any{utcDay(since), since, dayStart(utcDay(since) + 1)}
	}
	// The status is written out, not bound, so that the statement runs from one generic plan: bound, its
	// selectivity unknown, it made PostgreSQL plan the statement again at every call (0.3 ms).
	err = s.db.Raw("SELECT "+upcoming+" - (SELECT count(*) "+kept+" AND s.id IN (SELECT t.id FROM "+
		k.table+" t WHERE t.status < '"+StatusPublish+"' OR t.status > '"+StatusPublish+"'))",
		append(upcomingArgs, args...)...).Scan(&total).Error
	return total, err == nil, err
}

// upcomingPublishedSQL counts the records of a kind ({kind}: its code) whose latest published start is at or after
// an instant, on PostgreSQL: the kept day counts (linked_published_days) of the days after the instant's, and the
// records of its own day from the index on the latest starts. Counting every record's kept row had grown with the
// records (0.65 ms for 5,000 venues, against 0.09 ms for the sum of their 559 days). Its arguments are the instant's
// day ({day}) and the instant and the start of the next day ({at}: hiddenInstant), all three hidden from the planner.
const upcomingPublishedSQL = `((SELECT COALESCE(SUM(d.n), 0) FROM linked_published_days d
	WHERE d.kind = '{kind}' AND d.day > {day})
	+ (SELECT count(*) FROM linked_last_starts s WHERE s.kind = '{kind}' AND s.published >= {at} AND s.published < {at}))`

// linkedTo is "the record is linked to an event (e) through the join table (l) that meets cond". CROSS JOIN
// makes SQLite walk the record's links first and read each event by its key (with JOIN it may scan every event
// that meets cond, for every record); PostgreSQL plans it as any join.
func (k linkedKind) linkedTo(cond string) string {
	return "EXISTS (SELECT 1 FROM " + k.joinTable + " l CROSS JOIN events e WHERE e.id = l.event_id AND l." +
		k.joinColumn + " = " + k.table + ".id AND " + cond + ")"
}

// searchCondition is The Events Calendar's "like" search: every fragment in one column, for any of the
// searched columns; of a protected record the viewer may not edit, only the name (see ProtectedFieldsVisible).
func (k linkedKind) searchCondition(s *Store, fragments []string, viewer *User) clause.Expression {
	var columns []clause.Expression
	for _, col := range k.search {
		var all []clause.Expression
		for _, frag := range fragments {
			all = append(all, s.ContainsFold(k.table+"."+col, frag))
		}
		match := clause.And(all...)
		if linkedAlwaysVisible[col] {
			columns = append(columns, match)
			continue
		}
		visible, args := ProtectedFieldsVisible(k.table, viewer)
		columns = append(columns, clause.And(clause.Expr{SQL: visible, Vars: args}, match))
	}
	return clause.Or(columns...)
}

// visibleEventCondition is the SQL condition (on events e) for the events a viewer may see in a listing that
// counts towards only_with_upcoming: published events for everyone, private ones for those who
// may read them. Drafts, pending, scheduled and trashed events never count.
func visibleEventCondition(viewer *User) (string, []any) {
	switch {
	case viewer.can(capReadPrivate):
		return "e.status IN ('publish', 'private')", nil
	case viewer != nil:
		return "e.status = 'publish' OR (e.status = 'private' AND e.author_id = ?)", []any{viewer.ID}
	}
	return "e.status = 'publish'", nil
}

// FindImage returns the image with this ID, or ErrNotFound.
func FindImage(s *Store, id uint64) (*Image, error) {
	var img Image
	err := s.db.Take(&img, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &img, nil
}

// ImageForURL returns the image recorded for url, recording it (with its extension) on first use; nothing is
// downloaded. Concurrent first uses of one URL record it once.
func ImageForURL(s *Store, url, extension string) (*Image, error) {
	img := Image{URL: url, Extension: extension}
	err := s.db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "url"}}, DoNothing: true}).Create(&img).Error
	if err != nil {
		return nil, err
	}
	if err := s.db.Where("url = ?", url).Take(&img).Error; err != nil {
		return nil, fmt.Errorf("image %q vanished: %w", url, err)
	}
	return &img, nil
}

// Linked gives the fields venues share with organizers.
func (v *Venue) Linked() LinkedFields {
	return LinkedFields{ID: &v.ID, AuthorID: &v.AuthorID, Status: &v.Status, TrashedStatus: &v.TrashedStatus,
		Password: &v.Password, Name: &v.Name, Description: &v.Description, Excerpt: &v.Excerpt, Slug: &v.Slug,
		ImageID: &v.ImageID, Image: &v.Image, PublishedAt: &v.PublishedAt, UpdatedAt: &v.UpdatedAt}
}

// Linked gives the fields organizers share with venues.
func (o *Organizer) Linked() LinkedFields {
	return LinkedFields{ID: &o.ID, AuthorID: &o.AuthorID, Status: &o.Status, TrashedStatus: &o.TrashedStatus,
		Password: &o.Password, Name: &o.Name, Description: &o.Description, Excerpt: &o.Excerpt, Slug: &o.Slug,
		ImageID: &o.ImageID, Image: &o.Image, PublishedAt: &o.PublishedAt, UpdatedAt: &o.UpdatedAt}
}
