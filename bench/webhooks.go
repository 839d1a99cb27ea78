package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The change-tracking scenarios: creates with and without webhook subscriptions, the lag of deliveries at a fixed
// write rate, a receiver outage, and sync pages. Their deliveries go to a receiver inside the harness process, on
// loopback (the service runs with CALENDAR_WEBHOOK_ALLOW_PRIVATE for it).
const (
	createNoSubsScenario    = "webhooks create 0 subs"
	createThreeSubsScenario = "webhooks create 3 subs"
	lagScenario             = "webhook lag"
	outageScenario          = "webhook outage"
	syncScenario            = "sync pages"
)

// webhookOptions are the flags of the change-tracking scenarios.
type webhookOptions struct {
	rate        int           // creates a second of the lag scenario
	outage      time.Duration // how long the outage scenario's receiver refuses connections
	outageRate  int           // writes a second during the outage scenario
	retryDelays string        // the service's CALENDAR_WEBHOOK_RETRY_DELAYS
	syncChanges int           // records changed before the sync scenario's walks
}

func registerWebhookFlags(o *webhookOptions) {
	flag.IntVar(&o.rate, "webhook-rate", 1000, "creates a second of the \""+lagScenario+"\" scenario")
	flag.DurationVar(&o.outage, "outage", 10*time.Minute, "how long the \""+outageScenario+"\" scenario's receiver refuses connections")
	flag.IntVar(&o.outageRate, "outage-rate", 20, "writes a second during the \""+outageScenario+"\" scenario")
	flag.StringVar(&o.retryDelays, "webhook-retry-delays", "1s,2s,5s,10s,30s", "the service's CALENDAR_WEBHOOK_RETRY_DELAYS: shorter than its defaults, so that the outage scenario's drain measures the sender, not the wait for the next retry")
	flag.IntVar(&o.syncChanges, "sync-changes", 1000, "events updated between the sync scenario's token and its walks")
}

// serviceEnv is what the service under test needs for the change-tracking scenarios: webhooks may reach the
// receiver on loopback, and failed deliveries are retried after the harness's delays.
func (o webhookOptions) serviceEnv() []string {
	return []string{"CALENDAR_WEBHOOK_ALLOW_PRIVATE=true", "CALENDAR_WEBHOOK_RETRY_DELAYS=" + o.retryDelays}
}

// longestRetryDelay is the longest of the retry delays (a minute when they do not parse).
func (o webhookOptions) longestRetryDelay() time.Duration {
	longest := time.Minute
	for _, s := range strings.Split(o.retryDelays, ",") {
		if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil {
			longest = max(longest, d)
		}
	}
	return longest
}

// hookBench runs the change-tracking scenarios and keeps their own figures for the report.
type hookBench struct {
	opts     webhookOptions
	token    string
	fixtures fixtures
	recv     *receiver
	figures  ChangeFigures
}

func newHookBench(o webhookOptions, f fixtures, token string) *hookBench {
	return &hookBench{opts: o, fixtures: f, token: token}
}

// close stops the receiver, if a scenario started it.
func (h *hookBench) close() {
	if h.recv != nil {
		h.recv.close()
	}
}

// scenarios are the change-tracking scenarios; create is the harness's create scenario, which the create and lag
// scenarios send. The outage scenario is opt-in (it lasts -outage, ten minutes by default).
func (h *hookBench) scenarios(create scenario) []scenario {
	return []scenario{
		{name: createNoSubsScenario, write: true, custom: h.createWith(create, createNoSubsScenario, 0)},
		{name: createThreeSubsScenario, write: true, custom: h.createWith(create, createThreeSubsScenario, 3)},
		{name: lagScenario, write: true, custom: h.lag(create)},
		{name: outageScenario, write: true, optIn: true, custom: h.outage},
		{name: syncScenario, custom: h.syncPages},
	}
}

// scenarioNamed finds a scenario of the fixed mix by name.
func scenarioNamed(all []scenario, name string) scenario {
	for _, sc := range all {
		if sc.name == name {
			return sc
		}
	}
	panic("bench: no scenario " + name)
}

// receiver starts the receiver on first use.
func (h *hookBench) receiver() (*receiver, error) {
	if h.recv == nil {
		r, err := startReceiver()
		if err != nil {
			return nil, err
		}
		log.Printf("webhook receiver on %s", r.addr)
		h.recv = r
	}
	return h.recv, nil
}

// subscribe creates a subscription to every change type ("*") whose deliveries go to a new sink of the receiver
// named label, and returns its ID and the sink.
func (h *hookBench) subscribe(ctx context.Context, g *loadGenerator, label string) (uint64, *sink, error) {
	r, err := h.receiver()
	if err != nil {
		return 0, nil, err
	}
	body, _ := json.Marshal(map[string]any{"url": r.url(label), "events": []string{"*"}})
	status, answer, err := g.do(ctx, request{method: "POST", path: "/webhooks", body: body, token: h.token})
	if err != nil {
		return 0, nil, err
	}
	if status != http.StatusCreated {
		return 0, nil, fmt.Errorf("POST /webhooks: %d %s", status, strings.TrimSpace(string(answer)))
	}
	var sub struct {
		ID     uint64 `json:"id"`
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(answer, &sub); err != nil {
		return 0, nil, fmt.Errorf("POST /webhooks: %w", err)
	}
	return sub.ID, r.newSink(label, sub.Secret), nil
}

// clearSubscriptions deletes every subscription, with its pending deliveries: each scenario starts with none, and
// none is left sending while later scenarios measure.
func (h *hookBench) clearSubscriptions(ctx context.Context, g *loadGenerator) error {
	status, answer, err := g.do(ctx, request{method: "GET", path: "/webhooks", token: h.token})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET /webhooks: %d %s", status, strings.TrimSpace(string(answer)))
	}
	var list struct {
		Webhooks []struct {
			ID uint64 `json:"id"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(answer, &list); err != nil {
		return fmt.Errorf("GET /webhooks: %w", err)
	}
	for _, w := range list.Webhooks {
		path := "/webhooks/" + strconv.FormatUint(w.ID, 10)
		status, answer, err := g.do(ctx, request{method: "DELETE", path: path, token: h.token})
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("DELETE %s: %d %s", path, status, strings.TrimSpace(string(answer)))
		}
	}
	return nil
}

// withSubscriptions runs fn with n fresh subscriptions to "*" (labelled label-1, label-2, ...) and deletes them
// afterwards.
func (h *hookBench) withSubscriptions(ctx context.Context, g *loadGenerator, label string, n int,
	fn func(ids []uint64, sinks []*sink) error) error {
	if err := h.clearSubscriptions(ctx, g); err != nil {
		return err
	}
	defer func() {
		if err := h.clearSubscriptions(context.WithoutCancel(ctx), g); err != nil {
			log.Printf("deleting the subscriptions of %s: %v", label, err)
		}
	}()
	var ids []uint64
	var sinks []*sink
	for i := 1; i <= n; i++ {
		id, s, err := h.subscribe(ctx, g, fmt.Sprintf("%s-%d", label, i))
		if err != nil {
			return err
		}
		ids, sinks = append(ids, id), append(sinks, s)
	}
	return fn(ids, sinks)
}

// createWith is the create scenario run with subs subscriptions to "*" answered at once by the receiver.
func (h *hookBench) createWith(create scenario, name string, subs int) func(context.Context, *loadGenerator) ([]Result, error) {
	return func(ctx context.Context, g *loadGenerator) ([]Result, error) {
		var r Result
		err := h.withSubscriptions(ctx, g, strings.ReplaceAll(name, " ", "-"), subs, func(_ []uint64, sinks []*sink) error {
			sc := create
			sc.name = name
			var made atomic.Int64
			sc.next = func(w, i int) request { made.Add(1); return create.next(w, i) }
			r, _ = g.run(ctx, sc)
			if subs > 0 {
				for _, s := range sinks {
					h.figures.CreateDeliveries += int64(s.count())
				}
				h.figures.CreateWrites = made.Load()
			}
			return nil
		})
		return []Result{r}, err
	}
}

// lagWriters is how many creates the lag scenario has in flight at most: at 1,000 a second and a create's tens
// of milliseconds, enough that the service, not the harness, sets the pace.
const lagWriters = 64

// lag is the "webhook lag" scenario: creates at -webhook-rate a second, open loop, for the warm-up and the
// measured time, with one subscription to "*" whose receiver answers at once; each measured create's delivery
// lag is the time from its acknowledgement (the 201 read) to its delivery's arrival. Its rows are the writes and
// the deliveries (p50 and p99 of the lag).
func (h *hookBench) lag(create scenario) func(context.Context, *loadGenerator) ([]Result, error) {
	return func(ctx context.Context, g *loadGenerator) ([]Result, error) {
		var rows []Result
		err := h.withSubscriptions(ctx, g, "lag", 1, func(_ []uint64, sinks []*sink) error {
			writers := newLoadGenerator(g.base, lagWriters, g.warmup, g.duration)
			written := pacedCreates(ctx, writers, create, h.opts.rate)
			lag := awaitDeliveries(ctx, sinks[0], written.acks, written.measureFrom)
			lag.AskedRate = float64(h.opts.rate)
			lag.Rate = float64(len(written.latencies)) / written.seconds
			lag.Writes, lag.WriteErrors, lag.Late = int64(len(written.acks)), written.errors, written.late
			h.figures.Lag = &lag
			rows = append(rows, written.result(lagScenario), lag.result())
			return nil
		})
		return rows, err
	}
}

// pacedOutcome is what paced creates measured: the acknowledgement time of each measured create by the ID it
// made, the latencies, the failed creates and those that started late (every writer busy).
type pacedOutcome struct {
	acks         map[uint64]time.Time
	latencies    []time.Duration
	errors, late int64
	measureFrom  time.Time
	seconds      float64
	statuses     map[int]int64
}

// pacedCreates sends the create scenario's requests at rate a second, open loop, for g's warm-up and measured
// time: a pacer hands each due create to an idle writer of g's connections; when none is idle the create starts
// late (and is counted so), so the rate achieved shows what the service sustains.
func pacedCreates(ctx context.Context, g *loadGenerator, create scenario, rate int) pacedOutcome {
	out := pacedOutcome{acks: map[uint64]time.Time{}, statuses: map[int]int64{}}
	start := time.Now()
	measureFrom, end := start.Add(g.warmup), start.Add(g.warmup+g.duration)
	out.measureFrom = measureFrom
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < g.connections; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for i := range jobs {
				sent := time.Now()
				status, body, err := g.do(ctx, create.next(worker, i))
				acked := time.Now()
				var made struct {
					ID uint64 `json:"id"`
				}
				ok := err == nil && status == http.StatusCreated && json.Unmarshal(body, &made) == nil && made.ID > 0
				if sent.Before(measureFrom) || ctx.Err() != nil {
					continue
				}
				mu.Lock()
				out.statuses[status]++
				if ok {
					out.acks[made.ID] = acked
					out.latencies = append(out.latencies, acked.Sub(sent))
				} else {
					out.errors++
				}
				mu.Unlock()
			}
		}(w)
	}
	interval := time.Second / time.Duration(max(rate, 1))
	for i := 0; ctx.Err() == nil; i++ {
		due := start.Add(time.Duration(i) * interval)
		if !due.Before(end) {
			break
		}
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		select {
		case jobs <- i:
			continue
		default:
		}
		if !due.Before(measureFrom) {
			out.late++
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	out.seconds = time.Since(measureFrom).Seconds()
	return out
}

// result is the row of the paced creates.
func (o pacedOutcome) result(name string) Result {
	r := Result{Scenario: name, Errors: o.errors, Write: true, Statuses: o.statuses, Missed: o.late}
	r.setLatencies(o.latencies, o.seconds)
	return r
}

// deliveryWait bounds how long the lag scenario waits for deliveries after its last create: it stops earlier
// once every one has arrived, or when none has for deliveryQuiet.
const (
	deliveryWait  = 10 * time.Minute
	deliveryQuiet = 30 * time.Second
)

// awaitDeliveries waits until each acknowledged create's event.created delivery has reached s (or none comes any
// more) and measures the lags, and the rate of the deliveries from measureFrom (when the measured creates began)
// to the last one's arrival.
func awaitDeliveries(ctx context.Context, s *sink, acks map[uint64]time.Time, measureFrom time.Time) LagFigures {
	start := time.Now()
	lastCount, lastProgress := -1, time.Now()
	var first map[uint64]arrival
	for {
		first = firstCreated(s.snapshot())
		arrived := 0
		for id := range acks {
			if _, ok := first[id]; ok {
				arrived++
			}
		}
		if arrived != lastCount {
			lastCount, lastProgress = arrived, time.Now()
		}
		if arrived == len(acks) || time.Since(lastProgress) > deliveryQuiet || time.Since(start) > deliveryWait ||
			ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	all := s.snapshot()
	out := LagFigures{WaitedSeconds: time.Since(start).Seconds(), Doubled: doubled(all), BadSignatures: badSignatures(all)}
	var lags []time.Duration
	var last time.Time
	for id, acked := range acks {
		a, ok := first[id]
		if !ok {
			out.Missing++
			continue
		}
		lags = append(lags, max(a.at.Sub(acked), 0)) // a delivery may arrive before its 201 is read
		if a.at.After(last) {
			last = a.at
		}
	}
	out.Delivered = int64(len(lags))
	if out.Delivered > 0 {
		out.DeliverySeconds = last.Sub(measureFrom).Seconds()
	}
	slices.Sort(lags)
	if len(lags) > 0 {
		out.P50ms, out.P99ms = percentile(lags, 0.50), percentile(lags, 0.99)
		out.MaxMs = float64(lags[len(lags)-1].Microseconds()) / 1000
	}
	return out
}

// firstCreated is the first event.created delivery of each event among arrivals.
func firstCreated(arrivals []arrival) map[uint64]arrival {
	out := make(map[uint64]arrival, len(arrivals))
	for _, a := range arrivals {
		if _, seen := out[a.record]; !seen && a.typ == "event.created" {
			out[a.record] = a
		}
	}
	return out
}

// doubled counts the arrivals of a delivery ID the receiver had got before.
func doubled(arrivals []arrival) int64 {
	seen := make(map[uint64]bool, len(arrivals))
	var n int64
	for _, a := range arrivals {
		if seen[a.delivery] {
			n++
		}
		seen[a.delivery] = true
	}
	return n
}

// badSignatures counts the arrivals whose signature did not verify.
func badSignatures(arrivals []arrival) int64 {
	var n int64
	for _, a := range arrivals {
		if a.badSignature {
			n++
		}
	}
	return n
}

// ChangeFigures are the change-tracking scenarios' own figures, beside their rows among the results.
type ChangeFigures struct {
	// CreateShare is the create throughput with three subscriptions as a share of that with none, and CreateP99ms
	// the p99 with three (when both scenarios ran); CreateDeliveries counts the deliveries the receiver got while
	// the three subscriptions' creates ran and CreateWrites the creates sent (warm-up included).
	CreateShare      *float64 `json:"create_share_3_subs_of_0,omitempty"`
	CreateP99ms      *float64 `json:"create_p99_ms_3_subs,omitempty"`
	CreateMet        *bool    `json:"create_met,omitempty"`
	CreateDeliveries int64    `json:"create_deliveries_3_subs,omitempty"`
	CreateWrites     int64    `json:"create_writes_3_subs,omitempty"`

	Lag    *LagFigures    `json:"lag,omitempty"`
	Outage *OutageFigures `json:"outage,omitempty"`
	Sync   *SyncFigures   `json:"sync,omitempty"`
}

// LagFigures are the lag scenario's: the rate asked and achieved, and the lag from a create's acknowledgement to
// its delivery's arrival.
type LagFigures struct {
	AskedRate   float64 `json:"asked_writes_per_second"`
	Rate        float64 `json:"writes_per_second"`
	Writes      int64   `json:"writes"`
	WriteErrors int64   `json:"write_errors"`
	// Late counts the creates that started after their time, every writer being busy.
	Late      int64   `json:"late_writes"`
	Delivered int64   `json:"delivered"`
	Missing   int64   `json:"missing"`
	Doubled   int64   `json:"doubled"`
	P50ms     float64 `json:"lag_p50_ms"`
	P99ms     float64 `json:"lag_p99_ms"`
	MaxMs     float64 `json:"lag_max_ms"`
	// DeliverySeconds runs from the start of the measured creates to the arrival of the last one's delivery.
	DeliverySeconds float64 `json:"delivery_seconds"`
	// WaitedSeconds is how long the harness waited for deliveries after the last create.
	WaitedSeconds float64 `json:"waited_seconds"`
	BadSignatures int64   `json:"bad_signatures"`
}

// lagTarget is the largest p99 lag the lag scenario asks for, at its asked rate.
const lagTarget = time.Second

// result is the row of the lag's deliveries: their rate (from the start of the measured creates to the last
// one's arrival), their p50 and p99 lag; errors are the missing and doubled ones.
func (l LagFigures) result() Result {
	r := Result{Scenario: lagScenario + " deliveries", Requests: l.Delivered, Seconds: l.DeliverySeconds,
		P50ms: l.P50ms, P99ms: l.P99ms, Errors: l.Missing + l.Doubled + l.BadSignatures}
	if l.DeliverySeconds > 0 {
		r.RPS = float64(l.Delivered) / l.DeliverySeconds
	}
	return r
}

// createTargets are what creates with three subscriptions keep: at least this share of the throughput with
// none, and this p99.
const (
	createMinShare = 0.90
	createMaxP99ms = 60
)

// finish computes the figures that compare rows (the create share) and returns the figures, or nil when no
// change-tracking scenario ran.
func (h *hookBench) finish(results []Result) *ChangeFigures {
	var none, three *Result
	for i := range results {
		switch results[i].Scenario {
		case createNoSubsScenario:
			none = &results[i]
		case createThreeSubsScenario:
			three = &results[i]
		}
	}
	f := h.figures
	if none != nil && three != nil && none.RPS > 0 {
		share, p99 := three.RPS/none.RPS, three.P99ms
		met := share >= createMinShare && p99 <= createMaxP99ms && three.Errors == 0
		f.CreateShare, f.CreateP99ms, f.CreateMet = &share, &p99, &met
	}
	if f.CreateShare == nil && f.CreateDeliveries == 0 && f.Lag == nil && f.Outage == nil && f.Sync == nil {
		return nil
	}
	return &f
}

// print writes the figures below the results table.
func (f *ChangeFigures) print(w io.Writer) {
	fmt.Fprintf(w, "\nchange tracking\n")
	if f.CreateShare != nil {
		fmt.Fprintf(w, "  creates with 3 subscriptions to *: %.0f%% of the throughput with none (asked ≥ %.0f%%), "+
			"p99 %.1f ms (asked ≤ %d ms): %s\n", *f.CreateShare*100, createMinShare*100, *f.CreateP99ms, createMaxP99ms,
			metOrMissed(*f.CreateMet))
	}
	if f.CreateDeliveries > 0 {
		fmt.Fprintf(w, "  deliveries received while the creates with 3 subscriptions ran: %d (3 for each of %d creates, "+
			"warm-up included)\n", f.CreateDeliveries, f.CreateWrites)
	}
	if l := f.Lag; l != nil {
		l.print(w)
	}
	if o := f.Outage; o != nil {
		o.print(w)
	}
	if s := f.Sync; s != nil {
		s.print(w)
	}
}

// sustainedShare is the share of the asked rate the lag scenario must achieve for its rate to count as sustained.
const sustainedShare = 0.98

// print writes the lag figures.
func (l *LagFigures) print(w io.Writer) {
	sustained := l.Rate >= sustainedShare*l.AskedRate
	fmt.Fprintf(w, "  delivery lag: asked %.0f creates/s, achieved %.0f/s (%d started late, %d failed)", l.AskedRate,
		l.Rate, l.Late, l.WriteErrors)
	if !sustained {
		fmt.Fprintf(w, ": the service did not sustain the asked rate")
	}
	met := sustained && l.P99ms <= float64(lagTarget.Milliseconds()) && l.Missing == 0
	fmt.Fprintf(w, "\n    lag p50 %.1f ms, p99 %.1f ms, max %.1f ms (asked p99 ≤ %s at the asked rate: %s); "+
		"delivered %d of %d, missing %d, doubled %d, bad signatures %d (waited %.1f s after the last create)\n",
		l.P50ms, l.P99ms, l.MaxMs, lagTarget, metOrMissed(met), l.Delivered, l.Writes, l.Missing, l.Doubled,
		l.BadSignatures, l.WaitedSeconds)
}

// metOrMissed marks a figure against what was asked of it.
func metOrMissed(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}

// sleepCtx sleeps for d, or less when ctx ends; it reports whether ctx is still live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// errInterrupted is a scenario stopped by the harness's context (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// runCustom runs a scenario with its own loop and returns its rows, each with its ratio to the static baseline; a
// scenario that fails is logged and leaves what rows it made.
func runCustom(ctx context.Context, g *loadGenerator, sc scenario, baseline Result) []Result {
	rows, err := sc.custom(ctx, g)
	if err != nil {
		log.Printf("scenario %q FAILED: %v", sc.name, err)
	}
	for i := range rows {
		if baseline.RPS > 0 {
			rows[i].RatioToStatic = rows[i].RPS / baseline.RPS
		}
	}
	return rows
}
