package models

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/cases"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"calendar/controllers/input"
)

// Taxonomy is a kind of term: categories (hierarchical) or tags (flat). Its fields name tables and columns; they are
// fixed here and never come from input, so queries may splice them in.
type Taxonomy struct {
	table        string // categories | tags
	joinTable    string // event_categories | event_tags
	joinColumn   string // category_id | tag_id
	param        string // the event parameter and list filter that name terms of this kind
	singular     string // for messages and as the slug of a name with nothing to keep
	hierarchical bool
	// existsMessage is WordPress's term_exists message for the taxonomy.
	existsMessage string
}

// The two taxonomies.
var (
	CategoryTaxonomy = &Taxonomy{table: "categories", joinTable: "event_categories", joinColumn: "category_id",
		param: "categories", singular: "category", hierarchical: true,
		existsMessage: "A term with the name provided already exists with this parent."}
	TagTaxonomy = &Taxonomy{table: "tags", joinTable: "event_tags", joinColumn: "tag_id",
		param: "tags", singular: "tag",
		existsMessage: "A term with the name provided already exists in this taxonomy."}
)

// Hierarchical tells whether terms of the taxonomy have parents.
func (tax *Taxonomy) Hierarchical() bool { return tax.hierarchical }

// MaxTermNameLen is the longest term name, in characters (WordPress's limit).
const MaxTermNameLen = 200

// FoldName is the case-folded form of a name (Unicode-aware, computed here rather than by the database so that
// matching, search and ordering behave the same on SQLite, whose lower() knows only ASCII, and PostgreSQL).
func FoldName(name string) string { return cases.Fold().String(name) }

// Term is a category or a tag as the store reads it; ParentID is nil for top-level categories and for every tag.
type Term struct {
	ID          uint64
	Name        string
	NameKey     string
	Slug        string
	Description string
	ParentID    *uint64
	Count       int64
	// UpdatedAt is when the term's own fields last changed or, for a category, the slugs of its ancestors or their
	// line, which its URL shows; including the count changes folded into Count (CompactTermCounts).
	UpdatedAt time.Time
	// CountedAt is the Unix second of the latest count change not yet folded into Count and UpdatedAt, if any.
	// Only Term reads it.
	CountedAt *int64 `gorm:"->"`
}

// LastModified is when the term's answer last changed: the latest of UpdatedAt and its pending count changes. The
// answer shows the count, so a count change is a change of the term, as its ETag says too.
func (t *Term) LastModified() time.Time {
	if t.CountedAt != nil {
		if counted := time.Unix(*t.CountedAt, 0).UTC(); counted.After(t.UpdatedAt) {
			return counted
		}
	}
	return t.UpdatedAt
}

// TermInput is a create or an update of a term: nil fields were not sent. Values are already clean (plain-text
// name, sanitised description, slugified slug). Parent 0 means top level; tags ignore Parent.
type TermInput struct {
	Name        *string
	Description *string
	Slug        *string
	Parent      *uint64
}

// TermFilter selects terms for a list. Zero values do not filter, except HideEmpty.
type TermFilter struct {
	// Search keeps terms whose name or slug contains it, case-insensitively.
	Search string
	// Include and Exclude restrict to, or leave out, these IDs; each must exist.
	Include, Exclude []uint64
	// IDs, when not nil, keeps the terms with these IDs, which need not exist (a sync's page of changed terms).
	IDs []uint64
	// Slug keeps the term with this slug (sanitised as slugs are).
	Slug string
	// ParentID keeps the direct children of this category; it must exist.
	ParentID *uint64
	// EventID keeps the terms of this event; it must exist. EventParam names the parameter that gave it ("event"
	// or "post"), for the error.
	EventID    *uint64
	EventParam string
	// Viewer is who asks: the terms of an event the viewer may not read (or whose password protects them) are not
	// listed.
	Viewer *User
	// HideEmpty leaves out terms with no published events.
	HideEmpty bool
	// OrderBy is an orderby key of the term lists (unknown keys order by name); Descending reverses it.
	OrderBy    string
	Descending bool
}

// termColumns is what the store reads of a term of tax.
func (tax *Taxonomy) termColumns() string {
	if tax.hierarchical {
		return "id, name, name_key, slug, description, parent_id, " + tax.countExpr(tax.table) + " AS count"
	}
	return "id, name, name_key, slug, description, " + tax.countExpr(tax.table) + " AS count"
}

// countExpr is the current count of the term in table (or alias) t: its stored count plus the deltas not yet
// folded into it (see AdjustTermCounts).
func (tax *Taxonomy) countExpr(t string) string {
	return "(" + t + ".count + COALESCE((SELECT SUM(d.delta) FROM term_count_deltas d WHERE d.taxonomy = '" +
		tax.table + "' AND d.term_id = " + t + ".id), 0))"
}

// countedAtExpr is the Unix second of the latest count change of the term in table (or alias) t not yet folded
// into its row (NULL when none is pending).
func (tax *Taxonomy) countedAtExpr(t string) string {
	return "(SELECT MAX(d.at) FROM term_count_deltas d WHERE d.taxonomy = '" + tax.table + "' AND d.term_id = " +
		t + ".id)"
}

// Term reads one term, with its modification date; ErrNotFound when tax has no term with that ID.
func (s *Store) Term(tax *Taxonomy, id uint64) (*Term, error) {
	var t Term
	err := s.db.Table(tax.table).Select(tax.termColumns()+", updated_at, "+tax.countedAtExpr(tax.table)+" AS counted_at").
		Where("id = ?", id).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// LockTerm locks the term's row until the transaction ends, so that what a write checked before changing it
// (If-Match) still holds when it commits: a concurrent write of the term waits. SQLite needs no lock (its write
// transactions take the database's write lock at BEGIN). It returns ErrNotFound when the term does not exist.
func (s *Store) LockTerm(tax *Taxonomy, id uint64) error {
	if s.dialect != Postgres {
		return nil
	}
	var ids []uint64
	err := s.db.Table(tax.table).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Pluck("id", &ids).Error
	if err == nil && len(ids) == 0 {
		return ErrNotFound
	}
	return err
}

// Terms lists one page of the terms f selects, and how many it selects in all. Filters naming records that do not
// exist are one rest_invalid_param error naming each of them. The count and the page are two queries whatever the
// page size.
func (s *Store) Terms(tax *Taxonomy, f TermFilter, p Page) ([]Term, int64, error) {
	visible, err := s.checkTermFilter(tax, f)
	if err != nil || !visible {
		return []Term{}, 0, err
	}
	base := s.db.Table(tax.table).Scopes(f.scope(tax)).Session(&gorm.Session{})
	var total int64
	if err := base.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	terms := []Term{}
	if total == 0 || int64(p.Offset()) >= total {
		return terms, total, nil
	}
	err = base.Select(tax.termColumns()).Order(termOrder(tax, f)).Scopes(Paginate(p)).Find(&terms).Error
	return terms, total, err
}

// checkTermFilter reports filters that name missing records, and whether the event filter's event is one whose
// terms the viewer may see.
func (s *Store) checkTermFilter(tax *Taxonomy, f TermFilter) (bool, error) {
	invalid := map[string]string{}
	for param, ids := range map[string][]uint64{"include": f.Include, "exclude": f.Exclude} {
		missing, err := s.missingIDs(tax.table, ids)
		if err != nil {
			return false, err
		}
		if len(missing) > 0 {
			invalid[param] = fmt.Sprintf("no %s with ID %s", tax.singular, joinIDs(missing))
		}
	}
	if f.ParentID != nil && tax.hierarchical {
		missing, err := s.missingIDs(tax.table, []uint64{*f.ParentID})
		if err != nil {
			return false, err
		}
		if len(missing) > 0 {
			invalid["parent"] = "must be the ID of an existing category"
		}
	}
	visible := true
	if f.EventID != nil {
		exists, canSee, err := s.EventLinksVisible(*f.EventID, f.Viewer)
		if err != nil {
			return false, err
		}
		if !exists {
			invalid[f.EventParam] = "must be the ID of an existing event"
		}
		visible = canSee
	}
	if len(invalid) > 0 {
		return false, Invalid(invalid)
	}
	return visible, nil
}

// EventLinksVisible tells whether the event exists, and whether viewer may see its links (terms, venues,
// organizers): events the viewer cannot read, and password-protected ones the viewer cannot edit, show none (as
// lists and embeds redact them), so the list filters on an event reveal no more than its record.
func (s *Store) EventLinksVisible(id uint64, viewer *User) (exists, visible bool, err error) {
	var ev struct {
		AuthorID      uint64
		Status        string
		TrashedStatus string
		Password      string
	}
	err = s.db.Table("events").Select("author_id, status, trashed_status, password").Where("id = ?", id).Take(&ev).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	owned := Owned{AuthorID: ev.AuthorID, Status: ev.Status, TrashedStatus: ev.TrashedStatus}
	return true, viewer.CanRead(owned) && (ev.Password == "" || viewer.CanEdit(owned)), nil
}

// scope applies the filter's conditions; every one is index-backed except search (a contains-match on the term
// table, which holds at most thousands of rows).
func (f TermFilter) scope(tax *Taxonomy) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		if f.Search != "" {
			pattern := "%" + escapeLike(FoldName(f.Search)) + "%"
			q = q.Where(`(name_key LIKE ? ESCAPE '\' OR slug LIKE ? ESCAPE '\')`, pattern, pattern)
		}
		if len(f.Include) > 0 {
			q = q.Where("id IN ?", f.Include)
		}
		if f.IDs != nil {
			q = q.Where("id IN ?", f.IDs)
		}
		if len(f.Exclude) > 0 {
			q = q.Where("id NOT IN ?", f.Exclude)
		}
		if f.Slug != "" {
			q = q.Where("slug = ?", Slugify(f.Slug, strings.ToLower(f.Slug)))
		}
		if f.ParentID != nil && tax.hierarchical {
			q = q.Where("parent_id = ?", *f.ParentID)
		}
		if f.EventID != nil {
			q = q.Where("id IN (SELECT "+tax.joinColumn+" FROM "+tax.joinTable+" WHERE event_id = ?)", *f.EventID)
		}
		if f.HideEmpty {
			q = q.Where(tax.countExpr(tax.table) + " > 0")
		}
		return q
	}
}

// termOrderColumns maps the orderby keys of the term lists to the columns they sort by (then by ID). Keys that
// WordPress sorts by a value every term here shares (term_group, taxonomy, term_order) or by nothing (none) sort
// by ID; name sorts case-insensitively, as WordPress's collation does.
var termOrderColumns = map[string]string{
	"id": "id", "term_id": "id", "term_taxonomy_id": "id", "term_group": "id", "taxonomy": "id",
	"term_order": "id", "none": "id",
	"name": "name_key", "slug": "slug", "count": "count", "description": "description", // count: countExpr
	"parent": "COALESCE(parent_id, 0)",
}

// termOrder is the ORDER BY of a list: an allow-listed column, or the position in the include list for
// orderby=include, with the ID as tie-breaker in the same direction. Unknown keys sort by name (WordPress's
// parse_orderby()).
func termOrder(tax *Taxonomy, f TermFilter) clause.OrderBy {
	dir := " ASC"
	if f.Descending {
		dir = " DESC"
	}
	key := strings.ToLower(f.OrderBy)
	if key == "include" && len(f.Include) > 0 {
		var sql strings.Builder
		vars := make([]any, 0, len(f.Include))
		sql.WriteString("CASE id")
		for i, id := range f.Include {
			sql.WriteString(" WHEN ? THEN " + strconv.Itoa(i))
			vars = append(vars, id)
		}
		sql.WriteString(" END" + dir + ", id" + dir)
		return clause.OrderBy{Expression: clause.Expr{SQL: sql.String(), Vars: vars, WithoutParentheses: true}}
	}
	col, ok := termOrderColumns[key]
	if !ok || (key == "parent" && !tax.hierarchical) {
		col = "name_key"
		if key == "parent" {
			col = "id"
		}
	}
	if col == "count" {
		col = tax.countExpr(tax.table)
	}
	order := col + dir
	if col != "id" {
		order += ", id" + dir
	}
	return clause.OrderBy{Expression: clause.Expr{SQL: order}}
}

// CheckTermInput validates what a create (id 0) or an update of term id sends beyond the values themselves: the
// parent must be an existing category and not the category itself or one of its descendants. On PostgreSQL it
// takes the taxonomy's hierarchy lock, held until the transaction ends, so that two concurrent parent changes
// cannot make a cycle together.
func (s *Store) CheckTermInput(tax *Taxonomy, id uint64, in TermInput) error {
	if !tax.hierarchical || in.Parent == nil || *in.Parent == 0 {
		return nil
	}
	parent := *in.Parent
	if parent == id {
		return InvalidParam("parent", "a category cannot be its own parent")
	}
	if err := s.lockHierarchy(tax); err != nil {
		return err
	}
	ancestry, err := s.ancestry(tax, []uint64{parent})
	if err != nil {
		return err
	}
	if _, ok := ancestry[parent]; !ok {
		return InvalidParam("parent", "must be the ID of an existing category")
	}
	for at, hops := parent, 0; at != 0 && hops <= len(ancestry); hops++ {
		if at == id {
			return InvalidParam("parent", fmt.Sprintf("category %d is a descendant of this category", parent))
		}
		at = ancestry[at].parent
	}
	return nil
}

// CreateTerm creates a term from in (Name is required). A term of the same name (case-insensitive) under the same
// parent is 400 term_exists with its ID; the slug (given or made from the name) is made unique. Call it in a
// transaction, after CheckTermInput.
func (s *Store) CreateTerm(tax *Taxonomy, in TermInput) (*Term, error) {
	t := Term{Name: *in.Name, NameKey: FoldName(*in.Name)}
	if in.Description != nil {
		t.Description = *in.Description
	}
	if tax.hierarchical && in.Parent != nil && *in.Parent != 0 {
		t.ParentID = in.Parent
	}
	if err := s.lockTermNames(tax, []string{t.NameKey}); err != nil {
		return nil, err
	}
	if err := s.ensureNameFree(tax, t.NameKey, t.ParentID, 0); err != nil {
		return nil, err
	}
	base := Slugify(t.Name, tax.singular)
	if in.Slug != nil {
		base = *in.Slug
	}
	if err := s.insertTerm(tax, &t, base); err != nil {
		return nil, err
	}
	return &t, nil
}

// insertTerm gives t a unique slug made from base and inserts it.
func (s *Store) insertTerm(tax *Taxonomy, t *Term, base string) error {
	slug, err := s.UniqueSlug(tax.table, base, 0)
	if err != nil {
		return err
	}
	t.Slug = slug
	q := s.db.Table(tax.table)
	if !tax.hierarchical {
		q = q.Omit("parent_id")
	}
	return q.Create(t).Error
}

// UpdateTerm changes the fields in sent; omitted ones stay. A new name (or parent) that clashes with a sibling's
// is term_exists; a slug another term uses is 400 duplicate_term_slug naming slug. Call it in a transaction, after
// CheckTermInput.
func (s *Store) UpdateTerm(tax *Taxonomy, id uint64, in TermInput) (*Term, error) {
	cur, err := s.Term(tax, id)
	if err != nil {
		return nil, err
	}
	updates := map[string]any{}
	nameKey, parent := cur.NameKey, cur.ParentID
	if in.Name != nil {
		nameKey = FoldName(*in.Name)
		updates["name"], updates["name_key"] = *in.Name, nameKey
	}
	if tax.hierarchical && in.Parent != nil {
		parent = nil
		if *in.Parent != 0 {
			parent = in.Parent
		}
		updates["parent_id"] = parent
	}
	if nameKey != cur.NameKey || parentOf(parent) != parentOf(cur.ParentID) {
		if err := s.lockTermNames(tax, []string{nameKey}); err != nil {
			return nil, err
		}
		if err := s.ensureNameFree(tax, nameKey, parent, id); err != nil {
			return nil, err
		}
	}
	if in.Slug != nil && *in.Slug != cur.Slug {
		free, err := s.UniqueSlug(tax.table, *in.Slug, id)
		if err != nil {
			return nil, err
		}
		if free != *in.Slug {
			reason := fmt.Sprintf("The slug “%s” is already in use by another term.", *in.Slug)
			e := InvalidParam("slug", reason)
			e.Code, e.Message = "duplicate_term_slug", reason
			return nil, e
		}
		updates["slug"] = *in.Slug
	}
	if in.Description != nil {
		updates["description"] = *in.Description
	}
	if len(updates) > 0 {
		updates["updated_at"] = now()
		if err := s.db.Table(tax.table).Where("id = ?", id).Updates(updates).Error; err != nil {
			return nil, err
		}
	}
	_, movesSlug := updates["slug"]
	if movesSlug || parentOf(parent) != parentOf(cur.ParentID) {
		if err := s.touchDescendants(tax, id); err != nil {
			return nil, err
		}
	}
	return s.Term(tax, id)
}

// touchDescendants dates every descendant of category id now: their URLs show the slugs of their ancestors, so a
// new slug or parent of id changes their answers. It takes the hierarchy lock (lockHierarchy) first, so that it
// and another change of the line it walks do not lock the same rows in different orders. Tags have no
// descendants.
func (s *Store) touchDescendants(tax *Taxonomy, id uint64) error {
	if !tax.hierarchical {
		return nil
	}
	if err := s.lockHierarchy(tax); err != nil {
		return err
	}
	return s.db.Exec("UPDATE "+tax.table+" SET updated_at = ? WHERE id IN (WITH RECURSIVE down(id) AS ("+
		"SELECT id FROM "+tax.table+" WHERE parent_id = ? "+
		"UNION SELECT c.id FROM "+tax.table+" c JOIN down ON c.parent_id = down.id) SELECT id FROM down)", now(), id).Error
}

// DeleteTerm deletes a term for good and returns it as it was. Events lose it (the link tables cascade, and their
// link lists are written again: unlinkEvents); the children of a category move to its parent, unless one of them
// would then share its name with a new sibling (409 rest_cannot_delete naming the clash, since names are unique
// per parent).
func (s *Store) DeleteTerm(tax *Taxonomy, id uint64) (*Term, error) {
	if tax.hierarchical {
		if err := s.lockHierarchy(tax); err != nil {
			return nil, err
		}
	}
	// Locked before its events (unlinkEvents), so that no event can link to it meanwhile.
	if err := s.LockTerm(tax, id); err != nil {
		return nil, err
	}
	t, err := s.Term(tax, id)
	if err != nil {
		return nil, err
	}
	if tax.hierarchical {
		if err := s.adoptChildren(tax, t); err != nil {
			return nil, err
		}
	}
	err = s.unlinkEvents(tax.joinTable, tax.joinColumn, id, func() error {
		return s.db.Exec("DELETE FROM "+tax.table+" WHERE id = ?", id).Error
	})
	return t, err
}

// adoptChildren moves the children of t to t's parent.
func (s *Store) adoptChildren(tax *Taxonomy, t *Term) error {
	var children []Term
	if err := s.db.Table(tax.table).Select("id, name, name_key").Where("parent_id = ?", t.ID).
		Order("id").Find(&children).Error; err != nil {
		return err
	}
	if len(children) == 0 {
		return nil
	}
	keys := make([]string, len(children))
	for i, c := range children {
		keys[i] = c.NameKey
	}
	if err := s.lockTermNames(tax, keys); err != nil {
		return err
	}
	var clash struct {
		ID   uint64
		Name string
	}
	err := s.db.Table(tax.table).Select("id, name").Where("COALESCE(parent_id, 0) = ? AND name_key IN ? AND id <> ?",
		parentOf(t.ParentID), keys, t.ID).Limit(1).Find(&clash).Error
	if err != nil {
		return err
	}
	if clash.ID != 0 {
		return &Error{Kind: KindConflict, Code: "rest_cannot_delete",
			Message: fmt.Sprintf("The term cannot be deleted: a child category would move next to category %d, “%s”, "+
				"which has the same name.", clash.ID, clash.Name),
			Data: map[string]any{"term_id": clash.ID}}
	}
	if err := s.touchDescendants(tax, t.ID); err != nil { // their URLs lose t's slug
		return err
	}
	return s.db.Table(tax.table).Where("parent_id = ?", t.ID).Update("parent_id", t.ParentID).Error
}

// ensureNameFree returns term_exists when another term than exceptID has the name key under parent (categories)
// or at all (tags).
func (s *Store) ensureNameFree(tax *Taxonomy, nameKey string, parent *uint64, exceptID uint64) error {
	q := s.db.Table(tax.table).Where("name_key = ? AND id <> ?", nameKey, exceptID)
	if tax.hierarchical {
		q = q.Where("COALESCE(parent_id, 0) = ?", parentOf(parent))
	}
	var ids []uint64
	if err := q.Order("id").Limit(1).Pluck("id", &ids).Error; err != nil {
		return err
	}
	if len(ids) > 0 {
		return tax.existsError(ids[0])
	}
	return nil
}

// existsError is WordPress's term_exists answer: 400, the existing term's ID in data.term_id and, as The Events
// Calendar's captures show, twice in additional_data.
func (tax *Taxonomy) existsError(id uint64) *Error {
	return &Error{Kind: KindConflict, Status: 400, Code: "term_exists", Message: tax.existsMessage,
		Data: map[string]any{"term_id": id}, AdditionalData: []any{id, id}}
}

// missingIDs returns those of ids that no row of table has, in the order given, each once.
func (s *Store) missingIDs(table string, ids []uint64) ([]uint64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var found []uint64
	if err := s.db.Table(table).Where("id IN ?", ids).Pluck("id", &found).Error; err != nil {
		return nil, err
	}
	have := make(map[uint64]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	var missing []uint64
	for _, id := range ids {
		if !have[id] {
			missing = append(missing, id)
			have[id] = true // report each once
		}
	}
	return missing, nil
}

// node is a category as its ancestry needs it.
type node struct {
	parent uint64
	slug   string
}

// ancestry returns ids and all their ancestors, each with its parent and slug, in one recursive query. UNION (not
// UNION ALL) ends the recursion even if the data ever held a cycle.
func (s *Store) ancestry(tax *Taxonomy, ids []uint64) (map[uint64]node, error) {
	var rows []struct {
		ID       uint64
		ParentID *uint64
		Slug     string
	}
	err := s.db.Raw("WITH RECURSIVE up(id, parent_id, slug) AS ("+
		"SELECT id, parent_id, slug FROM "+tax.table+" WHERE id IN ? "+
		"UNION SELECT t.id, t.parent_id, t.slug FROM "+tax.table+" t JOIN up ON t.id = up.parent_id) "+
		"SELECT id, parent_id, slug FROM up", ids).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]node, len(rows))
	for _, r := range rows {
		out[r.ID] = node{parent: parentOf(r.ParentID), slug: r.Slug}
	}
	return out, nil
}

// CategoryPaths returns, for each of the categories, the slugs of its ancestors and its own joined by "/"
// ("music/jazz-nights"): the path of its permalink. One query whatever the number of categories.
func (s *Store) CategoryPaths(terms []Term) (map[uint64]string, error) {
	paths := make(map[uint64]string, len(terms))
	var parents []uint64
	for _, t := range terms {
		if t.ParentID != nil {
			parents = append(parents, *t.ParentID)
		}
	}
	var nodes map[uint64]node
	if len(parents) > 0 {
		var err error
		if nodes, err = s.ancestry(CategoryTaxonomy, parents); err != nil {
			return nil, err
		}
	}
	for _, t := range terms {
		segments := []string{t.Slug}
		for at := parentOf(t.ParentID); at != 0 && len(segments) <= len(nodes); at = nodes[at].parent {
			n, ok := nodes[at]
			if !ok {
				break
			}
			segments = append(segments, n.slug)
		}
		for i, j := 0, len(segments)-1; i < j; i, j = i+1, j-1 {
			segments[i], segments[j] = segments[j], segments[i]
		}
		paths[t.ID] = strings.Join(segments, "/")
	}
	return paths, nil
}

// resolveTerms implements ResolveCategories and ResolveTags.
func (s *Store) resolveTerms(tax *Taxonomy, refs []string) ([]uint64, error) {
	return s.resolveTermsFound(tax, refs, nil, true)
}

// resolveTermsFound is resolveTerms that takes the terms the refs name from found when it looked every one of
// them up (FindEventRefs), and reads them otherwise. Unless mayCreate, a name no term has is 403 rest_forbidden
// naming the parameter, and nothing is created.
func (s *Store) resolveTermsFound(tax *Taxonomy, refs []string, found *foundTerms, mayCreate bool) ([]uint64, error) {
	parsed, err := parseTermRefs(tax, refs)
	if err != nil {
		return nil, err
	}
	if found.covers(parsed) {
		err = parsed.assign(tax, found.lookup.ids, found.lookup.bySlug, found.lookup.byName, true)
	} else {
		err = s.matchTermRefs(tax, parsed, true)
	}
	if err != nil {
		return nil, err
	}
	if err := s.createUnmatched(tax, parsed, mayCreate); err != nil {
		return nil, err
	}
	return parsed.ids(), nil
}

// termRef is one item of a categories or tags parameter: an ID, or a name or slug.
type termRef struct {
	raw     string
	id      uint64 // the ID given, or the ID found
	numeric bool
	name    string // the plain-text name, for names
	key     string // its folded form
	slug    string // the slug it may be
}

type termRefs []termRef

// parseTermRefs trims the refs, drops empty ones, and tells IDs from names. Integers must be positive.
func parseTermRefs(tax *Taxonomy, refs []string) (termRefs, error) {
	out := make(termRefs, 0, len(refs))
	for _, raw := range refs {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			if n <= 0 {
				return nil, InvalidParam(tax.param, fmt.Sprintf("%s IDs are positive integers, not %s", tax.singular, raw))
			}
			out = append(out, termRef{raw: raw, id: uint64(n), numeric: true})
			continue
		}
		name := input.PlainText(raw)
		out = append(out, termRef{raw: raw, name: name, key: FoldName(name), slug: strings.ToLower(raw)})
	}
	return out, nil
}

// matchTermRefs finds the terms the refs name: IDs must exist (else rest_invalid_param naming tax.param); a name
// or slug is matched by name first (the oldest term of that name, case-insensitive), then by slug. Unmatched
// names are an error unless allowUnmatched. Two queries at most.
func (s *Store) matchTermRefs(tax *Taxonomy, refs termRefs, allowUnmatched bool) error {
	ids, slugs, keys := refs.lookups()
	missing, err := s.missingIDs(tax.table, ids)
	if err != nil {
		return err
	}
	existing := map[uint64]bool{}
	for _, id := range ids {
		existing[id] = true
	}
	for _, id := range missing {
		delete(existing, id)
	}
	var bySlug, byName map[string]uint64
	if len(keys) > 0 {
		if bySlug, byName, err = s.termsNamed(tax, slugs, keys); err != nil {
			return err
		}
	}
	return refs.assign(tax, existing, bySlug, byName, allowUnmatched)
}

// lookups are what finding the refs takes: the IDs given, and the slugs and folded names of the others.
func (refs termRefs) lookups() (ids []uint64, slugs, keys []string) {
	for _, r := range refs {
		if r.numeric {
			ids = append(ids, r.id)
		} else {
			slugs, keys = append(slugs, r.slug), append(keys, r.key)
		}
	}
	return ids, slugs, keys
}

// assign gives each ref the term it names, from what the lookups found: an ID must exist; a name or slug matches
// by name first (the oldest term of that name), then by slug. A missing ID, or an unmatched name unless
// allowUnmatched, is rest_invalid_param naming tax.param.
func (refs termRefs) assign(tax *Taxonomy, existing map[uint64]bool, bySlug, byName map[string]uint64, allowUnmatched bool) error {
	var missing []uint64
	var unknown []string
	for i := range refs {
		r := &refs[i]
		switch {
		case r.numeric:
			if !existing[r.id] {
				missing = append(missing, r.id)
			}
		case byName[r.key] != 0:
			r.id = byName[r.key]
		case bySlug[r.slug] != 0:
			r.id = bySlug[r.slug]
		default:
			unknown = append(unknown, r.raw)
		}
	}
	if len(missing) > 0 {
		return InvalidParam(tax.param, fmt.Sprintf("no %s with ID %s", tax.singular, joinIDs(missing)))
	}
	if len(unknown) > 0 && !allowUnmatched {
		return InvalidParam(tax.param, fmt.Sprintf("no %s with the ID, slug or name %s", tax.singular,
			strings.Join(quoteAll(unknown), ", ")))
	}
	return nil
}

// termsNamed maps slugs and name keys to the terms that have them (the oldest term for a shared name key).
func (s *Store) termsNamed(tax *Taxonomy, slugs, keys []string) (bySlug, byName map[string]uint64, err error) {
	var rows []Term
	err = s.db.Table(tax.table).Select("id, slug, name_key").Where("slug IN ? OR name_key IN ?", slugs, keys).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, nil, err
	}
	bySlug, byName = map[string]uint64{}, map[string]uint64{}
	for _, r := range rows {
		bySlug[r.Slug] = r.ID
		if _, seen := byName[r.NameKey]; !seen {
			byName[r.NameKey] = r.ID
		}
	}
	return bySlug, byName, nil
}

// createUnmatched creates a top-level term for each name no term has. The names are locked (in a fixed order, so
// two writers cannot deadlock) and looked up again before anything is created: of several transactions creating
// the same new name at once, the first creates it and the others find it. Unless mayCreate, a name still unmatched
// then is 403 rest_forbidden naming tax.param, before anything is created.
func (s *Store) createUnmatched(tax *Taxonomy, refs termRefs, mayCreate bool) error {
	var keys []string
	for _, r := range refs {
		if !r.numeric && r.id == 0 {
			if r.name == "" {
				return InvalidParam(tax.param, fmt.Sprintf("%q is not a usable %s name", r.raw, tax.singular))
			}
			if len([]rune(r.name)) > MaxTermNameLen {
				return InvalidParam(tax.param, fmt.Sprintf("%s names are at most %d characters long",
					tax.singular, MaxTermNameLen))
			}
			keys = append(keys, r.key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	if err := s.lockTermNames(tax, keys); err != nil {
		return err
	}
	_, byName, err := s.termsNamed(tax, nil, keys)
	if err != nil {
		return err
	}
	var unmatched []*termRef
	for i := range refs {
		r := &refs[i]
		if r.numeric || r.id != 0 {
			continue
		}
		if id, ok := byName[r.key]; ok {
			r.id = id
			continue
		}
		unmatched = append(unmatched, r)
	}
	if len(unmatched) > 0 && !mayCreate {
		names := make([]string, len(unmatched))
		for i, r := range unmatched {
			names[i] = r.name
		}
		return cannotCreateTerms(tax, names)
	}
	for _, r := range unmatched {
		if id, ok := byName[r.key]; ok { // named twice in this write
			r.id = id
			continue
		}
		t := Term{Name: r.name, NameKey: r.key}
		if err := s.insertTerm(tax, &t, Slugify(r.name, tax.singular)); err != nil {
			return err
		}
		r.id, byName[r.key] = t.ID, t.ID
	}
	return nil
}

// cannotCreateTerms is the answer to an event write that names terms no term has when the caller may not create
// terms of tax: 403 rest_forbidden, with data.params naming the parameter and the names.
func cannotCreateTerms(tax *Taxonomy, names []string) *Error {
	reason := fmt.Sprintf("no %s has the name %s, and you may not create %s", tax.singular,
		strings.Join(quoteAll(names), ", "), tax.param)
	return &Error{Kind: KindForbidden, Code: "rest_forbidden",
		Message: "Sorry, you are not allowed to create " + tax.param + ": " + reason + ".",
		Data:    map[string]any{"params": map[string]string{tax.param: reason}}}
}

// ids lists the resolved IDs in the order given, each once.
func (refs termRefs) ids() []uint64 {
	seen := make(map[uint64]bool, len(refs))
	out := make([]uint64, 0, len(refs))
	for _, r := range refs {
		if !seen[r.id] {
			seen[r.id] = true
			out = append(out, r.id)
		}
	}
	return out
}

// TermLinks is what an event contributes to term counts: its categories and tags, and whether it is published.
type TermLinks struct {
	Published  bool
	Categories []uint64
	Tags       []uint64
}

// AdjustTermCounts records how an event write moves term counts: each term the event counted for before the write
// but not after loses one, each it counts for after but not before gains one. The changes are appended as
// deltas, so concurrent writers sharing a term never wait for each other; readers add the pending deltas
// (countExpr) and CompactTermCounts folds them into the counts.
func (s *Store) AdjustTermCounts(before, after TermLinks) error {
	deltas := countDeltas(before, after)
	if len(deltas) == 0 {
		return nil
	}
	return s.db.Create(&deltas).Error
}

// countDeltas are the count changes of a write that moves an event's term links from before to after.
func countDeltas(before, after TermLinks) []TermCountDelta {
	counted := func(l TermLinks, ids []uint64) map[uint64]bool {
		set := map[uint64]bool{}
		if l.Published {
			for _, id := range ids {
				set[id] = true
			}
		}
		return set
	}
	var deltas []TermCountDelta
	for _, t := range []struct {
		tax           *Taxonomy
		before, after map[uint64]bool
	}{
		{CategoryTaxonomy, counted(before, before.Categories), counted(after, after.Categories)},
		{TagTaxonomy, counted(before, before.Tags), counted(after, after.Tags)},
	} {
		for id := range t.after {
			if !t.before[id] {
				deltas = append(deltas, TermCountDelta{Taxonomy: t.tax.table, TermID: id, Delta: 1})
			}
		}
		for id := range t.before {
			if !t.after[id] {
				deltas = append(deltas, TermCountDelta{Taxonomy: t.tax.table, TermID: id, Delta: -1})
			}
		}
	}
	return deltas
}

// TermCountDelta is a change of a term's count not yet folded into it.
type TermCountDelta struct {
	ID       uint64 `gorm:"primaryKey"`
	Taxonomy string `gorm:"size:16;not null"`
	TermID   uint64 `gorm:"not null"`
	Delta    int    `gorm:"not null"`
	// At is when the change was written, in Unix seconds: the database's clock sets it (never the service), so
	// that every path that appends deltas, batched SQL included, dates them alike.
	At int64 `gorm:"<-:false;not null"`
}

// TableName is the table of count deltas (the inflection library does not know the plural of "delta").
func (TermCountDelta) TableName() string { return "term_count_deltas" }

// CompactTermCounts folds the pending count deltas into the counts, in one transaction: the deltas it deletes are
// exactly the ones it adds (DELETE … RETURNING), so a concurrent writer's delta is either folded or left for next
// time, never lost or counted twice. The latest date of a term's folded deltas moves into its updated_at (also
// when they add up to nothing: the count did change in between, and a Last-Modified never goes back). It returns
// how many deltas it folded. Every answer reads a count as the stored count plus its pending deltas, and a term's
// last change as the latest of its updated_at and its pending deltas' dates (Term.LastModified), so folding
// changes no answer: it runs outside Tx, without advancing the data version, and cached answers stay valid.
func (s *Store) CompactTermCounts(ctx context.Context) (int, error) {
	var folded int
	err := s.db.WithContext(ctx).Transaction(func(db *gorm.DB) error {
		tx := s.on(db)
		var moved []TermCountDelta
		if err := tx.db.Raw("DELETE FROM term_count_deltas RETURNING taxonomy, term_id, delta, at").Scan(&moved).Error; err != nil {
			return err
		}
		folded = len(moved)
		type fold struct {
			sum int
			at  int64
		}
		folds := map[string]map[uint64]fold{}
		for _, d := range moved {
			if folds[d.Taxonomy] == nil {
				folds[d.Taxonomy] = map[uint64]fold{}
			}
			f := folds[d.Taxonomy][d.TermID]
			folds[d.Taxonomy][d.TermID] = fold{sum: f.sum + d.Delta, at: max(f.at, d.At)}
		}
		for _, tax := range []*Taxonomy{CategoryTaxonomy, TagTaxonomy} {
			ids := make([]uint64, 0, len(folds[tax.table]))
			for id := range folds[tax.table] {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			for _, id := range ids { // in ID order, so that two compactors cannot deadlock
				f := folds[tax.table][id]
				at := time.Unix(f.at, 0).UTC()
				if err := tx.db.Exec("UPDATE "+tax.table+" SET count = count + ?, "+
					"updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END WHERE id = ?",
					f.sum, at, at, id).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	return folded, err
}

// VacuumTermCounts reclaims, on PostgreSQL, the delta rows CompactTermCounts deleted and the old versions of the
// counts it updated. Until a vacuum removes them, every read of a count walks their index entries (a bitmap scan
// never marks them dead): at a thousand writes a second that is thousands of dead entries per busy term within a
// minute, autovacuum's fastest round, and without end where autovacuum is off. The tables are small, so a vacuum
// takes milliseconds; it takes no lock that writers or readers wait for. It does not truncate: giving back the
// empty tail of the delta table needs an exclusive lock, which vacuum waits up to five seconds for among busy
// writers, and compaction with it. Nor does it start parallel workers, which cost more than these small indexes
// take to vacuum. SQLite deletes rows in place: a no-op.
func (s *Store) VacuumTermCounts(ctx context.Context) error {
	return s.vacuumSmallTables(ctx, "term_count_deltas, categories, tags")
}

// vacuumSmallTables vacuums tables, a trusted list of small, busy tables, on PostgreSQL, without truncating them
// or starting parallel workers (see VacuumTermCounts); SQLite deletes rows in place: a no-op.
func (s *Store) vacuumSmallTables(ctx context.Context, tables string) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.WithContext(ctx).Exec("VACUUM (TRUNCATE false, PARALLEL 0) " + tables).Error
}

// lockTermNames serialises writers of the same term names (PostgreSQL; SQLite already runs one writer at a time),
// until the transaction ends. Keys are locked in sorted order so that writers of several names cannot deadlock.
func (s *Store) lockTermNames(tax *Taxonomy, keys []string) error {
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	for i, k := range sorted {
		if i > 0 && k == sorted[i-1] {
			continue
		}
		if err := s.advisoryLock(tax.table + "\x00name\x00" + k); err != nil {
			return err
		}
	}
	return nil
}

// lockHierarchy serialises the writers that change which category is whose parent.
func (s *Store) lockHierarchy(tax *Taxonomy) error {
	return s.advisoryLock(tax.table + "\x00hierarchy")
}

// advisoryLock takes a transaction-scoped PostgreSQL advisory lock named by key; on SQLite, whose write
// transactions are serial, it does nothing.
func (s *Store) advisoryLock(key string) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.Exec("SELECT pg_advisory_xact_lock(?)", advisoryKey(key)).Error
}

// advisoryKey is the PostgreSQL advisory lock key named key.
func advisoryKey(key string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return int64(h.Sum64())
}

// parentOf is the parent ID, 0 for none.
func parentOf(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func joinIDs(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(parts, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// escapeLike escapes the LIKE wildcards of s for a pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
