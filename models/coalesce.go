package models

import (
	"context"
	"sync"
)

// coalescer shares one statement among concurrent requests for the same kind of work: a request that arrives
// while no statement runs starts one for itself at once; requests that arrive while one runs wait, and the next
// statement serves them all. A lone request waits for nothing; under load, many share each statement's
// per-statement costs (a round trip, parsing, planning, a commit). Every statement serving a request starts after
// that request arrived, so a read sees every write committed before it, as the request's own read would.
type coalescer[Req, Res any] struct {
	// run serves a batch of requests, answering each in order.
	run func(reqs []Req) []Res
	// max bounds how many requests one run serves (0: no bound).
	max int

	mu      sync.Mutex
	waiting []*coalesced[Req, Res]
	running bool
}

type coalesced[Req, Res any] struct {
	req  Req
	done chan Res
}

// do has req served by a run and returns its answer, or ctx's error if ctx ends first (the run may still serve
// the request: a write must not pass a context that can end before it is done).
func (c *coalescer[Req, Res]) do(ctx context.Context, req Req) (Res, error) {
	w := &coalesced[Req, Res]{req: req, done: make(chan Res, 1)}
	c.mu.Lock()
	c.waiting = append(c.waiting, w)
	if !c.running {
		c.running = true
		go c.runBatches()
	}
	c.mu.Unlock()
	select {
	case res := <-w.done:
		return res, nil
	case <-ctx.Done():
		var zero Res
		return zero, ctx.Err()
	}
}

// runBatches serves the waiting requests, a batch at a time, until none waits.
func (c *coalescer[Req, Res]) runBatches() {
	for {
		batch := c.take()
		if len(batch) == 0 {
			return
		}
		reqs := make([]Req, len(batch))
		for i, w := range batch {
			reqs[i] = w.req
		}
		for i, res := range c.run(reqs) {
			batch[i].done <- res
		}
	}
}

// take removes up to max waiting requests; it ends the run when none waits.
func (c *coalescer[Req, Res]) take() []*coalesced[Req, Res] {
	c.mu.Lock()
	defer c.mu.Unlock()
	batch := c.waiting
	if c.max > 0 && len(batch) > c.max {
		batch = batch[:c.max:c.max]
	}
	c.waiting = c.waiting[len(batch):]
	if len(batch) == 0 {
		c.running = false
		c.waiting = nil
	}
	return batch
}
