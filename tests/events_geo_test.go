package tests

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"calendar/models"
)

// The distances below are computed by hand on the sphere of radius 6371.0088 km (the Earth's mean radius, the one
// the service measures on): along a meridian, or along the equator, one degree is 6371.0088·π/180 ≈ 111.19508 km,
// so a point d km away lies d/111.19508 degrees away; across a pole, the arc from latitude φ1 to the pole and
// down the opposite meridian to φ2 is (90−φ1)+(90−φ2) degrees.
const (
	earthKm   = 6371.0088
	kmPerDeg  = earthKm * math.Pi / 180
	kmPerMile = 1.609344
)

// chicagoLat and chicagoLng are downtown Chicago, the centre most radius tests place their venues around.
const chicagoLat, chicagoLng = 41.8781, -87.6298

// degreesFor is the arc in degrees of d km along a great circle.
func degreesFor(km float64) float64 { return km / kmPerDeg }

// wrapLng brings a longitude back into −180…180, for points placed across the antimeridian.
func wrapLng(lng float64) float64 {
	switch {
	case lng > 180:
		return lng - 360
	case lng < -180:
		return lng + 360
	}
	return lng
}

// geoWorld is a set of venues, each with one published event a few days ahead, named after the venue.
type geoWorld struct {
	app    *App
	token  string
	venues map[string]uint64 // venue name → venue ID
	events map[string]uint64 // venue name → event ID
	names  map[uint64]string // event ID → venue name
}

func newGeoWorld(t *testing.T, app *App) *geoWorld {
	return &geoWorld{app: app, token: app.Token(models.RoleEditor), venues: map[string]uint64{}, events: map[string]uint64{},
		names: map[uint64]string{}}
}

// place creates a venue at (lat, lng) and an event there, with extra event fields.
func (w *geoWorld) place(t *testing.T, name string, lat, lng float64, extra ...any) {
	t.Helper()
	w.venues[name] = w.app.post(t, w.token, "/venues", map[string]any{"venue": name, "geo_lat": lat, "geo_lng": lng})
	w.event(t, name, append([]any{"venue", w.venues[name]}, extra...)...)
}

// event creates an event titled and keyed name, len(w.events) days ahead, with extra fields.
func (w *geoWorld) event(t *testing.T, name string, extra ...any) {
	t.Helper()
	id := idOf(t, w.app.createEvent(t, w.token, eventBody(name, 1+len(w.events), extra...)))
	w.events[name], w.names[id] = id, name
}

// list lists the events with the query (anonymously) and returns their keys, sorted.
func (w *geoWorld) list(t *testing.T, query string) []string {
	t.Helper()
	return w.keys(w.app.listIDs(t, query+"&per_page=50", ""))
}

func (w *geoWorld) keys(ids []uint64) []string {
	out := []string{}
	for _, id := range ids {
		out = append(out, w.names[id])
	}
	sort.Strings(out)
	return out
}

func sortedStrings(s ...string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func sameStrings(a, b []string) bool { return strings.Join(a, "|") == strings.Join(b, "|") }

func centre(lat, lng float64) string { return fmt.Sprintf("geoloc_lat=%v&geoloc_lng=%v", lat, lng) }

func TestRadiusQueriesKeepVenuesWithinTheGreatCircleDistance(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	w := newGeoWorld(t, app)
	const parisLat, parisLng = 48.8566, 2.3522
	// Along the meridian of the centre, north and south.
	w.place(t, "north 9.99 km", parisLat+degreesFor(9.99), parisLng)
	w.place(t, "north 10.01 km", parisLat+degreesFor(10.01), parisLng)
	w.place(t, "south 24.99 mi", parisLat-degreesFor(24.99*kmPerMile), parisLng)
	w.place(t, "south 25.01 mi", parisLat-degreesFor(25.01*kmPerMile), parisLng)
	w.place(t, "south 40.2 km", parisLat-degreesFor(40.2), parisLng)
	w.place(t, "south 40.3 km", parisLat-degreesFor(40.3), parisLng)
	// Along the parallel of a centre at 60°N: two points Δλ apart on latitude φ are 2R·asin(cos φ·sin(Δλ/2))
	// apart, so d km east is Δλ = 2·asin(sin(d/2R)/cos φ), further east than a box of d/(R·cos φ) would reach.
	east := func(km float64) float64 {
		return 2 * math.Asin(math.Sin(km/(2*earthKm))/math.Cos(60*math.Pi/180)) * 180 / math.Pi
	}
	w.place(t, "60N east 99.9 km", 60, 10+east(99.9))
	w.place(t, "60N east 100.1 km", 60, 10+east(100.1))
	// Around the North Pole: from 89.9°N on meridian 0 across the pole to meridian 180.
	w.place(t, "pole 22.24 km", 89.9, 180)                            // 0.1° + 0.1° = 0.2° = 22.239 km
	w.place(t, "pole 24.99 km", 90.1-degreesFor(24.99), -180)         // −180 is the same meridian
	w.place(t, "pole 25.01 km", 90.1-degreesFor(25.01), 180)          // just past the radius
	w.place(t, "south pole 11.12 km", -89.95, -135)                   // from (−89.95, 45): 0.05° + 0.05° = 0.1°
	w.place(t, "on the north pole", 90, 0)                            // 0.1° = 11.12 km from (89.9, 0)
	w.place(t, "south pole 11.2 km", -90+degreesFor(11.2)-0.05, -135) // 0.05° + (11.2 km − 0.05°) over the pole
	// Across the antimeridian, along the equator from 179.95°E.
	w.place(t, "dateline east 9.99 km", 0, wrapLng(179.95+degreesFor(9.99)))
	w.place(t, "dateline east 10.01 km", 0, wrapLng(179.95+degreesFor(10.01)))
	w.place(t, "dateline west 9.99 km", 0, 179.95-degreesFor(9.99))
	w.place(t, "dateline west 10.01 km", 0, 179.95-degreesFor(10.01))
	w.place(t, "no coordinates venue", 0, 0) // replaced below by a venue without coordinates
	app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/venues/%d", w.venues["no coordinates venue"]),
		Token: w.token, Body: map[string]any{"geo_lat": "", "geo_lng": ""}}).ExpectStatus(t, http.StatusOK)
	w.event(t, "no venue")

	paris := centre(parisLat, parisLng)
	cases := []struct {
		name, query string
		want        []string
	}{
		{"10 km keeps 9.99 km, not 10.01 km", paris + "&geoloc_radius=10&geoloc_unit=km", []string{"north 9.99 km"}},
		{"geoloc=true changes nothing", "geoloc=true&" + paris + "&geoloc_radius=10&geoloc_unit=km", []string{"north 9.99 km"}},
		// 25 miles is 40.2336 km: 24.99 mi (40.2175 km) and 40.2 km are inside, 25.01 mi (40.2497 km) is not.
		{"the default is 25 miles", paris, []string{"north 9.99 km", "north 10.01 km", "south 24.99 mi", "south 40.2 km"}},
		{"25 miles in miles", paris + "&geoloc_radius=25&geoloc_unit=miles",
			[]string{"north 9.99 km", "north 10.01 km", "south 24.99 mi", "south 40.2 km"}},
		{"the default radius in km is the same 40.2336 km", paris + "&geoloc_unit=km",
			[]string{"north 9.99 km", "north 10.01 km", "south 24.99 mi", "south 40.2 km"}},
		{"40.25 km", paris + "&geoloc_radius=40.25&geoloc_unit=km",
			[]string{"north 9.99 km", "north 10.01 km", "south 24.99 mi", "south 25.01 mi", "south 40.2 km"}},
		{"a fractional radius in miles", paris + "&geoloc_radius=0.1&geoloc_unit=miles", []string{}},
		{"a radius wider than the planet keeps every venue with coordinates", paris + "&geoloc_radius=30000&geoloc_unit=km",
			sortedStrings(w.withCoordinates()...)},
		{"along a parallel at 60°N", centre(60, 10) + "&geoloc_radius=100&geoloc_unit=km", []string{"60N east 99.9 km"}},
		{"across the North Pole", centre(89.9, 0) + "&geoloc_radius=25&geoloc_unit=km",
			[]string{"on the north pole", "pole 22.24 km", "pole 24.99 km"}},
		// From the pole, 89.9° is 0.1° = 11.12 km away whatever the meridian, 89.875° (24.99 km above) 13.9 km.
		{"from the North Pole itself", centre(90, 123) + "&geoloc_radius=12&geoloc_unit=km",
			[]string{"on the north pole", "pole 22.24 km"}},
		{"across the South Pole", centre(-89.95, 45) + "&geoloc_radius=11.19&geoloc_unit=km", []string{"south pole 11.12 km"}},
		{"across the South Pole, wider", centre(-89.95, 45) + "&geoloc_radius=11.21&geoloc_unit=km",
			[]string{"south pole 11.12 km", "south pole 11.2 km"}},
		{"across the antimeridian from the east side", centre(0, 179.95) + "&geoloc_radius=10&geoloc_unit=km",
			[]string{"dateline east 9.99 km", "dateline west 9.99 km"}},
		{"across the antimeridian from the west side", centre(0, -179.9) + "&geoloc_radius=10&geoloc_unit=km",
			// 179.95°E is 0.15° = 16.68 km west of 179.9°W; the points east of it at 9.99 and 10.01 km are
			// 6.69 and 6.67 km away.
			[]string{"dateline east 10.01 km", "dateline east 9.99 km"}},
		{"the centre may sit on the antimeridian", centre(0, 180) + "&geoloc_radius=5.6&geoloc_unit=km",
			// 0.05° = 5.56 km to 179.95°E; the east points are 4.43 and 4.45 km away, the west ones 15.55 and 15.57.
			[]string{"dateline east 10.01 km", "dateline east 9.99 km"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := w.list(t, c.query); !sameStrings(got, sortedStrings(c.want...)) {
				t.Fatalf("%s lists %v, want %v", c.query, got, sortedStrings(c.want...))
			}
		})
	}
}

// withCoordinates lists the keys of the events whose venue has coordinates, as created so far.
func (w *geoWorld) withCoordinates() []string {
	var out []string
	for name := range w.venues {
		if name != "no coordinates venue" {
			out = append(out, name)
		}
	}
	return out
}

func TestGeolocTrueKeepsEventsAtAVenueWithCoordinates(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	w := newGeoWorld(t, app)
	w.place(t, "located", 51.5, -0.12)
	plain := app.post(t, w.token, "/venues", map[string]any{"venue": "Plain hall"})
	w.event(t, "unlocated", "venue", plain)
	w.event(t, "no venue")
	w.event(t, "one of two located", "venue", []any{plain, w.venues["located"]})
	for _, q := range []string{"geoloc=true", "geoloc=1", "geoloc=yes"} {
		if got := w.list(t, q); !sameStrings(got, sortedStrings("located", "one of two located")) {
			t.Errorf("%s lists %v", q, got)
		}
	}
	all := sortedStrings("located", "unlocated", "no venue", "one of two located")
	if got := w.list(t, "geoloc=false"); !sameStrings(got, all) {
		t.Errorf("geoloc=false lists %v, want every event", got)
	}
	t.Run("geoloc=false switches the filter off, coordinates included", func(t *testing.T) {
		body := app.Get("/events?geoloc=false&"+centre(10, 10)+"&geoloc_radius=1").ExpectStatus(t, http.StatusOK).JSON(t)
		if got := w.keys(idsOf(body["events"])); !sameStrings(got, all) {
			t.Fatalf("lists %v", got)
		}
		if q := restQuery(t, body["rest_url"].(string)); q.Has("geoloc") || q.Has("geoloc_lat") || q.Has("geoloc_radius") {
			t.Fatalf("rest_url echoes a filter that does not apply: %v", body["rest_url"])
		}
	})
	t.Run("an event at two venues in the circle is listed once", func(t *testing.T) {
		near := app.post(t, w.token, "/venues", map[string]any{"venue": "Near", "geo_lat": 51.51, "geo_lng": -0.12})
		w.event(t, "two near venues", "venue", []any{near, w.venues["located"]})
		body := app.Get("/events?"+centre(51.5, -0.12)+"&geoloc_radius=5&geoloc_unit=km").ExpectStatus(t, http.StatusOK).JSON(t)
		if got := w.keys(idsOf(body["events"])); !sameStrings(got, sortedStrings("located", "one of two located", "two near venues")) ||
			body["total"] != float64(3) {
			t.Fatalf("lists %v, total %v", got, body["total"])
		}
	})
	t.Run("rest_url echoes geoloc=1", func(t *testing.T) {
		body := app.Get("/events?geoloc=on").JSON(t)
		if q := restQuery(t, body["rest_url"].(string)); q.Get("geoloc") != "1" || q.Has("geoloc_lat") {
			t.Fatalf("rest_url %v", body["rest_url"])
		}
	})
	t.Run("a venue that loses its coordinates leaves the filter", func(t *testing.T) {
		app.Do(Request{Method: http.MethodPatch, Path: fmt.Sprintf("/venues/%d", w.venues["located"]), Token: w.token,
			Body: map[string]any{"geo_lat": nil, "geo_lng": nil}}).ExpectStatus(t, http.StatusOK)
		if got := w.list(t, "geoloc=true"); !sameStrings(got, []string{"two near venues"}) {
			t.Fatalf("lists %v", got)
		}
	})
}

func TestCoordinatesAloneMakeARadiusQueryAndEchoTheEffectiveCircle(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_GEO_RADIUS", "10", "CALENDAR_GEO_UNIT", "km"))
	w := newGeoWorld(t, app)
	w.place(t, "9.99 km", degreesFor(9.99), 0)
	w.place(t, "10.01 km", degreesFor(10.01), 0)
	w.place(t, "16 km", degreesFor(16), 0)
	if got := w.list(t, centre(0, 0)); !sameStrings(got, []string{"9.99 km"}) {
		t.Fatalf("the configured default of 10 km lists %v", got)
	}
	// Without a radius, geoloc_unit only changes how the configured 10 km is written (6.213712 miles), not how
	// far it reaches; read as 10 miles it would reach 16 km.
	if got := w.list(t, centre(0, 0)+"&geoloc_unit=miles"); !sameStrings(got, []string{"9.99 km"}) {
		t.Fatalf("10 km expressed in miles lists %v", got)
	}
	cases := []struct{ query, radius, unit string }{
		{centre(0, 0), "10", "km"},
		{centre(0, 0) + "&geoloc_unit=miles", "6.213712", "miles"},
		{"geoloc=1&geoloc_lat=-0.5&geoloc_lng=10.25&geoloc_radius=2.5&geoloc_unit=km", "2.5", "km"},
	}
	for _, c := range cases {
		body := app.Get("/events?"+c.query+"&search=km").ExpectStatus(t, http.StatusOK).JSON(t)
		raw := body["rest_url"].(string)
		q := restQuery(t, raw)
		if q.Get("geoloc") != "1" || q.Get("geoloc_radius") != c.radius || q.Get("geoloc_unit") != c.unit ||
			q.Get("geoloc_lat") == "" || q.Get("geoloc_lng") == "" {
			t.Fatalf("%s: rest_url %s", c.query, raw)
		}
		// The reference's order: …, search, geoloc, geoloc_lat, geoloc_lng (then ours), status.
		order := []string{"search=", "geoloc=", "geoloc_lat=", "geoloc_lng=", "geoloc_radius=", "geoloc_unit=", "status="}
		last := -1
		for _, key := range order {
			i := strings.Index(raw, "&"+key)
			if i < last {
				t.Fatalf("%s comes out of order in %s", key, raw)
			}
			last = i
		}
	}
	if q := restQuery(t, app.Get("/events?geoloc_lat=-0.5&geoloc_lng=10.25").JSON(t)["rest_url"].(string)); q.Get("geoloc_lat") != "-0.5" ||
		q.Get("geoloc_lng") != "10.25" {
		t.Fatalf("the centre is not echoed as given: %v", q)
	}
}

func TestGeolocationCombinesWithEveryFilterAndPaging(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	near := func(km float64) float64 { return lat + degreesFor(km) }
	cat := app.post(t, w.token, "/categories", map[string]any{"name": "Jazz"})
	w.place(t, "near jazz", near(1), lng, "categories", []any{cat})
	w.place(t, "near featured", near(2), lng, "featured", true)
	w.place(t, "near search", near(3), lng, "description", "An evening of zydeco")
	w.place(t, "near draft", near(4), lng, "status", "draft")
	w.place(t, "near late", near(5), lng, "start_date", daysFromNow(400, 10), "end_date", daysFromNow(400, 12))
	w.place(t, "far jazz", near(100), lng, "categories", []any{cat}, "featured", true, "description", "zydeco")
	w.event(t, "near again", "venue", w.venues["near jazz"])
	circle := centre(lat, lng) + "&geoloc_radius=10&geoloc_unit=km"
	nearVenue := fmt.Sprint(w.venues["near jazz"])
	cases := []struct {
		query string
		want  []string
	}{
		{circle, []string{"near jazz", "near featured", "near search", "near late", "near again"}},
		{circle + "&categories=" + fmt.Sprint(cat), []string{"near jazz"}},
		{circle + "&categories=jazz", []string{"near jazz"}},
		{circle + "&venue=" + nearVenue, []string{"near jazz", "near again"}},
		{circle + "&venue=" + fmt.Sprint(w.venues["far jazz"]), []string{}},
		{circle + "&featured=true", []string{"near featured"}},
		{circle + "&featured=false", []string{"near jazz", "near search", "near late", "near again"}},
		{circle + "&search=zydeco", []string{"near search"}},
		{circle + "&end_date=" + url.QueryEscape(daysFromNow(100, 0)), []string{"near jazz", "near featured", "near search", "near again"}},
		{circle + "&start_date=" + url.QueryEscape(daysFromNow(300, 0)), []string{"near late"}},
		{"geoloc=true&featured=true", []string{"near featured", "far jazz"}},
		{"geoloc=true&categories=jazz&search=zydeco", []string{"far jazz"}},
	}
	for _, c := range cases {
		if got := w.list(t, c.query); !sameStrings(got, sortedStrings(c.want...)) {
			t.Errorf("%s lists %v, want %v", c.query, got, sortedStrings(c.want...))
		}
	}
	t.Run("editors see the draft too", func(t *testing.T) {
		got := w.keys(app.listIDs(t, circle+"&status=draft", w.token))
		if !sameStrings(got, []string{"near draft"}) {
			t.Fatalf("lists %v", got)
		}
	})
	t.Run("pages of a radius query, and next_rest_url keeps the circle", func(t *testing.T) {
		path := "/events?" + circle + "&per_page=2"
		var seen []uint64
		for page := 1; ; page++ {
			res := app.Get(path).ExpectStatus(t, http.StatusOK)
			body := res.JSON(t)
			if body["total"] != float64(5) || body["total_pages"] != float64(3) || res.Header.Get("X-TEC-Total") != "5" {
				t.Fatalf("page %d: total %v, pages %v", page, body["total"], body["total_pages"])
			}
			seen = append(seen, idsOf(body["events"])...)
			next, ok := body["next_rest_url"].(string)
			if !ok {
				break
			}
			q := restQuery(t, next)
			if q.Get("geoloc_lat") != fmt.Sprint(lat) || q.Get("geoloc_radius") != "10" || q.Get("geoloc_unit") != "km" {
				t.Fatalf("next_rest_url %s", next)
			}
			path = strings.TrimPrefix(next, "http://example.com"+app.Config.APIRoot())
		}
		want := []string{"near jazz", "near featured", "near search", "near again", "near late"}
		if got := w.keys(seen); len(seen) != 5 || !sameStrings(got, sortedStrings(want...)) {
			t.Fatalf("the pages list %v", got)
		}
		ordered := make([]uint64, len(want))
		for i, k := range want {
			ordered[i] = w.events[k]
		}
		if !slices.Equal(seen, ordered) {
			t.Fatalf("pages in order %v, want %v (by start)", seen, ordered)
		}
		app.Get("/events?"+circle+"&per_page=2&page=4").ExpectError(t, http.StatusNotFound, "event-archive-page-not-found")
	})
	t.Run("a radius query takes no more queries than any list", func(t *testing.T) {
		n := countQueries(t, app)
		app.Get("/events?"+circle+"&featured=false&per_page=50").ExpectStatus(t, http.StatusOK)
		if got := n.Load(); got > 6 {
			t.Fatalf("a radius query takes %d queries", got)
		}
	})
}

func TestBadGeolocationParametersAre400NamingThem(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	ok := centre(10, 20)
	cases := []struct {
		query  string
		params []string
	}{
		{"geoloc=maybe", []string{"geoloc"}},
		{"geoloc_lat=north&geoloc_lng=1", []string{"geoloc_lat"}},
		{"geoloc_lat=1&geoloc_lng=east", []string{"geoloc_lng"}},
		{"geoloc_lat=90.0001&geoloc_lng=0", []string{"geoloc_lat"}},
		{"geoloc_lat=-91&geoloc_lng=0", []string{"geoloc_lat"}},
		{"geoloc_lat=0&geoloc_lng=180.5", []string{"geoloc_lng"}},
		{"geoloc_lat=0&geoloc_lng=-181", []string{"geoloc_lng"}},
		{"geoloc_lat=NaN&geoloc_lng=Inf", []string{"geoloc_lat", "geoloc_lng"}},
		{"geoloc_lat=10", []string{"geoloc_lng"}},
		{"geoloc=true&geoloc_lng=10", []string{"geoloc_lat"}},
		{ok + "&geoloc_radius=0", []string{"geoloc_radius"}},
		{ok + "&geoloc_radius=-5", []string{"geoloc_radius"}},
		{ok + "&geoloc_radius=far", []string{"geoloc_radius"}},
		{ok + "&geoloc_unit=feet", []string{"geoloc_unit"}},
		{ok + "&geoloc_unit=KM", []string{"geoloc_unit"}},
		{"geoloc_radius=5", []string{"geoloc_radius"}},
		{"geoloc=true&geoloc_unit=km", []string{"geoloc_unit"}},
		{"geoloc=false&geoloc_lat=95&geoloc_lng=0", []string{"geoloc_lat"}},
		{"geoloc_lat=100&geoloc_lng=200&geoloc_radius=0&geoloc_unit=m", []string{"geoloc_lat", "geoloc_lng", "geoloc_radius", "geoloc_unit"}},
		{ok + "&geoloc_radius=0&search=", []string{"geoloc_radius", "search"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) { expectInvalid(t, app.Get("/events?"+c.query), c.params...) })
	}
	t.Run("in a JSON body too", func(t *testing.T) {
		expectInvalid(t, app.Do(Request{Method: http.MethodGet, Path: "/events",
			Body: map[string]any{"geoloc_lat": 91, "geoloc_lng": "x"}}), "geoloc_lat", "geoloc_lng")
		expectInvalid(t, app.Do(Request{Method: http.MethodGet, Path: "/events",
			Body: map[string]any{"geoloc_lat": 1, "geoloc_lng": nil}}), "geoloc_lng")
	})
	t.Run("the limits themselves are fine", func(t *testing.T) {
		for _, q := range []string{"geoloc_lat=90&geoloc_lng=180", "geoloc_lat=-90&geoloc_lng=-180",
			"geoloc_lat=0&geoloc_lng=0&geoloc_radius=0.001", "geoloc_lat=1e1&geoloc_lng=-2.5E1&geoloc_radius=1e9&geoloc_unit=km",
			"geoloc_lat=1&geoloc_lng=2&geoloc_radius=1.7e308&geoloc_unit=miles"} {
			app.Get("/events?"+q).ExpectStatus(t, http.StatusOK)
		}
	})
}

func TestGeolocationParametersAreRefusedWhenGeolocationIsOff(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_GEOLOCATION", "off"))
	for _, q := range []string{"geoloc=true", "geoloc=false", "geoloc=maybe", "geoloc_lat=10", "geoloc_lng=abc",
		"geoloc_radius=5", "geoloc_unit=km", "geoloc_unit=feet"} {
		t.Run(q, func(t *testing.T) {
			name := strings.SplitN(q, "=", 2)[0]
			body := expectInvalid(t, app.Get("/events?"+q), name)
			if reason := body["data"].(map[string]any)["params"].(map[string]any)[name]; reason != "geolocation is not enabled" {
				t.Fatalf("reason %q", reason)
			}
		})
	}
	t.Run("all at once, with JSON null", func(t *testing.T) {
		body := expectInvalid(t, app.Do(Request{Method: http.MethodGet, Path: "/events", Body: map[string]any{
			"geoloc": true, "geoloc_lat": 1, "geoloc_lng": 2, "geoloc_radius": nil, "geoloc_unit": "km", "per_page": 3}}),
			"geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius", "geoloc_unit")
		for name, reason := range body["data"].(map[string]any)["params"].(map[string]any) {
			if reason != "geolocation is not enabled" {
				t.Fatalf("%s: %q", name, reason)
			}
		}
	})
	app.Get("/events").ExpectStatus(t, http.StatusOK)
}

// A radius query's total comes from venue links kept by the writes, not from a count of its events: each write that
// moves an event into or out of the circle, the date window, the statuses a visitor reads or the listings changes
// the total the next list reports, and an event at two venues in the circle counts once.
func TestRadiusTotalsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	near := func(km float64) float64 { return lat + degreesFor(km) }
	w.place(t, "a", near(1), lng)
	w.place(t, "b", near(2), lng)
	w.place(t, "far", near(100), lng)
	w.event(t, "both", "venue", []any{w.venues["a"], w.venues["b"]})
	w.event(t, "moving", "venue", w.venues["a"])
	// per_page=1 keeps the first page full, as a client paging a long list sees it, so that the total is the one
	// counted for the whole list.
	circle := "/events?" + centre(lat, lng) + "&geoloc_radius=10&geoloc_unit=km&per_page=1"
	// Each page of one event holds the next event of the whole list, and an event at both venues comes once.
	expectTotal := func(what string, want int) {
		t.Helper()
		res := app.Get(circle).ExpectStatus(t, http.StatusOK)
		if got := res.Header.Get("X-TEC-Total"); got != fmt.Sprint(want) || res.JSON(t)["total"] != float64(want) {
			t.Fatalf("after %s: X-TEC-Total %s, want %d", what, got, want)
		}
		whole := idsOf(app.Get(strings.Replace(circle, "per_page=1", "per_page=50", 1)).ExpectStatus(t, http.StatusOK).
			JSON(t)["events"])
		var paged []uint64
		for page := 1; page <= want; page++ {
			paged = append(paged, idsOf(app.Get(fmt.Sprintf("%s&page=%d", circle, page)).ExpectStatus(t, http.StatusOK).
				JSON(t)["events"])...)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(whole)))) != want || !slices.Equal(paged, whole) {
			t.Fatalf("after %s: pages of one list %v, the whole list %v, want %d events once each", what, paged, whole, want)
		}
	}
	expectTotal("the creates", 4)
	path := fmt.Sprintf("/events/%d", w.events["moving"])
	steps := []struct {
		what string
		body map[string]any
		want int
	}{
		{"a move to a far venue", map[string]any{"venue": w.venues["far"]}, 3},
		{"a move back", map[string]any{"venue": w.venues["b"]}, 4},
		{"a start past the window", map[string]any{"start_date": daysFromNow(800, 10), "end_date": daysFromNow(800, 12)}, 3},
		{"a start back inside it", map[string]any{"start_date": daysFromNow(9, 10), "end_date": daysFromNow(9, 12)}, 4},
		{"a draft", map[string]any{"status": "draft"}, 3},
		{"publishing again", map[string]any{"status": "publish"}, 4},
		{"hiding from listings", map[string]any{"hide_from_listings": true}, 3},
		{"listing again", map[string]any{"hide_from_listings": false}, 4},
		{"a second venue in the circle", map[string]any{"venue": []any{w.venues["a"], w.venues["b"]}}, 4},
	}
	for _, s := range steps {
		app.updateEvent(t, "POST", path, w.token, s.body)
		expectTotal(s.what, s.want)
	}
	app.Do(Request{Method: "DELETE", Path: path, Token: w.token}).ExpectStatus(t, http.StatusOK)
	expectTotal("trashing", 3)
	app.Do(Request{Method: "DELETE", Path: fmt.Sprintf("/venues/%d", w.venues["b"]), Token: w.token}).
		ExpectStatus(t, http.StatusOK)
	expectTotal("deleting a venue", 2)
}

// A circle of many venues (more than 64) has its page taken from the first kept links of the whole window when
// enough of them are within the circle, and merged from each venue's first links otherwise: either way every page
// size pages the circle's events once each, in order, under one total. Here the window starts with 121 events at a
// venue outside the circle, so that a page of one event finds none of the circle's among the window's first
// hundred links and merges, and the pages after it find theirs.
func TestRadiusPagesOfACircleOfManyVenues(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	w.place(t, "far", lat+degreesFor(100), lng)
	for i := range 120 {
		w.event(t, fmt.Sprintf("far %03d", i), "venue", w.venues["far"])
	}
	var want []uint64
	for i := range 70 {
		if i == 35 {
			// Among the circle's events, not after them: its two links must not take two places of a page.
			w.event(t, "at two venues", "venue", []any{w.venues["near 00"], w.venues["near 01"]})
			want = append(want, w.events["at two venues"])
		}
		name := fmt.Sprintf("near %02d", i)
		w.place(t, name, lat+degreesFor(float64(i)/10), lng)
		want = append(want, w.events[name])
	}
	circle := "/events?" + centre(lat, lng) + "&geoloc_radius=10&geoloc_unit=km"
	for _, size := range []int{1, 3, 50} {
		var paged []uint64
		for page := 1; len(paged) < len(want); page++ {
			res := app.Get(fmt.Sprintf("%s&per_page=%d&page=%d", circle, size, page)).ExpectStatus(t, http.StatusOK)
			if got := res.Header.Get("X-TEC-Total"); got != fmt.Sprint(len(want)) {
				t.Fatalf("per_page=%d, page %d: X-TEC-Total %s, want %d", size, page, got, len(want))
			}
			ids := idsOf(res.JSON(t)["events"])
			if len(ids) == 0 {
				t.Fatalf("per_page=%d: page %d is empty after %d events", size, page, len(paged))
			}
			paged = append(paged, ids...)
		}
		if !slices.Equal(paged, want) {
			t.Fatalf("per_page=%d pages %v, want %v", size, w.keys(paged), w.keys(want))
		}
	}
}

// On PostgreSQL a radius total in the default window is summed from counts kept per venue for the window the
// service moves to today. Until it is moved (the day changed since), the total counts the links, and stays exact;
// once moved, writes count against the new window; folding the counts' rows of deltas changes no total; of two
// instances moving the window at once, one moves it; and none moves it back to an earlier day. SQLite counts every
// total and keeps no window.
func TestRadiusTotalsStayExactAsTheKeptWindowMoves(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	ctx, tz, keeps := t.Context(), app.Config.Timezone, app.Store.Dialect() == models.Postgres
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	w.place(t, "a", lat+degreesFor(1), lng)
	w.place(t, "b", lat+degreesFor(2), lng)
	w.event(t, "both", "venue", []any{w.venues["a"], w.venues["b"]})
	circle := "/events?" + centre(lat, lng) + "&geoloc_radius=10&geoloc_unit=km&per_page=1"
	expectTotal := totalOf(app, circle)
	moved, err := app.Store.KeepVenueWindow(ctx, time.Now(), tz)
	if err != nil || moved {
		t.Fatalf("the window kept at the start moved again (%v, %v)", moved, err)
	}
	expectTotal(t, "in the kept window", 3)
	yesterday := time.Now().AddDate(0, 0, -1)
	if moved, err := app.Store.KeepVenueWindow(ctx, yesterday, tz); err != nil || moved {
		t.Fatalf("the window moved back to yesterday (%v, %v)", moved, err)
	}
	// A database rebuilt keeps no window, as a new one: the window is then moved to a day that started earlier.
	if err := app.Store.RebuildKeptCounts(ctx); err != nil {
		t.Fatal(err)
	}
	expectTotal(t, "with no window kept", 3)
	if moved, err := app.Store.KeepVenueWindow(ctx, yesterday, tz); err != nil || moved != keeps {
		t.Fatalf("moving the window to yesterday: %v, %v", moved, err)
	}
	expectTotal(t, "with yesterday's window kept", 3)
	w.event(t, "later", "venue", w.venues["a"])
	w.event(t, "far", "venue", w.venues["b"], "start_date", daysFromNow(800, 10), "end_date", daysFromNow(800, 12))
	// The last day of today's window is past yesterday's.
	last := time.Now().In(tz).AddDate(2, 0, 0)
	at := func(hour int) string {
		return time.Date(last.Year(), last.Month(), last.Day(), hour, 0, 0, 0, tz).Format(dateTimeLayout)
	}
	w.event(t, "last day", "venue", w.venues["b"], "start_date", at(10), "end_date", at(12))
	expectTotal(t, "after writes counted against yesterday's window", 5)

	results := make(chan bool, 2)
	for range 2 {
		go func() {
			moved, err := app.Store.KeepVenueWindow(ctx, time.Now(), tz)
			if err != nil {
				t.Errorf("moving the window: %v", err)
			}
			results <- moved
		}()
	}
	if first, second := <-results, <-results; first && second {
		t.Fatal("two instances both moved the window")
	} else if keeps && !first && !second {
		t.Fatal("neither instance moved the window")
	}
	expectTotal(t, "in the window moved to today", 5)
	app.updateEvent(t, "POST", fmt.Sprintf("/events/%d", w.events["later"]), w.token,
		map[string]any{"start_date": daysFromNow(900, 10), "end_date": daysFromNow(900, 12)})
	app.Do(Request{Method: "DELETE", Path: fmt.Sprintf("/events/%d", w.events["a"]), Token: w.token}).
		ExpectStatus(t, http.StatusOK)
	expectTotal(t, "after a move out of the window and a trash", 3)
	if _, err := app.Store.CompactVenueWindowCounts(ctx); err != nil {
		t.Fatal(err)
	}
	expectTotal(t, "after folding the counts", 3)
}

// A writer's venue link is counted against the window its trigger read. Moving the window while that write is
// uncommitted would count again without it, and its count would then land on the moved window: the move waits
// for the writers in flight (the advisory lock their triggers take shared), and counts what they committed.
func TestAWindowMoveWaitsForTheVenueLinksBeingWritten(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	if app.Store.Dialect() != models.Postgres {
		t.Skip("radius totals are summed from a kept window on PostgreSQL only")
	}
	ctx, tz, now := t.Context(), app.Config.Timezone, time.Now().Truncate(time.Second)
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	w.place(t, "a", lat, lng)
	w.event(t, "moved back", "venue", w.venues["a"])
	if err := app.Store.RebuildKeptCounts(ctx); err != nil {
		t.Fatal(err)
	}
	if moved, err := app.Store.KeepVenueWindow(ctx, now.Add(-48*time.Hour), tz); err != nil || !moved {
		t.Fatalf("keeping the window of the day before yesterday: %v, %v", moved, err)
	}
	// A writer moves the event to yesterday: within the kept window, before today's.
	tx := app.Store.DB().Begin()
	defer tx.Rollback()
	if err := tx.Exec("UPDATE events SET start_utc = ?, end_utc = ? WHERE id = ?", now.Add(-30*time.Hour),
		now.Add(-29*time.Hour), w.events["moved back"]).Error; err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := app.Store.KeepVenueWindow(ctx, now, tz)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the window moved while a venue link counted against the old one was uncommitted (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	totalOf(app, "/events?"+centre(lat, lng)+"&geoloc_radius=10&geoloc_unit=km")(t,
		"today's window, which must not count the event moved to yesterday", 1)
}

// On PostgreSQL the kept counts of the radius window carry their venue's coordinates, which a total finds the
// counts of a circle by. A venue that moves forgets the window in the same write, so that totals count the links
// until the service counts the window again; a venue link written while the venue moves, with the coordinates it
// read before, is counted again then. Every total stays exact throughout, into the circle and out of it, and the
// invariant check after the test holds every kept count to its venue's coordinates.
func TestRadiusTotalsFollowAVenueThatMoves(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	ctx, tz, keeps := t.Context(), app.Config.Timezone, app.Store.Dialect() == models.Postgres
	w := newGeoWorld(t, app)
	const lat, lng = chicagoLat, chicagoLng
	w.place(t, "near", lat, lng)
	w.event(t, "near again", "venue", w.venues["near"])
	w.place(t, "far", lat+degreesFor(30), lng)
	circle := "/events?" + centre(lat, lng) + "&geoloc_radius=10&geoloc_unit=km&per_page=1"
	expectTotal := totalOf(app, circle)
	moveVenue := func(name string, lat float64) {
		t.Helper()
		app.updateEvent(t, "POST", fmt.Sprintf("/venues/%d", w.venues[name]), w.token,
			map[string]any{"geo_lat": lat, "geo_lng": lng})
	}
	keepWindow := func(what string) {
		t.Helper()
		if moved, err := app.Store.KeepVenueWindow(ctx, time.Now(), tz); err != nil || moved != keeps {
			t.Fatalf("%s: keeping the window again: moved %v, %v", what, moved, err)
		}
	}
	expectTotal(t, "before any move", 2)

	moveVenue("far", lat+degreesFor(3))
	expectTotal(t, "the far venue moved into the circle", 3)
	keepWindow("after the far venue moved")
	expectTotal(t, "the window counted again", 3)

	// A writer moves an event at the near venue to tomorrow (its venue link is counted again, with the
	// coordinates the writer reads) while the venue moves out of the circle (after it on SQLite, which takes one
	// writer at a time).
	tx := app.Store.DB().Begin()
	defer tx.Rollback()
	tomorrow := time.Now().Add(24 * time.Hour).Truncate(time.Second)
	if err := tx.Exec("UPDATE events SET start_utc = ?, end_utc = ? WHERE id = ?", tomorrow, tomorrow.Add(time.Hour),
		w.events["near again"]).Error; err != nil {
		t.Fatal(err)
	}
	if keeps {
		moveVenue("near", lat+degreesFor(30))
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if !keeps {
		moveVenue("near", lat+degreesFor(30))
	}
	expectTotal(t, "the near venue moved out of the circle", 1)
	keepWindow("after the near venue moved")
	expectTotal(t, "the window counted again", 1)
	if _, err := app.Store.CompactVenueWindowCounts(ctx); err != nil {
		t.Fatal(err)
	}
	w.event(t, "far again", "venue", w.venues["far"])
	expectTotal(t, "after folding the counts and a new event", 2)
}

// totalOf returns a check that the list at path, read anonymously, totals want (X-TEC-Total) after what happened.
func totalOf(app *App, path string) func(t *testing.T, what string, want int) {
	return func(t *testing.T, what string, want int) {
		t.Helper()
		if got := app.Get(path).ExpectStatus(t, http.StatusOK).Header.Get("X-TEC-Total"); got != fmt.Sprint(want) {
			t.Fatalf("%s: X-TEC-Total %s, want %d", what, got, want)
		}
	}
}
