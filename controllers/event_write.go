package controllers

import (
	"errors"
	"strings"
	"time"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// EventFields are the writable fields of an event, the same for create and every update
// method. On update an omitted field (or one sent as JSON null) is unchanged, except the clearable ones (cost,
// website, image, parent and the links), which null clears.
type EventFields struct {
	Title            endpoint.Opt[string]          `param:"title" doc:"The event title, plain text (tags are removed)."`
	Description      endpoint.Opt[string]          `param:"description" doc:"The event description, HTML (sanitised against an allow-list)."`
	Slug             endpoint.Opt[string]          `param:"slug" doc:"The event slug; generated from the title when absent, made unique with -2, -3, …"`
	Excerpt          endpoint.Opt[string]          `param:"excerpt" doc:"The event excerpt, HTML (sanitised against an allow-list)."`
	Status           endpoint.Opt[string]          `param:"status" enum:"publish,future,draft,pending,private,trash" doc:"The event status. Users who cannot publish get pending for publish or future. An update without status keeps it; an update with a status restores a trashed event (a cancelled occurrence of a series comes back into its rule: no longer an EXDATE, an RDATE where the rule ended before it). trash is only valid on update (it moves the event to the trash)."`
	Author           endpoint.Opt[int64]           `param:"author" doc:"The ID of the event's author; defaults to the current user. Only editors and administrators may name another user."`
	Date             endpoint.Opt[DateParam]       `param:"date" doc:"The publication date, read in the request's timezone or the site timezone."`
	DateUTC          endpoint.Opt[DateParam]       `param:"date_utc" doc:"The publication date in UTC; wins over date when both are sent."`
	Timezone         endpoint.Opt[string]          `param:"timezone" doc:"The event timezone: an IANA name (America/New_York), UTC, or an offset such as UTC+2 or UTC-5:30. Defaults to the site timezone."`
	AllDay           endpoint.Opt[bool]            `param:"all_day" doc:"Whether the event lasts all day: its start becomes 00:00:00 of the start day and its end 23:59:59 of the end day."`
	StartDate        endpoint.Opt[DateParam]       `param:"start_date" doc:"The start: YYYY-MM-DD HH:MM[:SS], YYYY-MM-DDTHH:MM[:SS], RFC 3339, YYYY-MM-DD, a Unix timestamp, or a relative form (now, today, tomorrow 9am, next wednesday 4pm, +5 days, -1 month, 2018-01-01 4pm). Naive text is read in the timezone of the request, else of the event (on update), else of the site."`
	EndDate          endpoint.Opt[DateParam]       `param:"end_date" doc:"The end, in the forms start_date accepts; not before the start."`
	Image            endpoint.Opt[ImageRef]        `param:"image" doc:"The featured image: the ID of a known image, or an http(s) URL recorded as an image on first use. \"\", 0 or null removes it."`
	Cost             endpoint.Opt[CostParam]       `param:"cost" doc:"The cost: text (\"20$\", \"€15\", \"Free\", \"10-20\") or a list of values; null or \"\" removes it."`
	Website          endpoint.Opt[string]          `param:"website" doc:"The event website, an http(s) URL; \"\" or null removes it (the event's page is shown instead)."`
	ShowMap          endpoint.Opt[bool]            `param:"show_map" doc:"Whether to show a map."`
	ShowMapLink      endpoint.Opt[bool]            `param:"show_map_link" doc:"Whether to show a map link."`
	HideFromListings endpoint.Opt[bool]            `param:"hide_from_listings" doc:"Whether to hide the event from listings (it is never listed, but stays readable)."`
	Sticky           endpoint.Opt[bool]            `param:"sticky" doc:"Whether the event is sticky in calendar views."`
	Featured         endpoint.Opt[bool]            `param:"featured" doc:"Whether the event is featured."`
	Ticketed         endpoint.Opt[bool]            `param:"ticketed" default:"false" doc:"Whether the event has tickets."`
	Parent           endpoint.Opt[ParentParam]     `param:"parent" doc:"The ID of the parent event (not the event itself or one of its descendants); 0, \"\" or null for none."`
	Categories       endpoint.Opt[LinksParam]      `param:"categories" doc:"Event categories: IDs, names or slugs, as a list or CSV; unknown names are created if the caller may create categories (as POST /categories: authors and above), else 403 rest_forbidden naming categories and nothing is written; unknown IDs are rejected. Replaces the event's categories; [] removes all."`
	Tags             endpoint.Opt[LinksParam]      `param:"tags" doc:"Event tags: IDs, names or slugs, as a list or CSV; unknown names are created if the caller may create tags (as POST /tags: editors and above), else 403 rest_forbidden naming tags and nothing is written; unknown IDs are rejected. Replaces the event's tags; [] removes all."`
	Venue            endpoint.Opt[LinksParam]      `param:"venue" doc:"Venues: IDs, CSV of IDs, {\"id\": N}, inline venue objects (created with the event), or a mix. Replaces the event's venues; 0, \"\", [] or null removes them."`
	Organizer        endpoint.Opt[LinksParam]      `param:"organizer" doc:"Organizers, in order: IDs, CSV of IDs, {\"id\": N}, inline organizer objects (created with the event), or a mix. Replaces the event's organizers; [] removes all."`
	Recurrence       endpoint.Opt[RecurrenceParam] `param:"recurrence" doc:"Makes the event a series: RFC 5545 lines, one or more RRULE and any RDATE and EXDATE (e.g. [\"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10\", \"EXDATE:20260113T180000\"]). start_date and end_date are the first occurrence and give every occurrence its length; rules are read in the event's timezone. Date-times are naive in the event's timezone or UTC with Z; an all-day series takes VALUE=DATE forms (EXDATE;VALUE=DATE:20260113). FREQ=SECONDLY and MINUTELY, COUNT with UNTIL, and more than 5000 occurrences up to the horizon are refused. On update, [] or null ends the series: its occurrences are removed; a moved start moves the RDATE and EXDATE dates with the occurrences."`
}

// eventWrite is a validated write: the fields as they apply to an event, once the transaction has found it.
type eventWrite struct {
	in       *EventFields
	password endpoint.Opt[string]
	user     *models.User
	now      time.Time
	creating bool
	// slug is the base of the new slug ("" for no change); the transaction makes it unique.
	slug string
	// links are the linked records sent, resolved to IDs in the transaction.
	links models.EventLinkIDs
	// found are the existing linked records the write named, read in one statement (eventRefs): by an update
	// before it locks the event, else while resolving the links.
	found *models.FoundRefs
}

// checkEventFields validates what needs no database and reports every bad parameter in one error, before the
// record is looked up: validation answers before permissions.
func (ec *EventController) checkEventFields(w *eventWrite) error {
	in := w.in
	invalid := map[string]string{}
	if in.Title.Set && input.PlainText(in.Title.V) == "" {
		invalid["title"] = "must not be empty"
	}
	if in.Slug.Set {
		if strings.TrimSpace(in.Slug.V) != "" {
			if w.slug = models.Slugify(in.Slug.V, ""); w.slug == "" {
				invalid["slug"] = "must contain letters or digits"
			}
		} else {
			w.slug = eventSlugBase(in)
		}
	}
	if in.Status.Set {
		switch {
		case !models.IsStatus(in.Status.V):
			invalid["status"] = "must be one of: " + strings.Join(models.Statuses, ", ")
		case in.Status.V == models.StatusTrash && w.creating:
			invalid["status"] = "an event cannot be created in the trash"
		}
	}
	if in.Author.Set && in.Author.V <= 0 {
		invalid["author"] = "must be the ID of an existing user"
	}
	if in.Timezone.Set {
		if _, _, err := input.ParseTimezone(in.Timezone.V); err != nil {
			invalid["timezone"] = err.Error()
		}
	}
	for name, d := range map[string]endpoint.Opt[DateParam]{"start_date": in.StartDate, "end_date": in.EndDate,
		"date": in.Date, "date_utc": in.DateUTC} {
		if d.Set {
			if _, err := input.ParseDate(d.V.Text, w.now, time.UTC); err != nil {
				invalid[name] = err.Error()
			}
		}
	}
	if in.Website.Set && strings.TrimSpace(in.Website.V) != "" && !isWebURL(strings.TrimSpace(in.Website.V)) {
		invalid["website"] = "must be an http or https URL"
	}
	if in.Image.Set && in.Image.V.URL != "" && !w.user.CanPublish() {
		// Adding an image by URL needs upload_files, which contributors lack.
		invalid["image"] = "only users who can publish may add images by URL; use the ID of a known image"
	}
	if w.password.Set && len(w.password.V) > 255 {
		invalid["password"] = "must be at most 255 characters long"
	}
	for name, terms := range map[string]endpoint.Opt[LinksParam]{"categories": in.Categories, "tags": in.Tags} {
		if _, err := termRefs(terms); err != nil {
			invalid[name] = err.Error()
		}
	}
	if len(invalid) > 0 {
		return models.Invalid(invalid)
	}
	return nil
}

// eventSlugBase is the slug generated from the title sent (for an update that asks for a fresh slug without a
// title, the caller falls back to the stored title).
func eventSlugBase(in *EventFields) string {
	return models.Slugify(input.PlainText(in.Title.V), "event")
}

// applyEventWrite changes e as w asks, inside the transaction tx: dates, fields, status, then what needs the
// database (author, image, parent, unique slug). It reports every invalid parameter it finds in one error; a
// database failure is returned as it is.
func (ec *EventController) applyEventWrite(tx *models.Store, e *models.Event, w *eventWrite) error {
	in := w.in
	invalid := map[string]string{}
	ec.applyEventDates(e, w, invalid)
	ec.applyEventText(e, in)
	ec.applyEventFlags(e, in)
	if in.Status.Set || w.creating {
		ec.applyEventStatus(e, w)
	}
	if w.password.Set {
		e.Password = models.HashRecordPassword(w.password.V)
	}
	for _, apply := range []func(*models.Store, *models.Event, *eventWrite, map[string]string) error{
		ec.applyEventAuthor, ec.applyEventImage, ec.applyEventParent, ec.resolveEventLinks,
	} {
		if err := apply(tx, e, w, invalid); err != nil {
			return err
		}
	}
	if len(invalid) > 0 {
		return models.Invalid(invalid)
	}
	return ec.applyEventSlug(tx, e, w)
}

// applyEventText sets the text fields, cost and website.
func (ec *EventController) applyEventText(e *models.Event, in *EventFields) {
	if in.Title.Set {
		e.Title = input.PlainText(in.Title.V)
	}
	if in.Description.Set {
		e.Description = input.SanitizeHTML(in.Description.V)
	}
	if in.Excerpt.Set {
		e.Excerpt = input.SanitizeHTML(in.Excerpt.V)
	}
	if in.Cost.Set || in.Cost.Null {
		e.Cost = costColumn(in.Cost.V.Cost)
	}
	if in.Website.Set || in.Website.Null {
		e.Website = strings.TrimSpace(in.Website.V)
	}
}

// applyEventFlags sets the presentation flags that were sent.
func (ec *EventController) applyEventFlags(e *models.Event, in *EventFields) {
	for _, f := range []struct {
		opt endpoint.Opt[bool]
		dst *bool
	}{
		{in.ShowMap, &e.ShowMap}, {in.ShowMapLink, &e.ShowMapLink}, {in.HideFromListings, &e.HideFromListings},
		{in.Sticky, &e.Sticky}, {in.Featured, &e.Featured}, {in.Ticketed, &e.Ticketed},
	} {
		if f.opt.Set {
			*f.dst = f.opt.V
		}
	}
}

// applyEventStatus applies the scale-back rule to the status sent, and moves the event into or
// out of the trash: a trashed event remembers its status, which decides permissions on it.
func (ec *EventController) applyEventStatus(e *models.Event, w *eventWrite) {
	status := w.user.ScaleBackStatus(w.in.Status.V, e.Status, w.creating)
	switch {
	case status == models.StatusTrash && e.Status != models.StatusTrash:
		e.TrashedStatus, e.Status = e.Status, models.StatusTrash
	case status != models.StatusTrash:
		e.TrashedStatus, e.Status = "", status
	}
}

// applyEventAuthor sets the author sent (models.Store.AssignEventAuthor has the rule).
func (ec *EventController) applyEventAuthor(tx *models.Store, e *models.Event, w *eventWrite, invalid map[string]string) error {
	if !w.in.Author.Set {
		return nil
	}
	return collectInvalid(invalid, tx.AssignEventAuthor(w.user, e, uint64(w.in.Author.V), w.creating))
}

// applyEventImage links the image sent: a known ID, or a URL recorded on first use; "", 0 or null removes it.
func (ec *EventController) applyEventImage(tx *models.Store, e *models.Event, w *eventWrite, invalid map[string]string) error {
	in := w.in
	if !in.Image.Set && !in.Image.Null {
		return nil
	}
	if in.Image.Null {
		e.ImageID, e.Image = nil, nil
		return nil
	}
	img, err := ec.ResolveImage(tx, "image", in.Image.V)
	switch {
	case err != nil:
		return collectInvalid(invalid, err)
	case img == nil:
		e.ImageID, e.Image = nil, nil
	default:
		e.ImageID, e.Image = &img.ID, img
	}
	return nil
}

// applyEventParent sets the parent sent (models.Store.AssignEventParent has the rule).
func (ec *EventController) applyEventParent(tx *models.Store, e *models.Event, w *eventWrite, invalid map[string]string) error {
	if !w.in.Parent.Set && !w.in.Parent.Null {
		return nil
	}
	return collectInvalid(invalid, tx.AssignEventParent(w.user, e, w.in.Parent.V.ID))
}

// applyEventSlug gives an updated event the slug sent, unique among events; for a new event it settles the base
// of its slug (w.slug), which the insert makes unique.
func (ec *EventController) applyEventSlug(tx *models.Store, e *models.Event, w *eventWrite) error {
	base := w.slug
	switch {
	case base == "" && w.creating:
		base = models.Slugify(e.Title, "event")
	case base == "":
		return nil
	case !w.in.Title.Set && strings.TrimSpace(w.in.Slug.V) == "":
		base = models.Slugify(e.Title, "event")
	}
	if w.creating {
		w.slug = base // CreateEventWithSlug makes it unique as it inserts the event
		return nil
	}
	slug, err := tx.UniqueSlug("events", base, e.ID)
	if err != nil {
		return err
	}
	e.Slug = slug
	return nil
}

// applyEventDates sets the timezone, the start and end, all_day and the publication date. Naive text
// is read in the timezone sent, else the event's (on update), else the site's. Sending one of start and end keeps
// the other; all_day snaps both to whole days in the event's timezone; the end may not be before the start.
func (ec *EventController) applyEventDates(e *models.Event, w *eventWrite, invalid map[string]string) {
	in := w.in
	loc, name := ec.Config.Timezone, ec.Config.TimezoneName
	if !w.creating {
		loc, name = eventLocation(e.Timezone), e.Timezone
	}
	if in.Timezone.Set {
		if l, n, err := input.ParseTimezone(in.Timezone.V); err == nil {
			if !w.creating && n != e.Timezone {
				// A new zone keeps the wall clock: the event still starts at 10:00, now in the new zone.
				e.StartUTC, e.EndUTC = sameWallClock(e.StartUTC, loc, l), sameWallClock(e.EndUTC, loc, l)
			}
			loc, name = l, n
		}
	}
	e.Timezone = name
	start, end := e.StartUTC, e.EndUTC
	if in.StartDate.Set {
		if t, err := input.ParseDate(in.StartDate.V.Text, w.now, loc); err == nil {
			start = t
		}
	}
	if in.EndDate.Set {
		if t, err := input.ParseDate(in.EndDate.V.Text, w.now, loc); err == nil {
			end = t
		}
	}
	if in.AllDay.Set {
		e.AllDay = in.AllDay.V
	}
	if e.AllDay {
		start, end = startOfDay(start, loc), input.EndOfDay(end, loc)
	}
	start, end = start.UTC().Truncate(time.Second), end.UTC().Truncate(time.Second)
	if end.Before(start) {
		if in.EndDate.Set || w.creating {
			invalid["end_date"] = "must not be before the start date (" + FormatDate(start, loc) + ")"
		} else {
			invalid["start_date"] = "must not be after the end date (" + FormatDate(end, loc) + ")"
		}
	}
	e.StartUTC, e.EndUTC = start, end
	e.TimezoneAbbr = input.TimezoneAbbr(loc, name, start)
	ec.applyPublicationDate(e, w, loc)
}

// applyPublicationDate sets the publication date: date_utc as UTC, else date in the request's or site's zone,
// else (on create) now.
func (ec *EventController) applyPublicationDate(e *models.Event, w *eventWrite, eventLoc *time.Location) {
	in := w.in
	loc := ec.Config.Timezone
	if in.Timezone.Set {
		loc = eventLoc
	}
	switch {
	case in.DateUTC.Set:
		if t, err := input.ParseDate(in.DateUTC.V.Text, w.now, time.UTC); err == nil {
			e.PublishedAt = t.UTC().Truncate(time.Second)
		}
	case in.Date.Set:
		if t, err := input.ParseDate(in.Date.V.Text, w.now, loc); err == nil {
			e.PublishedAt = t.UTC().Truncate(time.Second)
		}
	case w.creating:
		e.PublishedAt = w.now.UTC().Truncate(time.Second)
	}
}

// sameWallClock is the instant that shows in zone to the same wall clock t shows in from.
func sameWallClock(t time.Time, from, to *time.Location) time.Time {
	w := t.In(from)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, to)
}

// startOfDay is 00:00:00 of t's day in loc.
func startOfDay(t time.Time, loc *time.Location) time.Time {
	w := t.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, loc)
}

// collectInvalid adds the parameters of an invalid-parameter error to invalid, so that one answer names every bad
// parameter; any other error is returned.
func collectInvalid(invalid map[string]string, err error) error {
	var e *models.Error
	if errors.As(err, &e) && e.Kind == models.KindInvalid && len(e.Params) > 0 {
		for name, reason := range e.Params {
			invalid[name] = reason
		}
		return nil
	}
	return err
}

// termRefs reads a categories or tags parameter: IDs, names or slugs, as a list or CSV; null, "" and [] are none.
func termRefs(p endpoint.Opt[LinksParam]) ([]string, error) {
	if !p.Set || isEmptyLinks(p.V.Raw) {
		return []string{}, nil
	}
	return endpoint.DecodeStringList(p.V.Raw)
}

// resolveEventLinks turns the venue, organizer, categories and tags sent into IDs: inline venues and
// organizers are created, unknown category and tag names too, in the write's transaction. JSON null counts as
// empty: it removes the links.
func (ec *EventController) resolveEventLinks(tx *models.Store, _ *models.Event, w *eventWrite, invalid map[string]string) error {
	in := w.in
	found := w.found
	if found == nil { // not read yet, or read and naming nothing: then reading again costs no statement
		var err error
		if found, err = tx.FindEventRefs(eventRefs(in)); err != nil {
			return err
		}
		w.found = found
	}
	resolvers := []struct {
		param endpoint.Opt[LinksParam]
		dst   *[]uint64
		fn    func() ([]uint64, error)
	}{
		{in.Venue, &w.links.Venues, func() ([]uint64, error) { return venueKind.resolve(ec.App, tx, w.user, in.Venue.V.Raw, found) }},
		{in.Organizer, &w.links.Organizers, func() ([]uint64, error) {
			return organizerKind.resolve(ec.App, tx, w.user, in.Organizer.V.Raw, found)
		}},
		{in.Categories, &w.links.Categories, func() ([]uint64, error) {
			refs, _ := termRefs(in.Categories)
			return tx.ResolveCategoriesFound(refs, found, w.user)
		}},
		{in.Tags, &w.links.Tags, func() ([]uint64, error) {
			refs, _ := termRefs(in.Tags)
			return tx.ResolveTagsFound(refs, found, w.user)
		}},
	}
	for _, r := range resolvers {
		if !r.param.Set && !r.param.Null {
			continue
		}
		ids, err := r.fn()
		if err != nil {
			if err := collectInvalid(invalid, err); err != nil {
				return err
			}
			continue
		}
		*r.dst = append([]uint64{}, ids...)
	}
	return nil
}

// eventRefs are the existing records the links sent name, for looking them all up in one read: the IDs of the
// venue and organizer parameters (what does not parse is left to their resolvers, which report it) and the
// category and tag refs.
func eventRefs(in *EventFields) models.EventRefs {
	var refs models.EventRefs
	if in.Venue.Set {
		if items, err := venueKind.linkedItems(in.Venue.V.Raw, true); err == nil {
			refs.Venues = linkedIDs(items)
		}
	}
	if in.Organizer.Set {
		if items, err := organizerKind.linkedItems(in.Organizer.V.Raw, true); err == nil {
			refs.Organizers = linkedIDs(items)
		}
	}
	if in.Categories.Set {
		refs.Categories, _ = termRefs(in.Categories)
	}
	if in.Tags.Set {
		refs.Tags, _ = termRefs(in.Tags)
	}
	return refs
}

// seriesEdit is what an update sends that the series rules read.
func seriesEdit(in *EventUpdateParams) models.SeriesEdit {
	return models.SeriesEdit{Fields: sentFields(&in.EventFields, in.Password), Recurrence: in.Recurrence.V.Lines,
		RecurrenceSent: in.Recurrence.Set || in.Recurrence.Null, HideFromListings: in.HideFromListings.Ptr(),
		Scope: in.Scope.Ptr()}
}

// sentFields are the API names of the fields a write sends, as an occurrence records what it changed on its own
// (its dates are one field: "dates").
func sentFields(in *EventFields, password endpoint.Opt[string]) []string {
	var out []string
	add := func(name string, sent bool) {
		if sent {
			out = append(out, name)
		}
	}
	add("title", in.Title.Set)
	add("description", in.Description.Set)
	add("excerpt", in.Excerpt.Set)
	add("status", in.Status.Set)
	add("author", in.Author.Set)
	add("date", in.Date.Set || in.DateUTC.Set)
	add("dates", in.Timezone.Set || in.AllDay.Set || in.StartDate.Set || in.EndDate.Set)
	add("image", in.Image.Set || in.Image.Null)
	add("cost", in.Cost.Set || in.Cost.Null)
	add("website", in.Website.Set || in.Website.Null)
	add("show_map", in.ShowMap.Set)
	add("show_map_link", in.ShowMapLink.Set)
	add("hide_from_listings", in.HideFromListings.Set)
	add("sticky", in.Sticky.Set)
	add("featured", in.Featured.Set)
	add("ticketed", in.Ticketed.Set)
	add("parent", in.Parent.Set || in.Parent.Null)
	add("venue", in.Venue.Set || in.Venue.Null)
	add("organizer", in.Organizer.Set || in.Organizer.Null)
	add("categories", in.Categories.Set || in.Categories.Null)
	add("tags", in.Tags.Set || in.Tags.Null)
	add("password", password.Set)
	return out
}
