package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"calendar/models"
)

// mixedWriteRates are the writes per second the mixed scenario runs at, one scenario each.
var mixedWriteRates = []int{0, 1, 10}

// mixedName is the name of the mixed scenario at a write rate; its writes are reported as mixedName + " writes".
func mixedName(rate int) string { return fmt.Sprintf("mixed %d writes/s", rate) }

// minMixedRequests is how many distinct read requests the mixed readers spread over, at least.
const minMixedRequests = 10000

// mixedReads is the readers' mix: distinct requests of every kind a calendar's visitors send (single events, list
// pages, categories, venues, search words, one-week windows, geolocation), shuffled once with a fixed seed. The
// readers pick from it uniformly, so each request is asked about twice a second at 32 connections of the cached
// service: a write that drops every cached answer makes most of them misses again.
func mixedReads(f fixtures) []string {
	rng := rand.New(rand.NewPCG(2026, 26))
	seen := map[string]bool{}
	var out []string
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	for _, id := range f.eventIDs { // 5,000 single events
		add("/events/" + strconv.FormatUint(id, 10))
	}
	for p := 1; p <= 500; p++ { // pages of the default list, page 1 the most often asked for elsewhere too
		add("/events?page=" + strconv.Itoa(p))
	}
	for p := 1; p <= 100; p++ {
		add("/events?per_page=50&page=" + strconv.Itoa(p))
	}
	for _, slug := range f.allCategorySlugs { // every category, its first pages
		for p := 1; p <= 5; p++ {
			add("/events?categories=" + url.QueryEscape(slug) + "&page=" + strconv.Itoa(p))
		}
	}
	for _, id := range f.allVenueIDs { // venues, their first page
		if len(out) >= 5000+600+len(f.allCategorySlugs)*5+2000 {
			break
		}
		add("/events?venue=" + strconv.FormatUint(id, 10))
	}
	for _, w := range vocabulary { // search words and, for some, two words
		add("/events?search=" + url.QueryEscape(w))
		add("/events?search=" + url.QueryEscape(w) + "&page=2")
		add("/events?search=" + url.QueryEscape(w+" "+vocabulary[rng.IntN(len(vocabulary))]))
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	for d := 0; d < 730; d++ { // one-week windows over the two years ahead
		from := today.AddDate(0, 0, d)
		add("/events?start_date=" + from.Format("2006-01-02") + "&end_date=" + from.AddDate(0, 0, 6).Format("2006-01-02"))
	}
	for _, c := range cities { // geolocation around every city, several radii and points, first pages
		for _, radius := range []int{5, 10, 25, 50} {
			for k := 0; k < 20; k++ {
				lat := c.lat + (rng.Float64()-0.5)*0.4
				lng := c.lng + (rng.Float64()-0.5)*0.4
				add(fmt.Sprintf("/events?geoloc=true&geoloc_lat=%.4f&geoloc_lng=%.4f&geoloc_radius=%d", lat, lng, radius))
			}
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// mixedScenario is the readers of mixedReads while a writer runs at rate writes a second.
// kept counts what the service keeps for them (see keptSearchCounter).
func mixedScenario(f fixtures, reads []string, rate int, token string, kept func(context.Context) int64) scenario {
	rngs := make([]*rand.Rand, 1024)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(uint64(i), 26))
	}
	sc := scenario{name: mixedName(rate), prime: reads, kept: kept, next: func(w, _ int) request {
		return request{method: "GET", path: reads[rngs[w%len(rngs)].IntN(len(reads))]}
	}}
	if rate > 0 {
		sc.writer = &mixedWriter{rate: rate, token: token, fixtures: f}
	}
	return sc
}

// keptSearchCounter returns a count of the searches the service keeps (PostgreSQL only: nil on SQLite, which
// counts every search), read from the benchmark's database, and what closes its connection. The mixed readers ask
// for hundreds of distinct searches; a fresh service keeps each at its second ask, one at a time.
func keptSearchCounter(dbURL string) (func(context.Context) int64, func(), error) {
	if strings.HasPrefix(dbURL, "sqlite:") {
		return nil, func() {}, nil
	}
	store, err := models.Open(models.Postgres, dbURL, 1)
	if err != nil {
		return nil, nil, err
	}
	count := func(ctx context.Context) int64 {
		var n int64
		if store.DB().WithContext(ctx).Raw("SELECT count(*) FROM kept_searches").Scan(&n).Error != nil {
			return -1
		}
		return n
	}
	return count, func() { _ = store.Close() }, nil
}

// mixedWriter writes at rate writes a second, open loop: each tick hands the next write to an idle lane. A lane
// creates an event, updates it (new title, a day later) and trashes it, over and over, each write followed by the
// reads that must reflect it: the event by ID (anonymous, so through the response cache) and the total of its
// venue's list, a request the readers' mix asks for too. Lanes use venues of their own, so each knows the totals
// it expects. A read that does not reflect the write acknowledged before it is counted stale.
type mixedWriter struct {
	rate     int
	token    string
	fixtures fixtures
}

// maxLanes bounds the writes in flight; a tick that finds every lane busy is counted as a missed write.
const maxLanes = 20

// writerOutcome is what the writer measured: each write's latency, the failed and missed writes, and the checks.
type writerOutcome struct {
	latencies []time.Duration
	errors    int64
	missed    int64
	checks    int64
	stale     int64
	staleLog  []string
}

// lane is one event's life: its step (create, update, trash), its venue and what its venue's list totalled.
type lane struct {
	index       int
	step        int
	id, venue   uint64
	total       int64
	title, name string
	day, n      int
	rng         *rand.Rand
}

// run writes until ctx ends; only writes started while measuring() is true are counted.
func (mw *mixedWriter) run(ctx context.Context, g *loadGenerator, measuring func() bool) writerOutcome {
	var (
		out  writerOutcome
		mu   sync.Mutex
		wg   sync.WaitGroup
		idle = make(chan *lane, maxLanes)
	)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for i := 0; i < maxLanes; i++ {
		idle <- &lane{index: i, name: run + "-" + strconv.Itoa(i), rng: rand.New(rand.NewPCG(uint64(i), uint64(mw.rate)))}
	}
	tick := time.NewTicker(time.Second / time.Duration(mw.rate))
	defer tick.Stop()
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return out
		case <-tick.C:
		}
		measured := measuring()
		var l *lane
		select {
		case l = <-idle:
		default:
			if measured {
				mu.Lock()
				out.missed++
				mu.Unlock()
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			elapsed, err, check := mw.step(ctx, g, l)
			if ctx.Err() != nil {
				return
			}
			var ok bool
			var why string
			if err == nil {
				ok, why = check()
			}
			mu.Lock()
			switch {
			case err != nil:
				log.Printf("mixed writer: %v", err)
				out.errors++
				l.step = 0 // start again with a create
			case measured:
				out.latencies = append(out.latencies, elapsed)
			}
			if err == nil && ctx.Err() == nil {
				out.checks++
				if !ok {
					out.stale++
					if len(out.staleLog) < 5 {
						out.staleLog = append(out.staleLog, why)
					}
				}
			}
			mu.Unlock()
			idle <- l
		}()
	}
}

// step makes the lane's next write and returns how long it took and the check of the reads that must follow it.
func (mw *mixedWriter) step(ctx context.Context, g *loadGenerator, l *lane) (time.Duration, error, func() (bool, string)) {
	var err error
	var elapsed time.Duration
	var check func() (bool, string)
	timed := func(method, path string, body []byte, want int) (uint64, error) {
		start := time.Now()
		id, err := g.write(ctx, mw.token, method, path, body, want)
		elapsed = time.Since(start)
		return id, err
	}
	switch l.step % 3 {
	case 0:
		l.n++
		venues := mw.fixtures.venueIDs
		l.venue = venues[(l.index+maxLanes*l.rng.IntN(len(venues)/maxLanes))%len(venues)]
		if l.total, err = g.total(ctx, venueList(l.venue)); err != nil {
			return 0, err, nil
		}
		l.day = 10 + l.rng.IntN(300)
		l.title = fmt.Sprintf("Mixed %s %d", l.name, l.n)
		l.id, err = timed("POST", "/events", eventBody(l.title, l.day, l.venue, mw.fixtures, l.rng), http.StatusCreated)
		id, title, venue, want := l.id, l.title, l.venue, l.total+1
		check = func() (bool, string) { return mw.shows(ctx, g, id, title, venue, want) }
	case 1:
		l.title += " updated"
		l.day++
		_, err = timed("POST", "/events/"+strconv.FormatUint(l.id, 10),
			eventBody(l.title, l.day, l.venue, mw.fixtures, l.rng), http.StatusOK)
		id, title, venue, want := l.id, l.title, l.venue, l.total+1
		check = func() (bool, string) { return mw.shows(ctx, g, id, title, venue, want) }
	case 2:
		_, err = timed("DELETE", "/events/"+strconv.FormatUint(l.id, 10), nil, http.StatusOK)
		id, venue, want := l.id, l.venue, l.total
		check = func() (bool, string) {
			status, _, err := g.get(ctx, "/events/"+strconv.FormatUint(id, 10))
			if err != nil || status == http.StatusOK {
				return false, fmt.Sprintf("trashed event %d still answered %d (%v)", id, status, err)
			}
			got, err := g.total(ctx, venueList(venue))
			if err != nil || got != want {
				return false, fmt.Sprintf("venue %d total %d after trashing %d, want %d (%v)", venue, got, id, want, err)
			}
			return true, ""
		}
	}
	if err == nil {
		l.step++
	}
	return elapsed, err, check
}

// venueList is the first page of a venue's events, as the readers ask for it.
func venueList(venue uint64) string { return "/events?venue=" + strconv.FormatUint(venue, 10) }

// shows checks that the event answers with title and that its venue's list counts want events.
func (mw *mixedWriter) shows(ctx context.Context, g *loadGenerator, id uint64, title string, venue uint64,
	want int64) (bool, string) {
	status, body, err := g.get(ctx, "/events/"+strconv.FormatUint(id, 10))
	if err != nil || status != http.StatusOK {
		return false, fmt.Sprintf("event %d answered %d (%v)", id, status, err)
	}
	var e struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Title != title {
		return false, fmt.Sprintf("event %d has title %q, want %q", id, e.Title, title)
	}
	got, err := g.total(ctx, venueList(venue))
	if err != nil || got != want {
		return false, fmt.Sprintf("venue %d total %d, want %d (%v)", venue, got, want, err)
	}
	return true, ""
}

// eventBody is a create or update of a published event at venue, day days ahead.
func eventBody(title string, day int, venue uint64, f fixtures, rng *rand.Rand) []byte {
	date := time.Now().UTC().AddDate(0, 0, day).Format("2006-01-02")
	body, _ := json.Marshal(map[string]any{
		"title": title, "status": "publish",
		"start_date": date + " 18:00:00", "end_date": date + " 20:00:00",
		"venue":      venue,
		"organizer":  []uint64{f.organizerIDs[rng.IntN(len(f.organizerIDs))]},
		"categories": []string{f.categorySlugs[rng.IntN(len(f.categorySlugs))]},
		"tags":       []string{"music"},
		"cost":       "$15",
	})
	return body
}

// write sends one write with token and returns the ID of the event it answers with.
func (g *loadGenerator) write(ctx context.Context, token, method, path string, body []byte, want int) (uint64, error) {
	status, answer, err := g.do(ctx, request{method: method, path: path, body: body, token: token})
	if err != nil {
		return 0, err
	}
	if status != want {
		return 0, fmt.Errorf("%s %s: %d %s", method, path, status, strings.TrimSpace(string(answer)))
	}
	var e struct {
		ID uint64 `json:"id"`
	}
	if err := json.Unmarshal(answer, &e); err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return e.ID, nil
}

// get reads path anonymously and returns its status and body.
func (g *loadGenerator) get(ctx context.Context, path string) (int, []byte, error) {
	return g.do(ctx, request{method: "GET", path: path})
}

// total reads the X-TEC-Total of a list.
func (g *loadGenerator) total(ctx context.Context, path string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", g.base+path, nil)
	if err != nil {
		return 0, err
	}
	res, err := g.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %d", path, res.StatusCode)
	}
	return strconv.ParseInt(res.Header.Get("X-TEC-Total"), 10, 64)
}

// do sends r and returns the answer's status and body.
func (g *loadGenerator) do(ctx context.Context, r request) (int, []byte, error) {
	req, err := g.newRequest(ctx, r)
	if err != nil {
		return 0, nil, err
	}
	res, err := g.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, body, err
}

// writerResult turns what the writer measured into the row of the mixed scenario's writes.
func writerResult(name string, o writerOutcome, seconds float64) Result {
	r := Result{Scenario: name + " writes", Errors: o.errors + o.missed, Write: true, Checks: o.checks,
		Stale: o.stale, StaleExamples: o.staleLog, Missed: o.missed}
	r.setLatencies(o.latencies, seconds)
	return r
}

// writerRun runs the scenario's writer beside the readers, if it has one, and returns a function that waits for it.
func writerRun(ctx context.Context, g *loadGenerator, sc scenario, measuring func() bool) func() writerOutcome {
	if sc.writer == nil {
		return nil
	}
	var wg sync.WaitGroup
	var out writerOutcome
	wg.Add(1)
	go func() {
		defer wg.Done()
		out = sc.writer.run(ctx, g, measuring)
	}()
	return func() writerOutcome { wg.Wait(); return out }
}

// The figures asked of the mixed scenario: reads at one and at ten writes a second as shares of reads with none,
// at every size; the p99 of reads at ten writes a second and of the writes depend on the calendar's size
// (mixedP99sAsked).
const (
	mixedOneWriteAsked  = 0.70
	mixedTenWritesAsked = 0.40
)

// mixedP99sAsked are the p99s asked of reads at ten writes a second and of the writes, in ms: those of a million
// events from a million on, those of 100,000 below.
func mixedP99sAsked(events int) (reads, writes float64) {
	if events >= 1_000_000 {
		return 120, 150
	}
	return 60, 100
}

// mixedSummary prints, for a run of the three mixed rates, the figures asked of them: reads at one and ten writes
// a second against reads with none, the readers' p99 at ten, and the writes' p99.
func mixedSummary(w io.Writer, r Report) {
	byName := map[string]*Result{}
	for i := range r.Results {
		byName[r.Results[i].Scenario] = &r.Results[i]
	}
	none, one, ten := byName[mixedName(0)], byName[mixedName(1)], byName[mixedName(10)]
	if none == nil || one == nil || ten == nil || none.RPS == 0 {
		return
	}
	readP99, writeP99 := mixedP99sAsked(r.Events)
	fmt.Fprintf(w, "\nmixed reads at 1 write/s: %.0f%% of those with none (asked ≥ %.0f%%): %s\n",
		100*one.RPS/none.RPS, 100*mixedOneWriteAsked, metOrMissed(one.RPS/none.RPS >= mixedOneWriteAsked))
	fmt.Fprintf(w, "mixed reads at 10 writes/s: %.0f%% of those with none (asked ≥ %.0f%%): %s; p99 %.1f ms (asked ≤ %.0f ms): %s\n",
		100*ten.RPS/none.RPS, 100*mixedTenWritesAsked, metOrMissed(ten.RPS/none.RPS >= mixedTenWritesAsked),
		ten.P99ms, readP99, metOrMissed(ten.P99ms <= readP99))
	for _, rate := range []int{1, 10} {
		if writes := byName[mixedName(rate)+" writes"]; writes != nil {
			fmt.Fprintf(w, "mixed writes at %d/s: p99 %.1f ms (asked ≤ %.0f ms): %s\n", rate, writes.P99ms,
				writeP99, metOrMissed(writes.P99ms <= writeP99))
		}
	}
}
