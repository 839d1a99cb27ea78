package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"calendar/config"
	"calendar/controllers"
	"calendar/models"
	"calendar/routes"
)

// demoLogin is the user the sample calendar is written as; its tokens are revoked once the sample is loaded.
const demoLogin = "demo"

// demoEvents is how many events the sample calendar has, spread over the coming demoDays days.
const (
	demoEvents = 300
	demoDays   = 120
)

// demoCommand loads a small, realistic sample calendar into the configured database: venues with coordinates,
// organizers, a category hierarchy, tags, and events over the coming months. It writes through the service's own
// routes, in process, as a demo administrator, so every rule of a write applies (validation, slugs, duplicates,
// counts). It refuses a database that already holds events unless --force is given.
func demoCommand(ctx context.Context, cfg config.Config, store *models.Store, args []string, stdout,
	stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	force := fs.Bool("force", false, "add the sample even when the database already holds events")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo: unexpected argument %q", fs.Arg(0))
	}
	has, err := store.HasEvents(ctx)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if has && !*force {
		return errors.New("demo: the database already holds events; run `demo --force` to add the sample anyway")
	}
	token, err := store.CreateUser(ctx, demoLogin, "Demo", models.RoleAdministrator)
	if err != nil {
		// The demo user exists from an earlier run: give it a token for this one.
		if token, err = store.IssueToken(ctx, demoLogin); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	defer func() { _, _ = store.RevokeTokens(context.WithoutCancel(ctx), demoLogin) }()

	app := controllers.NewApp(cfg, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer app.ShutDown()
	l := &demoLoader{ctx: ctx, handler: routes.New(app), cfg: cfg, token: token,
		rand: rand.New(rand.NewPCG(2026, 11))}
	counts, err := l.load(time.Now().In(cfg.Timezone))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(stdout, "loaded the sample calendar: %d events, %d venues, %d organizers, %d categories, %d tags\n",
		counts.events, counts.venues, counts.organizers, counts.categories, counts.tags)
	host := cfg.Addr
	if strings.HasPrefix(host, ":") {
		host = "localhost" + host
	}
	fmt.Fprintf(stdout, "try: curl http://%s%s/events\n", host, cfg.APIRoot())
	return nil
}

// demoLoader writes the sample through the router.
type demoLoader struct {
	ctx     context.Context
	handler http.Handler
	cfg     config.Config
	token   string
	rand    *rand.Rand
}

// demoCounts are the records the sample created.
type demoCounts struct{ events, venues, organizers, categories, tags int }

// post sends one write to the API and returns the record's ID. A venue or organizer identical to an existing one
// answers with that one (200); a term whose name exists answers term_exists with its ID; any other answer is an
// error.
func (l *demoLoader) post(path string, body map[string]any) (uint64, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req := httptest.NewRequestWithContext(l.ctx, http.MethodPost, l.cfg.APIRoot()+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.token)
	rec := httptest.NewRecorder()
	l.handler.ServeHTTP(rec, req)
	var out struct {
		ID   uint64 `json:"id"`
		Code string `json:"code"`
		Data struct {
			TermID uint64 `json:"term_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return 0, fmt.Errorf("POST %s answered %d: %w", path, rec.Code, err)
	}
	switch {
	case rec.Code == http.StatusOK || rec.Code == http.StatusCreated:
		return out.ID, nil
	case out.Code == "term_exists" && out.Data.TermID > 0:
		return out.Data.TermID, nil // a term of an earlier sample (--force): the events use it
	}
	return 0, fmt.Errorf("POST %s answered %d: %s", path, rec.Code, strings.TrimSpace(rec.Body.String()))
}

// demoVenue is a venue of the sample, with its coordinates.
type demoVenue struct {
	name, address, city string
	lat, lng            float64
}

var demoVenues = []demoVenue{
	{"Lakefront Pavilion", "1200 S Lake Shore Dr", "Chicago", 41.8663, -87.6140},
	{"Riverside Hall", "300 N Wacker Dr", "Chicago", 41.8868, -87.6370},
	{"The Green Room", "2438 N Lincoln Ave", "Chicago", 41.9260, -87.6505},
	{"Old Town Theatre", "1616 N Wells St", "Chicago", 41.9115, -87.6346},
	{"Pilsen Arts Center", "1852 W 19th St", "Chicago", 41.8562, -87.6737},
	{"Hyde Park Library", "5148 S Lake Park Ave", "Chicago", 41.8019, -87.5870},
	{"Logan Square Market Hall", "2755 N Milwaukee Ave", "Chicago", 41.9315, -87.7125},
	{"Wicker Park Studio", "1550 N Damen Ave", "Chicago", 41.9096, -87.6775},
	{"Northside Community Center", "4520 N Broadway", "Chicago", 41.9648, -87.6575},
	{"Evanston Lakeshore Arts", "927 Noyes St", "Evanston", 42.0583, -87.6845},
	{"Oak Park Conservatory", "615 Garfield St", "Oak Park", 41.8768, -87.7929},
	{"Navy Pier Ballroom", "600 E Grand Ave", "Chicago", 41.8917, -87.6086},
}

var demoOrganizers = []struct{ name, email, website string }{
	{"Chicago Jazz Collective", "hello@jazzcollective.example", "https://jazzcollective.example"},
	{"Lakeside Theatre Company", "box-office@lakesidetheatre.example", "https://lakesidetheatre.example"},
	{"Friends of the Library", "friends@library.example", ""},
	{"Makers Guild", "info@makersguild.example", "https://makersguild.example"},
	{"Northside Neighbours", "", "https://northside.example"},
	{"City Folk Society", "folk@cityfolk.example", ""},
	{"Young Explorers", "team@youngexplorers.example", "https://youngexplorers.example"},
	{"Runners of the Lake", "run@lakerunners.example", ""},
}

// demoCategories are the top-level categories with their children.
var demoCategories = []struct {
	name     string
	children []string
}{
	{"Music", []string{"Jazz", "Folk", "Classical"}},
	{"Arts", []string{"Theatre", "Exhibitions", "Film"}},
	{"Community", []string{"Markets", "Workshops", "Talks"}},
	{"Sports", nil},
	{"Family", nil},
}

var demoTags = []string{"free", "outdoors", "kids", "accessible", "beginners", "evening", "weekend", "food",
	"live music", "members", "all ages", "drop-in"}

// demoKinds are the kinds of event the sample makes: a category (a child of one of demoCategories, or a top-level
// one), titles to pick from, the hours they may start at, how long they last, and what they may cost.
var demoKinds = []struct {
	category string
	titles   []string
	hours    []int
	duration time.Duration
	costs    []string
}{
	{"Jazz", []string{"Late Night Jazz Session", "Big Band Evening", "Jazz Brunch", "Trio at the Lake"},
		[]int{11, 19, 20, 21}, 2 * time.Hour, []string{"15", "20", "25", "Free"}},
	{"Folk", []string{"Folk Night", "Singer-Songwriter Circle", "Open Mic"}, []int{18, 19, 20},
		3 * time.Hour, []string{"Free", "10"}},
	{"Classical", []string{"Chamber Music Matinee", "String Quartet Recital", "Piano Evening"}, []int{15, 19},
		2 * time.Hour, []string{"30", "45", "20-60"}},
	{"Theatre", []string{"Twelfth Night", "The Glass Menagerie", "Improv Showcase", "New Plays Reading"},
		[]int{14, 19, 20}, 150 * time.Minute, []string{"25", "35", "15-40"}},
	{"Exhibitions", []string{"Gallery Opening", "Photography Walkthrough", "Sculpture Garden Tour"},
		[]int{10, 12, 17}, 3 * time.Hour, []string{"Free", "8"}},
	{"Film", []string{"Film Club: Classics", "Short Film Night", "Documentary Screening"}, []int{18, 20},
		2 * time.Hour, []string{"10", "Free"}},
	{"Markets", []string{"Farmers Market", "Makers Market", "Night Market"}, []int{8, 9, 17}, 5 * time.Hour,
		[]string{"Free"}},
	{"Workshops", []string{"Pottery for Beginners", "Bike Repair Basics", "Watercolour Workshop",
		"Intro to Coding"}, []int{10, 13, 18}, 2 * time.Hour, []string{"20", "35", "Free"}},
	{"Talks", []string{"Author Talk", "History of the River", "Science on Tap"}, []int{18, 19}, 90 * time.Minute,
		[]string{"Free", "5"}},
	{"Sports", []string{"Lakefront 5K", "Community Yoga", "Pickup Basketball"}, []int{7, 8, 18}, time.Hour,
		[]string{"Free", "10"}},
	{"Family", []string{"Story Time", "Family Science Day", "Puppet Show"}, []int{10, 11, 14}, time.Hour,
		[]string{"Free", "5"}},
}

// pick returns a random element of list.
func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// load writes the whole sample and returns what it created. Events start between tomorrow and demoDays days from
// now, at the site's wall clock.
func (l *demoLoader) load(now time.Time) (demoCounts, error) {
	var counts demoCounts
	venues := make([]uint64, 0, len(demoVenues))
	for _, v := range demoVenues {
		body := map[string]any{"venue": v.name, "address": v.address, "city": v.city, "state": "IL",
			"zip": "606" + fmt.Sprintf("%02d", l.rand.IntN(60)), "country": "United States", "status": "publish",
			"description": "<p>" + v.name + " hosts concerts, plays, markets and classes all year.</p>"}
		if l.cfg.Geolocation {
			body["geo_lat"], body["geo_lng"] = v.lat, v.lng
		}
		id, err := l.post("/venues", body)
		if err != nil {
			return counts, err
		}
		venues = append(venues, id)
	}
	counts.venues = len(venues)

	organizers := make([]uint64, 0, len(demoOrganizers))
	for _, o := range demoOrganizers {
		body := map[string]any{"organizer": o.name, "status": "publish"}
		if o.email != "" {
			body["email"] = o.email
		}
		if o.website != "" {
			body["website"] = o.website
		}
		id, err := l.post("/organizers", body)
		if err != nil {
			return counts, err
		}
		organizers = append(organizers, id)
	}
	counts.organizers = len(organizers)

	categories := map[string]uint64{}
	for _, c := range demoCategories {
		parent, err := l.post("/categories", map[string]any{"name": c.name})
		if err != nil {
			return counts, err
		}
		categories[c.name] = parent
		for _, child := range c.children {
			id, err := l.post("/categories", map[string]any{"name": child, "parent": parent})
			if err != nil {
				return counts, err
			}
			categories[child] = id
		}
	}
	counts.categories = len(categories)
	for _, name := range demoTags {
		if _, err := l.post("/tags", map[string]any{"name": name}); err != nil {
			return counts, err
		}
	}
	counts.tags = len(demoTags)

	for i := 0; i < demoEvents; i++ {
		if err := l.event(now, venues, organizers, categories); err != nil {
			return counts, err
		}
		counts.events++
	}
	return counts, nil
}

// event writes one random event of the sample.
func (l *demoLoader) event(now time.Time, venues, organizers []uint64, categories map[string]uint64) error {
	r := l.rand
	kind := pick(r, demoKinds)
	day := now.AddDate(0, 0, 1+r.IntN(demoDays))
	start := time.Date(day.Year(), day.Month(), day.Day(), pick(r, kind.hours), pick(r, []int{0, 0, 30}), 0, 0,
		now.Location())
	end := start.Add(kind.duration)
	title := pick(r, kind.titles)
	venue := r.IntN(len(venues))
	body := map[string]any{
		"title":      title,
		"start_date": start.Format("2006-01-02 15:04:05"),
		"end_date":   end.Format("2006-01-02 15:04:05"),
		"status":     "publish",
		"description": fmt.Sprintf("<p>%s at %s.</p><p>Doors open half an hour before the start. "+
			"Everyone is welcome.</p>", title, demoVenues[venue].name),
		"excerpt":    title + " at " + demoVenues[venue].name + ".",
		"venue":      venues[venue],
		"organizer":  []uint64{pick(r, organizers)},
		"categories": []uint64{categories[kind.category]},
		"cost":       pick(r, kind.costs),
		"featured":   r.IntN(12) == 0,
	}
	if r.IntN(4) == 0 {
		body["organizer"] = []uint64{pick(r, organizers), pick(r, organizers)}
	}
	if kind.category == "Markets" && r.IntN(3) == 0 {
		body["all_day"] = true
	}
	tags := map[string]bool{}
	for n := r.IntN(4); len(tags) < n; {
		tags[pick(r, demoTags)] = true
	}
	if len(tags) > 0 {
		names := make([]string, 0, len(tags))
		for name := range tags {
			names = append(names, name)
		}
		body["tags"] = names
	}
	_, err := l.post("/events", body)
	return err
}
