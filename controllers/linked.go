package controllers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// This file holds what venues and organizers (The Events Calendar's "linked posts") share: parameters, the create,
// read, update, delete and list flows, the duplicate rule, redaction, and the resolution of the venue and
// organizer parameters of event writes. venues.go and organizers.go add what is their own.

// LinkedInput holds the parameters venues and organizers share on create and update.
type LinkedInput struct {
	Description endpoint.Opt[string]   `param:"description" doc:"HTML description, sanitised against an allow-list; \"\" clears it."`
	Excerpt     endpoint.Opt[string]   `param:"excerpt" doc:"HTML excerpt, sanitised against an allow-list; \"\" clears it."`
	Status      endpoint.Opt[string]   `param:"status" enum:"publish,future,draft,pending,private" validate:"omitempty,oneof=publish future draft pending private" doc:"Post status. Users who cannot publish get pending instead of publish or future; a create without a status is publish (draft for them); an update without one keeps the current status, and one with a status restores a trashed record. DELETE moves a record to the trash."`
	Author      endpoint.Opt[int64]    `param:"author" validate:"omitempty,gt=0" doc:"ID of the author (an existing user; others than yourself need editor rights). Defaults to the caller."`
	Date        endpoint.Opt[dateText] `param:"date" doc:"Publication date in the site time zone (any accepted date form, or a Unix timestamp). Defaults to now."`
	DateUTC     endpoint.Opt[dateText] `param:"date_utc" doc:"Publication date in UTC; wins over date when both are given."`
	Image       endpoint.Opt[ImageRef] `param:"image" doc:"Featured image: the ID of a known image, or an http(s) URL (recorded as an image on first use, nothing is downloaded); \"\" or 0 removes it."`
	Password    endpoint.Opt[string]   `param:"password" validate:"omitempty,max=255" doc:"Protects the record: callers who cannot edit it see its details only with this password. \"\" removes it. Never returned."`
}

// ImageRef is the image parameter: a known image ID, an http(s) URL, or empty to remove the image.
type ImageRef struct {
	Clear bool
	ID    uint64
	URL   string
}

// maxImageURLLen is the length of the images.url column.
const maxImageURLLen = 2048

var errImageRef = errors.New("must be the ID of a known image or an http(s) URL (\"\" removes the image)")

// DecodeParam reads an image ID (a number, a string of digits or {"id": N}), an http(s) URL, or "", 0 or null.
func (r *ImageRef) DecodeParam(raw any) error {
	switch v := raw.(type) {
	case json.Number:
		return r.setID(v.String())
	case map[string]any:
		id, ok := v["id"]
		if !ok {
			return errImageRef
		}
		return r.DecodeParam(id)
	case string:
		s := strings.TrimSpace(v)
		switch {
		case s == "":
			*r = ImageRef{Clear: true}
			return nil
		case input.IsDigits(s):
			return r.setID(s)
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > maxImageURLLen ||
			strings.ContainsAny(s, " \t\r\n") {
			return errImageRef
		}
		*r = ImageRef{URL: s}
		return nil
	}
	return errImageRef
}

func (r *ImageRef) setID(s string) error {
	id, err := parseRecordID(s)
	if err != nil {
		return errImageRef
	}
	*r = ImageRef{ID: id, Clear: id == 0}
	return nil
}

// parseRecordID reads a record ID: digits within the range of the database's BIGINT columns.
func parseRecordID(s string) (uint64, error) {
	if !input.IsDigits(s) {
		return 0, endpoint.ErrNotInteger
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, endpoint.ErrNotInteger
	}
	return uint64(n), nil
}

// ParamSchema describes the image parameter: an integer ID or a URL.
func (ImageRef) ParamSchema() endpoint.Schema {
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "integer"}, {Type: "string", Format: "uri"}}}
}

// imageExtension is the lower-case extension of a URL's path ("png"), or "" when it has none that looks like one.
var imageExtension = regexp.MustCompile(`^[a-z0-9]{1,16}$`)

// ResolveImage turns an image parameter into the image to link (nil to remove it): a known ID (unknown IDs are
// 400 naming param) or a URL, recorded on first use.
func (a *App) ResolveImage(tx *models.Store, param string, ref ImageRef) (*models.Image, error) {
	switch {
	case ref.Clear:
		return nil, nil
	case ref.URL != "":
		u, _ := url.Parse(ref.URL)
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(u.Path), "."))
		if !imageExtension.MatchString(ext) {
			ext = ""
		}
		return models.ImageForURL(tx, ref.URL, ext)
	}
	img, err := models.FindImage(tx, ref.ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.InvalidParam(param, fmt.Sprintf("no image has the ID %d", ref.ID))
	}
	return img, err
}

// dateText is a date parameter as sent: a string, or a JSON number holding a Unix timestamp.
type dateText string

// DecodeParam accepts a string or an integer JSON number.
func (d *dateText) DecodeParam(raw any) error {
	if n, ok := raw.(json.Number); ok {
		if _, err := n.Int64(); err != nil {
			return errors.New("must be a date or a Unix timestamp")
		}
		*d = dateText(n.String())
		return nil
	}
	s, err := endpoint.DecodeString(raw)
	*d = dateText(s)
	return err
}

// ParamSchema describes a date: a string in an accepted form, or a Unix timestamp.
func (dateText) ParamSchema() endpoint.Schema {
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "string"}, {Type: "integer"}}}
}

// mapFlag is a boolean parameter where "" also means false, as The Events Calendar reads show_map and show_map_link.
type mapFlag bool

// DecodeParam reads the boolean forms of endpoint.DecodeBool, or "".
func (f *mapFlag) DecodeParam(raw any) error {
	if s, ok := raw.(string); ok && strings.TrimSpace(s) == "" {
		*f = false
		return nil
	}
	b, err := endpoint.DecodeBool(raw)
	*f = mapFlag(b)
	return err
}

// ParamSchema describes the flag as a boolean.
func (mapFlag) ParamSchema() endpoint.Schema { return endpoint.Schema{Type: "boolean"} }

// linkedPathID is the {id} of an item path: digits only (anything else is 404 rest_no_route).
type linkedPathID uint64

// DecodeParam accepts a string of digits within uint64.
func (id *linkedPathID) DecodeParam(raw any) error {
	s, _ := raw.(string)
	n, err := parseRecordID(s)
	*id = linkedPathID(n)
	return err
}

// ParamSchema describes the ID as an integer.
func (linkedPathID) ParamSchema() endpoint.Schema { return endpoint.Schema{Type: "integer"} }

// LinkedByID addresses one venue or organizer by ID.
type LinkedByID struct {
	ID endpoint.Opt[linkedPathID] `param:"id" in:"path" doc:"Numeric ID of the record."`
}

// LinkedBySlug addresses one venue or organizer by slug.
type LinkedBySlug struct {
	Slug endpoint.Opt[string] `param:"slug" in:"path" doc:"Slug of the record."`
}

// linkedRef is an item path's address: an ID or a slug.
type linkedRef struct {
	id   uint64
	slug string
}

func (r LinkedByID) ref() linkedRef   { return linkedRef{id: uint64(r.ID.V)} }
func (r LinkedBySlug) ref() linkedRef { return linkedRef{slug: r.Slug.V} }

// linkedReadParams are the parameters of a single read.
type linkedReadParams struct {
	Password endpoint.Opt[string] `param:"password" doc:"The record's password: without it, callers who cannot edit a protected record see it redacted."`
}

// LinkedRead is GET /venues/{id} and /organizers/{id}.
type LinkedRead struct {
	LinkedByID
	linkedReadParams
}

// LinkedReadBySlug is GET /venues/by-slug/{slug} and /organizers/by-slug/{slug}.
type LinkedReadBySlug struct {
	LinkedBySlug
	linkedReadParams
}

// linkedDeleteParams are the parameters of a delete.
type linkedDeleteParams struct {
	Force endpoint.Opt[bool] `param:"force" default:"false" doc:"Delete permanently (also from the trash) instead of moving the record to the trash."`
}

// LinkedDelete is DELETE /venues/{id} and /organizers/{id}.
type LinkedDelete struct {
	LinkedByID
	linkedDeleteParams
}

// LinkedDeleteBySlug is DELETE /venues/by-slug/{slug} and /organizers/by-slug/{slug}.
type LinkedDeleteBySlug struct {
	LinkedBySlug
	linkedDeleteParams
}

// LinkedList holds the parameters of GET /venues and GET /organizers.
type LinkedList struct {
	endpoint.Paging
	Search           endpoint.Opt[string]   `param:"search" validate:"omitempty,max=1000" doc:"Words (fragments of letters, digits and hyphens) that must all appear, ignoring case, in one of the searched fields."`
	Event            endpoint.Opt[int64]    `param:"event" validate:"omitempty,gt=0" doc:"Only records linked to this event (which must exist)."`
	HasEvents        endpoint.Opt[bool]     `param:"has_events" doc:"true: only records linked to at least one event that is not a draft, pending or trashed; false: only the others. With sync_token, a record is listed again when its fields or links change, not when one of its events changes status: sync this filter from a plain list."`
	OnlyWithUpcoming endpoint.Opt[bool]     `param:"only_with_upcoming" default:"false" doc:"true: only records linked to an event you may see that has not started yet; false: no filter. With sync_token, a record is not listed again when its last upcoming event starts or changes status (time passing changes this filter without a write): sync this filter from a plain list."`
	Status           endpoint.Opt[[]string] `param:"status" doc:"Statuses to list (a list or CSV; any = every status but trash). Callers who cannot edit records may only ask for publish."`
	SyncInput
}

// linkedKind is what differs between the venue and organizer endpoints; the flows below serve both.
type linkedKind[T any, P models.LinkedRecord[T], In any] struct {
	name   string // the name parameter and singular noun: "venue"
	change models.ChangeKind
	plural string // "venues"
	// parts returns the name parameter and the shared parameters of an input.
	parts func(in *In) (*endpoint.Opt[string], *LinkedInput)
	// prepare sets the kind's defaults on a new record.
	prepare func(rec *T)
	// apply writes the kind's own parameters into rec; bad values go into invalid.
	apply func(a *App, in *In, rec *T, creating bool, invalid map[string]string)
	// shape is the record as the API shows it.
	shape func(a *App, site Site, rec *T, viewer Viewer, single bool) any
}

func (k *linkedKind[T, P, In]) notFound(ref linkedRef) error {
	code := "rest-" + k.name + "-not-found"
	if ref.slug != "" {
		return models.Errorf(models.KindNotFound, code, "No %s has the slug %.200q.", k.name, ref.slug) // capped: the path may be long
	}
	return models.Errorf(models.KindNotFound, code, "%s with ID %d does not exist.", capitalize(k.name), ref.id)
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// find loads the addressed record, locked for the rest of the transaction when forUpdate is set.
func (k *linkedKind[T, P, In]) find(tx *models.Store, ref linkedRef, forUpdate bool) (*T, error) {
	var rec *T
	var err error
	if ref.slug != "" {
		rec, err = models.FindLinkedBySlug[T, P](tx, ref.slug, forUpdate)
	} else {
		rec, err = models.FindLinked[T, P](tx, ref.id, forUpdate)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, k.notFound(ref)
	}
	return rec, err
}

// read handles GET /{kind}/{id} and /{kind}/by-slug/{slug}: records that are not published need read rights
// (403 *-not-accessible, also for trashed ones); protected ones are redacted without the password.
func (k *linkedKind[T, P, In]) read(a *App, c *gin.Context, ref linkedRef, password string) error {
	rec, err := k.find(a.Store.WithContext(c.Request.Context()), ref, false)
	if err != nil {
		return err
	}
	user := models.UserFrom(c.Request.Context())
	if !user.CanRead(P(rec).Linked().Owned()) {
		return models.Errorf(models.KindForbidden, k.name+"-not-accessible", "The requested %s is not accessible", k.name)
	}
	viewer := a.newViewer(c, password)
	shape := k.shape(a, a.Site(c), rec, viewer, true)
	if err := viewer.tooMany(c); err != nil {
		return err
	}
	setLastModified(c, *P(rec).Linked().UpdatedAt)
	c.JSON(http.StatusOK, shape)
	return nil
}

// requireCurrent enforces If-Match on a write of rec, found and locked in the write's transaction: the caller's
// ETag must be that of the answer a GET of the record would give it now (see requireMatch). Callers who may
// write a record see it unredacted, with or without its password.
func (k *linkedKind[T, P, In]) requireCurrent(a *App, c *gin.Context, rec *T, user *models.User) error {
	return requireMatch(c, func() (any, time.Time, error) {
		return k.shape(a, a.Site(c), rec, Viewer{User: user}, true), *P(rec).Linked().UpdatedAt, nil
	})
}

// create handles POST /{kind}: 201 with the new record and Location, or 200 with an identical existing record.
func (k *linkedKind[T, P, In]) create(a *App, c *gin.Context, in *In) error {
	user := models.UserFrom(c.Request.Context())
	rec, created, err := models.AddLinked[T, P](c.Request.Context(), a.Store, k.creation(a, user, in))
	if err != nil {
		return err
	}
	site := a.Site(c)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		c.Header("Location", site.Root+"/"+k.plural+"/"+strconv.FormatUint(*P(rec).Linked().ID, 10))
	}
	c.JSON(status, k.shape(a, site, rec, Viewer{User: user}, false))
	return nil
}

// creation is the create of a record from in by user: the kind's defaults and the parameters sent, which the
// duplicate rule compares.
func (k *linkedKind[T, P, In]) creation(a *App, user *models.User, in *In) models.LinkedCreation[T] {
	_, common := k.parts(in)
	return models.LinkedCreation[T]{Caller: user, Sent: endpoint.Sent(in), Password: common.Password.V,
		Assign: func(tx *models.Store, rec *T) error {
			k.prepare(rec)
			return k.assign(a, tx, user, in, rec, true)
		},
	}
}

// assign writes the parameters of in into rec, reporting every bad value at once.
func (k *linkedKind[T, P, In]) assign(a *App, tx *models.Store, user *models.User, in *In, rec *T, creating bool) error {
	name, common := k.parts(in)
	invalid := map[string]string{}
	if err := a.assignLinked(tx, user, P(rec).Linked(), k.name, name, common, creating, invalid); err != nil {
		return err
	}
	k.apply(a, in, rec, creating, invalid)
	if len(invalid) > 0 {
		return models.Invalid(invalid)
	}
	return nil
}

// assignLinked writes the shared parameters into f. Bad values go into invalid; database failures and a
// forbidden author are returned.
func (a *App) assignLinked(tx *models.Store, user *models.User, f models.LinkedFields, nameParam string,
	name *endpoint.Opt[string], in *LinkedInput, creating bool, invalid map[string]string) error {
	if name.Set {
		if n := input.PlainText(name.V); n != "" {
			*f.Name = n
		} else {
			invalid[nameParam] = "must not be empty"
		}
	}
	setHTML(f.Description, in.Description)
	setHTML(f.Excerpt, in.Excerpt)
	if in.Status.Set || creating {
		wasTrashed := *f.Status == models.StatusTrash
		*f.Status = user.ScaleBackStatus(in.Status.V, *f.Status, creating)
		if wasTrashed && in.Status.Set {
			*f.TrashedStatus = ""
		}
	}
	if in.Password.Set {
		*f.Password = models.HashRecordPassword(in.Password.V)
	}
	a.assignPublished(f, in, invalid)
	if in.Author.Set {
		if err := collectInvalid(invalid, tx.CheckLinkedAuthor(user, uint64(in.Author.V))); err != nil {
			return err
		}
		if _, bad := invalid["author"]; !bad {
			*f.AuthorID = uint64(in.Author.V)
		}
	}
	if in.Image.Set {
		img, err := a.ResolveImage(tx, "image", in.Image.V)
		var bad *models.Error
		switch {
		case errors.As(err, &bad) && bad.Kind == models.KindInvalid:
			invalid["image"] = bad.Params["image"]
		case err != nil:
			return err
		default:
			*f.Image = img
			*f.ImageID = nil
			if img != nil {
				*f.ImageID = &img.ID
			}
		}
	}
	return nil
}

func setHTML(dst *string, in endpoint.Opt[string]) {
	if in.Set {
		*dst = input.SanitizeHTML(in.V)
	}
}

// assignPublished sets the publication date: date_utc (read in UTC) wins over date (read in the site time zone).
func (a *App) assignPublished(f models.LinkedFields, in *LinkedInput, invalid map[string]string) {
	for _, d := range []struct {
		param string
		value endpoint.Opt[dateText]
		loc   *time.Location
	}{{"date", in.Date, a.Config.Timezone}, {"date_utc", in.DateUTC, time.UTC}} {
		if !d.value.Set {
			continue
		}
		t, err := input.ParseDate(string(d.value.V), time.Now(), d.loc)
		if err != nil {
			invalid[d.param] = "must be a date: " + err.Error()
			continue
		}
		*f.PublishedAt = t.UTC().Truncate(time.Second)
	}
}

// update handles POST, PUT and PATCH on /{kind}/{id} and /{kind}/by-slug/{slug}: omitted parameters are
// unchanged; callers need edit rights on that record.
func (k *linkedKind[T, P, In]) update(a *App, c *gin.Context, ref linkedRef, in *In) error {
	user := models.UserFrom(c.Request.Context())
	rec, err := models.UpdateLinked[T, P](c.Request.Context(), a.Store, models.LinkedUpdate[T]{
		LinkedChange: k.changeOf(a, c, ref, user),
		Apply:        func(tx *models.Store, rec *T) error { return k.assign(a, tx, user, in, rec, false) },
	})
	if errors.Is(err, models.ErrNotFound) {
		return k.notFound(ref)
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, k.shape(a, a.Site(c), rec, Viewer{User: user}, false))
	return nil
}

// changeOf addresses the record of ref as user, with If-Match (when sent) as the precondition.
func (k *linkedKind[T, P, In]) changeOf(a *App, c *gin.Context, ref linkedRef, user *models.User) models.LinkedChange[T] {
	return models.LinkedChange[T]{Caller: user, ID: ref.id, Slug: ref.slug,
		Check: func(_ *models.Store, rec *T) error { return k.requireCurrent(a, c, rec, user) }}
}

// remove handles DELETE on /{kind}/{id} and /{kind}/by-slug/{slug}: to the trash (410 when already there), or
// for good with force; either way the record is unlinked from every event.
func (k *linkedKind[T, P, In]) remove(a *App, c *gin.Context, ref linkedRef, force bool) error {
	user := models.UserFrom(c.Request.Context())
	site := a.Site(c)
	var body any
	_, err := models.RemoveLinked[T, P](c.Request.Context(), a.Store, models.LinkedRemoval[T]{
		LinkedChange: k.changeOf(a, c, ref, user), Force: force,
		Done: func(_ *models.Store, rec *T) error {
			body = k.shape(a, site, rec, Viewer{User: user}, false)
			return nil
		},
	})
	if errors.Is(err, models.ErrNotFound) {
		return k.notFound(ref)
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, body)
	return nil
}

// editableStatuses are what callers who can edit records list by default ("any": every status but trash).
var editableStatuses = []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending,
	models.StatusPrivate}

// linkedListStatuses applies the list visibility rule: callers who can edit records see every status but trash by default
// and may ask for any statuses; everyone else sees, and may only ask for, publish. It returns the statuses and the
// value rest_url echoes.
func linkedListStatuses(user *models.User, param endpoint.Opt[[]string]) ([]string, string, error) {
	if !param.Set {
		if user.CanSeeAllStatuses() {
			return editableStatuses, "any", nil
		}
		return []string{models.StatusPublish}, models.StatusPublish, nil
	}
	if len(param.V) == 0 {
		return nil, "", models.InvalidParam("status", "must name at least one status")
	}
	var statuses []string
	for _, s := range param.V {
		switch {
		case s == "any":
			statuses = append(statuses, editableStatuses...)
		case models.IsStatus(s):
			statuses = append(statuses, s)
		default:
			return nil, "", models.InvalidParam("status", fmt.Sprintf("%q is not a status (one of %s, or any)", s,
				strings.Join(models.Statuses, ", ")))
		}
	}
	if !user.CanSeeAllStatuses() && (len(statuses) != 1 || statuses[0] != models.StatusPublish) {
		return nil, "", models.InvalidParam("status", "only publish may be listed without the right to edit records")
	}
	return statuses, strings.Join(param.V, ","), nil
}

// searchFragments splits a search the way The Events Calendar does: on anything that is not a letter,
// a digit or a hyphen.
var searchSeparators = regexp.MustCompile(`[^\p{L}\p{N}-]+`)

// maxSearchFragments bounds the size of the search condition.
const maxSearchFragments = 20

func searchFragments(s string) ([]string, error) {
	var frags []string
	for _, f := range searchSeparators.Split(s, -1) {
		if f != "" {
			frags = append(frags, f)
		}
	}
	switch {
	case len(frags) == 0:
		return nil, models.InvalidParam("search", "must contain a letter or a digit")
	case len(frags) > maxSearchFragments:
		return nil, models.InvalidParam("search", fmt.Sprintf("must have at most %d words", maxSearchFragments))
	}
	return frags, nil
}

// list handles GET /{kind}: newest first, the list envelope and paging headers, and 404
// *-archive-page-not-found past the last page.
func (k *linkedKind[T, P, In]) list(a *App, c *gin.Context, in *LinkedList) error {
	ctx := c.Request.Context()
	store := a.Store.WithContext(ctx)
	user := models.UserFrom(ctx)
	page := in.Resolve(a.Config.MaxPerPage)
	statuses, echoStatus, err := linkedListStatuses(user, in.Status)
	if err != nil {
		return err
	}
	filter := models.LinkedFilter{Statuses: statuses, Viewer: user}
	// hidden: the event filter names an event whose links the caller may not see; the list is empty.
	hidden := false
	args := endpoint.QueryArgs{}.Add("page", strconv.Itoa(page.Number)).Add("per_page", strconv.Itoa(page.Size))
	if in.Search.Set {
		if filter.Search, err = searchFragments(in.Search.V); err != nil {
			return err
		}
		args = args.Add("search", in.Search.V)
	}
	if in.Event.Set {
		filter.EventID = uint64(in.Event.V)
		exists, visible, err := store.EventLinksVisible(filter.EventID, user)
		if err != nil {
			return err
		}
		if !exists {
			return models.InvalidParam("event", fmt.Sprintf("no event has the ID %d", filter.EventID))
		}
		hidden = !visible
		args = args.Add("event", strconv.FormatUint(filter.EventID, 10))
	}
	if in.HasEvents.Set {
		filter.HasEvents = &in.HasEvents.V
		args = args.Add("has_events", strconv.FormatBool(in.HasEvents.V))
	}
	if in.OnlyWithUpcoming.Set {
		if in.OnlyWithUpcoming.V {
			filter.UpcomingSince = RequestTime(c)
		}
		args = args.Add("only_with_upcoming", strconv.FormatBool(in.OnlyWithUpcoming.V))
	}
	args = args.Add("status", echoStatus)

	sp, err := a.beginSync(c, store, k.change, in.SyncInput, page)
	if err != nil {
		return err
	}
	var recs []T
	var total int64
	switch {
	case sp.active:
		args = args.Add("sync_token", sp.linkToken)
		if !hidden && len(sp.ids) > 0 {
			filter.IDs = sp.ids
			if recs, _, err = models.ListLinked[T, P](store, filter, models.Page{Number: 1, Size: len(sp.ids)}); err != nil {
				return err
			}
		}
		total = sp.total
	case !hidden:
		if recs, total, err = models.ListLinked[T, P](store, filter, page); err != nil {
			return err
		}
	}
	if len(recs) == 0 && len(sp.ids) == 0 && page.Number > 1 {
		return models.Errorf(models.KindNotFound, k.name+"-archive-page-not-found",
			"The requested %s archive page does not exist", k.name)
	}
	site := a.Site(c)
	items := make([]any, len(recs))
	shown := make([]uint64, len(recs))
	for i := range recs {
		items[i] = k.shape(a, site, &recs[i], Viewer{User: user}, false)
		shown[i] = *P(&recs[i]).Linked().ID
	}
	totalPages := endpoint.TotalPages(total, page.Size)
	links := pageLinks(site.Root+"/"+k.plural+"/", args, page.Number, totalPages)
	body := orderedMap{{k.plural, items}}
	if sp.active {
		body = append(body, orderedEntry{"deleted", sp.deleted(shown)})
	}
	body = append(body, orderedEntry{"rest_url", links.Self})
	if links.Next != "" {
		body = append(body, orderedEntry{"next_rest_url", links.Next})
	}
	if links.Previous != "" {
		body = append(body, orderedEntry{"previous_rest_url", links.Previous})
	}
	body = append(body, orderedEntry{"total", total}, orderedEntry{"total_pages", totalPages})
	endpoint.SetListHeaders(c, total, totalPages, links)
	return writeOwnJSON(c, http.StatusOK, body)
}

// pageLinks builds a list's navigation URLs as The Events Calendar does: next and previous move page
// to the end of the query, and the previous link of page 2 is the list without a page.
func pageLinks(base string, args endpoint.QueryArgs, page, totalPages int) endpoint.ListLinks {
	links := endpoint.ListLinks{Self: args.URL(base)}
	if page < totalPages {
		links.Next = args.WithPage(page + 1).URL(base)
	}
	if page > 1 {
		prev := page - 1
		if prev == 1 {
			prev = 0
		}
		links.Previous = args.WithPage(prev).URL(base)
	}
	if totalPages > 0 {
		links.First = args.WithPage(1).URL(base)
		links.Last = args.WithPage(totalPages).URL(base)
	}
	return links
}

// LinkedOpening holds the fields venues and organizers open with, up to their page, in the API's order.
type LinkedOpening struct {
	ID     uint64 `json:"id" schema:"min=1" doc:"The record's ID."`
	Author string `json:"author,omitempty" schema:"author" doc:"The author's user ID, as a string."`
	Status string `json:"status" schema:"status" doc:"The post status."`
	RecordDates
	URL string `json:"url" schema:"format=uri" doc:"The record's public page."`
}

// LinkedBody holds the fields venues and organizers have after their name. Empty texts are omitted (as PHP's
// array_filter leaves them out), and those of a redacted record are "" when set; Image is an image object, false
// when redacted, and absent when there is none.
type LinkedBody struct {
	Description *string `json:"description,omitempty" doc:"HTML."`
	Excerpt     *string `json:"excerpt,omitempty" doc:"HTML."`
	Slug        string  `json:"slug"`
	Image       any     `json:"image,omitempty" schema:"ref=Image"`
}

// linkedText is a text field of a shape: nil (omitted) when empty, "" when the record is redacted.
func linkedText(v string, redact bool) *string {
	switch {
	case v == "":
		return nil
	case redact:
		return new(string)
	}
	return &v
}

// linkedProtected tells whether viewer sees the record redacted: it has a password, and the viewer neither can
// edit it nor gave the password (compared in constant time).
func linkedProtected(f models.LinkedFields, viewer Viewer) bool {
	if *f.Password == "" || viewer.User.CanEdit(f.Owned()) {
		return false
	}
	return !viewer.unlocks(*f.Password)
}

// linkedParts converts the fields both kinds share, for viewer: the opening, the body and the global IDs,
// and whether the record is redacted.
func (a *App) linkedParts(site Site, f models.LinkedFields, name string, viewer Viewer) (LinkedOpening, LinkedBody,
	GlobalIDs, bool) {
	redact := linkedProtected(f, viewer)
	loc := a.Config.Timezone
	open := LinkedOpening{ID: *f.ID, Status: *f.Status,
		RecordDates: NewRecordDates(*f.PublishedAt, *f.UpdatedAt, loc),
		URL:         linkedURL(site, name, *f.Slug)}
	if *f.AuthorID != 0 {
		open.Author = AuthorString(*f.AuthorID)
	}
	body := LinkedBody{Description: linkedText(*f.Description, redact), Excerpt: linkedText(*f.Excerpt, redact),
		Slug: *f.Slug}
	if img := *f.Image; img != nil {
		if redact {
			body.Image = false
		} else {
			body.Image = ImageShape(img)
		}
	}
	return open, body, site.GlobalIDs(*f.ID), redact
}

// linkedURL is the public page of a venue or organizer: {site}/venue/{slug}/.
func linkedURL(site Site, name, slug string) string { return site.Home + "/" + name + "/" + slug + "/" }

// LinkedJSONLD is a venue or an organizer as schema.org data, a Place or a Person, in the captures' order; empty
// texts are left out. An event's own data carries @context, so the venues and organizers it embeds have none.
type LinkedJSONLD struct {
	Context string `json:"@context,omitempty"`
	Type    string `json:"@type"`
	Name    string `json:"name"`
	// Description is the text of the excerpt, else of the description; a redacted record has none.
	Description *string          `json:"description,omitempty"`
	URL         string           `json:"url"`
	Address     *PostalAddressLD `json:"address,omitempty"`
	Geo         *GeoLD           `json:"geo,omitempty"`
	Telephone   string           `json:"telephone,omitempty"`
	Email       string           `json:"email,omitempty"`
	SameAs      string           `json:"sameAs,omitempty"`
}

// PostalAddressLD is a venue's address as a schema.org PostalAddress.
type PostalAddressLD struct {
	Type            string `json:"@type"`
	StreetAddress   string `json:"streetAddress,omitempty"`
	AddressLocality string `json:"addressLocality,omitempty"`
	AddressRegion   string `json:"addressRegion,omitempty"`
	PostalCode      string `json:"postalCode,omitempty"`
	AddressCountry  string `json:"addressCountry,omitempty"`
}

// GeoLD is a venue's position as schema.org GeoCoordinates.
type GeoLD struct {
	Type      string  `json:"@type"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// linkedJSONLD starts the schema.org data of a venue or organizer: context, type, name, description and public
// page. A redacted record shows no description.
func linkedJSONLD(typ string, f models.LinkedFields, url string, redacted bool) *LinkedJSONLD {
	ld := &LinkedJSONLD{Context: "http://schema.org", Type: typ, Name: *f.Name, URL: url}
	if !redacted {
		description := *f.Description
		if *f.Excerpt != "" {
			description = *f.Excerpt
		}
		description = input.PlainText(description)
		ld.Description = &description
	}
	return ld
}

// resolveLinked turns the raw venue or organizer parameter of an event write into record IDs, in order and
// without repeats: IDs, CSV of IDs, {"id": N}, inline data objects (created in tx like
// POST /{kind}, with the duplicate rule), or a list mixing them. 0, "", [] and null mean none.
// found holds the records of the IDs when an earlier read (models.FindEventRefs) looked them up, else nil.
func (k *linkedKind[T, P, In]) resolve(a *App, tx *models.Store, user *models.User, raw any, found *models.FoundRefs) ([]uint64, error) {
	items, err := k.linkedItems(raw, true)
	if err != nil {
		return nil, models.InvalidParam(k.name, err.Error())
	}
	if err := k.checkLinkedIDs(tx, user, items, found); err != nil {
		return nil, err
	}
	inputs, err := k.bindInline(items)
	if err != nil {
		return nil, err
	}
	if len(inputs) > 0 {
		if !user.CanCreate() {
			return nil, models.Forbidden()
		}
		// Lock every name first, in one global order, so that concurrent writers never wait in a cycle.
		names := make([]string, 0, len(inputs))
		for _, in := range inputs {
			name, _ := k.parts(in)
			names = append(names, input.PlainText(name.V))
		}
		if err := models.LockLinkedNames[T, P](tx, names...); err != nil {
			return nil, err
		}
	}
	var ids []uint64
	seen := map[uint64]bool{}
	next := 0
	for _, item := range items {
		id := item.id
		if item.data != nil {
			rec, _, err := models.InsertLinked[T, P](tx, k.creation(a, user, inputs[next]))
			next++
			if err != nil {
				return nil, k.inlineError(err)
			}
			id = *P(rec).Linked().ID
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// linkedItem is one entry of a venue or organizer parameter: an ID or inline data.
type linkedItem struct {
	id   uint64
	data map[string]any
}

// linkedItems flattens the raw parameter into its entries; nested lists are not accepted.
func (k *linkedKind[T, P, In]) linkedItems(raw any, top bool) ([]linkedItem, error) {
	bad := fmt.Errorf("must be %s IDs, {\"id\": N}, %s data objects with a %q name, or a list of them",
		k.name, k.name, k.name)
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case json.Number:
		id, err := parseRecordID(v.String())
		if err != nil {
			return nil, bad
		}
		return idItems(id), nil
	case string:
		var items []linkedItem
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			id, err := parseRecordID(part)
			if part != "" && err != nil {
				return nil, bad
			}
			items = append(items, idItems(id)...)
		}
		return items, nil
	case map[string]any:
		if rawID, ok := v["id"]; ok {
			id, err := endpoint.DecodeInt(rawID)
			if err != nil || id <= 0 {
				return nil, fmt.Errorf("{\"id\": …} must hold a positive %s ID", k.name)
			}
			return idItems(uint64(id)), nil
		}
		return []linkedItem{{data: v}}, nil
	case []any:
		if !top {
			return nil, bad
		}
		if len(v) > endpoint.MaxListItems {
			return nil, fmt.Errorf("must have at most %d items", endpoint.MaxListItems)
		}
		var items []linkedItem
		for _, elem := range v {
			more, err := k.linkedItems(elem, false)
			if err != nil {
				return nil, err
			}
			items = append(items, more...)
		}
		return items, nil
	}
	return nil, bad
}

// linkedIDs are the IDs among items (not the inline data), in order.
func linkedIDs(items []linkedItem) []uint64 {
	var ids []uint64
	for _, it := range items {
		if it.data == nil {
			ids = append(ids, it.id)
		}
	}
	return ids
}

func idItems(id uint64) []linkedItem {
	if id == 0 {
		return nil
	}
	return []linkedItem{{id: id}}
}

// checkLinkedIDs verifies, in one query (none when found looked the IDs up), that every ID names a record user
// may read and that is not in the trash.
func (k *linkedKind[T, P, In]) checkLinkedIDs(tx *models.Store, user *models.User, items []linkedItem, read *models.FoundRefs) error {
	ids := linkedIDs(items)
	recs, ok := models.FoundLinked[T, P](read, ids)
	if !ok {
		var err error
		if recs, err = models.FindLinkedByIDs[T, P](tx, ids); err != nil {
			return err
		}
	}
	found := make(map[uint64]models.Owned, len(recs))
	for i := range recs {
		f := P(&recs[i]).Linked()
		found[*f.ID] = f.Owned()
	}
	for _, id := range ids {
		owned, ok := found[id]
		switch {
		case !ok:
			return models.InvalidParam(k.name, fmt.Sprintf("%s %d does not exist", k.name, id))
		case owned.Status == models.StatusTrash:
			return models.InvalidParam(k.name, fmt.Sprintf("%s %d is in the trash", k.name, id))
		case !user.CanRead(owned):
			return models.InvalidParam(k.name, fmt.Sprintf("%s %d is not accessible", k.name, id))
		}
	}
	return nil
}

// bindInline binds every inline data object exactly as POST /{kind} binds its parameters.
func (k *linkedKind[T, P, In]) bindInline(items []linkedItem) ([]*In, error) {
	var inputs []*In
	for _, it := range items {
		if it.data == nil {
			continue
		}
		if v, ok := it.data[k.name]; !ok || v == nil {
			return nil, models.InvalidParam(k.name, fmt.Sprintf("%s data needs a %q (the name)", k.name, k.name))
		}
		in := new(In)
		if invalid := endpoint.BindObject(it.data, in); len(invalid) > 0 {
			return nil, k.inlineError(models.Invalid(invalid))
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// inlineError reports a bad inline object under the event's parameter, saying which of its fields was wrong.
func (k *linkedKind[T, P, In]) inlineError(err error) error {
	var e *models.Error
	if !errors.As(err, &e) || e.Kind != models.KindInvalid {
		return err
	}
	names := make([]string, 0, len(e.Params))
	for name := range e.Params {
		names = append(names, name)
	}
	sort.Strings(names)
	reasons := make([]string, len(names))
	for i, name := range names {
		reasons[i] = fmt.Sprintf("%s[%s] %s", k.name, name, e.Params[name])
	}
	return models.InvalidParam(k.name, strings.Join(reasons, "; "))
}

// coordinate is geo_lat or geo_lng as sent: a number, or "" to remove the coordinates.
type coordinate struct {
	Clear bool
	V     float64
}

// DecodeParam reads a finite number (JSON or a numeric string), or "".
func (c *coordinate) DecodeParam(raw any) error {
	if s, ok := raw.(string); ok && strings.TrimSpace(s) == "" {
		*c = coordinate{Clear: true}
		return nil
	}
	f, err := endpoint.DecodeFloat(raw)
	if err != nil || math.IsInf(f, 0) {
		return errors.New("must be a number")
	}
	*c = coordinate{V: f}
	return nil
}

// ParamSchema describes a coordinate as a number.
func (coordinate) ParamSchema() endpoint.Schema {
	return endpoint.Schema{Type: "number", Format: "double"}
}

// LinkedSearchedFields are the fields list search looks at, by kind, for the documentation.
var LinkedSearchedFields = map[string][]string{
	"venue":     {"venue", "description", "excerpt", "address", "city", "province", "state", "stateprovince", "zip", "phone"},
	"organizer": {"organizer", "description", "excerpt", "phone", "email", "website"},
}
