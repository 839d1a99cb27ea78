package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The outage scenario: a writer creates, updates and trashes events at a modest rate while the receiver refuses
// connections for -outage, then the receiver comes back. Every delivery the service logged must arrive once, each
// event's in order, and each event's last acknowledged write must be shown by a delivery.

// outageSlots is how many events the outage writer keeps in their lives at once: each write of an event comes
// outageSlots/rate seconds after its previous one (2.5 s at 20 writes a second), many times the sender's poll, so
// that each write is normally a delivery of its own.
const outageSlots = 50

// outageUpdates is how many updates an event gets between its create (step 0) and its trashing (the last step).
const outageUpdates = 4

// trashStep is the step of an event's trashing.
const trashStep = outageUpdates + 1

// outageTail is how long the writer goes on once the backlog has drained, so that the last deliveries are of
// writes made with the receiver up.
const outageTail = 5 * time.Second

// dispatchGrace is how long the outage scenario lets the service's dispatcher (which looks for new changes every
// 200 ms) turn the last writes into deliveries before it counts the log.
const dispatchGrace = 2 * time.Second

// OutageFigures are the outage scenario's.
type OutageFigures struct {
	OutageSeconds float64 `json:"outage_seconds"`
	WriteRate     float64 `json:"writes_per_second"`
	Writes        int64   `json:"writes"`
	WriteErrors   int64   `json:"write_errors"`
	Events        int64   `json:"events"`
	// Backlog is the deliveries the service had logged when the receiver came back; DrainSeconds is how long from
	// then until the last of them arrived (-1: some never did), SettleSeconds until every delivery of the run had.
	Backlog       int64   `json:"backlog"`
	DrainSeconds  float64 `json:"drain_seconds"`
	SettleSeconds float64 `json:"settle_seconds"`
	// Deliveries are those in the service's log at the end; Received the distinct ones that arrived.
	Deliveries int64 `json:"deliveries"`
	Received   int64 `json:"received"`
	// Lost counts the logged deliveries that never arrived; Failed and Pending those the log marks so at the end.
	Lost    int64 `json:"lost"`
	Failed  int64 `json:"failed"`
	Pending int64 `json:"pending"`
	// Stray counts arrivals whose delivery ID the log does not hold.
	Stray int64 `json:"stray"`
	// Doubled counts arrivals of a delivery that had arrived before; OutOfOrder the arrivals of an event that came
	// after a later delivery of it (by delivery ID or by the write they show).
	Doubled    int64 `json:"doubled"`
	OutOfOrder int64 `json:"out_of_order"`
	// LostChanges counts the events whose last acknowledged write no delivery showed; Merged the earlier writes no
	// delivery showed while a later one did (changes the dispatcher read together, which make one delivery).
	LostChanges int64 `json:"lost_changes"`
	Merged      int64 `json:"merged"`
	// FailedAttempts counts the attempts the log says failed (connections refused while the receiver was down).
	FailedAttempts int64 `json:"failed_attempts"`
	BadSignatures  int64 `json:"bad_signatures"`
}

// outage is the "webhook outage" scenario.
func (h *hookBench) outage(ctx context.Context, g *loadGenerator) ([]Result, error) {
	var rows []Result
	err := h.withSubscriptions(ctx, g, "outage", 1, func(ids []uint64, sinks []*sink) error {
		sub, s := ids[0], sinks[0]
		w := &outageWriter{g: g, token: h.token, fixtures: h.fixtures, rate: max(h.opts.outageRate, 1),
			run: strconv.FormatInt(time.Now().UnixNano(), 36), events: map[uint64]*outageEvent{}}
		stopWriting := w.start(ctx)
		defer stopWriting()
		log.Printf("writing %d a second with the receiver up for %s", w.rate, g.warmup)
		if !sleepCtx(ctx, g.warmup) {
			return errInterrupted
		}
		backlog, backlogMax, err := h.receiverOutage(ctx, g, sub)
		if err != nil {
			return err
		}
		upAt := time.Now()
		log.Printf("receiver back; %d deliveries logged so far", backlog)
		limit := h.opts.longestRetryDelay() + 5*time.Minute
		if !waitUntil(ctx, limit, func() bool { return receivedUpTo(s, backlogMax) >= backlog }) {
			log.Printf("the backlog did not drain within %s", limit)
		}
		sleepCtx(ctx, outageTail)
		writeSeconds := stopWriting()
		if !h.awaitEveryDelivery(ctx, g, sub, s, limit) {
			log.Printf("not every delivery arrived within %s of the last write", limit)
		}
		settleSeconds := time.Since(upAt).Seconds()
		entries, err := h.deliveryLog(ctx, g, sub)
		if err != nil {
			return err
		}
		f := w.check(s.snapshot(), entries, upAt, backlogMax)
		f.OutageSeconds, f.Backlog, f.SettleSeconds = h.opts.outage.Seconds(), backlog, settleSeconds
		f.WriteRate = float64(f.Writes) / writeSeconds
		h.figures.Outage = &f
		rows = append(rows, w.result(writeSeconds, f))
		return nil
	})
	return rows, err
}

// receiverOutage takes the receiver down for -outage and brings it back; it returns how many deliveries the
// subscription's log held just before the receiver came back, and the newest one's ID.
func (h *hookBench) receiverOutage(ctx context.Context, g *loadGenerator, sub uint64) (int64, uint64, error) {
	downCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := h.recv.down(downCtx)
	cancel()
	if err != nil {
		return 0, 0, fmt.Errorf("stopping the receiver: %w", err)
	}
	log.Printf("receiver down (refusing connections) for %s", h.opts.outage)
	var backlog int64
	var backlogMax uint64
	if !sleepCtx(ctx, h.opts.outage) {
		err = errInterrupted
	} else {
		backlog, backlogMax, err = h.deliveryLogHead(ctx, g, sub)
	}
	if upErr := h.recv.up(); upErr != nil {
		return 0, 0, fmt.Errorf("restarting the receiver: %w", upErr)
	}
	return backlog, backlogMax, err
}

// awaitEveryDelivery waits (up to limit) until every delivery of the subscription's log has reached s, once the
// dispatcher has had the time to log the last writes' deliveries.
func (h *hookBench) awaitEveryDelivery(ctx context.Context, g *loadGenerator, sub uint64, s *sink,
	limit time.Duration) bool {
	sleepCtx(ctx, dispatchGrace)
	return waitUntil(ctx, limit, func() bool {
		total, _, err := h.deliveryLogHead(ctx, g, sub)
		return err == nil && receivedUpTo(s, ^uint64(0)) >= total
	})
}

// waitUntil polls cond until it holds (true), or limit passes or ctx ends (false).
func waitUntil(ctx context.Context, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) || !sleepCtx(ctx, 250*time.Millisecond) {
			return false
		}
	}
	return true
}

// receivedUpTo counts the distinct deliveries with an ID up to last that have reached s.
func receivedUpTo(s *sink, last uint64) int64 {
	seen := map[uint64]bool{}
	for _, a := range s.snapshot() {
		if a.delivery <= last {
			seen[a.delivery] = true
		}
	}
	return int64(len(seen))
}

// deliveryEntry is one delivery of the service's log (GET /webhooks/{id}/deliveries).
type deliveryEntry struct {
	ID       uint64 `json:"id"`
	Type     string `json:"type"`
	RecordID uint64 `json:"record_id"`
	Status   string `json:"status"`
	Attempts int64  `json:"attempts"`
}

// deliveryLogPage is one page of the delivery log.
type deliveryLogPage struct {
	Deliveries []deliveryEntry `json:"deliveries"`
	Total      int64           `json:"total"`
	TotalPages int             `json:"total_pages"`
}

// deliveryLogHead reads how many deliveries the subscription's log holds and the newest one's ID.
func (h *hookBench) deliveryLogHead(ctx context.Context, g *loadGenerator, sub uint64) (int64, uint64, error) {
	p, err := h.deliveryLogPage(ctx, g, sub, 1, 1)
	if err != nil || len(p.Deliveries) == 0 {
		return p.Total, 0, err
	}
	return p.Total, p.Deliveries[0].ID, nil
}

// deliveryLog reads the subscription's whole log, 50 deliveries a page.
func (h *hookBench) deliveryLog(ctx context.Context, g *loadGenerator, sub uint64) ([]deliveryEntry, error) {
	var out []deliveryEntry
	for page := 1; ; page++ {
		p, err := h.deliveryLogPage(ctx, g, sub, page, 50)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Deliveries...)
		if page >= p.TotalPages {
			return out, nil
		}
	}
}

func (h *hookBench) deliveryLogPage(ctx context.Context, g *loadGenerator, sub uint64, page, perPage int) (
	deliveryLogPage, error) {
	var p deliveryLogPage
	path := fmt.Sprintf("/webhooks/%d/deliveries?per_page=%d&page=%d", sub, perPage, page)
	status, body, err := g.do(ctx, request{method: "GET", path: path, token: h.token})
	if err != nil {
		return p, err
	}
	if status != http.StatusOK {
		return p, fmt.Errorf("GET %s: %d %s", path, status, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return p, fmt.Errorf("GET %s: %w", path, err)
	}
	return p, nil
}

// outageWriter writes events through their lives, outageSlots at a time, at rate writes a second in all.
type outageWriter struct {
	g        *loadGenerator
	token    string
	fixtures fixtures
	rate     int
	run      string

	mu        sync.Mutex
	events    map[uint64]*outageEvent
	latencies []time.Duration
	errors    int64
}

// outageEvent is one event the writer made: the steps of its acknowledged writes, in order.
type outageEvent struct {
	acked []int
}

// start writes until the function it returns is called (or ctx ends); that function waits for the writes under
// way and returns how long the writer ran, in seconds. Each slot's writes are sequential, so one event's are too.
func (w *outageWriter) start(ctx context.Context) func() float64 {
	began := time.Now()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for slot := 0; slot < outageSlots; slot++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.slot(ctx, &stop, began, slot)
		}()
	}
	var once sync.Once
	var seconds float64
	return func() float64 {
		once.Do(func() {
			stop.Store(true)
			wg.Wait()
			seconds = time.Since(began).Seconds()
		})
		return seconds
	}
}

// slot writes one event after another: created, updated outageUpdates times, trashed, each write at its time.
func (w *outageWriter) slot(ctx context.Context, stop *atomic.Bool, start time.Time, slot int) {
	rng := rand.New(rand.NewPCG(uint64(slot), 28))
	second := float64(time.Second)
	interval := time.Duration(second * outageSlots / float64(w.rate))
	offset := time.Duration(second * float64(slot) / float64(w.rate))
	var id uint64
	var venue uint64
	step, life, day := 0, 0, 0
	for k := 0; ; k++ {
		if !sleepCtx(ctx, time.Until(start.Add(offset+time.Duration(k)*interval))) || stop.Load() {
			return
		}
		if step == 0 {
			venue = w.fixtures.venueIDs[rng.IntN(len(w.fixtures.venueIDs))]
			day = 10 + rng.IntN(300)
		}
		title := fmt.Sprintf("Outage %s %d-%d step %d", w.run, slot, life, step)
		began := time.Now()
		made, err := w.write(ctx, id, step, eventBody(title, day, venue, w.fixtures, rng))
		if step == 0 {
			id = made
		}
		w.record(id, step, time.Since(began), err)
		switch {
		case err != nil && step == 0:
			// No event: create again at the next turn.
		case step == trashStep:
			step, life = 0, life+1
		default:
			step++ // a failed update is passed over; the event's later writes still count
		}
	}
}

// write makes an event's write of step: the create (returning the new event's ID), an update with body, or the
// trashing.
func (w *outageWriter) write(ctx context.Context, id uint64, step int, body []byte) (uint64, error) {
	path := "/events/" + strconv.FormatUint(id, 10)
	switch step {
	case 0:
		return w.g.write(ctx, w.token, "POST", "/events", body, http.StatusCreated)
	case trashStep:
		return w.g.write(ctx, w.token, "DELETE", path, nil, http.StatusOK)
	}
	return w.g.write(ctx, w.token, "POST", path, body, http.StatusOK)
}

// record notes one write's outcome.
func (w *outageWriter) record(id uint64, step int, took time.Duration, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.errors++
		if w.errors <= 5 {
			log.Printf("outage writer: %v", err)
		}
		return
	}
	w.latencies = append(w.latencies, took)
	e := w.events[id]
	if e == nil {
		e = &outageEvent{}
		w.events[id] = e
	}
	e.acked = append(e.acked, step)
}

// shownStep is the step of an event's write that a delivery shows: the trashing when its status is trash, else
// the step its title carries (-1 when it carries none).
func shownStep(a arrival) int {
	if a.status == "trash" {
		return trashStep
	}
	_, tail, ok := strings.Cut(a.title, " step ")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(tail)
	if err != nil {
		return -1
	}
	return n
}

// check compares what arrived with the service's log and with the writes acknowledged.
func (w *outageWriter) check(arrivals []arrival, entries []deliveryEntry, upAt time.Time,
	backlogMax uint64) OutageFigures {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := OutageFigures{Events: int64(len(w.events)), WriteErrors: w.errors, Deliveries: int64(len(entries)),
		Doubled: doubled(arrivals), BadSignatures: badSignatures(arrivals)}
	for _, e := range w.events {
		f.Writes += int64(len(e.acked))
	}
	first, shown, outOfOrder := arrivalOrder(arrivals)
	f.Received, f.OutOfOrder = int64(len(first)), outOfOrder
	f.LostChanges, f.Merged = w.unshownWrites(shown)
	checkLog(entries, first, upAt, backlogMax, &f)
	return f
}

// arrivalOrder returns the first arrival of each delivery and the steps each event's deliveries showed, and
// counts the arrivals that came after a later delivery of their event (by delivery ID or by the step shown).
func arrivalOrder(arrivals []arrival) (map[uint64]arrival, map[uint64]map[int]bool, int64) {
	first := map[uint64]arrival{}
	shown := map[uint64]map[int]bool{}
	lastDelivery, lastStep := map[uint64]uint64{}, map[uint64]int{}
	var outOfOrder int64
	for _, a := range arrivals {
		if _, again := first[a.delivery]; again {
			continue
		}
		first[a.delivery] = a
		step := shownStep(a)
		if prev, ok := lastDelivery[a.record]; ok && (a.delivery < prev || step < lastStep[a.record]) {
			outOfOrder++
		}
		lastDelivery[a.record], lastStep[a.record] = max(a.delivery, lastDelivery[a.record]), max(step, lastStep[a.record])
		if shown[a.record] == nil {
			shown[a.record] = map[int]bool{}
		}
		shown[a.record][step] = true
	}
	return first, shown, outOfOrder
}

// unshownWrites counts the events whose last acknowledged write no delivery showed (lost), and the earlier writes
// that no delivery showed while a later one of their event did (merged).
func (w *outageWriter) unshownWrites(shown map[uint64]map[int]bool) (lost, merged int64) {
	for id, e := range w.events {
		latest := -1
		for step := range shown[id] {
			latest = max(latest, step)
		}
		if latest < e.acked[len(e.acked)-1] {
			lost++
		}
		for _, step := range e.acked[:len(e.acked)-1] {
			if !shown[id][step] && latest > step {
				merged++
			}
		}
	}
	return lost, merged
}

// checkLog compares the service's delivery log with the first arrivals: the logged deliveries that never arrived,
// those failed or pending, the failed attempts, arrivals the log does not hold, and the drain time (from upAt to
// the arrival of the last delivery up to backlogMax; -1 when some delivery never arrived).
func checkLog(entries []deliveryEntry, first map[uint64]arrival, upAt time.Time, backlogMax uint64,
	f *OutageFigures) {
	logged := map[uint64]bool{}
	var drained time.Time
	for _, d := range entries {
		logged[d.ID] = true
		f.FailedAttempts += d.Attempts
		switch d.Status {
		case "sent":
			f.FailedAttempts-- // the attempt that succeeded
		case "failed":
			f.Failed++
		case "pending":
			f.Pending++
		}
		a, ok := first[d.ID]
		if !ok {
			f.Lost++
			continue
		}
		if d.ID <= backlogMax && a.at.After(drained) {
			drained = a.at
		}
	}
	for id := range first {
		if !logged[id] {
			f.Stray++
		}
	}
	f.DrainSeconds = max(drained.Sub(upAt).Seconds(), 0)
	if f.Lost > 0 {
		f.DrainSeconds = -1
	}
}

// result is the outage scenario's row: its writes, with the faults found as errors.
func (w *outageWriter) result(seconds float64, f OutageFigures) Result {
	r := Result{Scenario: outageScenario, Write: true,
		Errors: f.WriteErrors + f.Lost + f.Stray + f.Doubled + f.OutOfOrder + f.LostChanges + f.Failed + f.BadSignatures}
	w.mu.Lock()
	r.setLatencies(w.latencies, seconds)
	w.mu.Unlock()
	return r
}

// print writes the outage figures.
func (f *OutageFigures) print(w io.Writer) {
	drain := "never (some deliveries were lost)"
	if f.DrainSeconds >= 0 {
		drain = fmt.Sprintf("%.1f s", f.DrainSeconds)
	}
	fmt.Fprintf(w, "  receiver outage of %s: %d writes (%.1f/s, %d failed) to %d events; %d deliveries logged, "+
		"%d received\n", time.Duration(f.OutageSeconds*float64(time.Second)), f.Writes, f.WriteRate, f.WriteErrors,
		f.Events, f.Deliveries, f.Received)
	fmt.Fprintf(w, "    lost %d, doubled %d, out of order %d, events whose last write no delivery showed %d, "+
		"failed %d, pending %d, stray %d, bad signatures %d\n", f.Lost, f.Doubled, f.OutOfOrder, f.LostChanges,
		f.Failed, f.Pending, f.Stray, f.BadSignatures)
	fmt.Fprintf(w, "    backlog %d when the receiver came back, drained in %s, every delivery arrived after %.1f s; "+
		"%d failed attempts retried; %d earlier writes shown by a later delivery of their event\n", f.Backlog, drain,
		f.SettleSeconds, f.FailedAttempts, f.Merged)
}
