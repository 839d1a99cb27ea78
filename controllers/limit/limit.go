// Package limit keeps token-bucket limiters by key (a client address, a credential, a record), with bounded
// memory: the limits on requests, on failed authentication and on wrong record passwords share it.
package limit

import (
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxKeys bounds the memory a Set may hold; beyond it the idle keys are dropped, and if none is idle, all.
const maxKeys = 100_000

// Set keeps one limiter per key, forgetting keys that have been idle long enough for their bucket to be full again.
type Set struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	entries map[string]*entry
	idle    time.Duration
	swept   time.Time
}

type entry struct {
	limiter *rate.Limiter
	seen    time.Time
}

// NewSet makes limiters of limit events per second with burst.
func NewSet(limit rate.Limit, burst int) *Set {
	idle := time.Minute
	if limit > 0 {
		idle = max(idle, time.Duration(float64(burst)/float64(limit)*float64(time.Second)))
	}
	return &Set{limit: limit, burst: burst, entries: map[string]*entry{}, idle: idle}
}

// PerMinute makes limiters that allow n events a minute, all at once if need be.
func PerMinute(n int) *Set { return NewSet(rate.Limit(float64(n)/60), n) }

// Get returns the limiter of key, made now if it has none.
func (s *Set) Get(key string, now time.Time) *rate.Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.swept) > s.idle || len(s.entries) >= maxKeys {
		s.sweep(now)
	}
	e := s.entries[key]
	if e == nil {
		e = &entry{limiter: rate.NewLimiter(s.limit, s.burst)}
		s.entries[key] = e
	}
	e.seen = now
	return e.limiter
}

func (s *Set) sweep(now time.Time) {
	s.swept = now
	for k, e := range s.entries {
		if now.Sub(e.seen) > s.idle {
			delete(s.entries, k)
		}
	}
	if len(s.entries) >= maxKeys { // a flood of distinct keys: start afresh rather than grow
		s.entries = map[string]*entry{}
	}
}

// Exhausted tells whether key has no event left now.
func (s *Set) Exhausted(key string, now time.Time) bool { return s.Get(key, now).TokensAt(now) < 1 }

// Spend records one event of key.
func (s *Set) Spend(key string, now time.Time) { s.Get(key, now).AllowN(now, 1) }

// RetryAfter is how long until key's limiter has an event again, in whole seconds (at least 1), as Retry-After
// says it.
func (s *Set) RetryAfter(key string, now time.Time) string { return RetryAfter(s.Get(key, now), now) }

// RetryAfter is how long until l has a token again, in whole seconds (at least 1).
func RetryAfter(l *rate.Limiter, now time.Time) string {
	wait := 1.0
	if l.Limit() > 0 {
		wait = math.Ceil((1 - l.TokensAt(now)) / float64(l.Limit()))
	}
	return strconv.Itoa(max(1, int(wait)))
}
