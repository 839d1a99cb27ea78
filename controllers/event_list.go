package controllers

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// EventListInput holds the parameters of GET /events (seed §4 "Event list filters").
type EventListInput struct {
	Paging
	StartDate    Opt[DateParam] `param:"start_date" doc:"Events that start on or after this date (inclusive mode: from 00:00:00 of its day). Default: 00:00 today, site time. Naive dates are read in the site timezone."`
	EndDate      Opt[DateParam] `param:"end_date" doc:"Events that end on or before this date (inclusive mode: until 23:59:59 of its day). Default: 23:59:59 of the day two years ahead."`
	StartsBefore Opt[DateParam] `param:"starts_before" doc:"Events that start before this date (inclusive mode: before 23:59:59 of its day). Any starts_* or ends_* parameter drops the default window."`
	StartsAfter  Opt[DateParam] `param:"starts_after" doc:"Events that start after this date (inclusive mode: after 23:59:59 of its day)."`
	EndsBefore   Opt[DateParam] `param:"ends_before" doc:"Events that end before this date (inclusive mode: before 23:59:59 of its day)."`
	EndsAfter    Opt[DateParam] `param:"ends_after" doc:"Events that end after this date (inclusive mode: after 23:59:59 of its day)."`
	StrictDates  Opt[bool]      `param:"strict_dates" default:"false" doc:"false: the date bounds cover whole days as described for each; true: the dates are used as given."`
	Search       Opt[string]    `param:"search" validate:"omitempty,max=500" doc:"Events whose title, description or excerpt contain every word, ignoring case; \"quoted phrases\" match whole."`
	Categories   Opt[[]string]  `param:"categories" doc:"Events in any of these categories (IDs or slugs, list or CSV), child categories included; unknown ones are 400."`
	Tags         Opt[[]string]  `param:"tags" doc:"Events with any of these tags (IDs or slugs, list or CSV); unknown ones are 400."`
	Venue        Opt[[]int64]   `param:"venue" doc:"Events at any of these venues (IDs, list or CSV); unknown ones are 400."`
	Organizer    Opt[[]int64]   `param:"organizer" doc:"Events by any of these organizers (IDs, list or CSV); unknown ones are 400."`
	Featured     Opt[bool]      `param:"featured" doc:"true: only featured events; false: only the others."`
	Status       Opt[[]string]  `param:"status" doc:"Events with any of these statuses (list or CSV; any = every status but trash). Visitors may only ask for publish; users who can edit events see every status they may read by default."`
	Include      Opt[[]int64]   `param:"include" doc:"Only the events with these IDs (list or CSV) that the caller may see; no date bound applies."`
	PostParent   Opt[int64]     `param:"post_parent" doc:"Only the children of this event."`
	Ticketed     Opt[bool]      `param:"ticketed" doc:"true: only ticketed events; false: only the others."`
}

// EventList is the envelope of GET /events (reference §2.1).
type EventList struct {
	Events          []EventRecord `json:"events"`
	RestURL         string        `json:"rest_url"`
	NextRestURL     string        `json:"next_rest_url,omitempty"`
	PreviousRestURL string        `json:"previous_rest_url,omitempty"`
	Total           int64         `json:"total"`
	TotalPages      int           `json:"total_pages"`
}

// eventQuery is a list request turned into store scopes, and the effective arguments its links echo.
type eventQuery struct {
	scopes []models.Scope
	args   QueryArgs
}

func (q *eventQuery) add(s models.Scope) { q.scopes = append(q.scopes, s) }

// List handles GET /events: the events the caller may see that pass every filter, ordered by start then ID, one
// page at a time. A page past the last is 404 event-archive-page-not-found.
func (ec *EventController) List(c *gin.Context, in *EventListInput) error {
	user := models.UserFrom(c.Request.Context())
	store := ec.Store.WithContext(c.Request.Context())
	page := in.Resolve(ec.Config.MaxPerPage)
	q, err := ec.eventListQuery(store, in, user, page, time.Now())
	if err != nil {
		return err
	}
	events, total, err := store.ListEvents(q.scopes, page)
	if err != nil {
		return err
	}
	if len(events) == 0 && page.Number > 1 {
		return models.Errorf(models.KindNotFound, "event-archive-page-not-found",
			"The requested event archive page does not exist")
	}
	site := ec.Site(c)
	shaper := ec.shaper(site, Viewer{User: user})
	out := EventList{Events: make([]EventRecord, len(events)), Total: total,
		TotalPages: TotalPages(total, page.Size)}
	for i := range events {
		out.Events[i] = shaper.listRecord(&events[i])
	}
	links := eventListLinks(site.Root+"/events/", q.args, page.Number, out.TotalPages)
	out.RestURL, out.NextRestURL, out.PreviousRestURL = links.Self, links.Next, links.Previous
	SetListHeaders(c, total, out.TotalPages, links)
	c.JSON(http.StatusOK, out)
	return nil
}

// eventListLinks are the list's URLs: next and previous only when those pages have events (reference §2.1);
// the previous link of page 2 has no page parameter.
func eventListLinks(base string, args QueryArgs, number, totalPages int) ListLinks {
	links := ListLinks{Self: args.URL(base)}
	if number < totalPages {
		links.Next = args.WithPage(number + 1).URL(base)
	}
	if number > 1 && number-1 <= totalPages {
		prev := number - 1
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

// eventListQuery turns the parameters into scopes and echoed arguments, in the order rest_url lists them
// (reference §2.1), and reports every bad parameter at once.
func (ec *EventController) eventListQuery(store *models.Store, in *EventListInput, user *models.User,
	page models.Page, now time.Time) (*eventQuery, error) {
	q := &eventQuery{scopes: []models.Scope{models.EventsListed(), models.EventsVisibleTo(user)}}
	q.args = q.args.Add("page", strconv.Itoa(page.Number)).Add("per_page", strconv.Itoa(page.Size))
	invalid := checkPaging(in.Paging)

	bounds := ec.listDateBounds(in, now, invalid)
	bounds.addWindow(q, ec.Config.Timezone)
	if in.Search.Set {
		terms := searchTerms(in.Search.V)
		if len(terms) == 0 {
			invalid["search"] = "must not be empty"
		} else {
			q.add(models.EventsMatching(terms))
			q.args = q.args.Add("search", in.Search.V)
		}
	}
	statusArg, err := listStatuses(in.Status, user)
	if err != nil {
		invalid["status"] = err.Error()
	}
	q.add(statusScope(statusArg))
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
		ids := make([]uint64, len(in.Include.V))
		for i, id := range in.Include.V {
			ids[i] = uint64(id)
		}
		q.add(models.EventsWithIDs(ids))
		q.args = q.args.Add("include", joinInts(in.Include.V))
	}
	bounds.addRelative(q, ec.Config.Timezone)
	addFlagFilter(q, "ticketed", in.Ticketed, models.EventsTicketed)
	for name, links := range map[string]bool{"venue": in.Venue.Set, "organizer": in.Organizer.Set,
		"categories": in.Categories.Set, "tags": in.Tags.Set} {
		if links {
			invalid[name] = "filtering by " + name + " is not available yet"
		}
	}
	addFlagFilter(q, "featured", in.Featured, models.EventsFeatured)
	if bounds.strict {
		q.args = q.args.Add("strict_dates", "1")
	}
	if len(invalid) > 0 {
		return nil, models.Invalid(invalid)
	}
	return q, nil
}

// checkPaging refuses a page or per_page of 0 or less (reference §2.4), which the omitempty of Paging's
// validation tags lets through: validator reads 0 as empty.
func checkPaging(p Paging) map[string]string {
	invalid := map[string]string{}
	if p.Page.Set && p.Page.V <= 0 {
		invalid["page"] = "must be greater than 0"
	}
	if p.PerPage.Set && p.PerPage.V <= 0 {
		invalid["per_page"] = "must be greater than 0"
	}
	return invalid
}

// addFlagFilter applies a boolean filter and echoes it as 1 or 0, as the reference echoes featured.
func addFlagFilter(q *eventQuery, name string, flag Opt[bool], scope func(bool) models.Scope) {
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

// listStatuses checks the status filter (reference §5.4) and returns its effective value: exactly publish for
// callers who cannot edit events; any known statuses (or any) for those who can; by default publish or any.
func listStatuses(status Opt[[]string], user *models.User) (string, error) {
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

// statusScope keeps the statuses of the effective status filter; any is every status but trash.
func statusScope(effective string) models.Scope {
	var statuses []string
	for _, s := range strings.Split(effective, ",") {
		if s == "any" {
			statuses = append(statuses, models.StatusPublish, models.StatusFuture, models.StatusDraft,
				models.StatusPending, models.StatusPrivate)
			continue
		}
		statuses = append(statuses, s)
	}
	return models.EventsWithStatus(dedupe(statuses)...)
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

// checkListParent verifies that post_parent names an event the caller may read (reference §4.2: else 400).
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

func joinInts(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
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
