package middleware

import (
	"math"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"calendar/controllers/limit"
	"calendar/models"
)

func tooMany(c *gin.Context, retryAfter, message string) {
	c.Header("Retry-After", retryAfter)
	_ = c.Error(models.Errorf(models.KindTooMany, "rest_too_many_requests", "%s", message))
	c.Abort()
}

// AuthFailures limits failed authentication attempts per client address: after perMinute failures within a
// minute, requests from that address that carry credentials get 429 with Retry-After until the bucket refills.
type AuthFailures struct{ set *limit.Set }

// NewAuthFailures allows perMinute failed attempts per client address and minute.
func NewAuthFailures(perMinute int) *AuthFailures {
	return &AuthFailures{set: limit.PerMinute(perMinute)}
}

// blocked answers 429 and reports true when the client has no attempts left.
func (a *AuthFailures) blocked(c *gin.Context) bool {
	now, key := time.Now(), c.ClientIP()
	if !a.set.Exhausted(key, now) {
		return false
	}
	tooMany(c, a.set.RetryAfter(key, now), "Too many failed authentication attempts; try again later.")
	return true
}

// failed records one failed attempt of the client.
func (a *AuthFailures) failed(c *gin.Context) { a.set.Spend(c.ClientIP(), time.Now()) }

// RateLimit limits every request to perSecond per credential (a token counts as itself, whatever its form) or,
// for anonymous requests, per client address; the burst allows two seconds' worth at once. Off when perSecond
// is 0.
func RateLimit(perSecond float64) gin.HandlerFunc {
	if perSecond <= 0 {
		return func(c *gin.Context) { c.Next() }
	}
	set := limit.NewSet(rate.Limit(perSecond), max(1, int(math.Ceil(2*perSecond))))
	return func(c *gin.Context) {
		key := "addr:" + c.ClientIP()
		if u := models.UserFrom(c.Request.Context()); u != nil {
			key = "user:" + strconv.FormatUint(u.ID, 10)
		}
		now := time.Now()
		l := set.Get(key, now)
		if !l.AllowN(now, 1) {
			tooMany(c, limit.RetryAfter(l, now), "Too many requests; slow down.")
			return
		}
		c.Next()
	}
}
