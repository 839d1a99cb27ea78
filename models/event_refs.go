package models

import (
	"slices"
	"strconv"
	"strings"
)

// EventRefs are the existing records an event write names: venues and organizers by ID, categories and tags by
// ID, slug or name (the refs ResolveCategories and ResolveTags take).
type EventRefs struct {
	Venues, Organizers []uint64
	Categories, Tags   []string
}

// FoundRefs are the records of EventRefs that exist, as FindEventRefs read them in one statement. The resolvers of
// an event write's links take them instead of looking each kind up on their own (FoundLinked,
// ResolveCategoriesFound, ResolveTagsFound), and a create answers with them (NewEventLinks). A nil *FoundRefs
// holds nothing: every resolver then reads for itself.
type FoundRefs struct {
	venues, organizers map[uint64]eventLink
	// categories and tags are nil when their refs were not looked up (none sent, or refs that do not parse).
	categories, tags *foundTerms
}

// foundTerms are the terms of one taxonomy that the refs named, in the order a read of an event's terms lists
// them (by name key, then ID), with what was asked for.
type foundTerms struct {
	asked  termLookup // the IDs, slugs and name keys looked up
	lookup *termLookup
	rows   []eventLink
}

// eventRefsSQL reads, in one statement, the venues and organizers with these IDs (with their images) and the
// categories and tags named by ID, slug or name key (with their current counts). Its rows are eventLinks without
// an event (0).
var eventRefsSQL = unionAll(venueRefsSQL, organizerRefsSQL, categoryRefsSQL, tagRefsSQL)

// eventRefsKeySharedSQL is eventRefsSQL that also takes the FOR KEY SHARE lock of every record it reads (the lock
// a link row's foreign key takes), which PostgreSQL allows in a sub-select of a UNION but not in its branches.
var eventRefsKeySharedSQL = unionAll(keyShared(venueRefsSQL, "v"), keyShared(organizerRefsSQL, "o"),
	keyShared(categoryRefsSQL, "c"), keyShared(tagRefsSQL, "t"))

// linkedRecordsSQL is eventRefsSQL for records named by ID alone, as the link rows of events name them, by dialect
// (linkedRecordsArgs binds it): every branch reads its table by primary key, where the slug and name alternatives
// had PostgreSQL scan all the tags and plan a larger statement. On PostgreSQL each kind's IDs are one array, read
// through a sub-select that hides it from the planner. A list of parameters made a statement of its own for every
// count of venues, organizers, categories and tags a page names (more than half of the reads of 300 deep pages
// parsed a new one), each planned for its values at every run (0.4–1.2 ms of bind against 0.1–0.3 ms of
// execution); one text whose plans cannot see the IDs is parsed once per connection, and its bind took 0.24 ms.
var linkedRecordsSQL = map[string]string{
	SQLite:   linkedRecordsWhere(func(column, param string) string { return column + " IN @" + param }),
	Postgres: linkedRecordsWhere(func(column, param string) string { return column + " = ANY(" + hiddenIDs(param) + ")" }),
}

// linkedRecordsWhere is linkedRecordsSQL with in(column, param) the condition that column is one of param's IDs.
func linkedRecordsWhere(in func(column, param string) string) string {
	return unionAll(venueRefsFrom+in("v.id", "venues"), organizerRefsFrom+in("o.id", "organizers"),
		`SELECT 'c', 0, 0, `+categoryLinkColumns+` FROM categories c WHERE `+in("c.id", "categories"),
		`SELECT 't', 0, 0, `+tagLinkColumns+` FROM tags t WHERE `+in("t.id", "tags"))
}

// hiddenIDs is an array of IDs bound as the text param ("{1,2}": idArray) and hidden from the planner (hiddenParam),
// cast again so that ANY takes it as an array rather than as a subquery's rows.
func hiddenIDs(param string) string {
	return "CAST(" + hiddenParam("CAST(@"+param+" AS text)", "bigint[]") + " AS bigint[])"
}

// idArray writes ids as a PostgreSQL array literal of bigints.
func idArray(ids []uint64) string {
	b := make([]byte, 0, 2+len(ids)*6)
	b = append(b, '{')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, id, 10)
	}
	return string(append(b, '}'))
}

// linkedRecordsParams names linkedRecordsSQL's parameter of each kind of record.
var linkedRecordsParams = map[string]string{"v": "venues", "o": "organizers", "c": "categories", "t": "tags"}

// linkedRecordsArgs binds linkedRecordsSQL to the IDs of each kind (v, o, c, t) in missing.
func (s *Store) linkedRecordsArgs(missing map[string][]uint64) map[string]any {
	args := make(map[string]any, len(linkedRecordsParams))
	for kind, param := range linkedRecordsParams {
		if s.dialect == Postgres {
			args[param] = idArray(missing[kind])
		} else {
			args[param] = nonEmptyIDs(missing[kind])
		}
	}
	return args
}

// The branches of eventRefsSQL, one per kind of record; the first names the columns. venueRefsFrom and
// organizerRefsFrom are the first two without their condition.
var (
	venueRefsFrom = `SELECT 'v' AS kind, 0 AS event_id, 0 AS position, ` + venueLinkColumns + `
	FROM venues v LEFT JOIN images i ON i.id = v.image_id WHERE `
	organizerRefsFrom = `SELECT 'o', 0, 0, ` + organizerLinkColumns + `
	FROM organizers o LEFT JOIN images i ON i.id = o.image_id WHERE `
	venueRefsSQL     = venueRefsFrom + "v.id IN @venues"
	organizerRefsSQL = organizerRefsFrom + "o.id IN @organizers"
	categoryRefsSQL  = `SELECT 'c', 0, 0, ` + categoryLinkColumns + `
	FROM categories c WHERE c.id IN @cat_ids OR c.slug IN @cat_slugs OR c.name_key IN @cat_keys`
	tagRefsSQL = `SELECT 't', 0, 0, ` + tagLinkColumns + `
	FROM tags t WHERE t.id IN @tag_ids OR t.slug IN @tag_slugs OR t.name_key IN @tag_keys`
)

// unionAll joins selects into one statement that returns the rows of each.
func unionAll(selects ...string) string {
	return strings.Join(selects, "\nUNION ALL\n")
}

// keyShared is a select that takes the FOR KEY SHARE lock of the rows it reads from the table aliased alias.
func keyShared(sel, alias string) string {
	return "SELECT * FROM (" + sel + " FOR KEY SHARE OF " + alias + ") " + alias + "_locked"
}

// FindEventRefs reads every record refs name, in one statement (nothing when refs name nothing). Categories or
// tags whose refs do not parse are not looked up: their resolver reports the error.
func (s *Store) FindEventRefs(refs EventRefs) (*FoundRefs, error) {
	return s.findEventRefs(refs, eventRefsSQL)
}

// LockEventRefs is FindEventRefs that, on PostgreSQL, also holds a FOR KEY SHARE lock on every record it finds
// until the transaction ends: that record can then be neither deleted nor have its key changed, while a change of
// its other columns can go on. An update of an event takes these locks before it locks the event, because the
// foreign keys of the link rows it writes take them anyway, and a trashing or deletion of a record locks the
// record before the events that link to it (unlinkEvents). Taken after the event's, they had the two wait for each
// other until PostgreSQL aborted one.
func (s *Store) LockEventRefs(refs EventRefs) (*FoundRefs, error) {
	if s.dialect != Postgres {
		return s.FindEventRefs(refs)
	}
	return s.findEventRefs(refs, eventRefsKeySharedSQL)
}

func (s *Store) findEventRefs(refs EventRefs, query string) (*FoundRefs, error) {
	cats, catErr := parseTermRefs(CategoryTaxonomy, refs.Categories)
	tags, tagErr := parseTermRefs(TagTaxonomy, refs.Tags)
	if catErr != nil {
		cats = nil
	}
	if tagErr != nil {
		tags = nil
	}
	if len(refs.Venues)+len(refs.Organizers)+len(cats)+len(tags) == 0 {
		return nil, nil
	}
	catIDs, catSlugs, catKeys := cats.lookups()
	tagIDs, tagSlugs, tagKeys := tags.lookups()
	rows, err := scanEventLinks(s.db.Raw(query, map[string]any{
		"venues": nonEmptyIDs(refs.Venues), "organizers": nonEmptyIDs(refs.Organizers),
		"cat_ids": nonEmptyIDs(catIDs), "cat_slugs": nonEmpty(catSlugs), "cat_keys": nonEmpty(catKeys),
		"tag_ids": nonEmptyIDs(tagIDs), "tag_slugs": nonEmpty(tagSlugs), "tag_keys": nonEmpty(tagKeys),
	}), len(refs.Venues)+len(refs.Organizers)+len(cats)+len(tags))
	if err != nil {
		return nil, err
	}
	// Terms in the order a read of an event lists them, which compareTerms defines, not the database's collation.
	slices.SortFunc(rows, func(a, b eventLink) int { return compareTerms(a.NameKey, a.ID, b.NameKey, b.ID) })
	f := &FoundRefs{venues: map[uint64]eventLink{}, organizers: map[uint64]eventLink{}}
	if catErr == nil && len(cats) > 0 {
		f.categories = newFoundTerms(catIDs, catSlugs, catKeys)
	}
	if tagErr == nil && len(tags) > 0 {
		f.tags = newFoundTerms(tagIDs, tagSlugs, tagKeys)
	}
	for _, r := range rows {
		switch r.Kind {
		case "v":
			f.venues[r.ID] = r
		case "o":
			f.organizers[r.ID] = r
		case "c":
			f.categories.add(&r)
		case "t":
			f.tags.add(&r)
		}
	}
	// The venues and organizers looked up but not found are remembered as missing (a zero eventLink): FoundLinked
	// tells them from IDs it was never asked about.
	for _, id := range refs.Venues {
		if _, ok := f.venues[id]; !ok {
			f.venues[id] = eventLink{}
		}
	}
	for _, id := range refs.Organizers {
		if _, ok := f.organizers[id]; !ok {
			f.organizers[id] = eventLink{}
		}
	}
	return f, nil
}

func newFoundTerms(ids []uint64, slugs, keys []string) *foundTerms {
	ft := &foundTerms{asked: *newTermLookup(), lookup: newTermLookup()}
	for _, id := range ids {
		ft.asked.ids[id] = true
	}
	for _, s := range slugs {
		ft.asked.bySlug[s] = 0
	}
	for _, k := range keys {
		ft.asked.byName[k] = 0
	}
	return ft
}

// add records a term row; rows of a kind not looked up (f nil) cannot occur.
func (ft *foundTerms) add(r *eventLink) {
	if ft == nil {
		return
	}
	ft.lookup.add(listRefRow{ID: r.ID, Slug: r.Slug, NameKey: r.NameKey})
	ft.rows = append(ft.rows, *r)
}

// covers tells whether every lookup of refs was part of what ft looked up.
func (ft *foundTerms) covers(refs termRefs) bool {
	if ft == nil {
		return false
	}
	for _, r := range refs {
		if r.numeric {
			if !ft.asked.ids[r.id] {
				return false
			}
			continue
		}
		if _, ok := ft.asked.bySlug[r.slug]; !ok {
			return false
		}
		if _, ok := ft.asked.byName[r.key]; !ok {
			return false
		}
	}
	return true
}

// FoundLinked returns the venues or organizers with ids that found read (those that exist, in no particular
// order), as FindLinkedByIDs returns them; false when found did not look up every one of ids.
func FoundLinked[T any, P LinkedRecord[T]](found *FoundRefs, ids []uint64) ([]T, bool) {
	if found == nil {
		return nil, false
	}
	links, venues := found.organizers, false
	if _, ok := any(new(T)).(*Venue); ok {
		links, venues = found.venues, true
	}
	recs := make([]T, 0, len(ids))
	for _, id := range ids {
		l, ok := links[id]
		switch {
		case !ok:
			return nil, false
		case l.ID == 0: // looked up, does not exist
			continue
		case venues:
			v := l.venue()
			recs = append(recs, *any(&v).(*T))
		default:
			o := l.organizer()
			recs = append(recs, *any(&o).(*T))
		}
	}
	return recs, true
}

// ResolveCategoriesFound is ResolveCategories with the lookups found made already, for user: a name no category
// has creates one only if user may create categories (User.CanManageCategories, as POST /categories asks), else
// it is 403 rest_forbidden naming categories. Existing categories are linked whoever writes.
func (s *Store) ResolveCategoriesFound(refs []string, found *FoundRefs, user *User) ([]uint64, error) {
	var ft *foundTerms
	if found != nil {
		ft = found.categories
	}
	return s.resolveTermsFound(CategoryTaxonomy, refs, ft, user.CanManageCategories())
}

// ResolveTagsFound is ResolveCategoriesFound for tags (User.CanManageTags, as POST /tags asks).
func (s *Store) ResolveTagsFound(refs []string, found *FoundRefs, user *User) ([]uint64, error) {
	var ft *foundTerms
	if found != nil {
		ft = found.tags
	}
	return s.resolveTermsFound(TagTaxonomy, refs, ft, user.CanManageTags())
}

// NewEventLinks fills the Venues, Organizers, Categories and Tags of e, an event this transaction created and
// linked to these records, from found: as LoadEventLinks would read them back, without reading. A term's count is
// the one found read plus this event's own (a published event counts for its terms: AdjustTermCounts). It reports
// false, and leaves e alone, when found lacks one of the records (one the write created).
func (f *FoundRefs) NewEventLinks(e *Event, venues, organizers, categories, tags []uint64) bool {
	if f == nil {
		if len(venues)+len(organizers)+len(categories)+len(tags) > 0 {
			return false
		}
		f = &FoundRefs{}
	}
	vs, ok := foundRecords(f.venues, venues, (*eventLink).venue)
	if !ok {
		return false
	}
	orgs, ok := foundRecords(f.organizers, organizers, (*eventLink).organizer)
	if !ok {
		return false
	}
	var own int64
	if e.Status == StatusPublish {
		own = 1
	}
	cats, ok := f.categories.linked(categories, own)
	if !ok {
		return false
	}
	tgs, ok := f.tags.linked(tags, own)
	if !ok {
		return false
	}
	e.Venues, e.Organizers = vs, orgs
	e.Categories, e.Tags = make([]Category, len(cats)), make([]Tag, len(tgs))
	for i := range cats {
		e.Categories[i] = cats[i].category()
	}
	for i := range tgs {
		e.Tags[i] = tgs[i].tag()
	}
	return true
}

// foundRecords returns the records with ids, in that order, made from found's rows by record; false when one of
// them was not found.
func foundRecords[T any](found map[uint64]eventLink, ids []uint64, record func(*eventLink) T) ([]T, bool) {
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		l, ok := found[id]
		if !ok || l.ID == 0 {
			return nil, false
		}
		out = append(out, record(&l))
	}
	return out, true
}

// linked returns the rows of the terms with ids, in the order of a read of an event's terms, each with own added
// to its count; false when one of them was not found.
func (ft *foundTerms) linked(ids []uint64, own int64) ([]eventLink, bool) {
	if len(ids) == 0 {
		return nil, true
	}
	if ft == nil {
		return nil, false
	}
	want := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := make([]eventLink, 0, len(ids))
	for _, t := range ft.rows {
		if want[t.ID] {
			delete(want, t.ID)
			t.Count += own
			out = append(out, t)
		}
	}
	return out, len(want) == 0
}
