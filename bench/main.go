// Command bench is the benchmark harness. One command builds the service, creates a fresh database,
// seeds a realistic calendar through the models, starts the service, drives it over loopback with a fixed mix of
// scenarios (one at a time, bounded in time, 32 connections), and prints requests per second, p50/p99 latency,
// errors and the ratio to a static-bytes server measured in the same run, plus the server's peak RSS. The same
// figures are written as JSON.
//
//	go run ./bench                          # PostgreSQL at 127.0.0.1:5432, 100,000 events
//	go run ./bench -db sqlite -events 100000
//	go run ./bench -events 1000000 -duration 10s
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

type options struct {
	db          string
	events      int
	duration    time.Duration
	warmup      time.Duration
	connections int
	pgAdmin     string
	out         string
	only        string
	keep        bool
	reuse       bool
	compare     string
	uncached    bool
	serveStatic string
	addr        string
	dbName      string
	webhooks    webhookOptions
	seriesShare float64
	check       bool
}

func main() {
	var o options
	flag.StringVar(&o.db, "db", "postgres", "database: postgres or sqlite")
	flag.IntVar(&o.events, "events", 100000, "number of events to seed")
	flag.Float64Var(&o.seriesShare, "series-share", 0.33, "share of the seeded events that are occurrences of series (0: none)")
	flag.BoolVar(&o.check, "check", false, "check the seeded (or reused) database against the invariants the service's tests hold every database to, and stop at a violation")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per scenario")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured warm-up per scenario")
	flag.IntVar(&o.connections, "connections", 32, "concurrent keep-alive connections")
	flag.StringVar(&o.pgAdmin, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL used to create the benchmark database")
	flag.StringVar(&o.out, "out", "", "JSON results file (default bench/out/results-<db>-<events>.json)")
	flag.StringVar(&o.only, "only", "", "comma-separated scenario names to run (default all)")
	flag.StringVar(&o.dbName, "dbname", "", "PostgreSQL database to create (default calendar_bench_<events>)")
	flag.BoolVar(&o.keep, "keep", false, "keep the benchmark database afterwards")
	flag.BoolVar(&o.reuse, "reuse", false, "reuse the kept database of an earlier run with -keep (skips seeding)")
	flag.StringVar(&o.compare, "compare", "", "JSON results of an earlier run (say, at 100,000 events) to print each scenario's throughput against")
	flag.BoolVar(&o.uncached, "uncached", false, "make every read request distinct (an ignored parameter), so that none is answered from the response cache: what an instance sustains while writes keep changing the data version")
	flag.StringVar(&o.serveStatic, "serve-static", "", "internal: serve this file's bytes as the static baseline")
	flag.StringVar(&o.addr, "addr", "", "internal: address for -serve-static")
	registerWebhookFlags(&o.webhooks)
	flag.Parse()
	log.SetFlags(log.Ltime)

	if o.serveStatic != "" {
		if err := serveStatic(o.serveStatic, o.addr); err != nil {
			log.Fatal(err)
		}
		return
	}
	if o.seriesShare < 0 || o.seriesShare > 1 {
		log.Fatalf("bench: -series-share %v is not a share between 0 and 1", o.seriesShare)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runBench(ctx, o); err != nil {
		log.Fatalf("bench: %v", err)
	}
}

func runBench(ctx context.Context, o options) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(root, "bench", "out", fmt.Sprintf("results-%s-%d.json", o.db, o.events))
	}
	binary := filepath.Join(root, "bench", "bin", "calendar")
	code := builtCode(root)
	log.Printf("building the service of %s (%s) into %s", root, code, binary)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}

	dbURL, dropDB, err := freshDatabase(ctx, o, root)
	if err != nil {
		return err
	}
	if !o.keep && !o.reuse {
		defer dropDB()
	}
	su, err := prepare(ctx, o, dbURL)
	if err != nil {
		return err
	}

	server, err := startService(ctx, binary, dbURL, o.webhooks.serviceEnv())
	if err != nil {
		return err
	}
	defer server.stop()
	base := server.base + "/calendar/events/v1"

	static, err := startStatic(ctx, base+"/events")
	if err != nil {
		return err
	}
	defer static.stop()

	loadBefore := loadAverage()
	gen := newLoadGenerator("", o.connections, o.warmup, o.duration)
	log.Printf("measuring the static-bytes baseline (%d bytes)", static.size)
	gen.base = static.base
	baseline, _ := gen.run(ctx, scenario{name: staticScenario, next: func(int, int) request { return request{method: "GET", path: "/"} }})

	gen.base = base
	results := []Result{baseline}
	all := scenarios(su.fixtures, su.token)
	reads := mixedReads(su.fixtures)
	if len(reads) < minMixedRequests {
		return fmt.Errorf("the mixed readers have %d distinct requests, fewer than %d", len(reads), minMixedRequests)
	}
	log.Printf("mixed readers spread over %d distinct requests", len(reads))
	kept, closeKept, err := keptSearchCounter(dbURL)
	if err != nil {
		return err
	}
	defer closeKept()
	for _, rate := range mixedWriteRates {
		all = append(all, mixedScenario(su.fixtures, reads, rate, su.token, kept))
	}
	hooks := newHookBench(o.webhooks, su.fixtures, su.token)
	defer hooks.close()
	all = append(all, hooks.scenarios(scenarioNamed(all, "create event linked"))...)
	for _, sc := range all {
		if o.only != "" && !selected(strings.Split(o.only, ","), sc.name) || o.only == "" && sc.optIn {
			continue
		}
		if sc.unavailable != "" {
			log.Printf("scenario %q skipped: %s", sc.name, sc.unavailable)
			continue
		}
		if o.uncached {
			if sc.name == uncachedCategoryAndVenue || sc.writer != nil || sc.custom != nil || strings.HasPrefix(sc.name, "mixed ") {
				continue // the same as category + venue in this mode
			}
			sc = sc.uncached()
		}
		if ctx.Err() != nil {
			break
		}
		log.Printf("scenario %q", sc.name)
		if sc.before != nil {
			if err := sc.before(ctx, gen); err != nil {
				log.Printf("scenario %q skipped: %v", sc.name, err)
				continue
			}
		}
		if sc.custom != nil {
			results = append(results, runCustom(ctx, gen, sc, baseline)...)
			continue
		}
		r, writes := gen.run(ctx, sc)
		if r.PrimeSeconds > 0 {
			log.Printf("primed %d distinct reads: %d passes building every answer, the last in %.1fs (%.0f builds/s); %d searches kept",
				len(sc.prime), r.PrimePasses, r.PrimeSeconds, float64(len(sc.prime))/r.PrimeSeconds, r.PrimeKept)
		}
		if baseline.RPS > 0 {
			r.RatioToStatic = r.RPS / baseline.RPS
		}
		if t, ok := targets[sc.name]; ok && !o.uncached { // the target figures are of the normal mix
			t := t
			met := r.RPS >= t.RPS && r.P99ms <= t.P99ms && r.Errors == 0
			r.Target, r.Met = &t, &met
		}
		results = append(results, r)
		if writes != nil {
			results = append(results, *writes)
			for _, why := range writes.StaleExamples {
				log.Printf("STALE: %s", why)
			}
		}
	}
	peak := server.peakRSS()
	report := Report{Code: code, Database: o.db, Settings: su.settings, Events: o.events, SeedSeconds: su.seeded.Seconds(),
		Connections: o.connections, Seconds: o.duration.Seconds(), Uncached: o.uncached, PeakRSSMB: float64(peak) / 1024, Results: results,
		When: time.Now().UTC().Format(time.RFC3339), LoadBefore: loadBefore, LoadAfter: loadAverage(),
		ChangeTracking: hooks.finish(results)}
	if o.compare != "" {
		if err := report.compareWith(o.compare); err != nil {
			return err
		}
	}
	printReport(os.Stdout, report)
	return writeJSON(o.out, report)
}

// staticScenario names the static-bytes baseline among the results.
const staticScenario = "static bytes"

// uncachedCategoryAndVenue is category + venue with every answer built: with -uncached it repeats category + venue.
const uncachedCategoryAndVenue = "category + venue uncached"

// Report is everything one run measured.
type Report struct {
	// Code is the commit of the service measured (builtCode): the harness builds the repository it runs in, so a
	// comparison of two commits runs each from its own checkout.
	Code     string `json:"code,omitempty"`
	Database string `json:"database"`
	// LoadBefore and LoadAfter are the machine's load averages (/proc/loadavg) when the run started and ended:
	// other work on the machine shows there, and figures taken under load are not comparable.
	LoadBefore  string  `json:"load_before,omitempty"`
	LoadAfter   string  `json:"load_after,omitempty"`
	Settings    string  `json:"settings"`
	Events      int     `json:"events"`
	SeedSeconds float64 `json:"seed_seconds"` // 0 when an earlier run's database was reused
	Connections int     `json:"connections"`
	Seconds     float64 `json:"seconds_per_scenario"`
	PeakRSSMB   float64 `json:"server_peak_rss_mb"`
	// Uncached says every read request was made distinct (-uncached), so that the response cache answered none.
	Uncached bool     `json:"uncached,omitempty"`
	When     string   `json:"when"`
	Results  []Result `json:"results"`
	// ComparedWith describes the earlier run of -compare, whose throughput each result's Kept is a share of.
	ComparedWith string `json:"compared_with,omitempty"`
	// ChangeTracking holds the figures of the webhook and sync scenarios beyond their rows.
	ChangeTracking *ChangeFigures `json:"change_tracking,omitempty"`
}

// minKept is the share of its throughput at 100,000 events that every read scenario keeps at 1,000,000.
const minKept = 0.75

// compareWith sets each result's Kept: its throughput as a share of the same scenario's in the run of path.
func (r *Report) compareWith(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var earlier Report
	if err := json.Unmarshal(b, &earlier); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.ComparedWith = fmt.Sprintf("%s, %d events", earlier.Database, earlier.Events)
	for i := range r.Results {
		for _, e := range earlier.Results {
			if e.Scenario == r.Results[i].Scenario && e.RPS > 0 {
				kept := r.Results[i].RPS / e.RPS
				r.Results[i].Kept = &kept
			}
		}
	}
	return nil
}

// targets are the target figures at 100,000 events on PostgreSQL.
var targets = map[string]TargetFigures{
	"default list":        {4000, 25},
	"list per_page=50":    {1200, 60},
	"event by id":         {7000, 15},
	"search":              {1500, 60},
	"category + venue":    {3000, 30},
	"geolocation radius":  {1500, 60},
	"create event linked": {1000, 60},
}

func printReport(w io.Writer, r Report) {
	seeded := "reused database"
	if r.SeedSeconds > 0 {
		seeded = fmt.Sprintf("seeded in %.0fs", r.SeedSeconds)
	}
	mode := ""
	if r.Uncached {
		mode = ", every read uncached"
	}
	if r.Code != "" {
		fmt.Fprintf(w, "\nthe service at %s", r.Code)
	}
	fmt.Fprintf(w, "\n%s (%s), %d events (%s), %d connections, %.0fs per scenario%s, server peak RSS %.1f MB\n\n",
		r.Database, r.Settings, r.Events, seeded, r.Connections, r.Seconds, mode, r.PeakRSSMB)
	if r.LoadBefore != "" {
		fmt.Fprintf(w, "load average at start %s, at end %s\n\n", r.LoadBefore, r.LoadAfter)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	kept := ""
	if r.ComparedWith != "" {
		kept = "\tkept of " + r.ComparedWith
	}
	fmt.Fprintln(tw, "scenario\treq/s\tp50 ms\tp99 ms\terrors\tvs static\tKB/answer\tstale/checked\ttarget"+kept+"\t")
	for _, res := range r.Results {
		target := ""
		if res.Target != nil {
			mark := "met"
			if !*res.Met {
				mark = "MISSED"
			}
			target = fmt.Sprintf("%.0f/s ≤%.0fms %s", res.Target.RPS, res.Target.P99ms, mark)
		}
		rps := fmt.Sprintf("%.0f", res.RPS)
		if res.RPS < 10 {
			rps = fmt.Sprintf("%.2f", res.RPS) // a few large answers a second
		}
		checked := ""
		if res.Checks > 0 {
			checked = fmt.Sprintf("%d/%d", res.Stale, res.Checks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%d\t%.3f\t%.1f\t%s\t%s%s\t\n", res.Scenario, rps, res.P50ms, res.P99ms,
			res.Errors, res.RatioToStatic, res.MeanBytes/1024, checked, target, res.keptColumn(r.ComparedWith != ""))
	}
	_ = tw.Flush()
	deepPagesSummary(w, r)
	mixedSummary(w, r)
	if r.ChangeTracking != nil {
		r.ChangeTracking.print(w)
	}
}

// keptColumn is the result's cell of the -compare column: its share, marked when a read keeps less than minKept.
func (res Result) keptColumn(compared bool) string {
	switch {
	case !compared:
		return ""
	case res.Kept == nil:
		return "\t"
	case !res.Write && res.Scenario != staticScenario && *res.Kept < minKept:
		return fmt.Sprintf("\t%.0f%% (reads keep %.0f%%) BELOW", *res.Kept*100, minKept*100)
	}
	return fmt.Sprintf("\t%.0f%%", *res.Kept*100)
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	log.Printf("results written to %s", path)
	return os.WriteFile(path, b, 0o644)
}

// builtCode describes the commit checked out at root, with -dirty when it has uncommitted changes ("" without
// git).
func builtCode(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the harness inside the repository")
	}
	return filepath.Dir(mod), nil
}

// freshDatabase creates an empty database for the run and returns its URL and a function that drops it.
func freshDatabase(ctx context.Context, o options, root string) (string, func(), error) {
	switch o.db {
	case "sqlite":
		// A file under bench/out, one per size, so that -keep and -reuse work as on PostgreSQL.
		file := filepath.Join(root, "bench", "out", fmt.Sprintf("bench-%d.db", o.events))
		remove := func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				_ = os.Remove(file + suffix)
			}
		}
		if !o.reuse {
			remove()
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return "", nil, err
		}
		return "sqlite:" + file, remove, nil
	case "postgres":
		admin, err := models.Open(models.Postgres, o.pgAdmin, 0)
		if err != nil {
			return "", nil, err
		}
		name := fmt.Sprintf("calendar_bench_%d", o.events) // one per size, so that kept ones can be reused side by side
		if o.dbName != "" {
			name = o.dbName
		}
		queries := []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name}
		if o.reuse {
			queries = nil
		}
		for _, q := range queries {
			if err := admin.DB().WithContext(ctx).Exec(q).Error; err != nil {
				_ = admin.Close()
				return "", nil, fmt.Errorf("%s: %w", q, err)
			}
		}
		u, err := url.Parse(o.pgAdmin)
		if err != nil {
			return "", nil, err
		}
		u.Path = "/" + name
		return u.String(), func() {
			_ = admin.DB().Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error
			_ = admin.Close()
		}, nil
	}
	return "", nil, fmt.Errorf("unknown -db %q (postgres or sqlite)", o.db)
}

// setup is what prepare leaves for the run: the benchmark user's token, the fixtures, how long seeding took (zero
// when reused) and the database settings worth reporting with the figures.
type setup struct {
	token    string
	fixtures fixtures
	seeded   time.Duration
	settings string
}

// prepare migrates and seeds the database, creates the benchmark user, and samples the fixtures scenarios use.
func prepare(ctx context.Context, o options, dbURL string) (su setup, err error) {
	driver, dsn := models.Postgres, dbURL
	if strings.HasPrefix(dbURL, "sqlite:") {
		driver, dsn = models.SQLite, strings.TrimPrefix(dbURL, "sqlite:")
	}
	store, err := models.Open(driver, dsn, 0)
	if err != nil {
		return su, err
	}
	defer store.Close()
	if _, err := store.Migrate(ctx); err != nil {
		return su, err
	}
	su.settings = databaseSettings(store)
	if o.reuse {
		if su.token, err = store.IssueToken(ctx, "bench"); err != nil {
			return su, fmt.Errorf("-reuse needs a database kept by an earlier run with -keep: %w", err)
		}
	} else if su, err = seedFresh(ctx, o, store, su); err != nil {
		return su, err
	}
	if o.check {
		if err := checkSeeded(ctx, store); err != nil {
			return su, err
		}
	}
	su.fixtures, err = loadFixtures(ctx, store)
	return su, err
}

// seedFresh creates the benchmark user in an empty database and seeds it; su gets the user's token and the time
// seeding took.
func seedFresh(ctx context.Context, o options, store *models.Store, su setup) (setup, error) {
	var err error
	if su.token, err = store.CreateUser(ctx, "bench", "Benchmark", models.RoleAdministrator); err != nil {
		return su, err
	}
	var admin models.User
	if err := store.DB().Where("login = ?", "bench").Take(&admin).Error; err != nil {
		return su, err
	}
	start := time.Now()
	log.Printf("seeding %d events into %s", o.events, store.Dialect())
	if err := seed(ctx, store, o.events, o.seriesShare, admin.ID); err != nil {
		return su, err
	}
	su.seeded = time.Since(start)
	log.Printf("seeded in %s", su.seeded.Round(time.Millisecond))
	return su, nil
}

// fixtures are real records the scenarios address.
type fixtures struct {
	eventIDs      []uint64 // published, unprotected events
	slugs         []string
	categorySlugs []string
	venueIDs      []uint64
	organizerIDs  []uint64
	deleteIDs     []uint64 // events the delete scenario may trash, each once
	// allCategorySlugs and allVenueIDs are every category and venue, for the mixed readers.
	allCategorySlugs []string
	allVenueIDs      []uint64
	series           seriesFixtures
}

func loadFixtures(ctx context.Context, store *models.Store) (fixtures, error) {
	var f fixtures
	db := store.DB().WithContext(ctx)
	var sample []models.Event
	// The events other scenarios read, update and delete are single events, as before series were seeded: a write
	// of an occurrence or a series record takes the series' paths, which the series scenarios measure.
	if err := db.Select("id, slug").Where("series_id IS NULL AND status = ? AND password = ''", models.StatusPublish).
		Order("id").Limit(5000).Find(&sample).Error; err != nil {
		return f, err
	}
	for _, e := range sample {
		f.eventIDs = append(f.eventIDs, e.ID)
		f.slugs = append(f.slugs, e.Slug)
	}
	if err := db.Model(&models.Category{}).Where("parent_id IS NOT NULL").Pluck("slug", &f.categorySlugs).Error; err != nil {
		return f, err
	}
	if err := db.Model(&models.Venue{}).Order("id").Limit(200).Pluck("id", &f.venueIDs).Error; err != nil {
		return f, err
	}
	if err := db.Model(&models.Organizer{}).Order("id").Limit(200).Pluck("id", &f.organizerIDs).Error; err != nil {
		return f, err
	}
	if err := db.Model(&models.Category{}).Order("id").Pluck("slug", &f.allCategorySlugs).Error; err != nil {
		return f, err
	}
	if err := db.Model(&models.Venue{}).Order("id").Pluck("id", &f.allVenueIDs).Error; err != nil {
		return f, err
	}
	if err := db.Model(&models.Event{}).Where("series_id IS NULL AND status = ?", models.StatusPublish).Order("id DESC").
		Limit(200000).Pluck("id", &f.deleteIDs).Error; err != nil {
		return f, err
	}
	if len(f.eventIDs) == 0 || len(f.categorySlugs) == 0 || len(f.venueIDs) == 0 {
		return f, errors.New("the seeded database has no events, categories or venues to address")
	}
	var err error
	f.series, err = loadSeriesFixtures(ctx, store)
	return f, err
}

// scenarios is the fixed mix, in order.
func scenarios(f fixtures, token string) []scenario {
	rngs := make([]*rand.Rand, 1024)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(uint64(i), 7))
	}
	pick := func(w int, n int) int { return rngs[w%len(rngs)].IntN(n) }
	windowStart := time.Now().UTC().AddDate(0, 1, 0).Format("2006-01-02")
	windowEnd := time.Now().UTC().AddDate(0, 1, 14).Format("2006-01-02")
	// The seeded three years (one back, two ahead) and a week either side: a feed that reaches its 10,000 cap.
	feedWindow := "start_date=" + time.Now().UTC().AddDate(-1, 0, -7).Format("2006-01-02") +
		"&end_date=" + time.Now().UTC().AddDate(2, 0, 7).Format("2006-01-02")
	var deleted, created int64
	// run tells this run's created events from an earlier run's on a reused database: without it every title (and
	// so every base slug) of a -reuse run is taken already, and creates measure the slug-collision path instead of
	// the common case a freshly seeded database measures.
	run := strconv.FormatInt(time.Now().Unix(), 36)
	nextDelete := func() uint64 {
		i := int(addInt64(&deleted, 1)) - 1
		return f.deleteIDs[i%len(f.deleteIDs)]
	}
	get := func(path string) request { return request{method: "GET", path: path} }
	categoryAndVenue := func(w int) string {
		return "/events?categories=" + f.categorySlugs[pick(w, len(f.categorySlugs))] +
			"&venue=" + strconv.FormatUint(f.venueIDs[pick(w, len(f.venueIDs))], 10)
	}
	return []scenario{
		{name: "default list", next: func(int, int) request { return get("/events") }},
		{name: "list per_page=50", next: func(int, int) request { return get("/events?per_page=50") }},
		deepPages(),
		{name: "event by id", next: func(w, _ int) request {
			return get("/events/" + strconv.FormatUint(f.eventIDs[pick(w, len(f.eventIDs))], 10))
		}},
		{name: "event by slug", next: func(w, _ int) request {
			return get("/events/by-slug/" + url.PathEscape(f.slugs[pick(w, len(f.slugs))]))
		}},
		{name: "search", next: func(int, int) request { return get("/events?search=jazz") }},
		{name: "category + venue", next: func(w, _ int) request { return get(categoryAndVenue(w)) }},
		{name: "category list", next: func(w, _ int) request {
			return get("/events?categories=" + f.categorySlugs[pick(w, len(f.categorySlugs))])
		}},
		// The same lists, each missing the response cache, which shows what the query path itself sustains.
		scenario{name: uncachedCategoryAndVenue, next: func(w, _ int) request { return get(categoryAndVenue(w)) }}.uncached(),
		collapsedList(),
		seriesList(f, pick),
		{name: "date window strict", next: func(int, int) request {
			return get("/events?strict_dates=true&start_date=" + windowStart + "%2000:00:00&end_date=" + windowEnd + "%2023:59:59")
		}},
		{name: "geolocation radius", next: func(int, int) request {
			return get("/events?geoloc=true&geoloc_lat=41.8781&geoloc_lng=-87.6298")
		}},
		{name: "venues upcoming", next: func(int, int) request { return get("/venues?only_with_upcoming=true") }},
		{name: "categories list", next: func(int, int) request { return get("/categories") }},
		// A feed of the three seeded years is 10,000 events (the cap), about 7 MB: four clients fetch it at a time.
		{name: "ical feed (4 conns)", connections: 4, next: func(int, int) request { return get("/events.ics?" + feedWindow) }},
		{name: "create event linked", wantStatus: http.StatusCreated, write: true, next: func(w, i int) request {
			n := addInt64(&created, 1)
			body, _ := json.Marshal(map[string]any{
				"title":      fmt.Sprintf("Benchmark event %s %d", run, n),
				"start_date": time.Now().UTC().AddDate(0, 0, 10+int(n%300)).Format("2006-01-02") + " 18:00:00",
				"end_date":   time.Now().UTC().AddDate(0, 0, 10+int(n%300)).Format("2006-01-02") + " 20:00:00",
				"venue":      f.venueIDs[pick(w, len(f.venueIDs))],
				"organizer":  []uint64{f.organizerIDs[pick(w, len(f.organizerIDs))], f.organizerIDs[pick(w, len(f.organizerIDs))]},
				"categories": []string{f.categorySlugs[pick(w, len(f.categorySlugs))]},
				"tags":       []string{"music", "outdoor"},
				"cost":       "$15",
			})
			return request{method: "POST", path: "/events", body: body, token: token}
		}},
		{name: "update event", write: true, next: func(w, i int) request {
			id := f.eventIDs[pick(w, len(f.eventIDs))]
			body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Updated %d-%d", w, i), "featured": i%2 == 0})
			return request{method: "POST", path: "/events/" + strconv.FormatUint(id, 10), body: body, token: token}
		}},
		{name: "delete event", write: true, next: func(int, int) request {
			return request{method: "DELETE", path: "/events/" + strconv.FormatUint(nextDelete(), 10), token: token}
		}},
		seriesCreate(f, token, run, pick),
		seriesTitleUpdate(f, token, run),
		seriesStartMove(f, token),
	}
}

// selected says whether -only's list names the scenario, or a prefix of it followed by a space ("mixed" selects
// every write rate of the mixed scenario).
func selected(list []string, name string) bool {
	for _, x := range list {
		x = strings.TrimSpace(x)
		if x == name || strings.HasPrefix(name, x+" ") {
			return true
		}
	}
	return false
}

// service is the calendar server under test, run as its own process.
type service struct {
	cmd  *exec.Cmd
	base string
}

// startService starts the service on a free loopback port with env added to the harness's environment.
func startService(ctx context.Context, binary, dbURL string, env []string) (*service, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "CALENDAR_DATABASE_URL="+dbURL, "CALENDAR_ADDR=127.0.0.1:"+port,
		"CALENDAR_LOG_FORMAT=json", "GIN_MODE=release")
	cmd.Env = append(cmd.Env, env...)
	logFile, err := os.CreateTemp("", "calendar-bench-server-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &service{cmd: cmd, base: "http://127.0.0.1:" + port}
	log.Printf("service pid %d on %s (log %s)", cmd.Process.Pid, s.base, logFile.Name())
	if err := waitReady(ctx, s.base+"/readyz"); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *service) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_, _ = s.cmd.Process.Wait()
	}
}

// peakRSS is the server's high-water resident set (VmHWM) in KiB.
func (s *service) peakRSS() int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if rest, ok := strings.CutPrefix(scanner.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}

type staticServer struct {
	*service
	size int
}

// startStatic fetches one page from the service and serves its bytes from a separate Gin process: the ceiling.
func startStatic(ctx context.Context, pageURL string) (*staticServer, error) {
	res, err := http.Get(pageURL)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	file, err := os.CreateTemp("", "calendar-bench-static-*.json")
	if err != nil {
		return nil, err
	}
	if _, err := file.Write(body); err != nil {
		return nil, err
	}
	_ = file.Close()
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-serve-static", file.Name(), "-addr", "127.0.0.1:"+port)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &staticServer{service: &service{cmd: cmd, base: "http://127.0.0.1:" + port}, size: len(body)}
	if err := waitReady(ctx, s.base+"/"); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// serveStatic answers every GET with the same JSON bytes through Gin.
func serveStatic(path, addr string) error {
	body, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/", func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=utf-8", body) })
	return http.ListenAndServe(addr, r)
}

func waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		res, err := http.Get(url)
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not become ready", url)
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// databaseSettings names the database and the settings that shape the figures most.
func databaseSettings(store *models.Store) string {
	var version, buffers string
	if store.Dialect() == models.SQLite {
		store.DB().Raw("SELECT sqlite_version()").Scan(&version)
		return "SQLite " + version
	}
	store.DB().Raw("SHOW server_version").Scan(&version)
	store.DB().Raw("SHOW shared_buffers").Scan(&buffers)
	return "PostgreSQL " + version + ", shared_buffers " + buffers
}

// loadAverage is the machine's 1, 5 and 15 minute load averages, or "" where /proc/loadavg is missing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
