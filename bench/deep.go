package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
)

// deepPagesScenario reads pages of the default list spread over all of them but the first, each built (a parameter
// the service ignores makes every request distinct). Against the uncached default list (page 1) of the same run it
// measures "any page costs at most three times the first" (deepPagesSummary).
const deepPagesScenario = "default list deep pages uncached"

// deepPagesAsked is the most a deep page may cost against page 1: page 1's throughput over the deep pages'.
const deepPagesAsked = 3.0

// deepPages is GET /events?page=N for N from 2 to the default list's last page, in a fixed spread over the workers
// and their requests; before it runs, it reads the list's total to know the last page.
func deepPages() scenario {
	var pages atomic.Int64
	return scenario{name: deepPagesScenario, distinct: true,
		before: func(ctx context.Context, g *loadGenerator) error {
			total, err := g.total(ctx, "/events")
			if err != nil {
				return err
			}
			if total <= defaultPerPage {
				return fmt.Errorf("the default list has %d events, one page", total)
			}
			pages.Store((total + defaultPerPage - 1) / defaultPerPage)
			return nil
		},
		next: func(w, i int) request {
			// Multipliers prime to each other spread consecutive requests over the pages.
			page := 2 + (uint64(w)*7919+uint64(i)*104729)%uint64(pages.Load()-1)
			return request{method: "GET", path: "/events?page=" + strconv.FormatUint(page, 10) +
				"&uncached=" + strconv.Itoa(w) + "-" + strconv.Itoa(i)}
		}}
}

// defaultPerPage is the list's page size when per_page is not sent.
const defaultPerPage = 10

// deepPagesSummary prints, for a run where every read is built, the deep pages against page 1: their throughput
// and p99, and how many times page 1's cost a deep page takes.
func deepPagesSummary(w io.Writer, r Report) {
	if !r.Uncached {
		return
	}
	var first, deep *Result
	for i := range r.Results {
		switch r.Results[i].Scenario {
		case "default list":
			first = &r.Results[i]
		case deepPagesScenario:
			deep = &r.Results[i]
		}
	}
	if first == nil || deep == nil || deep.RPS == 0 {
		return
	}
	times := first.RPS / deep.RPS
	fmt.Fprintf(w, "\ndeep pages of the default list: %.0f req/s (p99 %.1f ms) against page 1's %.0f (p99 %.1f ms): "+
		"%.2f× page 1's cost (asked ≤ %.0f×): %s\n", deep.RPS, deep.P99ms, first.RPS, first.P99ms, times,
		deepPagesAsked, metOrMissed(times <= deepPagesAsked))
}
