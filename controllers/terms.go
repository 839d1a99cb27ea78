package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// The taxonomy names The Events Calendar uses; clients recognise terms by them.
const (
	TaxonomyCategory = "tribe_events_cat"
	TaxonomyTag      = "post_tag"
)

// termKind is what differs between categories and tags in the API.
type termKind struct {
	tax *models.Taxonomy
	// collection is the path segment and the list's key: "categories" or "tags".
	collection string
	taxonomy   string
	canManage  func(*models.User) bool
	// archive is the path of the public term archive under the site, before the term's path.
	archive string
	// change is the kind's records in the change history.
	change models.ChangeKind
}

var (
	categoryKind = termKind{tax: models.CategoryTaxonomy, collection: "categories", taxonomy: TaxonomyCategory,
		canManage: (*models.User).CanManageCategories, archive: "/events/category/",
		change: models.ChangeCategory}
	tagKind = termKind{tax: models.TagTaxonomy, collection: "tags", taxonomy: TaxonomyTag,
		canManage: (*models.User).CanManageTags, archive: "/tag/", change: models.ChangeTag}
)

// TermURLs are a term's API links: Up only when it has a parent.
type TermURLs struct {
	Self       string `json:"self" schema:"format=uri" doc:"The term's own URL."`
	Collection string `json:"collection" schema:"format=uri" doc:"The list the term belongs to."`
	Up         string `json:"up,omitempty" schema:"format=uri" doc:"The parent category (only for child categories)."`
}

// Term is the standalone shape of a category or tag, in The Events Calendar's key order. Parent is
// present for categories only.
type Term struct {
	ID          uint64   `json:"id" schema:"min=1" doc:"The term ID."`
	Count       int64    `json:"count" schema:"min=0" doc:"How many published events carry the term."`
	Description string   `json:"description"`
	Name        string   `json:"name"`
	Slug        string   `json:"slug"`
	Taxonomy    string   `json:"taxonomy"`
	Parent      *uint64  `json:"parent,omitempty" doc:"The parent category's ID; 0 for a top-level category."`
	Meta        []any    `json:"meta" schema:"meta" doc:"Always [] (no term meta is exposed)."`
	URL         string   `json:"url" schema:"format=uri" doc:"The term's public archive page."`
	URLs        TermURLs `json:"urls"`
}

// EmbeddedTerm is a category or tag inside an event: WordPress's term object, without url and
// meta. Parent is 0 for tags.
type EmbeddedTerm struct {
	Name           string   `json:"name"`
	Slug           string   `json:"slug"`
	TermGroup      int      `json:"term_group"`
	TermTaxonomyID uint64   `json:"term_taxonomy_id"`
	Taxonomy       string   `json:"taxonomy" schema:"enum=tribe_events_cat|post_tag"`
	Description    string   `json:"description"`
	Parent         uint64   `json:"parent" doc:"The parent category's ID; 0 for top-level categories and for tags."`
	Count          int64    `json:"count" schema:"min=0" doc:"How many published events carry the term."`
	Filter         string   `json:"filter" schema:"enum=raw"`
	ID             uint64   `json:"id"`
	URLs           TermURLs `json:"urls"`
}

// EmbeddedCategory is the shape of category c inside an event.
func EmbeddedCategory(site Site, c *models.Category) EmbeddedTerm {
	return categoryKind.embedded(site, models.Term{ID: c.ID, Name: c.Name, Slug: c.Slug,
		Description: c.Description, ParentID: c.ParentID, Count: c.Count})
}

// EmbeddedTag is the shape of tag t inside an event.
func EmbeddedTag(site Site, t *models.Tag) EmbeddedTerm {
	return tagKind.embedded(site, models.Term{ID: t.ID, Name: t.Name, Slug: t.Slug,
		Description: t.Description, Count: t.Count})
}

func (k termKind) embedded(site Site, t models.Term) EmbeddedTerm {
	var parent uint64
	if t.ParentID != nil {
		parent = *t.ParentID
	}
	return EmbeddedTerm{Name: t.Name, Slug: t.Slug, TermTaxonomyID: t.ID, Taxonomy: k.taxonomy,
		Description: t.Description, Parent: parent, Count: t.Count, Filter: "raw", ID: t.ID, URLs: k.urls(site, t)}
}

func (k termKind) collectionURL(site Site) string { return site.Root + "/" + k.collection }

func (k termKind) selfURL(site Site, id uint64) string {
	return k.collectionURL(site) + "/" + strconv.FormatUint(id, 10)
}

func (k termKind) urls(site Site, t models.Term) TermURLs {
	u := TermURLs{Self: k.selfURL(site, t.ID), Collection: k.collectionURL(site)}
	if t.ParentID != nil && *t.ParentID != 0 {
		u.Up = k.selfURL(site, *t.ParentID)
	}
	return u
}

// standalone is the shape of t; path is its permalink path (ancestor slugs and its own, for categories).
func (k termKind) standalone(site Site, t models.Term, path string) Term {
	out := Term{ID: t.ID, Count: t.Count, Description: t.Description, Name: t.Name, Slug: t.Slug,
		Taxonomy: k.taxonomy, Meta: []any{}, URL: site.Home + k.archive + path + "/", URLs: k.urls(site, t)}
	if k.tax.Hierarchical() {
		parent := uint64(0)
		if t.ParentID != nil {
			parent = *t.ParentID
		}
		out.Parent = &parent
	}
	return out
}

// shapes maps terms to their standalone shapes, with the permalink paths of categories loaded in one query.
func (k termKind) shapes(store *models.Store, site Site, terms []models.Term) ([]Term, error) {
	paths := map[uint64]string{}
	if k.tax.Hierarchical() {
		var err error
		if paths, err = store.CategoryPaths(terms); err != nil {
			return nil, err
		}
	}
	out := make([]Term, len(terms))
	for i, t := range terms {
		path, ok := paths[t.ID]
		if !ok {
			path = t.Slug
		}
		out[i] = k.standalone(site, t, path)
	}
	return out, nil
}

func (k termKind) shape(store *models.Store, site Site, t *models.Term) (Term, error) {
	shapes, err := k.shapes(store, site, []models.Term{*t})
	if err != nil {
		return Term{}, err
	}
	return shapes[0], nil
}

// notFound is the answer for an unknown term ID: 404, like every other unknown ID (The Events Calendar answers 400).
func (k termKind) notFound() *models.Error {
	return models.Errorf(models.KindNotFound, "rest_term_invalid", "Term does not exist.")
}

// TermName is a term name parameter: reduced to plain text, which must not be empty, at most 200 characters.
type TermName string

// DecodeParam implements ParamDecoder.
func (n *TermName) DecodeParam(raw any) error {
	return decodeText((*string)(n), raw, func(s string) (string, error) {
		s = input.PlainText(s)
		if utf8.RuneCountInString(s) > models.MaxTermNameLen {
			return "", errors.New("must be at most " + strconv.Itoa(models.MaxTermNameLen) + " characters long")
		}
		return s, nil
	})
}

// TermDescription is a term description parameter: HTML, sanitised; it must not be empty.
type TermDescription string

// DecodeParam implements ParamDecoder.
func (d *TermDescription) DecodeParam(raw any) error {
	return decodeText((*string)(d), raw, func(s string) (string, error) { return input.SanitizeHTML(s), nil })
}

// TermSlug is a slug parameter: sanitised into a slug (lower-case letters, digits, hyphens), which must not be
// empty.
type TermSlug string

// DecodeParam implements ParamDecoder.
func (sl *TermSlug) DecodeParam(raw any) error {
	return decodeText((*string)(sl), raw, func(s string) (string, error) {
		if slug := models.Slugify(s, ""); slug != "" {
			return slug, nil
		}
		return "", errors.New("must contain letters or digits")
	})
}

// Text is a string parameter that must not be empty (or blank) when it is sent; it is trimmed.
type Text string

// DecodeParam implements ParamDecoder. Longer text than a term name can hold matches nothing, and would exceed
// what databases accept in a pattern, so it is refused.
func (t *Text) DecodeParam(raw any) error {
	return decodeText((*string)(t), raw, func(s string) (string, error) {
		if s = strings.TrimSpace(s); len([]rune(s)) > models.MaxTermNameLen {
			return "", fmt.Errorf("must be at most %d characters long", models.MaxTermNameLen)
		}
		return s, nil
	})
}

// ParamSchema implements ParamSchema for the text parameters.
func (TermName) ParamSchema() endpoint.Schema        { return endpoint.Schema{Type: "string"} }
func (TermDescription) ParamSchema() endpoint.Schema { return endpoint.Schema{Type: "string"} }
func (TermSlug) ParamSchema() endpoint.Schema        { return endpoint.Schema{Type: "string"} }
func (Text) ParamSchema() endpoint.Schema            { return endpoint.Schema{Type: "string"} }

// decodeText decodes a string parameter that must not be blank, cleans it, and stores the result, which must not
// be empty either (a name of markup only cleans to nothing).
func decodeText(dst *string, raw any, clean func(string) (string, error)) error {
	s, err := endpoint.DecodeString(raw)
	if err != nil {
		return err
	}
	if strings.TrimSpace(s) != "" {
		if s, err = clean(s); err != nil {
			return err
		}
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	*dst = s
	return nil
}

// TermFields are the fields of a category or tag write.
type TermFields struct {
	Name        endpoint.Opt[TermName]        `param:"name" doc:"The term name (plain text; tags are removed). Required on create; at most 200 characters; unique (case-insensitive) among its siblings."`
	Description endpoint.Opt[TermDescription] `param:"description" doc:"The term description (HTML, sanitised against an allow-list)."`
	Slug        endpoint.Opt[TermSlug]        `param:"slug" doc:"An alphanumeric identifier for the term, unique in its taxonomy; generated from the name when absent, and made unique on create."`
}

// input turns the sent fields into the store's input; parent is only sent for categories.
func (f TermFields) input(parent endpoint.Opt[int64]) models.TermInput {
	var in models.TermInput
	if f.Name.Set {
		name := string(f.Name.V)
		in.Name = &name
	}
	if f.Description.Set {
		d := string(f.Description.V)
		in.Description = &d
	}
	if f.Slug.Set {
		s := string(f.Slug.V)
		in.Slug = &s
	}
	if parent.Set {
		p := uint64(parent.V)
		in.Parent = &p
	}
	return in
}

// TermIDPath is the term ID in an item path.
type TermIDPath struct {
	ID endpoint.Opt[int64] `param:"id" in:"path" doc:"The term ID."`
}

// TermListParams are the filters of GET /categories and GET /tags.
type TermListParams struct {
	endpoint.Paging
	Search    endpoint.Opt[Text]    `param:"search" doc:"Keep terms whose name or slug contains this text (case-insensitive)."`
	Exclude   endpoint.Opt[[]int64] `param:"exclude" doc:"Leave out terms with these IDs (array or CSV); each must exist."`
	Include   endpoint.Opt[[]int64] `param:"include" doc:"Keep only terms with these IDs (array or CSV); each must exist."`
	Order     endpoint.Opt[Text]    `param:"order" doc:"Sort direction: asc (any case) is ascending, any other value descending; ascending when absent."`
	OrderBy   endpoint.Opt[Text]    `param:"orderby" default:"name" doc:"Sort key: id (or term_id), name (case-insensitive), slug, count, description, parent, term_group, term_taxonomy_id, taxonomy, term_order, none, or include (the order of the include list). Unknown keys sort by name; ties are broken by ID."`
	HideEmpty endpoint.Opt[bool]    `param:"hide_empty" default:"true" doc:"Leave out terms that no published event has."`
	Post      endpoint.Opt[int64]   `param:"post" doc:"Keep the terms of this event; it must exist. Terms of an event you may not read (or that a password protects) are not listed."`
	Event     endpoint.Opt[int64]   `param:"event" doc:"Alias of post; wins when both are given."`
	Slug      endpoint.Opt[Text]    `param:"slug" doc:"Keep the term with this slug (sanitised as slugs are)."`
	SyncInput
}

// filter is the store's filter for the parameters. IDs that cannot exist (0 or negative) are looked up as 0, which
// no record has, so the store reports them with the others.
func (p *TermListParams) filter(parent endpoint.Opt[int64], viewer *models.User) models.TermFilter {
	f := models.TermFilter{Search: string(p.Search.V), Include: toIDs(p.Include.V), Exclude: toIDs(p.Exclude.V),
		Slug: string(p.Slug.V), HideEmpty: p.HideEmpty.Or(true), OrderBy: string(p.OrderBy.V), Viewer: viewer,
		Descending: p.Order.Set && !strings.EqualFold(string(p.Order.V), "asc")}
	if parent.Set {
		id := uint64(max(parent.V, 0))
		f.ParentID = &id
	}
	switch {
	case p.Event.Set:
		id := uint64(max(p.Event.V, 0))
		f.EventID, f.EventParam = &id, "event"
	case p.Post.Set:
		id := uint64(max(p.Post.V, 0))
		f.EventID, f.EventParam = &id, "post"
	}
	return f
}

// args is the list's query as its navigation links repeat it: the parameters sent, normalised.
func (p *TermListParams) args(parent endpoint.Opt[int64], page models.Page) endpoint.QueryArgs {
	var q endpoint.QueryArgs
	if p.PerPage.Set {
		q = q.Add("per_page", strconv.Itoa(page.Size))
	}
	if p.Search.Set {
		q = q.Add("search", string(p.Search.V))
	}
	if p.Exclude.Set && len(p.Exclude.V) > 0 {
		q = q.Add("exclude", csv(p.Exclude.V))
	}
	if p.Include.Set && len(p.Include.V) > 0 {
		q = q.Add("include", csv(p.Include.V))
	}
	if p.Order.Set {
		q = q.Add("order", string(p.Order.V))
	}
	if p.OrderBy.Set {
		q = q.Add("orderby", string(p.OrderBy.V))
	}
	if p.HideEmpty.Set {
		q = q.Add("hide_empty", map[bool]string{true: "1", false: "0"}[p.HideEmpty.V])
	}
	if parent.Set {
		q = q.Add("parent", strconv.FormatInt(parent.V, 10))
	}
	if p.Post.Set {
		q = q.Add("post", strconv.FormatInt(p.Post.V, 10))
	}
	if p.Event.Set {
		q = q.Add("event", strconv.FormatInt(p.Event.V, 10))
	}
	if p.Slug.Set {
		q = q.Add("slug", string(p.Slug.V))
	}
	return q
}

func toIDs(ids []int64) []uint64 {
	out := make([]uint64, len(ids))
	for i, id := range ids {
		out[i] = uint64(id)
	}
	return out
}

func csv(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

// termController serves one taxonomy; CategoryController and TagController wrap it with their own inputs.
type termController struct {
	*App
	kind termKind
}

// list handles GET /categories and GET /tags: the list envelope and paging headers, with an RFC 8288 Link
// header; a page past the last is an empty 200.
func (tc termController) list(c *gin.Context, p *TermListParams, parent endpoint.Opt[int64]) error {
	f := p.filter(parent, models.UserFrom(c.Request.Context()))
	store := tc.Store.WithContext(c.Request.Context())
	page := p.Resolve(tc.Config.MaxPerPage)
	sp, err := tc.beginSync(c, store, tc.kind.change, p.SyncInput, page)
	if err != nil {
		return err
	}
	listPage := page
	if sp.active {
		f.IDs, listPage = sp.ids, models.Page{Number: 1, Size: max(len(sp.ids), 1)}
	}
	terms, total, err := store.Terms(tc.kind.tax, f, listPage)
	if err != nil {
		return err
	}
	if sp.active {
		total = sp.total
	}
	site := tc.Site(c)
	items, err := tc.kind.shapes(store, site, terms)
	if err != nil {
		return err
	}
	totalPages := endpoint.TotalPages(total, page.Size)
	base := tc.kind.collectionURL(site) + "/"
	args := p.args(parent, page)
	if sp.active {
		args = args.Add("sync_token", sp.linkToken)
	}
	pageURL := func(n int) string {
		if n <= 1 {
			return args.WithPage(0).URL(base)
		}
		return args.WithPage(n).URL(base)
	}
	links := endpoint.ListLinks{Self: base, First: pageURL(1)}
	if totalPages > 0 {
		links.Last = pageURL(totalPages)
	}
	body := orderedMap{{"rest_url", base}, {"total", total}, {"total_pages", totalPages}, {tc.kind.collection, items}}
	if sp.active {
		shown := make([]uint64, len(terms))
		for i := range terms {
			shown[i] = terms[i].ID
		}
		body = append(body, orderedEntry{"deleted", sp.deleted(shown)})
	}
	if page.Number < totalPages {
		links.Next = pageURL(page.Number + 1)
		body = append(body, orderedEntry{"next_rest_url", links.Next})
	}
	if page.Number > 1 {
		links.Previous = pageURL(page.Number - 1)
		body = append(body, orderedEntry{"previous_rest_url", links.Previous})
	}
	endpoint.SetListHeaders(c, total, totalPages, links)
	return writeOwnJSON(c, http.StatusOK, body)
}

// get handles GET /categories/:id and GET /tags/:id, with the term's Last-Modified.
func (tc termController) get(c *gin.Context, id endpoint.Opt[int64]) error {
	store := tc.Store.WithContext(c.Request.Context())
	t, err := tc.find(store, id)
	if err != nil {
		return err
	}
	out, err := tc.kind.shape(store, tc.Site(c), t)
	if err != nil {
		return err
	}
	setLastModified(c, t.LastModified())
	c.JSON(http.StatusOK, out)
	return nil
}

// find reads the term of a path ID, or answers 404 rest_term_invalid.
func (tc termController) find(store *models.Store, id endpoint.Opt[int64]) (*models.Term, error) {
	if id.V < 0 {
		return nil, models.NoRoute() // the route takes digits only
	}
	t, err := store.Term(tc.kind.tax, uint64(id.V))
	if errors.Is(err, models.ErrNotFound) {
		return nil, tc.kind.notFound()
	}
	return t, err
}

// write is the unit of work of a term write by the caller of c: the term id (0 for a create), the input, and
// If-Match or If-Unmodified-Since checked against the answer and the Last-Modified GET on the term gives this
// caller now, with the row locked.
func (tc termController) write(c *gin.Context, id endpoint.Opt[int64], in models.TermInput) (models.TermWrite, error) {
	switch {
	case id.V < 0:
		return models.TermWrite{}, models.NoRoute() // the route takes digits only
	case id.Set && id.V == 0:
		return models.TermWrite{}, tc.kind.notFound() // no term has ID 0; a zero ID would mean a create
	}
	site := tc.Site(c)
	w := models.TermWrite{Tax: tc.kind.tax, Caller: models.UserFrom(c.Request.Context()), ID: uint64(id.V),
		Input: in}
	if c.GetHeader("If-Match") != "" || c.GetHeader("If-Unmodified-Since") != "" {
		w.Lock = true
		w.Check = func(tx *models.Store, cur *models.Term) error {
			return requireMatch(c, func() (any, time.Time, error) {
				shape, err := tc.kind.shape(tx, site, cur)
				return shape, cur.LastModified(), err
			})
		}
	}
	return w, nil
}

// answer runs a term write and shapes its term inside the write's transaction; an unknown term is the kind's 404.
func (tc termController) answer(c *gin.Context, w models.TermWrite,
	run func(context.Context, models.TermWrite) (*models.Term, error)) (Term, error) {
	site := tc.Site(c)
	var out Term
	w.Done = func(tx *models.Store, t *models.Term) (err error) {
		out, err = tc.kind.shape(tx, site, t)
		return err
	}
	_, err := run(c.Request.Context(), w)
	if errors.Is(err, models.ErrNotFound) {
		return Term{}, tc.kind.notFound()
	}
	return out, err
}

// create handles POST /categories and POST /tags: 201 with the term and its Location.
func (tc termController) create(c *gin.Context, fields TermFields, parent endpoint.Opt[int64]) error {
	w, err := tc.write(c, endpoint.Opt[int64]{}, fields.input(parent))
	if err != nil {
		return err
	}
	out, err := tc.answer(c, w, tc.Store.SaveTerm)
	if err != nil {
		return err
	}
	c.Header("Location", out.URLs.Self)
	c.JSON(http.StatusCreated, out)
	return nil
}

// update handles POST, PUT and PATCH on /categories/:id and /tags/:id: omitted fields stay as they are.
func (tc termController) update(c *gin.Context, id endpoint.Opt[int64], fields TermFields, parent endpoint.Opt[int64]) error {
	w, err := tc.write(c, id, fields.input(parent))
	if err != nil {
		return err
	}
	out, err := tc.answer(c, w, tc.Store.SaveTerm)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// remove handles DELETE /categories/:id and /tags/:id: a permanent delete answering the term as it was.
func (tc termController) remove(c *gin.Context, id endpoint.Opt[int64]) error {
	w, err := tc.write(c, id, models.TermInput{})
	if err != nil {
		return err
	}
	out, err := tc.answer(c, w, tc.Store.RemoveTerm)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}
