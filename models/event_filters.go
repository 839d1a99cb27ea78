package models

import (
	"fmt"
	"sort"
	"strconv"
)

// ListRefs are the records an event list filters by, as the request names them: categories and tags by ID,
// slug or name; venues and organizers by ID.
type ListRefs struct {
	Categories, Tags   []string
	Venues, Organizers []uint64
}

// ListRefIDs are those records resolved; Categories includes every descendant of each category named (child
// categories match, as WordPress tax queries do).
type ListRefIDs struct {
	Categories, Tags, Venues, Organizers []uint64
}

// listRefRow is one row of the resolving query: a category, category descendant, tag, venue or organizer found.
type listRefRow struct {
	Kind    string // c: category matched, d: descendant (Root is its matched ancestor), t: tag, v: venue, o: organizer
	ID      uint64
	Slug    string
	NameKey string
	Root    uint64
}

// listRefsSQL finds everything a list's filters name in one statement: the categories that match (with every
// descendant of each, by recursion), the tags that match, and the venues and organizers that exist.
const listRefsSQL = `WITH RECURSIVE cm AS (
	SELECT id, slug, name_key FROM categories WHERE id IN @cat_ids OR slug IN @cat_slugs OR name_key IN @cat_keys
), down(root, id) AS (
	SELECT id, id FROM cm
	UNION
	SELECT down.root, c.id FROM categories c JOIN down ON c.parent_id = down.id
)
SELECT 'c' AS kind, id, slug, name_key, 0 AS root FROM cm
UNION ALL SELECT 'd', id, '', '', root FROM down
UNION ALL SELECT 't', id, slug, name_key, 0 FROM tags WHERE id IN @tag_ids OR slug IN @tag_slugs OR name_key IN @tag_keys
UNION ALL SELECT 'v', id, '', '', 0 FROM venues WHERE id IN @venues
UNION ALL SELECT 'o', id, '', '', 0 FROM organizers WHERE id IN @organizers`

// ResolveListRefs resolves every record an event list filters by, in one query. Refs that name nothing are one
// rest_invalid_param error naming each parameter at fault. When the context carries the data version the request
// is answered at (ContextWithVersion), what each ref resolved to is remembered for that version, so a list whose
// refs were all seen before at the current version needs no query (see VersionMemo).
func (s *Store) ResolveListRefs(r ListRefs) (ListRefIDs, error) {
	var out ListRefIDs
	cats, err := parseFilterRefs(CategoryTaxonomy, r.Categories)
	if err != nil {
		return out, err
	}
	tags, err := parseFilterRefs(TagTaxonomy, r.Tags)
	if err != nil {
		return out, err
	}
	if len(cats)+len(tags)+len(r.Venues)+len(r.Organizers) == 0 {
		return out, nil
	}
	keys := listRefKeys(cats, tags, r)
	version, known := VersionIn(s.db.Statement.Context)
	if known {
		if resolved, ok := s.rememberedListRefs(version, keys); ok {
			return combineListRefs(cats, tags, r, resolved), nil
		}
	}
	resolved, err := s.queryListRefs(cats, tags, r)
	if err != nil {
		return out, err
	}
	if known {
		for i, k := range keys {
			s.memos.refs.Put(version, k, resolved[i])
		}
	}
	return combineListRefs(cats, tags, r, resolved), nil
}

// queryListRefs runs the resolving query and returns, ref by ref in listRefKeys order, the IDs each names: a
// category with its descendants, a tag, a venue or an organizer.
func (s *Store) queryListRefs(cats, tags termRefs, r ListRefs) ([][]uint64, error) {
	catIDs, catSlugs, catKeys := cats.lookups()
	tagIDs, tagSlugs, tagKeys := tags.lookups()
	var rows []listRefRow
	err := s.db.Raw(listRefsSQL, map[string]any{
		"cat_ids": nonEmptyIDs(catIDs), "cat_slugs": nonEmpty(catSlugs), "cat_keys": nonEmpty(catKeys),
		"tag_ids": nonEmptyIDs(tagIDs), "tag_slugs": nonEmpty(tagSlugs), "tag_keys": nonEmpty(tagKeys),
		"venues": nonEmptyIDs(r.Venues), "organizers": nonEmptyIDs(r.Organizers),
	}).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	found := map[string]*termLookup{"c": newTermLookup(), "t": newTermLookup(), "v": newTermLookup(), "o": newTermLookup()}
	descendants := map[uint64][]uint64{}
	for _, row := range rows {
		if row.Kind == "d" {
			descendants[row.Root] = append(descendants[row.Root], row.ID)
			continue
		}
		found[row.Kind].add(row)
	}
	var resolved [][]uint64
	invalid := map[string]string{}
	for _, t := range []struct {
		tax  *Taxonomy
		refs termRefs
		kind string
	}{{CategoryTaxonomy, cats, "c"}, {TagTaxonomy, tags, "t"}} {
		l := found[t.kind]
		if err := t.refs.assign(t.tax, l.ids, l.bySlug, l.byName, false); err != nil {
			collectParams(invalid, err)
			continue
		}
		for _, ref := range t.refs {
			ids := []uint64{ref.id}
			if t.kind == "c" {
				ids = withDescendants(ids, descendants)
			}
			resolved = append(resolved, ids)
		}
	}
	for _, l := range []struct {
		name string
		ids  []uint64
		kind string
	}{{"venue", r.Venues, "v"}, {"organizer", r.Organizers, "o"}} {
		for _, id := range l.ids {
			if !found[l.kind].ids[id] {
				invalid[l.name] = fmt.Sprintf("no %s has the ID %d", l.name, id)
				break
			}
			resolved = append(resolved, []uint64{id})
		}
	}
	if len(invalid) > 0 {
		return nil, Invalid(invalid)
	}
	return resolved, nil
}

// rememberedListRefs returns what each ref resolved to at this version, if all are remembered.
func (s *Store) rememberedListRefs(version int64, keys []string) ([][]uint64, bool) {
	out := make([][]uint64, len(keys))
	for i, k := range keys {
		ids, ok := s.memos.refs.Get(version, k)
		if !ok {
			return nil, false
		}
		out[i] = ids
	}
	return out, true
}

// listRefKeys names each ref of a list, in the order queryListRefs resolves them, for the memo of refs.
func listRefKeys(cats, tags termRefs, r ListRefs) []string {
	keys := make([]string, 0, len(cats)+len(tags)+len(r.Venues)+len(r.Organizers))
	for _, c := range cats {
		keys = append(keys, "c:"+c.raw)
	}
	for _, t := range tags {
		keys = append(keys, "t:"+t.raw)
	}
	for _, id := range r.Venues {
		keys = append(keys, "v:"+strconv.FormatUint(id, 10))
	}
	for _, id := range r.Organizers {
		keys = append(keys, "o:"+strconv.FormatUint(id, 10))
	}
	return keys
}

// combineListRefs puts the refs' resolutions (in listRefKeys order) together: the categories named and all their
// descendants once each in ID order, the tags once each in the order named, the venues and organizers as given.
func combineListRefs(cats, tags termRefs, r ListRefs, resolved [][]uint64) ListRefIDs {
	out := ListRefIDs{Categories: []uint64{}, Tags: []uint64{}, Venues: r.Venues, Organizers: r.Organizers}
	seen := map[uint64]bool{}
	for _, ids := range resolved[:len(cats)] {
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				out.Categories = append(out.Categories, id)
			}
		}
	}
	sort.Slice(out.Categories, func(i, j int) bool { return out.Categories[i] < out.Categories[j] })
	clear(seen)
	for _, ids := range resolved[len(cats) : len(cats)+len(tags)] {
		if !seen[ids[0]] {
			seen[ids[0]] = true
			out.Tags = append(out.Tags, ids[0])
		}
	}
	return out
}

// parseFilterRefs reads a list filter's refs; a slug is sanitised as slugs are ("Jazz Nights!" finds
// jazz-nights), as WordPress does.
func parseFilterRefs(tax *Taxonomy, refs []string) (termRefs, error) {
	parsed, err := parseTermRefs(tax, refs)
	for i := range parsed {
		if !parsed[i].numeric {
			parsed[i].slug = Slugify(parsed[i].raw, parsed[i].slug)
		}
	}
	return parsed, err
}

// termLookup indexes the records a query found by ID, slug and folded name (the oldest record of a name wins).
type termLookup struct {
	ids            map[uint64]bool
	bySlug, byName map[string]uint64
}

func newTermLookup() *termLookup {
	return &termLookup{ids: map[uint64]bool{}, bySlug: map[string]uint64{}, byName: map[string]uint64{}}
}

func (l *termLookup) add(row listRefRow) {
	l.ids[row.ID] = true
	if row.Slug != "" {
		l.bySlug[row.Slug] = row.ID
	}
	if old, seen := l.byName[row.NameKey]; row.NameKey != "" && (!seen || row.ID < old) {
		l.byName[row.NameKey] = row.ID
	}
}

// withDescendants adds to the categories chosen every descendant of each, once, in ID order.
func withDescendants(chosen []uint64, descendants map[uint64][]uint64) []uint64 {
	if len(chosen) == 0 {
		return chosen
	}
	seen := map[uint64]bool{}
	var all []uint64
	for _, id := range chosen {
		for _, d := range append([]uint64{id}, descendants[id]...) {
			if !seen[d] {
				seen[d] = true
				all = append(all, d)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

// collectParams copies the parameters an invalid-parameter error names into invalid.
func collectParams(invalid map[string]string, err error) {
	if e, ok := err.(*Error); ok {
		for k, v := range e.Params {
			invalid[k] = v
		}
	}
}

// nonEmpty and nonEmptyIDs keep IN lists valid SQL on both dialects when nothing is asked for: an impossible
// value matches nothing.
func nonEmpty(ss []string) []string {
	if len(ss) == 0 {
		return []string{""} // no slug or name is empty
	}
	return ss
}

func nonEmptyIDs(ids []uint64) []uint64 {
	if len(ids) == 0 {
		return []uint64{0}
	}
	return ids
}
