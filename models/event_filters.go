package models

import (
	"fmt"
	"sort"
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
// rest_invalid_param error naming each parameter at fault.
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
	catIDs, catSlugs, catKeys := cats.lookups()
	tagIDs, tagSlugs, tagKeys := tags.lookups()
	var rows []listRefRow
	err = s.db.Raw(listRefsSQL, map[string]any{
		"cat_ids": nonEmptyIDs(catIDs), "cat_slugs": nonEmpty(catSlugs), "cat_keys": nonEmpty(catKeys),
		"tag_ids": nonEmptyIDs(tagIDs), "tag_slugs": nonEmpty(tagSlugs), "tag_keys": nonEmpty(tagKeys),
		"venues": nonEmptyIDs(r.Venues), "organizers": nonEmptyIDs(r.Organizers),
	}).Scan(&rows).Error
	if err != nil {
		return out, err
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
	invalid := map[string]string{}
	for _, t := range []struct {
		tax  *Taxonomy
		refs termRefs
		kind string
		dst  *[]uint64
	}{{CategoryTaxonomy, cats, "c", &out.Categories}, {TagTaxonomy, tags, "t", &out.Tags}} {
		l := found[t.kind]
		if err := t.refs.assign(t.tax, l.ids, l.bySlug, l.byName, false); err != nil {
			collectParams(invalid, err)
			continue
		}
		*t.dst = t.refs.ids()
	}
	out.Categories = withDescendants(out.Categories, descendants)
	for _, l := range []struct {
		name string
		ids  []uint64
		kind string
		dst  *[]uint64
	}{{"venue", r.Venues, "v", &out.Venues}, {"organizer", r.Organizers, "o", &out.Organizers}} {
		for _, id := range l.ids {
			if !found[l.kind].ids[id] {
				invalid[l.name] = fmt.Sprintf("no %s has the ID %d", l.name, id)
				break
			}
		}
		*l.dst = l.ids
	}
	if len(invalid) > 0 {
		return ListRefIDs{}, Invalid(invalid)
	}
	return out, nil
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
