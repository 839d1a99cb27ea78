package controllers

import (
	"fmt"
	"math"
	"strconv"

	"calendar/controllers/endpoint"
	"calendar/models"
)

// EventGeoInput holds the geolocation filters of GET /events, in the order rest_url echoes them.
type EventGeoInput struct {
	Geoloc       endpoint.Opt[gated[bool]]    `param:"geoloc" doc:"true: only events at a venue with coordinates; with geoloc_lat and geoloc_lng, only events at a venue within geoloc_radius of that point. false: no geolocation filter (the other geoloc parameters are checked, then ignored)."`
	GeolocLat    endpoint.Opt[gated[float64]] `param:"geoloc_lat" doc:"Latitude of the centre of a radius query, -90 to 90; needs geoloc_lng. It filters with or without geoloc=true (The Events Calendar ignores it without geoloc=true)."`
	GeolocLng    endpoint.Opt[gated[float64]] `param:"geoloc_lng" doc:"Longitude of the centre of a radius query, -180 to 180; needs geoloc_lat."`
	GeolocRadius endpoint.Opt[gated[float64]] `param:"geoloc_radius" doc:"Radius of the query, greater than 0, in geoloc_unit; default: the service's configured radius (25 miles unless configured). Needs geoloc_lat and geoloc_lng."`
	GeolocUnit   endpoint.Opt[gated[string]]  `param:"geoloc_unit" enum:"miles,km" doc:"Unit of geoloc_radius: miles or km; default: the configured unit. Needs geoloc_lat and geoloc_lng."`
}

// gated is a parameter of a feature that can be switched off (geolocation). The binder never refuses it: a value
// that does not decode is kept in Err, so that the handler can first refuse the parameter because the feature is
// off, whatever its value, and otherwise report Err. The `enum` tag of a gated field documents the values; the
// handler checks them.
type gated[T any] struct {
	V   T
	Err error
}

// DecodeParam decodes raw as T, keeping a failure for the handler.
func (g *gated[T]) DecodeParam(raw any) error {
	v, err := endpoint.DecodeAs[T](raw)
	if err != nil {
		*g = gated[T]{Err: err}
		return nil
	}
	*g = gated[T]{V: v}
	return nil
}

// ParamSchema describes the parameter as T.
func (gated[T]) ParamSchema() endpoint.Schema { return endpoint.SchemaOf[T]() }

// addGeoFilter applies the geolocation filters and echoes their effective values: geoloc=1, and for
// a radius query the centre, the radius and its unit (defaults included, so that the links keep meaning the same
// circle if the configuration changes). With geolocation switched off every geoloc* parameter sent is refused.
func (ec *EventController) addGeoFilter(q *eventQuery, in *EventGeoInput, invalid map[string]string) {
	bad := ec.checkGeoParams(in)
	for name, reason := range bad {
		invalid[name] = reason
	}
	if len(bad) > 0 {
		return
	}
	switch {
	case in.Geoloc.Set && !in.Geoloc.V.V:
		// geoloc=false switches the filter off, as in The Events Calendar, which then ignores the coordinates too.
	case in.GeolocLat.Set && in.GeolocLng.Set:
		unit := in.GeolocUnit.Or(gated[string]{V: ec.Config.GeoUnit}).V
		radius := in.GeolocRadius.Or(gated[float64]{V: defaultRadius(ec.Config.GeoRadius, ec.Config.GeoUnit, unit)}).V
		q.addNear(models.Circle{Lat: in.GeolocLat.V.V, Lng: in.GeolocLng.V.V, RadiusKm: radius * kmPerUnit(unit)})
		q.args = q.args.Add("geoloc", "1").Add("geoloc_lat", formatNumber(in.GeolocLat.V.V)).
			Add("geoloc_lng", formatNumber(in.GeolocLng.V.V)).
			Add("geoloc_radius", formatNumber(radius)).Add("geoloc_unit", unit)
	case in.Geoloc.Set:
		q.add(models.EventsAtGeolocatedVenues())
		q.args = q.args.Add("geoloc", "1")
	}
}

// gatedParam is what checkGeoParams needs of a gated parameter.
type gatedParam struct {
	name string
	sent bool // with a value or as JSON null
	err  error
}

func gatedOf[T any](name string, o endpoint.Opt[gated[T]]) gatedParam {
	return gatedParam{name: name, sent: o.Set || o.Null, err: o.V.Err}
}

// checkGeoParams returns the reason each bad geolocation parameter is refused: any of them while geolocation is
// off; else values that do not decode or are out of range, one coordinate without the other, and a radius or
// unit without a centre.
func (ec *EventController) checkGeoParams(in *EventGeoInput) map[string]string {
	bad := map[string]string{}
	for _, p := range []gatedParam{gatedOf("geoloc", in.Geoloc), gatedOf("geoloc_lat", in.GeolocLat),
		gatedOf("geoloc_lng", in.GeolocLng), gatedOf("geoloc_radius", in.GeolocRadius),
		gatedOf("geoloc_unit", in.GeolocUnit)} {
		switch {
		case p.sent && !ec.Config.Geolocation:
			bad[p.name] = geolocationOff
		case p.err != nil:
			bad[p.name] = p.err.Error()
		}
	}
	if !ec.Config.Geolocation {
		return bad
	}
	checkRange(bad, "geoloc_lat", in.GeolocLat, 90)
	checkRange(bad, "geoloc_lng", in.GeolocLng, 180)
	if r := in.GeolocRadius; r.Set && r.V.Err == nil && !(r.V.V > 0) {
		bad["geoloc_radius"] = "must be greater than 0"
	}
	if u := in.GeolocUnit; u.Set && u.V.Err == nil && u.V.V != "miles" && u.V.V != "km" {
		bad["geoloc_unit"] = "must be one of: miles, km"
	}
	// JSON null counts as not sent here, as for every scalar parameter.
	lat, lng := in.GeolocLat.Set, in.GeolocLng.Set
	switch {
	case lat && !lng:
		bad["geoloc_lng"] = "must be given together with geoloc_lat"
	case lng && !lat:
		bad["geoloc_lat"] = "must be given together with geoloc_lng"
	case !lat && !lng:
		for name, set := range map[string]bool{"geoloc_radius": in.GeolocRadius.Set, "geoloc_unit": in.GeolocUnit.Set} {
			if set {
				bad[name] = "applies only with geoloc_lat and geoloc_lng"
			}
		}
	}
	return bad
}

// checkRange refuses a coordinate outside -limit…limit.
func checkRange(bad map[string]string, name string, o endpoint.Opt[gated[float64]], limit float64) {
	if o.Set && o.V.Err == nil && math.Abs(o.V.V) > limit {
		bad[name] = fmt.Sprintf("must be between %g and %g", -limit, limit)
	}
}

// kmPerUnit is the length of one unit of radius (miles or km) in kilometres.
func kmPerUnit(unit string) float64 {
	if unit == "miles" {
		return models.KmPerMile
	}
	return 1
}

// defaultRadius is the configured radius expressed in unit; a converted one is rounded to 6 decimals (under a
// millimetre), so that rest_url shows 40.2336 rather than 40.233599999999996.
func defaultRadius(radius float64, configUnit, unit string) float64 {
	if unit == configUnit {
		return radius
	}
	return math.Round(radius*kmPerUnit(configUnit)/kmPerUnit(unit)*1e6) / 1e6
}

// formatNumber writes a number as short as it reads back exactly.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
