package controllers

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// EventListInput holds the parameters of GET /events: paging and the filters.
type EventListInput struct {
	endpoint.Paging
	EventFilters
	SyncInput
}

// EventFilters are the filters of GET /events, which the iCalendar feed of
// GET /events.ics shares.
type EventFilters struct {
	StartDate      endpoint.Opt[DateParam] `param:"start_date" doc:"Events that start on or after this date (inclusive mode: from 00:00:00 of its day). Default: 00:00 today, site time. Naive dates are read in the site timezone."`
	EndDate        endpoint.Opt[DateParam] `param:"end_date" doc:"Events that end on or before this date (inclusive mode: until 23:59:59 of its day). Default: 23:59:59 of the day two years ahead."`
	StartsBefore   endpoint.Opt[DateParam] `param:"starts_before" doc:"Events that start before this date (inclusive mode: before 23:59:59 of its day). Any starts_* or ends_* parameter drops the default window."`
	StartsAfter    endpoint.Opt[DateParam] `param:"starts_after" doc:"Events that start after this date (inclusive mode: after 23:59:59 of its day)."`
	EndsBefore     endpoint.Opt[DateParam] `param:"ends_before" doc:"Events that end before this date (inclusive mode: before 23:59:59 of its day)."`
	EndsAfter      endpoint.Opt[DateParam] `param:"ends_after" doc:"Events that end after this date (inclusive mode: after 23:59:59 of its day)."`
	StrictDates    endpoint.Opt[bool]      `param:"strict_dates" default:"false" doc:"false: the date bounds cover whole days as described for each; true: the dates are used as given."`
	Search         endpoint.Opt[string]    `param:"search" validate:"omitempty,max=500" doc:"Events whose title, description or excerpt contain every word, ignoring case; \"quoted phrases\" match whole."`
	Categories     endpoint.Opt[[]string]  `param:"categories" doc:"Events in any of these categories (IDs or slugs, list or CSV), child categories included; unknown ones are 400."`
	Tags           endpoint.Opt[[]string]  `param:"tags" doc:"Events with any of these tags (IDs or slugs, list or CSV); unknown ones are 400."`
	Venue          endpoint.Opt[[]int64]   `param:"venue" doc:"Events at any of these venues (IDs, list or CSV); unknown ones are 400."`
	Organizer      endpoint.Opt[[]int64]   `param:"organizer" doc:"Events by any of these organizers (IDs, list or CSV); unknown ones are 400."`
	Featured       endpoint.Opt[bool]      `param:"featured" doc:"true: only featured events; false: only the others."`
	Status         endpoint.Opt[[]string]  `param:"status" doc:"Events with any of these statuses (list or CSV; any = every status but trash). Visitors may only ask for publish; users who can edit events see every status they may read by default."`
	Include        endpoint.Opt[[]int64]   `param:"include" doc:"Only the events with these IDs (list or CSV) that the caller may see; no date bound applies."`
	PostParent     endpoint.Opt[int64]     `param:"post_parent" doc:"Only the children of this event."`
	Ticketed       endpoint.Opt[bool]      `param:"ticketed" doc:"true: only ticketed events; false: only the others."`
	Series         endpoint.Opt[int64]     `param:"series" doc:"Only the occurrences of this series (the ID of its series record)."`
	CollapseSeries endpoint.Opt[bool]      `param:"collapse_series" default:"false" doc:"true: each series is listed once, as its first occurrence that passes the other filters; single events are unaffected, and totals count what is listed."`
	EventGeoInput
	// syncing drops the default date window: the list answers a sync_token.
	syncing bool
}

// EventList is the envelope of GET /events: events, then the page's links and totals.
type EventList struct {
	Events []EventRecord `json:"events"`
	eventListTail
}

// eventListTail is what the envelope holds after events.
type eventListTail struct {
	// Deleted lists, in an answer to sync_token, the changed events the list does not show.
	Deleted         *[]uint64 `json:"deleted,omitempty"`
	RestURL         string    `json:"rest_url"`
	NextRestURL     string    `json:"next_rest_url,omitempty"`
	PreviousRestURL string    `json:"previous_rest_url,omitempty"`
	Total           int64     `json:"total"`
	TotalPages      int       `json:"total_pages"`
}

// MarshalJSON writes the envelope as appendJSON does.
func (l EventList) MarshalJSON() ([]byte, error) {
	return l.appendJSON(make([]byte, 0, l.sizeHint()))
}

func (l EventList) sizeHint() int { return recordSizeHint*len(l.Events) + 1024 }

// appendJSON appends the envelope as encoding/json writes it, with each event as EventRecord.appendJSON writes
// it: encoding/json would validate and compact the whole list again.
func (l EventList) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"events":[`...)
	for i := range l.Events {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = l.Events[i].appendJSON(buf); err != nil {
			return nil, err
		}
	}
	buf = append(buf, ']', ',')
	n := len(buf)
	buf, err := appendMarshaled(buf, &l.eventListTail)
	if err != nil {
		return nil, err
	}
	return append(buf[:n], buf[n+1:]...), nil // the tail's fields, without its opening brace
}

// eventQuery is a list request turned into store scopes, and the effective arguments its links echo.
type eventQuery struct {
	scopes []models.Scope
	args   endpoint.QueryArgs
	// countable is the list as a window that kept totals total, or nil (see window).
	countable *models.Window
	// plannedForValues says that the database must plan the list's queries for their values (listBounds.addImplied)
	plannedForValues bool
	// filtered says that a scope other than the date window, the statuses, what they imply, a radius query,
	// categories and a search narrows the list; statuses are the statuses it keeps. An unfiltered list is a
	// models.Window, which kept totals total.
	filtered bool
	statuses []string
	// near is the circle of a radius query, which a window may still total (models.Window.Near).
	near *models.Circle
	// categories are the categories (with their descendants) the list is narrowed to, which a window may still
	// total (models.Window.Categories).
	categories []uint64
	// search are the terms the list is searched for, which a window may still total (models.Window.Search).
	search []string
	// collapsed is the list without collapse_series=true when it has it, else nil.
	collapsed *collapsedList
}

// add narrows the list by a filter.
func (q *eventQuery) add(s models.Scope) { q.scopes = append(q.scopes, s); q.filtered = true }

// addNear narrows the list to the events at a venue within the circle.
func (q *eventQuery) addNear(c models.Circle) {
	q.scopes = append(q.scopes, models.EventsNear(c))
	q.near = &c
}

// addCategories narrows the list to the events in one of the categories (with their descendants). Unlike add, it
// leaves the list a window, which the kept category links total.
func (q *eventQuery) addCategories(ids []uint64) {
	q.scopes = append(q.scopes, models.EventsInCategories(ids))
	q.categories = ids
}

// addSearch narrows the list to the events that match every term, as user may search them. Unlike add, it leaves
// the list a window, which the kept search matches may total.
func (q *eventQuery) addSearch(terms []string, user *models.User) {
	q.scopes = append(q.scopes, models.EventsMatching(terms, user))
	q.search = terms
}

// addBound narrows the list by its date window or statuses, or by a bound they imply.
func (q *eventQuery) addBound(s models.Scope) { q.scopes = append(q.scopes, s) }

// window is the list as a models.Window when nothing but its date window, statuses and one of its radius query,
// its categories or its search narrows it, else nil.
func (q *eventQuery) window(b listBounds, user *models.User) *models.Window {
	narrowed := 0
	for _, set := range []bool{q.near != nil, q.categories != nil, q.search != nil} {
		if set {
			narrowed++
		}
	}
	if q.filtered || b.start == nil || b.end == nil || narrowed > 1 {
		return nil
	}
	w := models.WindowFor(user, q.statuses, *b.start, *b.end)
	if w != nil {
		w.Near, w.Categories, w.Search = q.near, q.categories, q.search
	}
	return w
}

// list reads one page of the list and its total.
func (q *eventQuery) list(store *models.Store, page models.Page) ([]models.Event, int64, error) {
	if q.collapsed != nil {
		return q.on(store).ListCollapsed(q.collapsed.filters, page, q.collapsed.window)
	}
	return q.on(store).ListEventsIn(q.scopes, page, q.countable)
}

// on returns the store that reads the list's events: store, or the same planned for the list's values.
func (q *eventQuery) on(store *models.Store) *models.Store {
	if q.plannedForValues {
		return store.PlannedForValues()
	}
	return store
}

// List handles GET /events: the events the caller may see that pass every filter, ordered by start then ID, one
// page at a time. A page past the last is 404 event-archive-page-not-found.
// With Accept preferring text/calendar the answer is the iCalendar feed of the same query (see Feed).
func (ec *EventController) List(c *gin.Context, in *EventListInput) error {
	if WantsCalendar(c) {
		return ec.feed(c, &in.EventFilters)
	}
	user := models.UserFrom(c.Request.Context())
	store := ec.Store.WithContext(c.Request.Context())
	page := in.Resolve(ec.Config.MaxPerPage)
	sp, err := ec.beginSync(c, store, models.ChangeEvent, in.SyncInput, page)
	if err != nil {
		return err
	}
	in.syncing = sp.active
	q, err := ec.eventListQuery(store, &in.EventFilters, user, RequestTime(c))
	if err != nil {
		return err
	}
	q.args = append(endpoint.QueryArgs{}.Add("page", strconv.Itoa(page.Number)).Add("per_page", strconv.Itoa(page.Size)),
		q.args...)
	events, total, err := ec.listPage(store, q, page, sp)
	if err != nil {
		return err
	}
	if err := store.LoadEventLinks(events); err != nil {
		return err
	}
	if (len(events) == 0 && len(sp.ids) == 0) && page.Number > 1 {
		return models.Errorf(models.KindNotFound, "event-archive-page-not-found",
			"The requested event archive page does not exist")
	}
	site := ec.Site(c)
	shaper := ec.shaper(site, Viewer{User: user}).rememberingAt(c.Request.Context())
	out := EventList{Events: make([]EventRecord, len(events)),
		eventListTail: eventListTail{Total: total, TotalPages: endpoint.TotalPages(total, page.Size)}}
	shown := make([]uint64, len(events))
	for i := range events {
		out.Events[i] = shaper.listRecord(&events[i])
		shown[i] = events[i].ID
	}
	if sp.active {
		deleted := sp.deleted(shown)
		out.Deleted = &deleted
	}
	links := pageLinks(site.Root+"/events/", q.args, page.Number, out.TotalPages)
	out.RestURL, out.NextRestURL, out.PreviousRestURL = links.Self, links.Next, links.Previous
	endpoint.SetListHeaders(c, total, out.TotalPages, links)
	return writeOwnJSON(c, http.StatusOK, out)
}

// listPage reads one page of the list; for a sync, the page's changed events that pass the filters, and the
// number of changed events as the total.
func (ec *EventController) listPage(store *models.Store, q *eventQuery, page models.Page,
	sp syncPage) ([]models.Event, int64, error) {
	if !sp.active {
		return q.list(store, page)
	}
	q.args = q.args.Add("sync_token", sp.linkToken)
	if len(sp.ids) == 0 {
		return nil, sp.total, nil
	}
	q.add(models.EventsWithIDs(sp.ids))
	events, _, err := q.on(store).ListEvents(q.scopes, models.Page{Number: 1, Size: len(sp.ids)})
	return events, sp.total, err
}

// eventListQuery turns the filters into scopes and echoed arguments, in the order rest_url lists them after
// page and per_page, and reports every bad parameter at once. A new filter adds its scope with
// q.add and echoes its arguments where The Events Calendar lists them.
func (ec *EventController) eventListQuery(store *models.Store, in *EventFilters, user *models.User,
	now time.Time) (*eventQuery, error) {
	q := &eventQuery{scopes: []models.Scope{models.EventsListed(), models.EventsVisibleTo(user)}}
	invalid := map[string]string{}

	bounds := ec.listDateBounds(in, now, invalid)
	bounds.addWindow(q, ec.Config.Timezone)
	if in.Search.Set {
		terms := searchTerms(in.Search.V)
		if len(terms) == 0 {
			invalid["search"] = "must not be empty"
		} else {
			q.addSearch(terms, user)
			q.args = q.args.Add("search", in.Search.V)
		}
	}
	ec.addGeoFilter(q, &in.EventGeoInput, invalid)
	statusArg, err := listStatuses(in.Status, user)
	if err != nil {
		invalid["status"] = err.Error()
	}
	q.statuses = listStatusList(statusArg)
	q.addBound(models.EventsWithStatus(q.statuses...))
	q.args = q.args.Add("status", statusArg)
	if in.PostParent.Set {
		if err := checkListParent(store, in.PostParent.V, user); err != nil {
			invalid["post_parent"] = err.Error()
		} else {
			q.add(models.EventsWithParent(uint64(in.PostParent.V)))
			q.args = q.args.Add("post_parent", strconv.FormatInt(in.PostParent.V, 10))
		}
	}
	if in.Include.Set {
		if len(in.Include.V) == 0 {
			invalid["include"] = "must list at least one event ID"
		}
		q.add(models.EventsWithIDs(toIDs(in.Include.V)))
		q.args = q.args.Add("include", csv(in.Include.V))
	}
	if err := addSeriesFilter(q, store, in, user, invalid); err != nil {
		return nil, err
	}
	bounds.addRelative(q, ec.Config.Timezone)
	addFlagFilter(q, "ticketed", in.Ticketed, models.EventsTicketed)
	refs, err := resolveListRefs(store, in, invalid)
	if err != nil {
		return nil, err
	}
	addLinkFilters(q, in, refs)
	addFlagFilter(q, "featured", in.Featured, models.EventsFeatured)
	addTermFilters(q, in, refs)
	if bounds.strict {
		q.args = q.args.Add("strict_dates", "1")
	}
	if len(invalid) > 0 {
		return nil, models.Invalid(invalid)
	}
	// The window is taken before collapse_series=true, which makes the list no window: a collapsed list is paged
	// with its other filters and totalled per series (models.Store.ListCollapsed).
	w := q.window(bounds, user)
	collapse := in.CollapseSeries.Set && in.CollapseSeries.V
	bounds.addImplied(q, w.DaysTotal() && !collapse)
	if collapse {
		addCollapseSeries(q, w)
	} else {
		q.countable = w
	}
	return q, nil
}

// resolveListRefs finds, in one query, the categories (with their descendants), tags, venues and organizers the
// list filters by; an empty list or a ref that names nothing is reported in invalid.
func resolveListRefs(store *models.Store, in *EventFilters, invalid map[string]string) (models.ListRefIDs, error) {
	var refs models.ListRefs
	for _, f := range []struct {
		name  string
		set   bool
		empty bool
	}{
		{"categories", in.Categories.Set, len(in.Categories.V) == 0}, {"tags", in.Tags.Set, len(in.Tags.V) == 0},
		{"venue", in.Venue.Set, len(in.Venue.V) == 0}, {"organizer", in.Organizer.Set, len(in.Organizer.V) == 0},
	} {
		if f.set && f.empty {
			invalid[f.name] = "must list at least one ID or slug"
		}
	}
	refs.Categories, refs.Tags = in.Categories.V, in.Tags.V
	refs.Venues, refs.Organizers = toIDs(in.Venue.V), toIDs(in.Organizer.V)
	ids, err := store.ResolveListRefs(refs)
	if err != nil {
		return ids, collectInvalid(invalid, err)
	}
	return ids, nil
}

// addLinkFilters applies venue and organizer: events linked to any of the IDs (OR within a list, AND between
// the two). With a categories filter too, the venue filter applies both (pairsVenuesAndCategories).
func addLinkFilters(q *eventQuery, in *EventFilters, refs models.ListRefIDs) {
	venues := models.EventsAtVenues
	if pairsVenuesAndCategories(in, refs) {
		venues = func(ids []uint64) models.Scope { return models.EventsAtVenuesInCategories(ids, refs.Categories) }
	}
	for _, f := range []struct {
		name  string
		param endpoint.Opt[[]int64]
		ids   []uint64
		scope func([]uint64) models.Scope
	}{
		{"venue", in.Venue, refs.Venues, venues},
		{"organizer", in.Organizer, refs.Organizers, models.EventsByOrganizers},
	} {
		if f.param.Set && len(f.ids) > 0 {
			q.add(f.scope(f.ids))
			q.args = q.args.Add(f.name, csv(f.param.V))
		}
	}
}

// pairsVenuesAndCategories tells whether the list filters by venue and by category, which one scope applies
// together (models.EventsAtVenuesInCategories).
func pairsVenuesAndCategories(in *EventFilters, refs models.ListRefIDs) bool {
	return in.Venue.Set && len(refs.Venues) > 0 && in.Categories.Set && len(refs.Categories) > 0
}

// addTermFilters applies categories and tags (IDs or slugs): events with any of the categories (or their
// descendants) and any of the tags; addLinkFilters applies categories along with a venue filter. Unlike The Events
// Calendar, rest_url echoes them, so that its next and previous links keep the filter.
func addTermFilters(q *eventQuery, in *EventFilters, refs models.ListRefIDs) {
	categories := q.addCategories
	if pairsVenuesAndCategories(in, refs) {
		categories = nil
	}
	for _, f := range []struct {
		name  string
		param endpoint.Opt[[]string]
		ids   []uint64
		apply func([]uint64)
	}{
		{"categories", in.Categories, refs.Categories, categories},
		{"tags", in.Tags, refs.Tags, func(ids []uint64) { q.add(models.EventsWithTags(ids)) }},
	} {
		if f.param.Set && len(f.ids) > 0 {
			if f.apply != nil {
				f.apply(f.ids)
			}
			q.args = q.args.Add(f.name, strings.Join(f.param.V, ","))
		}
	}
}

// addFlagFilter applies a boolean filter and echoes it as 1 or 0, as The Events Calendar echoes featured.
func addFlagFilter(q *eventQuery, name string, flag endpoint.Opt[bool], scope func(bool) models.Scope) {
	if !flag.Set {
		return
	}
	q.add(scope(flag.V))
	value := "0"
	if flag.V {
		value = "1"
	}
	q.args = q.args.Add(name, value)
}

// listStatuses checks the status filter and returns its effective value: exactly publish for
// callers who cannot edit events; any known statuses (or any) for those who can; by default publish or any.
func listStatuses(status endpoint.Opt[[]string], user *models.User) (string, error) {
	if !user.CanSeeAllStatuses() {
		if status.Set && (len(status.V) != 1 || status.V[0] != models.StatusPublish) {
			return models.StatusPublish, errors.New("only published events may be listed without edit rights")
		}
		return models.StatusPublish, nil
	}
	if !status.Set {
		return "any", nil
	}
	if len(status.V) == 0 {
		return "any", errors.New("must name at least one status")
	}
	for _, s := range status.V {
		if s != "any" && !models.IsStatus(s) {
			return "any", errors.New("must be any or one of: " + strings.Join(models.Statuses, ", "))
		}
	}
	return strings.Join(status.V, ","), nil
}

// listStatusList is the statuses an effective status argument keeps, each once ("any" is every status but trash).
func listStatusList(effective string) []string {
	var statuses []string
	for _, s := range strings.Split(effective, ",") {
		if s == "any" {
			statuses = append(statuses, models.StatusPublish, models.StatusFuture, models.StatusDraft,
				models.StatusPending, models.StatusPrivate)
			continue
		}
		statuses = append(statuses, s)
	}
	return dedupe(statuses)
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// checkListParent verifies that post_parent names an event the caller may read (else 400).
func checkListParent(store *models.Store, id int64, user *models.User) error {
	if id <= 0 {
		return errors.New("must be the ID of an event")
	}
	parent, err := store.EventByID(uint64(id))
	switch {
	case errors.Is(err, models.ErrNotFound) || (err == nil && !user.CanRead(parent.Owned())):
		return errors.New("no event with this ID exists")
	case err != nil:
		return err
	}
	return nil
}

// maxSearchTerms is how many terms a search takes apart; WordPress searches for a longer text as one phrase.
const maxSearchTerms = 9

// searchTermPattern finds the terms of a search as WordPress does: "quoted phrases" whole, other words split at
// spaces, tabs, commas and plus signs.
var searchTermPattern = regexp.MustCompile(`"[^"]*("|$)|[^\t\n\r ",+]+`)

// searchTerms splits a search into the terms that must all appear.
func searchTerms(s string) []string {
	var terms []string
	for _, m := range searchTermPattern.FindAllString(s, -1) {
		if t := strings.TrimSpace(strings.Trim(m, `"`)); t != "" {
			terms = append(terms, t)
		}
	}
	if len(terms) > maxSearchTerms {
		return []string{strings.TrimSpace(s)}
	}
	return terms
}

// eventBoundParams are the date bounds of the event list.
var eventBoundParams = []string{"start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after"}

// ListClock is the clock of GET /events (see Endpoint.Clock). With include no date bound applies, so the answer
// does not depend on the time; a bound relative to now ("now", "+5 days", "next friday") makes it depend on the
// second; the default window (start_date or end_date absent, and no starts_*/ends_* bound) on the site's day;
// absolute bounds on nothing.
func (ec *EventController) ListClock(c *gin.Context) string {
	p, err := endpoint.RequestParams(c)
	if err != nil {
		return ClockSecond(c)
	}
	if p.Has("include") {
		return ""
	}
	for _, name := range eventBoundParams {
		if raw, ok := p.Lookup(name); ok && raw != nil && !ec.isAbsoluteDate(raw) {
			return ClockSecond(c)
		}
	}
	dropsDefaults := false
	for _, name := range eventBoundParams[2:] {
		dropsDefaults = dropsDefaults || p.Has(name)
	}
	if !dropsDefaults && (!p.Has("start_date") || !p.Has("end_date")) {
		return ec.ClockDay(c)
	}
	return ""
}

// isAbsoluteDate tells whether a date parameter names the same instant whenever it is read: a timestamp, or a
// form that parses alike a second and a year apart. Anything unparseable counts as relative (it is answered 400).
func (ec *EventController) isAbsoluteDate(raw any) bool {
	var s string
	switch v := raw.(type) {
	case json.Number:
		return true
	case string:
		s = v
	default:
		return false
	}
	base := time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC)
	a, errA := input.ParseDate(s, base, ec.Config.Timezone)
	b, errB := input.ParseDate(s, base.Add(time.Second), ec.Config.Timezone)
	c, errC := input.ParseDate(s, base.AddDate(1, 2, 3), ec.Config.Timezone)
	return errA == nil && errB == nil && errC == nil && a.Equal(b) && a.Equal(c)
}
