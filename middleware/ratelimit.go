package middleware

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"calendar/models"
)

// maxLimiterKeys bounds the memory the limiters may hold; beyond it the least recently seen keys are dropped.
const maxLimiterKeys = 100_000

// limiterSet keeps one token-bucket limiter per key (a client address or a credential), forgetting keys that have
// been idle long enough for their bucket to be full again.
type limiterSet struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	entries map[string]*limiterEntry
	idle    time.Duration
	swept   time.Time
}

type limiterEntry struct {
	limiter *rate.Limiter
	seen    time.Time
}

func newLimiterSet(limit rate.Limit, burst int) *limiterSet {
	idle := time.Minute
	if limit > 0 {
		idle = max(idle, time.Duration(float64(burst)/float64(limit)*float64(time.Second)))
	}
	return &limiterSet{limit: limit, burst: burst, entries: map[string]*limiterEntry{}, idle: idle}
}

func (s *limiterSet) get(key string, now time.Time) *rate.Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.swept) > s.idle || len(s.entries) >= maxLimiterKeys {
		s.sweep(now)
	}
	e := s.entries[key]
	if e == nil {
		e = &limiterEntry{limiter: rate.NewLimiter(s.limit, s.burst)}
		s.entries[key] = e
	}
	e.seen = now
	return e.limiter
}

func (s *limiterSet) sweep(now time.Time) {
	s.swept = now
	for k, e := range s.entries {
		if now.Sub(e.seen) > s.idle {
			delete(s.entries, k)
		}
	}
	if len(s.entries) >= maxLimiterKeys { // a flood of distinct keys: start afresh rather than grow
		s.entries = map[string]*limiterEntry{}
	}
}

// retryAfter is how long until the limiter has a token again, in whole seconds (at least 1).
func retryAfter(l *rate.Limiter, now time.Time) string {
	wait := 1.0
	if l.Limit() > 0 {
		wait = math.Ceil((1 - l.TokensAt(now)) / float64(l.Limit()))
	}
	return strconv.Itoa(max(1, int(wait)))
}

func tooMany(c *gin.Context, l *rate.Limiter, message string) {
	c.Header("Retry-After", retryAfter(l, time.Now()))
	_ = c.Error(models.Errorf(models.KindTooMany, "rest_too_many_requests", "%s", message))
	c.Abort()
}

// AuthFailures limits failed authentication attempts per client address: after perMinute failures within a
// minute, requests from that address that carry credentials get 429 with Retry-After until the bucket refills.
type AuthFailures struct{ set *limiterSet }

// NewAuthFailures allows perMinute failed attempts per client address and minute.
func NewAuthFailures(perMinute int) *AuthFailures {
	return &AuthFailures{set: newLimiterSet(rate.Limit(float64(perMinute)/60), perMinute)}
}

// blocked answers 429 and reports true when the client has no attempts left.
func (a *AuthFailures) blocked(c *gin.Context) bool {
	now := time.Now()
	l := a.set.get(c.ClientIP(), now)
	if l.TokensAt(now) >= 1 {
		return false
	}
	tooMany(c, l, "Too many failed authentication attempts; try again later.")
	return true
}

// failed records one failed attempt of the client.
func (a *AuthFailures) failed(c *gin.Context) {
	a.set.get(c.ClientIP(), time.Now()).Allow()
}

// RateLimit limits every request to perSecond per credential (a token counts as itself, whatever its form) or,
// for anonymous requests, per client address; the burst allows two seconds' worth at once. Off when perSecond
// is 0.
func RateLimit(perSecond float64) gin.HandlerFunc {
	if perSecond <= 0 {
		return func(c *gin.Context) { c.Next() }
	}
	set := newLimiterSet(rate.Limit(perSecond), max(1, int(math.Ceil(2*perSecond))))
	return func(c *gin.Context) {
		key := "addr:" + c.ClientIP()
		if u := models.UserFrom(c.Request.Context()); u != nil {
			key = "user:" + strconv.FormatUint(u.ID, 10)
		}
		l := set.get(key, time.Now())
		if !l.Allow() {
			tooMany(c, l, "Too many requests; slow down.")
			return
		}
		c.Next()
	}
}
