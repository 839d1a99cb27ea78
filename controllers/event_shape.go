package controllers

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/input"
	"calendar/models"
)

// EventRecord is an event as the API returns it, built by eventShaper.record: The Events Calendar's event
// fields in their order, plus `ticketed`, `parent` and the series members, then the linked records. Fields that
// redaction nulls are pointers. The linked records are JSON already (json.RawMessage): a list embeds the same
// venues, organizers and terms in many events, and remembers their JSON (see eventShaper.embedded). Its JSON is
// what encoding/json writes for it; appendJSON writes the same bytes faster.
type EventRecord struct {
	eventFields
	embeddedRecords
	// err is why a linked record could not be written as JSON; encoding the record reports it.
	err error
}

// embeddedRecords are an event record's linked records and its schema.org data, after its own fields.
type embeddedRecords struct {
	Categories []json.RawMessage `json:"categories" schema:"items=EmbeddedTerm"`
	Tags       []json.RawMessage `json:"tags" schema:"items=EmbeddedTerm"`
	Venue      json.RawMessage   `json:"venue" schema:"venue" doc:"The venue as an object when the event has one, [] when it has none, an array when it has several."`
	Organizer  []json.RawMessage `json:"organizer" schema:"items=Organizer" doc:"Always an array, in the order given on write."`
	// CustomFields is always []: the service keeps no custom fields.
	CustomFields json.RawMessage `json:"custom_fields" schema:"custom_fields" doc:"Additional fields: [] when there are none."`
	// JSONLD is schema.org data, on single reads only, and never of a password-protected event.
	JSONLD *eventJSONLD `json:"json_ld,omitempty" schema:"ref=JSONLD"`
}

// eventFields are an event record's own fields, up to parent, in The Events Calendar's order.
type eventFields struct {
	ID uint64 `json:"id" schema:"min=1" doc:"The event ID."`
	GlobalIDs
	Author string `json:"author" schema:"author" doc:"The author's user ID, as a string."`
	Status string `json:"status" schema:"status" doc:"The post status."`
	RecordDates
	URL                 string            `json:"url" schema:"format=uri" doc:"The public page of the event."`
	RestURL             string            `json:"rest_url" schema:"format=uri" doc:"The event's URL in this API."`
	Title               string            `json:"title" doc:"Plain text."`
	Description         string            `json:"description" doc:"HTML, sanitised on write; \"\" for a password-protected event."`
	Excerpt             string            `json:"excerpt" doc:"HTML; \"\" when there is none."`
	Slug                string            `json:"slug"`
	Image               any               `json:"image" schema:"ref=Image"`
	AllDay              *bool             `json:"all_day" doc:"Whether the event lasts whole days (start 00:00:00, end 23:59:59)."`
	StartDate           string            `json:"start_date" schema:"date" doc:"Start, on the event's wall clock."`
	StartDateDetails    DateDetails       `json:"start_date_details"`
	EndDate             string            `json:"end_date" schema:"date" doc:"End, on the event's wall clock."`
	EndDateDetails      DateDetails       `json:"end_date_details"`
	UTCStartDate        string            `json:"utc_start_date" schema:"date" doc:"Start in UTC."`
	UTCStartDateDetails DateDetails       `json:"utc_start_date_details"`
	UTCEndDate          string            `json:"utc_end_date" schema:"date" doc:"End in UTC."`
	UTCEndDateDetails   DateDetails       `json:"utc_end_date_details"`
	Timezone            string            `json:"timezone" doc:"The event's time zone: an IANA name, UTC or UTC±H[:MM]."`
	TimezoneAbbr        string            `json:"timezone_abbr" doc:"The zone's abbreviation at the start (EST, CEST, UTC+2…)."`
	Cost                string            `json:"cost" doc:"The formatted cost (\"$10 – $20\", \"Free\"); \"\" when there is none."`
	CostDetails         input.CostDetails `json:"cost_details"`
	Website             string            `json:"website" doc:"The event's website."`
	ShowMap             *bool             `json:"show_map"`
	ShowMapLink         *bool             `json:"show_map_link"`
	HideFromListings    *bool             `json:"hide_from_listings" doc:"Hidden events are left out of GET /events but readable by ID."`
	Sticky              *bool             `json:"sticky"`
	Featured            *bool             `json:"featured"`
	Ticketed            *bool             `json:"ticketed" doc:"Whether the event sells tickets."`
	Parent              uint64            `json:"parent" doc:"The parent event's ID; 0 when it has none, as WordPress's post_parent."`
	seriesFields
}

// MarshalJSON writes the record as appendJSON does.
func (r EventRecord) MarshalJSON() ([]byte, error) { return r.appendJSON(make([]byte, 0, 4096)) }

// appendJSON appends the record's JSON to buf, the bytes encoding/json would write for it: its own fields as
// encoding/json writes them, then the linked records spliced in as they are, where encoding/json would validate
// and compact each of them again (that was a tenth of the service's CPU on lists whose answers were not cached).
func (r *EventRecord) appendJSON(buf []byte) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	buf, err := appendMarshaled(buf, &r.eventFields)
	if err != nil {
		return nil, err
	}
	buf = buf[:len(buf)-1] // the fields' closing brace: the linked records follow
	buf = appendRawArray(append(buf, `,"categories":`...), r.Categories)
	buf = appendRawArray(append(buf, `,"tags":`...), r.Tags)
	buf = appendRaw(append(buf, `,"venue":`...), r.Venue)
	buf = appendRawArray(append(buf, `,"organizer":`...), r.Organizer)
	buf = appendRaw(append(buf, `,"custom_fields":`...), r.CustomFields)
	if r.JSONLD != nil {
		if buf, err = appendMarshaled(append(buf, `,"json_ld":`...), r.JSONLD); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// appendRaw appends JSON written before (null for nil, as encoding/json writes it).
func appendRaw(buf []byte, raw json.RawMessage) []byte {
	if raw == nil {
		return append(buf, "null"...)
	}
	return append(buf, raw...)
}

// appendRawArray appends items as one JSON array (null for a nil slice, as encoding/json writes it).
func appendRawArray(buf []byte, items []json.RawMessage) []byte {
	if items == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i, item := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendRaw(buf, item)
	}
	return append(buf, ']')
}

// emptyJSONArray is the PHP empty array The Events Calendar writes where a record has no linked records.
var emptyJSONArray = json.RawMessage("[]")

// writeOwnJSON answers with v's JSON as v writes it (EventRecord, EventList): c.JSON would have encoding/json
// validate and compact the whole answer again.
func writeOwnJSON(c *gin.Context, status int, v jsonAppender) error {
	buf := answerBuffers.Get().(*[]byte)
	if hint := v.sizeHint(); cap(*buf) < hint {
		*buf = make([]byte, 0, hint)
	}
	body, err := v.appendJSON((*buf)[:0])
	if err == nil {
		c.Data(status, "application/json; charset=utf-8", body) // the writer copies or sends body before it returns
	}
	if cap(body) <= maxPooledAnswer {
		*buf = body[:0]
		answerBuffers.Put(buf)
	}
	return err
}

// writeEvent answers with one event record.
func writeEvent(c *gin.Context, status int, r EventRecord) error { return writeOwnJSON(c, status, &r) }

// jsonAppender is a value that appends its own JSON to a buffer (EventRecord, EventList).
type jsonAppender interface {
	appendJSON(buf []byte) ([]byte, error)
	// sizeHint is about the length of the JSON: what writeOwnJSON makes room for before appending it.
	sizeHint() int
}

// answerBuffers hold answers while writeOwnJSON writes them: a list answer is tens of KB, and allocating each
// anew was a sixth of the bytes the service allocated for lists that were not cached. The pool loses its buffers
// at garbage collections, which busy lists make frequent: a buffer grown from empty by appending, as the answer
// was written, had copied it about twice over (a tenth of the service's time for pages of 50 events), so one with
// room for the answer's sizeHint is made instead.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer keeps the rare large answer from pinning its buffer in the pool.
const maxPooledAnswer = 512 << 10

// recordSizeHint is about the length of an event record's JSON: 4.5 KB on average in the benchmark's lists, 7 KB
// for a record read alone, with its JSON-LD.
const recordSizeHint = 6 << 10

func (r *EventRecord) sizeHint() int { return recordSizeHint }

// appendMarshaled appends v as encoding/json writes it, through the encoder's own pooled buffer rather than a
// slice of its own (json.Marshal's) that is copied and dropped.
func appendMarshaled(buf []byte, v any) ([]byte, error) {
	w := appendWriter{buf: buf}
	if err := json.NewEncoder(&w).Encode(v); err != nil {
		return buf, err
	}
	return w.buf[:len(w.buf)-1], nil // Encode ends the value with a newline
}

// appendWriter is an io.Writer that appends to buf.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// eventShaper builds event records for one request.
type eventShaper struct {
	app    *App
	site   Site
	viewer Viewer
	// version is the data version the request is answered at, when remember says the JSON of the linked records
	// it embeds may be remembered for it (see rememberingAt).
	version  int64
	remember bool
}

// embeddedKey names the JSON of one linked record (kind v, o, c or t, and ID) as a list embeds it on one site.
type embeddedKey struct {
	site Site
	kind byte
	id   uint64
}

// rememberingAt lets the shaper reuse the JSON of the linked records its lists embed, as shaped before at the data
// version ctx records (models.ContextWithVersion): every anonymous viewer without a password sees a record the
// same way, so one shape serves all their requests until the next write. A list's events share a few venues,
// organizers and terms, which every list shows again.
func (s eventShaper) rememberingAt(ctx context.Context) eventShaper {
	if v, ok := models.VersionIn(ctx); ok && s.viewer.User == nil && s.viewer.Password == "" {
		s.version, s.remember = v, true
	}
	return s
}

// embedded is the JSON of the shape build makes of the linked record kind/id: remembered JSON when the shaper
// may remember (rememberingAt), else the shape as built and written now.
func (s eventShaper) embedded(kind byte, id uint64, build func() any) (json.RawMessage, error) {
	if !s.remember {
		return json.Marshal(build())
	}
	key := embeddedKey{site: s.site, kind: kind, id: id}
	if b, ok := s.app.embedded.Get(s.version, key); ok {
		return b, nil
	}
	b, err := json.Marshal(build())
	if err != nil {
		return nil, err
	}
	s.app.embedded.Put(s.version, key, b)
	return b, nil
}

func (ec *EventController) shaper(site Site, viewer Viewer) eventShaper {
	return eventShaper{app: ec.App, site: site, viewer: viewer}
}

// URL is the event's public page: {site}/event/{slug}/.
func (s eventShaper) URL(e *models.Event) string { return s.site.Home + "/event/" + e.Slug + "/" }

// RestURL is the event's address in the API.
func (s eventShaper) RestURL(e *models.Event) string {
	return s.site.Root + "/events/" + strconv.FormatUint(e.ID, 10)
}

// record converts e into its API type. single adds json_ld (not for password-protected events); redaction of
// protected events the viewer may not see in full only happens in lists (listRecord).
func (s eventShaper) record(e *models.Event, single bool) EventRecord {
	siteLoc := s.app.Config.Timezone
	loc := eventLocation(e.Timezone)
	url := s.URL(e)
	cost, costDetails := storedCost(e.Cost).Format(s.app.Config.CurrencySymbol, s.app.Config.CurrencyPosition)
	website := e.Website
	if website == "" {
		website = url
	}
	var parent uint64
	if e.ParentID != nil {
		parent = *e.ParentID
	}
	start, end := FormatDate(e.StartUTC, loc), FormatDate(e.EndUTC, loc)
	utcStart, utcEnd := FormatDate(e.StartUTC, time.UTC), FormatDate(e.EndUTC, time.UTC)
	r := EventRecord{eventFields: eventFields{
		ID:                  e.ID,
		GlobalIDs:           s.site.GlobalIDs(e.ID),
		Author:              AuthorString(e.AuthorID),
		Status:              e.Status,
		RecordDates:         NewRecordDates(e.PublishedAt, e.UpdatedAt, siteLoc),
		URL:                 url,
		RestURL:             s.RestURL(e),
		Title:               e.Title,
		Description:         e.Description,
		Excerpt:             e.Excerpt,
		Slug:                e.Slug,
		Image:               ImageShape(e.Image),
		AllDay:              boolPtr(e.AllDay),
		StartDate:           start,
		StartDateDetails:    dateDetailsOf(start),
		EndDate:             end,
		EndDateDetails:      dateDetailsOf(end),
		UTCStartDate:        utcStart,
		UTCStartDateDetails: dateDetailsOf(utcStart),
		UTCEndDate:          utcEnd,
		UTCEndDateDetails:   dateDetailsOf(utcEnd),
		Timezone:            e.Timezone,
		TimezoneAbbr:        e.TimezoneAbbr,
		Cost:                cost,
		CostDetails:         costDetails,
		Website:             website,
		ShowMap:             boolPtr(e.ShowMap),
		ShowMapLink:         boolPtr(e.ShowMapLink),
		HideFromListings:    boolPtr(e.HideFromListings),
		Sticky:              boolPtr(e.Sticky),
		Featured:            boolPtr(e.Featured),
		Ticketed:            boolPtr(e.Ticketed),
		Parent:              parent,
	}}
	r.embeddedRecords, r.err = s.embeds(e, single)
	seriesShape(e, &r)
	if single && !e.HasPassword() {
		// Search engines get nothing of a protected event, as The Events Calendar's JSON-LD skips protected posts.
		r.JSONLD = s.jsonLD(e, &r)
	}
	return r
}

// embeds shapes the records e links to, as the JSON its record embeds. single embeds them with their json_ld.
func (s eventShaper) embeds(e *models.Event, single bool) (embeddedRecords, error) {
	embed := s
	if single {
		embed.remember = false // single reads embed json_ld, which lists do not
	}
	var l embeddedRecords
	var err error
	if l.Categories, err = embedAll(e.Categories, func(c *models.Category) (json.RawMessage, error) {
		return embed.embedded('c', c.ID, func() any { return EmbeddedCategory(s.site, c) })
	}); err != nil {
		return l, err
	}
	if l.Tags, err = embedAll(e.Tags, func(t *models.Tag) (json.RawMessage, error) {
		return embed.embedded('t', t.ID, func() any { return EmbeddedTag(s.site, t) })
	}); err != nil {
		return l, err
	}
	if l.Organizer, err = embedAll(e.Organizers, func(o *models.Organizer) (json.RawMessage, error) {
		return embed.embedded('o', o.ID, func() any {
			r := s.app.OrganizerShape(s.site, o, s.viewer, single)
			r.JSONLD = withoutLDContext(r.JSONLD)
			return r
		})
	}); err != nil {
		return l, err
	}
	venues, err := embedAll(e.Venues, func(v *models.Venue) (json.RawMessage, error) {
		return embed.embedded('v', v.ID, func() any {
			r := s.app.VenueShape(s.site, v, s.viewer, single)
			r.JSONLD = withoutLDContext(r.JSONLD)
			return r
		})
	})
	switch len(venues) {
	case 0:
		l.Venue = emptyJSONArray
	case 1:
		l.Venue = venues[0]
	default:
		l.Venue = appendRawArray(nil, venues)
	}
	l.CustomFields = emptyJSONArray
	return l, err
}

// embedAll is the JSON of each of records as embed writes it.
func embedAll[T any](records []T, embed func(*T) (json.RawMessage, error)) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(records))
	for i := range records {
		var err error
		if out[i], err = embed(&records[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mayBypassPassword tells whether the viewer sees e in full although it is protected: editors of the event never
// need its password, others need to have sent it.
func (s eventShaper) mayBypassPassword(e *models.Event) bool {
	return !e.HasPassword() || s.viewer.User.CanEdit(e.Owned()) || s.viewer.unlocks(e.Password)
}

// listRecord is record for an event in a list: protected events the viewer has not unlocked are redacted.
func (s eventShaper) listRecord(e *models.Event) EventRecord {
	r := s.record(e, false)
	if !s.mayBypassPassword(e) {
		redactEvent(&r)
	}
	return r
}

// redactEvent blanks what a list hides of a protected event: title, slug, dates and URLs stay visible.
func redactEvent(r *EventRecord) {
	r.Description, r.Excerpt, r.Cost, r.Website = "", "", "", ""
	r.Image = false
	r.AllDay, r.ShowMap, r.ShowMapLink, r.HideFromListings, r.Sticky, r.Featured, r.Ticketed =
		nil, nil, nil, nil, nil, nil, nil
	r.CostDetails = input.RedactedCostDetails()
	r.Categories, r.Tags, r.Organizer = []json.RawMessage{}, []json.RawMessage{}, []json.RawMessage{}
	r.Venue, r.CustomFields = emptyJSONArray, emptyJSONArray
}

func boolPtr(b bool) *bool { return &b }

// storedCost reads the cost column: a JSON array of the values the user gave, "" for none.
func storedCost(s string) input.Cost {
	var c input.Cost
	if s != "" {
		_ = json.Unmarshal([]byte(s), &c.Values)
	}
	return c
}

// costColumn is how a cost is stored: its values as a JSON array, "" for none.
func costColumn(c input.Cost) string {
	if len(c.Values) == 0 {
		return ""
	}
	b, _ := json.Marshal(c.Values)
	return string(b)
}

// eventLocation is the zone of a stored timezone name (input.StoredLocation).
func eventLocation(name string) *time.Location { return input.StoredLocation(name) }

// eventJSONLD is the schema.org Event of a single read (the captures' field order).
type eventJSONLD struct {
	Context             string        `json:"@context"`
	Type                string        `json:"@type"`
	Name                string        `json:"name"`
	Description         string        `json:"description"`
	Image               string        `json:"image,omitempty"`
	URL                 string        `json:"url"`
	EventAttendanceMode string        `json:"eventAttendanceMode"`
	EventStatus         string        `json:"eventStatus"`
	StartDate           string        `json:"startDate"`
	EndDate             string        `json:"endDate"`
	Location            *LinkedJSONLD `json:"location,omitempty"`
	Organizer           *LinkedJSONLD `json:"organizer,omitempty"`
	Offers              *offerJSONLD  `json:"offers,omitempty"`
	Performer           string        `json:"performer"`
	// EventSchedule is set on a series record: its rule as a schema.org Schedule.
	EventSchedule *scheduleJSONLD `json:"eventSchedule,omitempty"`
}

// offerJSONLD is the schema.org Offer of an event with a numeric cost.
type offerJSONLD struct {
	Type          string `json:"@type"`
	Price         string `json:"price"`
	PriceCurrency string `json:"priceCurrency"`
	URL           string `json:"url"`
	Category      string `json:"category"`
	Availability  string `json:"availability"`
	ValidFrom     string `json:"validFrom"`
}

// isoLayout is ISO 8601 with the offset, as JSON-LD dates are written.
const isoLayout = "2006-01-02T15:04:05-07:00"

// defaultCurrencyCode is The Events Calendar's priceCurrency when the cost names no ISO currency.
const defaultCurrencyCode = "USD"

// jsonLD describes e for search engines. The description is plain text: the excerpt, else the description.
func (s eventShaper) jsonLD(e *models.Event, r *EventRecord) *eventJSONLD {
	loc := eventLocation(e.Timezone)
	description := input.PlainText(e.Excerpt)
	if description == "" {
		description = input.PlainText(e.Description)
	}
	ld := &eventJSONLD{
		Context: "http://schema.org", Type: "Event", Name: e.Title, Description: description, URL: r.URL,
		EventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
		EventStatus:         "https://schema.org/EventScheduled",
		StartDate:           e.StartUTC.In(loc).Format(isoLayout),
		EndDate:             e.EndUTC.In(loc).Format(isoLayout),
		Location:            s.venueJSONLD(e),
		Organizer:           s.organizerJSONLD(e),
		Performer:           "Organization",
	}
	if e.Image != nil {
		ld.Image = e.Image.URL
	}
	ld.EventSchedule = scheduleLD(e)
	if len(r.CostDetails.Values) > 0 {
		currency := r.CostDetails.CurrencyCode
		if currency == "" {
			currency = defaultCurrencyCode
		}
		published := e.PublishedAt.In(s.app.Config.Timezone)
		validFrom := time.Date(published.Year(), published.Month(), published.Day(), 0, 0, 0, 0, published.Location())
		ld.Offers = &offerJSONLD{Type: "Offer", Price: r.CostDetails.Values[0], PriceCurrency: currency, URL: r.URL,
			Category: "primary", Availability: "inStock", ValidFrom: validFrom.Format(isoLayout)}
	}
	return ld
}

// venueJSONLD is the location of the event's JSON-LD: its first venue as a schema.org Place, reduced to its name
// when the venue is password-protected and the viewer has not unlocked it.
func (s eventShaper) venueJSONLD(e *models.Event) *LinkedJSONLD {
	if len(e.Venues) == 0 {
		return nil
	}
	v := &e.Venues[0]
	return withoutLDContext(s.app.VenueJSONLD(s.site, v, linkedProtected(v.Linked(), s.viewer)))
}

// organizerJSONLD is the organizer of the event's JSON-LD: its first organizer as a schema.org Person, reduced
// like venueJSONLD.
func (s eventShaper) organizerJSONLD(e *models.Event) *LinkedJSONLD {
	if len(e.Organizers) == 0 {
		return nil
	}
	o := &e.Organizers[0]
	return withoutLDContext(s.app.OrganizerJSONLD(s.site, o, linkedProtected(o.Linked(), s.viewer)))
}

// withoutLDContext is ld without its @context (nil for nil), as a venue or organizer shown inside an event has
// it: the event's own JSON-LD carries the context, and The Events Calendar's embedded records have none.
func withoutLDContext(ld *LinkedJSONLD) *LinkedJSONLD {
	if ld == nil {
		return nil
	}
	out := *ld
	out.Context = ""
	return &out
}
