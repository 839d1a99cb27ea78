package models

import (
	"math"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// EarthRadiusKm is the mean radius of the Earth (IUGG), the sphere on which great-circle distances are measured.
const EarthRadiusKm = 6371.0088

// KmPerMile converts a radius in miles to kilometres.
const KmPerMile = 1.609344

// GreatCircleKm is the great-circle distance in kilometres between two points given in degrees, by the haversine
// formula (well conditioned for the short distances radius queries use). It is also the SQLite function
// calendar_distance, so both dialects measure with the same formula.
func GreatCircleKm(lat1, lng1, lat2, lng2 float64) float64 {
	φ1, φ2 := radians(lat1), radians(lat2)
	dφ, dλ := φ2-φ1, radians(lng2-lng1)
	h := sq(math.Sin(dφ/2)) + math.Cos(φ1)*math.Cos(φ2)*sq(math.Sin(dλ/2))
	return 2 * EarthRadiusKm * math.Asin(math.Sqrt(math.Min(1, h)))
}

// sqliteDistance is calendar_distance on SQLite: GreatCircleKm of four numbers (integers or reals), else NULL, so
// that no stored value can make a query fail.
func sqliteDistance(lat1, lng1, lat2, lng2 any) any {
	var v [4]float64
	for i, x := range []any{lat1, lng1, lat2, lng2} {
		switch n := x.(type) {
		case float64:
			v[i] = n
		case int64:
			v[i] = float64(n)
		default:
			return nil
		}
	}
	return GreatCircleKm(v[0], v[1], v[2], v[3])
}

func radians(deg float64) float64 { return deg * math.Pi / 180 }
func degrees(rad float64) float64 { return rad * 180 / math.Pi }
func sq(x float64) float64        { return x * x }

// Circle is the area of a radius query: the points within RadiusKm of (Lat, Lng) by great-circle distance.
type Circle struct {
	Lat, Lng, RadiusKm float64
}

// geoBox is a latitude/longitude box that contains a circle: a range of latitudes and one or two ranges of
// longitudes (two when the circle crosses the antimeridian; none, meaning every longitude, when it reaches a pole).
type geoBox struct {
	minLat, maxLat float64
	lngRanges      [][2]float64
}

// boxMargin widens the box by about a millimetre, so that rounding in the box never drops a point that the exact
// distance keeps.
const boxMargin = 1e-8

// box is the smallest latitude/longitude box that contains the circle (J. P. Matuschek, "Finding Points Within a
// Distance of a Latitude/Longitude Using Bounding Coordinates"): the latitudes the circle spans, and the longitudes
// of its two points of tangency with meridians, asin(sin r / cos φ) either side of the centre.
func (c Circle) box() geoBox {
	r := c.RadiusKm / EarthRadiusKm // angular radius
	b := geoBox{minLat: c.Lat - degrees(r) - boxMargin, maxLat: c.Lat + degrees(r) + boxMargin}
	if b.minLat <= -90 || b.maxLat >= 90 {
		// The circle contains a pole, so every meridian crosses it.
		b.minLat, b.maxLat = math.Max(b.minLat, -90), math.Min(b.maxLat, 90)
		return b
	}
	dλ := degrees(math.Asin(math.Min(1, math.Sin(r)/math.Cos(radians(c.Lat))))) + boxMargin
	minLng, maxLng := c.Lng-dλ, c.Lng+dλ
	switch {
	case minLng < -180:
		b.lngRanges = [][2]float64{{minLng + 360, 180}, {-180, maxLng}}
	case maxLng > 180:
		b.lngRanges = [][2]float64{{minLng, 180}, {-180, maxLng - 360}}
	default:
		b.lngRanges = [][2]float64{{minLng, maxLng}}
	}
	return b
}

// EventsAtGeolocatedVenues keeps events linked to at least one venue with coordinates; idx_venues_geo (partial on
// venues with coordinates) lists those venues.
func EventsAtGeolocatedVenues() Scope {
	return atVenuesWhere("v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL")
}

// EventsNear keeps events linked to at least one venue within the circle. The venues are found with the box that
// contains the circle, ranges on the indexed (geo_lat, geo_lng), and only the venues in the box are measured.
func EventsNear(c Circle) Scope {
	return func(db *gorm.DB) *gorm.DB {
		cond, args := venuesWithin(db, c)
		return atVenuesWhere(cond, args...)(db)
	}
}

// venuesWithin is the condition, on venues aliased v, of a venue within the circle, and its arguments: ranges of
// the box that contains the circle, which idx_venues_geo serves, then the exact distance of the venues in the box.
func venuesWithin(db *gorm.DB, c Circle) (string, []any) {
	box, args := c.box().condition("v")
	distance, distanceArgs := distanceKm(db, "v.geo_lat", "v.geo_lng", c.Lat, c.Lng)
	return box + " AND " + distance + " <= ?", append(append(args, distanceArgs...), c.RadiusKm)
}

// condition is the condition of coordinates in the columns geo_lat and geo_lng of the table aliased alias (a
// trusted name, never input) within the box, and its arguments.
func (b geoBox) condition(alias string) (string, []any) {
	conds := []string{alias + ".geo_lat BETWEEN ? AND ?"}
	args := []any{b.minLat, b.maxLat}
	if len(b.lngRanges) > 0 {
		ranges := make([]string, len(b.lngRanges))
		for i, r := range b.lngRanges {
			ranges[i] = alias + ".geo_lng BETWEEN ? AND ?"
			args = append(args, r[0], r[1])
		}
		conds = append(conds, "("+strings.Join(ranges, " OR ")+")")
	} else {
		conds = append(conds, alias+".geo_lng IS NOT NULL")
	}
	return strings.Join(conds, " AND "), args
}

// circleVenues returns the common table expression that names the IDs of the venues within a circle v, which the
// radius statements read (venuesWithin's condition), with its arguments.
func circleVenues(db *gorm.DB, c Circle) (string, []any) {
	circle, args := venuesWithin(db, c)
	return "WITH v AS MATERIALIZED (SELECT v.id FROM venues v WHERE " + circle + ") ", args
}

// atVenuesWhere keeps events linked to a venue (alias v) that meets cond; idx_event_venues_venue
// (venue_id, event_id) turns the venues into events.
func atVenuesWhere(cond string, args ...any) Scope {
	return func(db *gorm.DB) *gorm.DB {
		return db.Where("events.id IN (SELECT ev.event_id FROM event_venues ev JOIN venues v ON v.id = ev.venue_id "+
			"WHERE "+cond+")", args...)
	}
}

// distanceKm is the SQL of the great-circle distance in kilometres from the point in the columns (trusted names,
// never input) to (lat, lng), and its arguments. PostgreSQL computes the haversine formula with its built-in
// functions (asin's argument clamped, as rounding may push it past 1); SQLite has no trigonometric functions in
// this driver, so it calls GreatCircleKm, registered as calendar_distance.
func distanceKm(db *gorm.DB, latCol, lngCol string, lat, lng float64) (string, []any) {
	if db.Dialector.Name() != Postgres {
		return "calendar_distance(" + latCol + ", " + lngCol + ", ?, ?)", []any{lat, lng}
	}
	return "(2 * " + strconv.FormatFloat(EarthRadiusKm, 'f', -1, 64) + " * asin(least(1, sqrt(" +
			"power(sin(radians(" + latCol + " - ?) / 2), 2) + " +
			"cos(radians(" + latCol + ")) * cos(radians(?)) * power(sin(radians(" + lngCol + " - ?) / 2), 2)))))",
		[]any{lat, lat, lng}
}
