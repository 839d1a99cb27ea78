package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// request is one request a scenario wants sent.
type request struct {
	method string
	path   string // relative to the target's base URL
	body   []byte
	token  string
}

// scenario is a named stream of requests; next is called concurrently from every connection.
type scenario struct {
	name string
	next func(worker, i int) request
	// wantStatus is the status that counts as success (200 unless set).
	wantStatus int
	// connections, when set, replaces the run's connection count (for answers too large to ask for 32 at a time).
	connections int
	// write marks a scenario that changes data (the 75% kept at 1,000,000 events is asked of reads only).
	write bool
	// writer, when set, writes at its own pace beside the readers (the mixed scenario); its writes are reported
	// as a result of their own.
	writer *mixedWriter
	// prime, when set, is requested before the warm-up (unmeasured; see loadGenerator.prime): the mixed readers
	// start from a service that keeps what their requests need and from a response cache that holds their
	// answers, as a long-running service's would.
	prime []string
	// kept, when set, counts what the service keeps for the primed requests (the searches it keeps at their
	// second ask, one at a time): priming goes on while a pass makes it grow.
	kept func(ctx context.Context) int64
	// custom, when set, runs the scenario in place of the load generator's loop (set-up, paced writes, checks) and
	// returns its rows.
	custom func(ctx context.Context, g *loadGenerator) ([]Result, error)
	// optIn leaves the scenario out of a run without -only (it takes long).
	optIn bool
	// unavailable, when set, says why the scenario cannot run on this database (it has nothing to address).
	unavailable string
	// distinct marks a scenario whose reads uncached made distinct already.
	distinct bool
	// before, when set, runs once before the scenario (reading what its requests need to know); an error skips it.
	before func(ctx context.Context, g *loadGenerator) error
}

// uncached returns the scenario with a parameter the service ignores added to each of its reads, different for
// every request: no answer comes from the response cache, as none does while writes keep moving the data version.
func (sc scenario) uncached() scenario {
	if sc.write || sc.distinct || sc.next == nil {
		return sc
	}
	sc.distinct = true
	next := sc.next
	sc.next = func(w, i int) request {
		r := next(w, i)
		r.path = withParameter(r.path, "uncached="+strconv.Itoa(w)+"-"+strconv.Itoa(i))
		return r
	}
	return sc
}

// Result holds the figures of one scenario.
type Result struct {
	Scenario string  `json:"scenario"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"requests_per_second"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	// MeanBytes is the mean size of the measured answers' bodies: how much a scenario's answer grows with the data
	// set (the events of a category at a venue do; a page of the list does not) is part of what its speed measures.
	MeanBytes     float64 `json:"mean_body_bytes"`
	RatioToStatic float64 `json:"ratio_to_static"`
	Write         bool    `json:"write,omitempty"`
	// Kept is the throughput as a share of the same scenario's in the run given to -compare.
	Kept     *float64      `json:"kept,omitempty"`
	Statuses map[int]int64 `json:"statuses"`
	// Checks and Stale count, for the writes of the mixed scenario, the writes whose effect the next reads checked
	// and those that a read did not reflect; StaleExamples describes the first few.
	Checks        int64    `json:"visibility_checks,omitempty"`
	Stale         int64    `json:"stale,omitempty"`
	StaleExamples []string `json:"stale_examples,omitempty"`
	// PrimeSeconds is how long the last pass that built every one of the mixed readers' distinct requests took,
	// before the warm-up, PrimePasses how many such passes priming made, and PrimeKept how many searches the
	// service kept when it ended (see loadGenerator.prime).
	PrimeSeconds float64 `json:"prime_seconds,omitempty"`
	PrimePasses  int     `json:"prime_passes,omitempty"`
	PrimeKept    int64   `json:"prime_kept,omitempty"`
	// Missed counts the writes the mixed scenario\'s writer could not start on time, every lane being busy.
	Missed int64          `json:"missed,omitempty"`
	Target *TargetFigures `json:"target,omitempty"`
	Met    *bool          `json:"met,omitempty"`
}

// TargetFigures are the project's target figures for a scenario.
type TargetFigures struct {
	RPS   float64 `json:"requests_per_second"`
	P99ms float64 `json:"p99_ms"`
}

// loadGenerator drives one base URL with a fixed number of keep-alive connections.
type loadGenerator struct {
	base        string
	connections int
	warmup      time.Duration
	duration    time.Duration
	client      *http.Client
}

func newLoadGenerator(base string, connections int, warmup, duration time.Duration) *loadGenerator {
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        connections * 2,
		MaxIdleConnsPerHost: connections * 2,
		MaxConnsPerHost:     connections,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}
	return &loadGenerator{base: base, connections: connections, warmup: warmup, duration: duration,
		client: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// run sends the scenario's requests from every connection for warmup+duration and measures the last duration;
// a scenario with a writer also returns its writes' result.
func (g *loadGenerator) run(ctx context.Context, sc scenario) (Result, *Result) {
	want := sc.wantStatus
	if want == 0 {
		want = http.StatusOK
	}
	var (
		measuring atomic.Bool
		mu        sync.Mutex
		latencies []time.Duration
		statuses  = map[int]int64{}
		errors    int64
		bodyBytes int64
		wg        sync.WaitGroup
	)
	primed := g.prime(ctx, sc.prime, sc.kept)
	ctx, cancel := context.WithTimeout(ctx, g.warmup+g.duration)
	defer cancel()
	time.AfterFunc(g.warmup, func() { measuring.Store(true) })
	waitWriter := writerRun(ctx, g, sc, measuring.Load)
	var measuredFrom time.Time
	var measuredOnce sync.Once
	connections := g.connections
	if sc.connections > 0 {
		connections = sc.connections
	}
	for w := 0; w < connections; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			local := make([]time.Duration, 0, 1<<14)
			localStatus := map[int]int64{}
			var localErrors, localBytes int64
			for i := 0; ctx.Err() == nil; i++ {
				r := sc.next(worker, i)
				start := time.Now()
				status, size, err := g.send(ctx, r)
				elapsed := time.Since(start)
				if ctx.Err() != nil || !measuring.Load() {
					continue
				}
				measuredOnce.Do(func() { measuredFrom = start })
				local = append(local, elapsed)
				localStatus[status]++
				localBytes += size
				if err != nil || status != want {
					localErrors++
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			for k, v := range localStatus {
				statuses[k] += v
			}
			errors += localErrors
			bodyBytes += localBytes
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	seconds := g.duration.Seconds()
	if !measuredFrom.IsZero() {
		seconds = time.Since(measuredFrom).Seconds()
	}
	slices.Sort(latencies)
	res := Result{Scenario: sc.name, Requests: int64(len(latencies)), Errors: errors, Seconds: seconds, Statuses: statuses,
		Write: sc.write, PrimeSeconds: primed.lastBuild.Seconds(), PrimePasses: primed.buildPasses,
		PrimeKept: max(primed.kept, 0)}
	if len(latencies) > 0 {
		res.RPS = float64(len(latencies)) / seconds
		res.P50ms = percentile(latencies, 0.50)
		res.P99ms = percentile(latencies, 0.99)
		res.MeanBytes = float64(bodyBytes) / float64(len(latencies))
	}
	if waitWriter == nil {
		return res, nil
	}
	w := writerResult(sc.name, waitWriter(), seconds)
	return res, &w
}

// send sends r and returns the answer's status and body size.
func (g *loadGenerator) send(ctx context.Context, r request) (int, int64, error) {
	req, err := g.newRequest(ctx, r)
	if err != nil {
		return 0, 0, err
	}
	res, err := g.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	size, err := io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	return res.StatusCode, size, err
}

// primeSettled and maxBuildPasses bound the passes that settle what the service keeps for the readers' mix before
// its cache is filled: passes that build every answer go on while one is at least a tenth faster than the one
// before it, or adds to what the service keeps (a search is kept at its second ask, one at a time, so a fresh
// service keeps searches for several passes: at a million events a pass keeps a few hundred of them), at most
// maxBuildPasses of them.
const (
	primeSettled   = 0.9
	maxBuildPasses = 10
)

// priming is what priming took: how many passes built every answer, how long the last of them took, and what the
// service kept at the end (-1: not counted).
type priming struct {
	buildPasses int
	lastBuild   time.Duration
	kept        int64
}

// prime brings the service to the state a long-running one serving paths would be in, and returns what it took:
// passes that build every answer (each request with a parameter the service ignores, new for each pass) until
// they stop getting faster and kept (when not nil) stops growing, then each path twice, which stores every answer
// in the response cache.
func (g *loadGenerator) prime(ctx context.Context, paths []string, kept func(context.Context) int64) priming {
	p := priming{kept: -1}
	if len(paths) == 0 {
		return p
	}
	if kept == nil {
		kept = func(context.Context) int64 { return -1 }
	}
	p.kept = kept(ctx)
	for p.buildPasses < maxBuildPasses && ctx.Err() == nil {
		took := g.askAll(ctx, ignoredParameter(paths, "prime="+strconv.Itoa(p.buildPasses)))
		before := p.kept
		p.kept = kept(ctx)
		settled := p.buildPasses > 0 && took.Seconds() >= primeSettled*p.lastBuild.Seconds() && p.kept <= before
		p.buildPasses, p.lastBuild = p.buildPasses+1, took
		if settled {
			break
		}
	}
	g.askAll(ctx, append(slices.Clip(paths), paths...))
	return p
}

// ignoredParameter returns paths with param, which the service ignores, added to each.
func ignoredParameter(paths []string, param string) []string {
	out := make([]string, len(paths))
	for i, path := range paths {
		out[i] = withParameter(path, param)
	}
	return out
}

// withParameter returns path with the query parameter param (name=value) added.
func withParameter(path, param string) string {
	if strings.Contains(path, "?") {
		return path + "&" + param
	}
	return path + "?" + param
}

// askAll requests every path once, from every connection, and returns how long it took.
func (g *loadGenerator) askAll(ctx context.Context, paths []string) time.Duration {
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < g.connections; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(paths) && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				_, _, _ = g.send(ctx, request{method: "GET", path: paths[i]})
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// newRequest is the HTTP request of r.
func (g *loadGenerator) newRequest(ctx context.Context, r request) (*http.Request, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, g.base+r.path, body)
	if err != nil {
		return nil, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	return req, nil
}

// setLatencies sets the row's requests, rate, p50 and p99 from the latencies of what it measured over seconds.
func (r *Result) setLatencies(latencies []time.Duration, seconds float64) {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	r.Requests, r.Seconds = int64(len(sorted)), seconds
	if len(sorted) > 0 {
		r.RPS = float64(len(sorted)) / seconds
		r.P50ms, r.P99ms = percentile(sorted, 0.50), percentile(sorted, 0.99)
	}
}

func percentile(sorted []time.Duration, p float64) float64 {
	i := int(float64(len(sorted)-1) * p)
	return float64(sorted[i].Microseconds()) / 1000
}

func addInt64(p *int64, d int64) int64 { return atomic.AddInt64(p, d) }
