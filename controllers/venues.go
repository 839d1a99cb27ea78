package controllers

import (
	"fmt"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// VenueFields are the parameters of a venue on create and update .
type VenueFields struct {
	Name endpoint.Opt[string] `param:"venue" doc:"Name of the venue (plain text)."`
	LinkedInput
	ShowMap       endpoint.Opt[mapFlag]    `param:"show_map" doc:"Whether events at the venue show a map (default true)."`
	ShowMapLink   endpoint.Opt[mapFlag]    `param:"show_map_link" doc:"Whether events at the venue show a map link (default true)."`
	Address       endpoint.Opt[string]     `param:"address" doc:"Street address; \"\" clears it."`
	City          endpoint.Opt[string]     `param:"city" doc:"City; \"\" clears it."`
	Country       endpoint.Opt[string]     `param:"country" doc:"Country; \"\" clears it."`
	Province      endpoint.Opt[string]     `param:"province" doc:"Province; \"\" clears it."`
	State         endpoint.Opt[string]     `param:"state" doc:"State; \"\" clears it."`
	Zip           endpoint.Opt[string]     `param:"zip" doc:"Postal code; \"\" clears it."`
	Phone         endpoint.Opt[string]     `param:"phone" doc:"Phone number; \"\" clears it."`
	StateProvince endpoint.Opt[string]     `param:"stateprovince" doc:"State or province as shown; when not sent it follows state (for the United States or no country) or province whenever one of them, or country, is sent."`
	Website       endpoint.Opt[string]     `param:"website" validate:"omitempty,http_url,max=2048" doc:"Website: an http(s) URL; \"\" clears it."`
	GeoLat        endpoint.Opt[coordinate] `param:"geo_lat" doc:"Latitude, -90 to 90; give it together with geo_lng (\"\" removes both). Rejected when geolocation is switched off."`
	GeoLng        endpoint.Opt[coordinate] `param:"geo_lng" doc:"Longitude, -180 to 180; give it together with geo_lat (\"\" removes both). Rejected when geolocation is switched off."`
}

// VenueUpdate is POST, PUT and PATCH /venues/{id}.
type VenueUpdate struct {
	LinkedByID
	VenueFields
}

// VenueUpdateBySlug is POST, PUT and PATCH /venues/by-slug/{slug}.
type VenueUpdateBySlug struct {
	LinkedBySlug
	VenueFields
}

// VenueController serves /venues.
type VenueController struct{ *App }

var venueKind = &linkedKind[models.Venue, *models.Venue, VenueFields]{
	name:   "venue",
	plural: "venues",
	change: models.ChangeVenue,
	parts:  func(in *VenueFields) (*endpoint.Opt[string], *LinkedInput) { return &in.Name, &in.LinkedInput },
	prepare: func(v *models.Venue) {
		v.ShowMap, v.ShowMapLink = true, true
	},
	apply: applyVenueFields,
	shape: func(a *App, site Site, v *models.Venue, viewer Viewer, single bool) any {
		return a.VenueShape(site, v, viewer, single)
	},
}

// List handles GET /venues.
func (vc VenueController) List(c *gin.Context, in *LinkedList) error {
	return venueKind.list(vc.App, c, in)
}

// Create handles POST /venues.
func (vc VenueController) Create(c *gin.Context, in *VenueFields) error {
	return venueKind.create(vc.App, c, in)
}

// Read handles GET /venues/{id}.
func (vc VenueController) Read(c *gin.Context, in *LinkedRead) error {
	return venueKind.read(vc.App, c, in.ref(), in.Password.V)
}

// ReadBySlug handles GET /venues/by-slug/{slug}.
func (vc VenueController) ReadBySlug(c *gin.Context, in *LinkedReadBySlug) error {
	return venueKind.read(vc.App, c, in.ref(), in.Password.V)
}

// Update handles POST, PUT and PATCH /venues/{id}.
func (vc VenueController) Update(c *gin.Context, in *VenueUpdate) error {
	return venueKind.update(vc.App, c, in.ref(), &in.VenueFields)
}

// UpdateBySlug handles POST, PUT and PATCH /venues/by-slug/{slug}.
func (vc VenueController) UpdateBySlug(c *gin.Context, in *VenueUpdateBySlug) error {
	return venueKind.update(vc.App, c, in.ref(), &in.VenueFields)
}

// Delete handles DELETE /venues/{id}.
func (vc VenueController) Delete(c *gin.Context, in *LinkedDelete) error {
	return venueKind.remove(vc.App, c, in.ref(), in.Force.V)
}

// DeleteBySlug handles DELETE /venues/by-slug/{slug}.
func (vc VenueController) DeleteBySlug(c *gin.Context, in *LinkedDeleteBySlug) error {
	return venueKind.remove(vc.App, c, in.ref(), in.Force.V)
}

// ResolveVenues turns the raw `venue` parameter of an event write into venue IDs, in order: an ID, a CSV of IDs, {"id": N}, an inline data object {"venue": "Name", …} (validated exactly like
// POST /venues, created in tx with the duplicate rule and the scale-back status for user), or an array mixing
// them. 0, "", [] and null mean "no venue" (an empty result). Unknown, trashed or unreadable IDs, bad inline
// data, or a value of another type are models.InvalidParam("venue", reason). Concurrent identical inline
// creations yield one venue: writers of one name queue on a lock (PostgreSQL) or on the database (SQLite).
func (a *App) ResolveVenues(tx *models.Store, user *models.User, raw any) ([]uint64, error) {
	return venueKind.resolve(a, tx, user, raw, nil)
}

// applyVenueFields writes the venue's own parameters.
func applyVenueFields(a *App, in *VenueFields, v *models.Venue, creating bool, invalid map[string]string) {
	for _, f := range []struct {
		dst *string
		opt endpoint.Opt[string]
	}{{&v.Address, in.Address}, {&v.City, in.City}, {&v.Country, in.Country}, {&v.Province, in.Province},
		{&v.State, in.State}, {&v.Zip, in.Zip}, {&v.Phone, in.Phone}, {&v.StateProvince, in.StateProvince}} {
		if f.opt.Set {
			*f.dst = input.PlainText(f.opt.V)
		}
	}
	if in.Website.Set {
		v.Website = strings.TrimSpace(in.Website.V)
	}
	if in.ShowMap.Set {
		v.ShowMap = bool(in.ShowMap.V)
	}
	if in.ShowMapLink.Set {
		v.ShowMapLink = bool(in.ShowMapLink.V)
	}
	if !in.StateProvince.Set && (creating || in.State.Set || in.Province.Set || in.Country.Set) {
		v.StateProvince = derivedStateProvince(v)
	}
	a.applyCoordinates(in, v, invalid)
}

// derivedStateProvince is what The Events Calendar stores when stateprovince is not sent: the state
// for the United States or no country, else the province.
func derivedStateProvince(v *models.Venue) string {
	switch strings.ToLower(strings.TrimSpace(v.Country)) {
	case "", "us", "usa", "united states", "united states of america":
		if v.State != "" {
			return v.State
		}
	}
	return v.Province
}

// geolocationOff is the reason venue coordinates are refused when the extension is switched off.
const geolocationOff = "geolocation is not enabled"

// applyCoordinates sets geo_lat and geo_lng: in range, and the venue ends up with both or neither.
func (a *App) applyCoordinates(in *VenueFields, v *models.Venue, invalid map[string]string) {
	lat, lng := in.GeoLat, in.GeoLng
	sent := map[string]bool{"geo_lat": lat.Set || lat.Null, "geo_lng": lng.Set || lng.Null}
	if !a.Config.Geolocation {
		for name, given := range sent {
			if given {
				invalid[name] = geolocationOff
			}
		}
		return
	}
	setCoordinate(&v.GeoLat, "geo_lat", lat, 90, invalid)
	setCoordinate(&v.GeoLng, "geo_lng", lng, 180, invalid)
	switch {
	case (v.GeoLat == nil) == (v.GeoLng == nil):
	case v.GeoLat == nil && !sent["geo_lat"]:
		invalid["geo_lat"] = "must be given together with geo_lng"
	case v.GeoLng == nil && !sent["geo_lng"]:
		invalid["geo_lng"] = "must be given together with geo_lat"
	case v.GeoLat == nil:
		invalid["geo_lng"] = "cannot be kept without geo_lat; remove both"
	default:
		invalid["geo_lat"] = "cannot be kept without geo_lng; remove both"
	}
}

func setCoordinate(dst **float64, name string, in endpoint.Opt[coordinate], limit float64, invalid map[string]string) {
	switch {
	case in.Null || (in.Set && in.V.Clear):
		*dst = nil
	case !in.Set:
	case in.V.V < -limit || in.V.V > limit:
		invalid[name] = fmt.Sprintf("must be between %g and %g", -limit, limit)
	default:
		value := in.V.V
		*dst = &value
	}
}

// VenueRecord is a venue as the API shows it, in The Events Calendar's order: empty texts omitted, author as a
// string; geo_lat/geo_lng when set and geolocation is on (0 when redacted); json_ld on single reads only;
// show_map and show_map_link (null when redacted).
type VenueRecord struct {
	LinkedOpening
	Venue string `json:"venue" doc:"The venue's name (plain text)."`
	LinkedBody
	Address       *string       `json:"address,omitempty"`
	City          *string       `json:"city,omitempty"`
	Country       *string       `json:"country,omitempty"`
	Province      *string       `json:"province,omitempty"`
	State         string        `json:"state,omitempty"` // never redacted: The Events Calendar's lists leave it out
	Zip           *string       `json:"zip,omitempty"`
	Phone         *string       `json:"phone,omitempty"`
	Website       *string       `json:"website,omitempty"`
	StateProvince *string       `json:"stateprovince,omitempty"`
	GeoLat        *float64      `json:"geo_lat,omitempty" schema:"min=-90,max=90" doc:"Latitude, when set (geolocation); 0 when redacted."`
	GeoLng        *float64      `json:"geo_lng,omitempty" schema:"min=-180,max=180" doc:"Longitude, when set; 0 when redacted."`
	JSONLD        *LinkedJSONLD `json:"json_ld,omitempty" schema:"ref=JSONLD"`
	ShowMap       *bool         `json:"show_map" doc:"Whether events at the venue show a map."`
	ShowMapLink   *bool         `json:"show_map_link" doc:"Whether events at the venue show a map link."`
	GlobalIDs
}

// VenueShape converts a venue into its API shape for viewer: a password-protected venue is redacted as lists
// redact it when the viewer neither gave its password nor can edit it; its name stays visible. single adds
// json_ld. It reads v.Image as loaded and never queries.
func (a *App) VenueShape(site Site, v *models.Venue, viewer Viewer, single bool) *VenueRecord {
	open, body, ids, redact := a.linkedParts(site, v.Linked(), "venue", viewer)
	r := &VenueRecord{LinkedOpening: open, Venue: v.Name, LinkedBody: body, GlobalIDs: ids,
		Address: linkedText(v.Address, redact), City: linkedText(v.City, redact),
		Country: linkedText(v.Country, redact), Province: linkedText(v.Province, redact), State: v.State,
		Zip: linkedText(v.Zip, redact), Phone: linkedText(v.Phone, redact), Website: linkedText(v.Website, redact),
		StateProvince: linkedText(v.StateProvince, redact)}
	if a.Config.Geolocation && v.GeoLat != nil && v.GeoLng != nil {
		lat, lng := *v.GeoLat, *v.GeoLng
		if redact {
			lat, lng = 0, 0
		}
		r.GeoLat, r.GeoLng = &lat, &lng
	}
	if single {
		r.JSONLD = a.VenueJSONLD(site, v, redact)
	}
	if !redact {
		showMap, showMapLink := v.ShowMap, v.ShowMapLink
		r.ShowMap, r.ShowMapLink = &showMap, &showMapLink
	}
	return r
}

// VenueJSONLD is the venue as a schema.org Place, also usable as an event's location.
// redacted keeps only the type, name and page.
func (a *App) VenueJSONLD(site Site, v *models.Venue, redacted bool) *LinkedJSONLD {
	ld := linkedJSONLD("Place", v.Linked(), linkedURL(site, "venue", v.Slug), redacted)
	if redacted {
		return ld
	}
	region := v.StateProvince
	if region == "" {
		region = v.State
	}
	address := PostalAddressLD{Type: "PostalAddress", StreetAddress: v.Address, AddressLocality: v.City,
		AddressRegion: region, PostalCode: v.Zip, AddressCountry: v.Country}
	if address != (PostalAddressLD{Type: address.Type}) {
		ld.Address = &address
	}
	if a.Config.Geolocation && v.GeoLat != nil && v.GeoLng != nil {
		ld.Geo = &GeoLD{Type: "GeoCoordinates", Latitude: *v.GeoLat, Longitude: *v.GeoLng}
	}
	ld.Telephone, ld.SameAs = v.Phone, v.Website
	return ld
}
