package controllers

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"calendar/models"
)

// EventRecord is an event as the API returns it: reference §1.1's fields in its order, plus `ticketed` and
// `parent` (API.md §8). Fields that redaction nulls (reference §1.6) are pointers.
type EventRecord struct {
	ID                  uint64      `json:"id"`
	GlobalID            string      `json:"global_id"`
	GlobalIDLineage     []string    `json:"global_id_lineage"`
	Author              string      `json:"author"`
	Status              string      `json:"status"`
	Date                string      `json:"date"`
	DateUTC             string      `json:"date_utc"`
	Modified            string      `json:"modified"`
	ModifiedUTC         string      `json:"modified_utc"`
	URL                 string      `json:"url"`
	RestURL             string      `json:"rest_url"`
	Title               string      `json:"title"`
	Description         string      `json:"description"`
	Excerpt             string      `json:"excerpt"`
	Slug                string      `json:"slug"`
	Image               any         `json:"image"`
	AllDay              *bool       `json:"all_day"`
	StartDate           string      `json:"start_date"`
	StartDateDetails    DateDetails `json:"start_date_details"`
	EndDate             string      `json:"end_date"`
	EndDateDetails      DateDetails `json:"end_date_details"`
	UTCStartDate        string      `json:"utc_start_date"`
	UTCStartDateDetails DateDetails `json:"utc_start_date_details"`
	UTCEndDate          string      `json:"utc_end_date"`
	UTCEndDateDetails   DateDetails `json:"utc_end_date_details"`
	Timezone            string      `json:"timezone"`
	TimezoneAbbr        string      `json:"timezone_abbr"`
	Cost                string      `json:"cost"`
	CostDetails         CostDetails `json:"cost_details"`
	Website             string      `json:"website"`
	ShowMap             *bool       `json:"show_map"`
	ShowMapLink         *bool       `json:"show_map_link"`
	HideFromListings    *bool       `json:"hide_from_listings"`
	Sticky              *bool       `json:"sticky"`
	Featured            *bool       `json:"featured"`
	Ticketed            *bool       `json:"ticketed"`
	Parent              uint64      `json:"parent"`
	Categories          []any       `json:"categories"`
	Tags                []any       `json:"tags"`
	// Venue is the venue object when the event has one, [] when none, an array when several (API.md §4).
	Venue        any   `json:"venue"`
	Organizer    []any `json:"organizer"`
	CustomFields []any `json:"custom_fields"`
	// JSONLD is schema.org data, on single reads only (reference §11.3).
	JSONLD any `json:"json_ld,omitempty"`
}

// eventShaper builds event records for one request.
type eventShaper struct {
	app    *App
	site   Site
	viewer Viewer
}

func (ec *EventController) shaper(site Site, viewer Viewer) eventShaper {
	return eventShaper{app: ec.App, site: site, viewer: viewer}
}

// URL is the event's public page (API.md §1: {site}/event/{slug}/).
func (s eventShaper) URL(e *models.Event) string { return s.site.Home + "/event/" + e.Slug + "/" }

// RestURL is the event's address in the API.
func (s eventShaper) RestURL(e *models.Event) string {
	return s.site.Root + "/events/" + strconv.FormatUint(e.ID, 10)
}

// record maps e to its API shape. single adds json_ld (not for password-protected events); redaction applies to protected events the viewer may not
// see in full (reference §1.6), which only happens in lists.
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
	r := EventRecord{
		ID:                  e.ID,
		GlobalID:            s.site.GlobalID(e.ID),
		GlobalIDLineage:     []string{s.site.GlobalID(e.ID)},
		Author:              AuthorString(e.AuthorID),
		Status:              e.Status,
		Date:                FormatDate(e.PublishedAt, siteLoc),
		DateUTC:             FormatDate(e.PublishedAt, time.UTC),
		Modified:            FormatDate(e.UpdatedAt, siteLoc),
		ModifiedUTC:         FormatDate(e.UpdatedAt, time.UTC),
		URL:                 url,
		RestURL:             s.RestURL(e),
		Title:               e.Title,
		Description:         e.Description,
		Excerpt:             e.Excerpt,
		Slug:                e.Slug,
		Image:               ImageShape(e.Image),
		AllDay:              boolPtr(e.AllDay),
		StartDate:           FormatDate(e.StartUTC, loc),
		StartDateDetails:    NewDateDetails(e.StartUTC, loc),
		EndDate:             FormatDate(e.EndUTC, loc),
		EndDateDetails:      NewDateDetails(e.EndUTC, loc),
		UTCStartDate:        FormatDate(e.StartUTC, time.UTC),
		UTCStartDateDetails: NewDateDetails(e.StartUTC, time.UTC),
		UTCEndDate:          FormatDate(e.EndUTC, time.UTC),
		UTCEndDateDetails:   NewDateDetails(e.EndUTC, time.UTC),
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
		Categories:          make([]any, len(e.Categories)),
		Tags:                make([]any, len(e.Tags)),
		Venue:               []any{},
		Organizer:           make([]any, len(e.Organizers)),
		CustomFields:        []any{},
	}
	for i := range e.Categories {
		r.Categories[i] = EmbeddedCategory(s.site, &e.Categories[i])
	}
	for i := range e.Tags {
		r.Tags[i] = EmbeddedTag(s.site, &e.Tags[i])
	}
	for i := range e.Organizers {
		r.Organizer[i] = embeddedJSONLD(s.app.OrganizerShape(s.site, &e.Organizers[i], s.viewer, single))
	}
	switch venues := e.Venues; len(venues) {
	case 0:
	case 1:
		r.Venue = embeddedJSONLD(s.app.VenueShape(s.site, &venues[0], s.viewer, single))
	default:
		list := make([]any, len(venues))
		for i := range venues {
			list[i] = embeddedJSONLD(s.app.VenueShape(s.site, &venues[i], s.viewer, single))
		}
		r.Venue = list
	}
	if single && !e.HasPassword() {
		// Search engines get nothing of a protected event, as the reference's JSON-LD skips protected posts.
		r.JSONLD = s.jsonLD(e, &r)
	}
	return r
}

// mayBypassPassword tells whether the viewer sees e in full although it is protected: editors of the event never
// need its password (API.md §6), others need to have sent it.
func (s eventShaper) mayBypassPassword(e *models.Event) bool {
	return !e.HasPassword() || s.viewer.User.CanEdit(e.Owned()) || e.PasswordMatches(s.viewer.Password)
}

// listRecord is record for an event in a list: protected events the viewer has not unlocked are redacted.
func (s eventShaper) listRecord(e *models.Event) EventRecord {
	r := s.record(e, false)
	if !s.mayBypassPassword(e) {
		redactEvent(&r)
	}
	return r
}

// redactEvent blanks what reference §1.6 hides of a protected event: title, slug, dates and URLs stay visible.
func redactEvent(r *EventRecord) {
	r.Description, r.Excerpt, r.Cost, r.Website = "", "", "", ""
	r.Image = false
	r.AllDay, r.ShowMap, r.ShowMapLink, r.HideFromListings, r.Sticky, r.Featured, r.Ticketed =
		nil, nil, nil, nil, nil, nil, nil
	r.CostDetails = RedactedCostDetails()
	r.Categories, r.Tags, r.Venue, r.Organizer, r.CustomFields = []any{}, []any{}, []any{}, []any{}, []any{}
}

func boolPtr(b bool) *bool { return &b }

// storedCost reads the cost column: a JSON array of the values the user gave, "" for none.
func storedCost(s string) Cost {
	var c Cost
	if s != "" {
		_ = json.Unmarshal([]byte(s), &c.Values)
	}
	return c
}

// costColumn is how a cost is stored: its values as a JSON array, "" for none.
func costColumn(c Cost) string {
	if len(c.Values) == 0 {
		return ""
	}
	b, _ := json.Marshal(c.Values)
	return string(b)
}

// locations caches the time zones of stored events by name: loading a zone parses the zone database, and a page
// of events mostly shares a few zones.
var locations sync.Map

// eventLocation is the zone of a stored timezone name; names were validated on write, so failure means UTC.
func eventLocation(name string) *time.Location {
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, _, err := ParseTimezone(name)
	if err != nil {
		loc = time.UTC
	}
	locations.Store(name, loc)
	return loc
}

// eventJSONLD is the schema.org Event of a single read (reference §11.3, the captures' field order).
type eventJSONLD struct {
	Context             string       `json:"@context"`
	Type                string       `json:"@type"`
	Name                string       `json:"name"`
	Description         string       `json:"description"`
	Image               string       `json:"image,omitempty"`
	URL                 string       `json:"url"`
	EventAttendanceMode string       `json:"eventAttendanceMode"`
	EventStatus         string       `json:"eventStatus"`
	StartDate           string       `json:"startDate"`
	EndDate             string       `json:"endDate"`
	Location            any          `json:"location,omitempty"`
	Organizer           any          `json:"organizer,omitempty"`
	Offers              *offerJSONLD `json:"offers,omitempty"`
	Performer           string       `json:"performer"`
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

// defaultCurrencyCode is the reference's priceCurrency when the cost names no ISO currency.
const defaultCurrencyCode = "USD"

// jsonLD describes e for search engines. The description is plain text: the excerpt, else the description.
func (s eventShaper) jsonLD(e *models.Event, r *EventRecord) eventJSONLD {
	loc := eventLocation(e.Timezone)
	description := PlainText(e.Excerpt)
	if description == "" {
		description = PlainText(e.Description)
	}
	ld := eventJSONLD{
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
func (s eventShaper) venueJSONLD(e *models.Event) any {
	if len(e.Venues) == 0 {
		return nil
	}
	v := &e.Venues[0]
	return withoutLDContext(s.app.VenueJSONLD(s.site, v, linkedProtected(v.Linked(), s.viewer)))
}

// organizerJSONLD is the organizer of the event's JSON-LD: its first organizer as a schema.org Person (reference
// §11.3), reduced like venueJSONLD.
func (s eventShaper) organizerJSONLD(e *models.Event) any {
	if len(e.Organizers) == 0 {
		return nil
	}
	o := &e.Organizers[0]
	return withoutLDContext(s.app.OrganizerJSONLD(s.site, o, linkedProtected(o.Linked(), s.viewer)))
}

// embeddedJSONLD drops the @context of the json_ld of a venue or organizer shown inside an event: the event's
// own JSON-LD carries it, and the reference's embedded records have none.
func embeddedJSONLD(shape any) any {
	m, ok := shape.(orderedMap)
	if !ok {
		return shape
	}
	for i, entry := range m {
		if entry.Key == "json_ld" {
			m[i].Value = withoutLDContext(entry.Value)
		}
	}
	return m
}

// withoutLDContext is a JSON-LD object without its @context key.
func withoutLDContext(ld any) any {
	m, ok := ld.(orderedMap)
	if !ok {
		return ld
	}
	out := make(orderedMap, 0, len(m))
	for _, entry := range m {
		if entry.Key != "@context" {
			out = append(out, entry)
		}
	}
	return out
}
