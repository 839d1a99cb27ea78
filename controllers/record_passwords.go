package controllers

import (
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/limit"
	"calendar/models"
)

// PasswordAttempts limits wrong passwords of protected records (events, venues, organizers), in the style of the
// limit on failed authentication: each client address may give perClient wrong passwords a minute, and each
// record may receive perRecord a minute from all clients together (so that many addresses cannot share the
// guessing of one record). Once either is spent, a read that gives a password for that record, or any password
// from that client, is 429 rest_too_many_requests with Retry-After, right or wrong, until the bucket refills.
type PasswordAttempts struct {
	clients, records *limit.Set
}

// recordAttemptsFactor is how many times a client's allowance one record receives from all clients together.
const recordAttemptsFactor = 3

// NewPasswordAttempts allows perClient wrong passwords per client address and minute, and recordAttemptsFactor
// times as many per record.
func NewPasswordAttempts(perClient int) *PasswordAttempts {
	return &PasswordAttempts{clients: limit.PerMinute(perClient), records: limit.PerMinute(recordAttemptsFactor * perClient)}
}

// passwordCheck compares the password one request gives with the records it reads, at most once per stored
// password, and counts wrong ones against the client and the record.
type passwordCheck struct {
	attempts *PasswordAttempts
	client   string
	given    string
	results  map[string]bool // by stored password
	blocked  *models.Error   // set when a comparison was refused for lack of attempts
	retry    string          // Retry-After of blocked
}

// newViewer is the viewer of a request that gives password ("" for none).
func (a *App) newViewer(c *gin.Context, password string) Viewer {
	v := Viewer{User: models.UserFrom(c.Request.Context()), Password: password}
	if password != "" {
		v.check = &passwordCheck{attempts: a.passwords, client: c.ClientIP(), given: password, results: map[string]bool{}}
	}
	return v
}

// unlocks tells whether the viewer gave the password stored for a record. Without attempts left for the client
// or the record it is false, and the viewer is marked blocked for the handler to answer 429 (see Viewer.tooMany).
// The stored password names the record for its limit: it is salted, so no two records share one.
func (v Viewer) unlocks(stored string) bool {
	if stored == "" || v.Password == "" {
		return false
	}
	if v.check == nil { // a viewer built by hand (writes: their callers may edit the record)
		return models.RecordPasswordMatches(stored, v.Password)
	}
	return v.check.unlocks(stored)
}

func (p *passwordCheck) unlocks(stored string) bool {
	if ok, done := p.results[stored]; done {
		return ok
	}
	now := time.Now()
	clientKey := "addr:" + p.client
	for _, l := range []struct {
		set *limit.Set
		key string
	}{{p.attempts.clients, clientKey}, {p.attempts.records, stored}} {
		if l.set.Exhausted(l.key, now) {
			if p.blocked == nil {
				p.blocked = models.Errorf(models.KindTooMany, "rest_too_many_requests",
					"Too many wrong passwords; try again later.")
				p.retry = l.set.RetryAfter(l.key, now)
			}
			return false
		}
	}
	ok := models.RecordPasswordMatches(stored, p.given)
	if !ok {
		p.attempts.clients.Spend(clientKey, now)
		p.attempts.records.Spend(stored, now)
	}
	p.results[stored] = ok
	return ok
}

// tooMany is the 429 to answer when a password comparison was refused for lack of attempts, else nil. It sets
// Retry-After on c.
func (v Viewer) tooMany(c *gin.Context) error {
	if v.check == nil || v.check.blocked == nil {
		return nil
	}
	c.Header("Retry-After", v.check.retry)
	return v.check.blocked
}
