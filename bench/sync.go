package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The sync scenario: take a sync token, update -sync-changes events, then walk the sync from the token, pages of
// 50, one page after another, again and again for the warm-up and the measured time. Every page carries a
// parameter the service ignores, different for each walk, so that none is answered from the response cache.

// syncPageSize is the page size of the walks (the service's largest by default).
const syncPageSize = 50

// syncWriters is how many updates the sync scenario sends at once before its walks.
const syncWriters = 8

// SyncFigures are the sync scenario's: what one walk covers and how many walks listed every changed event.
type SyncFigures struct {
	Changes int   `json:"changes"`
	Pages   int   `json:"pages_per_walk"`
	Walks   int   `json:"walks"`
	Total   int64 `json:"total"`
	// Missing counts, over every walk, the changed events a walk did not list.
	Missing int64 `json:"missing"`
	// P50ms and P99ms are of every measured page.
	P50ms float64 `json:"page_p50_ms"`
	P99ms float64 `json:"page_p99_ms"`
}

// syncTarget is the slowest page of 50 the sync scenario asks for.
const syncTarget = 50 * time.Millisecond

// syncPages is the "sync pages" scenario.
func (h *hookBench) syncPages(ctx context.Context, g *loadGenerator) ([]Result, error) {
	token, err := syncTokenOf(ctx, g, "/events?per_page=1")
	if err != nil {
		return nil, err
	}
	changed, err := h.syncChanges(ctx, g)
	if err != nil {
		return nil, err
	}
	log.Printf("updated %d events since the token; walking the sync", len(changed))
	f := SyncFigures{Changes: len(changed)}
	var latencies []time.Duration
	errorsSeen := int64(0)
	start := time.Now()
	measureFrom, end := start.Add(g.warmup), start.Add(g.warmup+g.duration)
	var measuredFrom time.Time
	for walk := 0; time.Now().Before(end) && ctx.Err() == nil; walk++ {
		measured := !time.Now().Before(measureFrom)
		if measured && measuredFrom.IsZero() {
			measuredFrom = time.Now()
		}
		w, err := walkSync(ctx, g, token, walk)
		if !measured {
			continue
		}
		f.Walks++
		f.Pages = max(f.Pages, len(w.pages))
		f.Total = w.total
		latencies = append(latencies, w.pages...)
		if err != nil {
			errorsSeen++
			log.Printf("sync walk %d: %v", walk, err)
			continue
		}
		for _, id := range changed {
			if !w.listed[id] {
				f.Missing++
			}
		}
	}
	r := Result{Scenario: syncScenario, Errors: errorsSeen + f.Missing}
	r.setLatencies(latencies, time.Since(measuredFrom).Seconds())
	f.P50ms, f.P99ms = r.P50ms, r.P99ms
	h.figures.Sync = &f
	return []Result{r}, nil
}

// syncTokenOf reads the X-Sync-Token of a list answer.
func syncTokenOf(ctx context.Context, g *loadGenerator, path string) (string, error) {
	req, err := g.newRequest(ctx, request{method: "GET", path: path})
	if err != nil {
		return "", err
	}
	res, err := g.client.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	token := res.Header.Get("X-Sync-Token")
	if res.StatusCode != http.StatusOK || token == "" {
		return "", fmt.Errorf("GET %s: %d without X-Sync-Token", path, res.StatusCode)
	}
	return token, nil
}

// syncChanges updates -sync-changes distinct events (new titles), syncWriters at a time, and returns their IDs.
func (h *hookBench) syncChanges(ctx context.Context, g *loadGenerator) ([]uint64, error) {
	pool := h.fixtures.eventIDs
	n := min(h.opts.syncChanges, len(pool))
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = pool[i*len(pool)/n] // spread over the fixtures
	}
	run := strconv.FormatInt(time.Now().Unix(), 36)
	next := make(chan int)
	errs := make(chan error, syncWriters)
	var wg sync.WaitGroup
	for range syncWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Synced %s %d", run, i)})
				path := "/events/" + strconv.FormatUint(ids[i], 10)
				if _, err := g.write(ctx, h.token, "POST", path, body, http.StatusOK); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
		return ids, nil
	}
}

// syncWalk is one walk of a sync: each page's latency, the records it listed (changed or deleted) and its total.
type syncWalk struct {
	pages  []time.Duration
	listed map[uint64]bool
	total  int64
}

// walkSync follows a sync from token to its last page, pages of syncPageSize, each with the walk's own ignored
// parameter.
func walkSync(ctx context.Context, g *loadGenerator, token string, walk int) (syncWalk, error) {
	w := syncWalk{listed: map[uint64]bool{}}
	next := g.base + "/events?per_page=" + strconv.Itoa(syncPageSize) + "&sync_token=" + url.QueryEscape(token)
	for page := 1; next != ""; page++ {
		path, ok := strings.CutPrefix(next, g.base)
		if !ok {
			return w, fmt.Errorf("a next link outside the service: %s", next)
		}
		target := path + "&uncached=sync-" + strconv.Itoa(walk) + "-" + strconv.Itoa(page)
		began := time.Now()
		status, body, err := g.get(ctx, target)
		w.pages = append(w.pages, time.Since(began))
		if err != nil {
			return w, err
		}
		if status != http.StatusOK {
			return w, fmt.Errorf("GET %s: %d %s", target, status, strings.TrimSpace(string(body)))
		}
		var p struct {
			Events []struct {
				ID uint64 `json:"id"`
			} `json:"events"`
			Deleted []uint64 `json:"deleted"`
			Total   int64    `json:"total"`
			Next    string   `json:"next_rest_url"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return w, fmt.Errorf("GET %s: %w", target, err)
		}
		for _, e := range p.Events {
			w.listed[e.ID] = true
		}
		for _, id := range p.Deleted {
			w.listed[id] = true
		}
		w.total, next = p.Total, p.Next
		if page > 1000 {
			return w, fmt.Errorf("the sync did not end after %d pages", page)
		}
	}
	return w, nil
}

// print writes the sync figures.
func (f *SyncFigures) print(w io.Writer) {
	fmt.Fprintf(w, "  sync of %d changed events from a token, pages of %d: %d pages a walk (total %d), %d walks; "+
		"page p50 %.1f ms, p99 %.1f ms (asked ≤ %s: %s); changed events a walk left out: %d\n", f.Changes,
		syncPageSize, f.Pages, f.Total, f.Walks, f.P50ms, f.P99ms, syncTarget,
		metOrMissed(f.P99ms <= float64(syncTarget.Milliseconds()) && f.Missing == 0), f.Missing)
}
