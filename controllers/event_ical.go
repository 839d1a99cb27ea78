package controllers

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	ics "github.com/arran4/golang-ical"
	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/ical"
	"calendar/controllers/input"
	"calendar/models"
)

// This file serves events as iCalendar (RFC 5545): the feed GET /events.ics (also GET /events with
// Accept: text/calendar) and one event at GET /events/{id}.ics. golang-ical serialises every property (escaping,
// folding at 75 octets, CRLF); this file decides what each event says and streams the feed in batches.

// EventFeedInput holds the parameters of GET /events.ics: the filters of GET /events, without paging.
type EventFeedInput struct {
	EventFilters
}

// FeedDoc describes GET /events.ics in the namespace index and /doc.
const FeedDoc = "An iCalendar (RFC 5545) feed to subscribe to: the events GET /events returns for the same " +
	"query — every filter, the same visibility (drafts, pending and future events only for callers who may list " +
	"them; hidden events never), the same default date window — in the same order, unpaged, up to " +
	"CALENDAR_ICAL_MAX_EVENTS (10,000 by default); a feed that stops there says so in X-WR-CALDESC. GET /events " +
	"with Accept preferring text/calendar answers the same. Each VEVENT: UID event-{id}@{host} (the host of " +
	"CALENDAR_BASE_URL, else of the request), DTSTAMP and LAST-MODIFIED the event's modification date (there is " +
	"no METHOD, so DTSTAMP is when the event last changed, RFC 5545 §3.8.7.2, and the same event is the same " +
	"text in every feed), DTSTART/DTEND on the event's wall clock with TZID and a VTIMEZONE per zone (UTC events " +
	"in UTC), all-day events as VALUE=DATE with DTEND the day after the last, SUMMARY the title, DESCRIPTION the " +
	"text of the description (else of the excerpt), LOCATION the first venue's name and address, GEO its " +
	"coordinates, URL the event's page, CATEGORIES its categories (one property each), ORGANIZER the first " +
	"organizer (CN its name; mailto: its e-mail, else its page), STATUS CONFIRMED for published and private " +
	"events, TENTATIVE for future, pending and drafts, CANCELLED for trashed ones (status=trash). A series is " +
	"one VEVENT, its record's (UID event-{series id}@{host}), with its RRULE, RDATE and EXDATE and one more " +
	"EXDATE for the occurrences the caller may not list, and an occurrence edited on its own one VEVENT with " +
	"that UID and RECURRENCE-ID its original start. Password-" +
	"protected events are redacted as lists redact them, for callers who cannot edit them: title, dates (as " +
	"date-times: all_day is hidden too), page and status stay; description, location, coordinates, categories " +
	"and organizer go; a protected venue or organizer shows only its name. The feed is streamed in batches " +
	"(bounded memory whatever its size) and never cached; its ETag is weak, computed before any event is read " +
	"from the data version, the query, the Accept header, the host, the caller and the clock period, so polling " +
	"with If-None-Match costs one data-version read and answers 304 until a write commits (any write, on any " +
	"instance). Cache-Control is public for anonymous callers and private otherwise, with Vary: Authorization, " +
	"Accept, Origin."

// feedBatch is how many events a feed reads, with their links, at a time: what bounds its memory. Smaller batches
// were faster than larger ones (docs/benchmarks.md, "Measurements behind the code").
const feedBatch = 100

// Always is the Streams of an endpoint whose every answer is a feed.
func Always(*gin.Context) bool { return true }

// WantsCalendar tells whether the Accept header prefers text/calendar to JSON (RFC 9110 §12.5.1): each takes the
// quality of the most specific range that matches it, and text/calendar wins with a higher quality, or an equal
// one from a more specific range ("text/calendar, */*"). JSON wins everything else: no Accept, */*, ties. Written
// here because goautoneg, the common helper, treats q=0 as acceptable and does not sort by specificity reliably.
func WantsCalendar(c *gin.Context) bool {
	header := c.GetHeader("Accept")
	if header == "" {
		return false
	}
	calendarQ, calendarRank := acceptQuality(header, "text", "calendar")
	jsonQ, jsonRank := acceptQuality(header, "application", "json")
	return calendarQ > 0 && (calendarQ > jsonQ || (calendarQ == jsonQ && calendarRank > jsonRank))
}

// acceptQuality is the quality an Accept header gives the media type typ/sub, and the rank of the range that
// gives it: 2 for typ/sub, 1 for typ/*, 0 for */*, -1 when no range matches (quality 0).
func acceptQuality(header, typ, sub string) (float64, int) {
	quality, rank := 0.0, -1
	for _, part := range strings.Split(header, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		t, s, _ := strings.Cut(mediaType, "/")
		r := -1
		switch {
		case t == typ && s == sub:
			r = 2
		case t == typ && s == "*":
			r = 1
		case t == "*" && s == "*":
			r = 0
		}
		if r <= rank {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		quality, rank = q, r
	}
	return quality, rank
}

// Feed handles GET /events.ics.
func (ec *EventController) Feed(c *gin.Context, in *EventFeedInput) error {
	return ec.feed(c, &in.EventFilters)
}

// feed answers the events of the list query as one iCalendar object, written as it is read: the zones of its
// first CALENDAR_ICAL_MAX_EVENTS events (one query, which also tells whether there are more), then batches of
// events by keyset with their links. Errors before the first byte are the API's error bodies; a database error
// later aborts the connection, so that a client never takes a cut feed for a whole one.
func (ec *EventController) feed(c *gin.Context, in *EventFilters) error {
	user := models.UserFrom(c.Request.Context())
	store := ec.Store.WithContext(c.Request.Context())
	q, err := ec.eventListQuery(store, in, user, RequestTime(c))
	if err != nil {
		return err
	}
	store = q.on(store)
	zones, err := store.EventFeedZones(q.scopes, ec.Config.ICalMaxEvents+1)
	if err != nil {
		return err
	}
	reader := &feedReader{store: store, scopes: q.scopes, limit: ec.Config.ICalMaxEvents}
	batch, err := reader.next()
	if err != nil {
		return err
	}
	total := int64(0)
	for _, z := range zones {
		total += z.Events
	}
	site := ec.Site(c)
	c.Header("Content-Type", ical.ContentType)
	c.Status(http.StatusOK)
	shaper := ec.shaper(site, Viewer{User: user})
	w := ical.NewWriter(c.Writer)
	w.Begin(ec.feedProperties(site, total > int64(reader.limit)), icalZones(zones))
	ec.streamEvents(c, w, shaper, reader, batch)
	w.End()
	return nil // a client that stopped reading is not an error of the service
}

// streamEvents writes the first batch of a feed and the batches after it, flushing each before reading the next.
func (ec *EventController) streamEvents(c *gin.Context, w *ical.Writer, shaper eventShaper, reader *feedReader,
	batch []models.Event) {
	seen := map[uint64]bool{}
	series := &seriesWriter{store: reader.store, reader: shaper.viewer.User, written: map[uint64]bool{}}
	for len(batch) > 0 && w.Err() == nil {
		fresh := batch[:0]
		for i := range batch {
			// An event that a write moved past the cursor while the feed was read is not written twice.
			if e := &batch[i]; !seen[e.ID] {
				seen[e.ID] = true
				fresh = append(fresh, *e)
			}
		}
		events, err := series.events(w, shaper, fresh)
		if err != nil {
			ec.Log.Error("iCalendar feed aborted", "error", err, "events_read", reader.read)
			panic(http.ErrAbortHandler)
		}
		for _, ev := range events {
			w.Event(ev)
		}
		c.Writer.Flush()
		if batch, err = reader.next(); c.Request.Context().Err() != nil {
			w.Stop(c.Request.Context().Err()) // the client went away: write nothing more
		} else if err != nil {
			ec.Log.Error("iCalendar feed aborted", "error", err, "events_read", reader.read)
			panic(http.ErrAbortHandler)
		}
	}
}

// feedReader reads the events of a feed in list order, a batch at a time, up to its limit.
type feedReader struct {
	store  *models.Store
	scopes []models.Scope
	limit  int
	// read counts the events read; after is the last one's place; done says the last batch was short.
	read  int
	after *models.EventCursor
	done  bool
}

// next reads the next batch with the links of its events; none once the feed is read.
func (r *feedReader) next() ([]models.Event, error) {
	if r.done || r.read >= r.limit {
		return nil, nil
	}
	n := min(feedBatch, r.limit-r.read)
	events, err := r.store.EventsAfter(r.scopes, r.after, n)
	if err == nil {
		err = r.store.LoadEventLinks(events)
	}
	if err != nil {
		return nil, err
	}
	r.read += len(events)
	r.done = len(events) < n
	if len(events) > 0 {
		last := &events[len(events)-1]
		r.after = &models.EventCursor{StartUTC: last.StartUTC, ID: last.ID}
	}
	return events, nil
}

// feedProperties are the calendar properties of a feed; truncated says it stopped at the cap.
func (ec *EventController) feedProperties(site Site, truncated bool) []ics.CalendarProperty {
	cal := ical.Calendar()
	cal.SetXWRCalName("Events — " + uidHost(site))
	cal.SetXWRTimezone(ec.Config.TimezoneName)
	cal.SetRefreshInterval("PT1H")
	cal.SetXPublishedTTL("PT1H")
	if truncated {
		cal.SetXWRCalDesc(fmt.Sprintf("This feed holds the first %d events of its query, the most a feed of this "+
			"service holds (CALENDAR_ICAL_MAX_EVENTS); the query matches more. Narrow it (start_date, end_date, "+
			"categories, …) to get the others.", ec.Config.ICalMaxEvents))
	}
	return cal.CalendarProperties
}

// icalZones are the zones of a feed's events as the iCalendar writer takes them.
func icalZones(zones []models.FeedZone) []ical.Zone {
	out := make([]ical.Zone, len(zones))
	for i, z := range zones {
		out[i] = ical.Zone{TZID: z.Timezone, Loc: eventLocation(z.Timezone), First: z.First, Last: z.Last}
	}
	return out
}

// ReadICalByID handles GET /events/{id}.ics: the event of GET /events/{id}, under the same read rules, as an
// iCalendar object with one VEVENT.
func (ec *EventController) ReadICalByID(c *gin.Context, in *EventReadByID) error {
	return in.readWith(c, ec.readICal)
}

// readICal answers a single read as iCalendar, with Last-Modified.
func (ec *EventController) readICal(c *gin.Context, ref eventRef, password endpoint.Opt[string]) error {
	e, shaper, err := ec.readable(c, ref, password)
	if err != nil {
		return err
	}
	setLastModified(c, eventDates(e)...)
	c.Header("Content-Type", ical.ContentType)
	c.Status(http.StatusOK)
	if e.Series != nil {
		return ec.writeSeriesICal(c, shaper, e)
	}
	w := ical.NewWriter(c.Writer)
	w.Begin(ical.Calendar().CalendarProperties,
		icalZones([]models.FeedZone{{Timezone: e.Timezone, First: e.StartUTC, Last: e.EndUTC, Events: 1}}))
	w.Event(shaper.vevent(w, e))
	w.End()
	return w.Err()
}

// vevent is the VEVENT of e for the shaper's viewer, its times as w writes them (see FeedDoc for what each property says).
func (s eventShaper) vevent(w *ical.Writer, e *models.Event) *ics.VEvent {
	redacted := !s.mayBypassPassword(e)
	ev := ics.NewEvent("event-" + strconv.FormatUint(e.ID, 10) + "@" + uidHost(s.site))
	ev.SetDtStampTime(e.UpdatedAt)
	ev.SetModifiedAt(e.UpdatedAt)
	w.SetTimes(ev, e.Timezone, eventLocation(e.Timezone), e.StartUTC, e.EndUTC, e.AllDay && !redacted)
	ev.SetSummary(e.Title)
	if !redacted {
		s.icalDetails(ev, e)
	}
	ev.SetURL(s.URL(e))
	ev.SetStatus(icalStatus(e.Status))
	return ev
}

// icalDetails writes what redaction hides: the description, the first venue (location and coordinates), the
// categories and the first organizer. Protected venues and organizers the viewer has not unlocked show only
// their names, as in lists.
func (s eventShaper) icalDetails(ev *ics.VEvent, e *models.Event) {
	description := input.TextFromHTML(e.Description)
	if description == "" {
		description = input.TextFromHTML(e.Excerpt)
	}
	if description != "" {
		ev.SetDescription(description)
	}
	if len(e.Venues) > 0 {
		v := &e.Venues[0]
		protected := linkedProtected(v.Linked(), s.viewer)
		ev.SetLocation(venueLocation(v, protected))
		if s.app.Config.Geolocation && v.GeoLat != nil && v.GeoLng != nil && !protected {
			ev.SetProperty(ics.ComponentPropertyGeo, strconv.FormatFloat(*v.GeoLat, 'f', -1, 64)+";"+
				strconv.FormatFloat(*v.GeoLng, 'f', -1, 64))
		}
	}
	for i := range e.Categories {
		ev.AddCategory(e.Categories[i].Name)
	}
	if len(e.Organizers) > 0 {
		o := &e.Organizers[0]
		address := linkedURL(s.site, "organizer", o.Slug)
		if o.Email != "" && !linkedProtected(o.Linked(), s.viewer) {
			address = "mailto:" + o.Email
		}
		ev.SetProperty(ical.WithParams(ics.ComponentPropertyOrganizer, "CN", o.Name), address)
	}
}

// venueLocation is a venue as one line: its name, street, city, region and postal code, and country; only the
// name when it is protected.
func venueLocation(v *models.Venue, protected bool) string {
	if protected {
		return v.Name
	}
	region := v.StateProvince
	if region == "" {
		region = v.State
	}
	var parts []string
	for _, p := range []string{v.Name, v.Address, v.City, strings.TrimSpace(region + " " + v.Zip), v.Country} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// icalStatus is the STATUS of an event: published and private events are confirmed; scheduled, pending and draft
// events are not published yet, so tentative; trashed ones cancelled.
func icalStatus(status string) ics.ObjectStatus {
	switch status {
	case models.StatusPublish, models.StatusPrivate:
		return ics.ObjectStatusConfirmed
	case models.StatusTrash:
		return ics.ObjectStatusCancelled
	}
	return ics.ObjectStatusTentative
}

// uidHost is the host part of the site's base URL (CALENDAR_BASE_URL, else the request's Host): the domain of
// event UIDs.
func uidHost(site Site) string {
	host, _, _ := strings.Cut(site.Host, "/")
	return host
}
