// Package controllers turns HTTP requests into store calls and store results into the API's response shapes:
// bind → validate → store → map. One controller per resource; the route table in package routes wires them.
package controllers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/config"
	"calendar/controllers/endpoint"
	"calendar/controllers/jobs"
	"calendar/models"
)

// App holds what every controller needs: the configuration, the store and the logger.
type App struct {
	Config config.Config
	Store  *models.Store
	Log    *slog.Logger

	// Webhooks sends the webhook deliveries; main runs it (jobs.WebhookSender.Run).
	Webhooks *jobs.WebhookSender

	shuttingDown atomic.Bool
	// passwords limits wrong passwords of protected records.
	passwords *PasswordAttempts
	// embedded remembers the JSON of linked records as event lists embed them (see eventShaper.embedded).
	embedded *models.VersionMemo[embeddedKey, json.RawMessage]
}

// embeddedMemoSize bounds the embedded shapes remembered: about a kilobyte each.
const embeddedMemoSize = 10000

// NewApp builds the shared controller state.
func NewApp(cfg config.Config, store *models.Store, log *slog.Logger) *App {
	a := &App{Config: cfg, Store: store, Log: log, passwords: NewPasswordAttempts(cfg.PasswordFailuresPerMinute),
		embedded: models.NewVersionMemo[embeddedKey, json.RawMessage](embeddedMemoSize)}
	a.loadSyncKey()
	a.Webhooks = jobs.NewWebhookSender(cfg.Webhooks, store, log, webhookShapes{a})
	return a
}

// ShutDown marks the service as shutting down, so /readyz turns load balancers away while requests drain.
func (a *App) ShutDown() { a.shuttingDown.Store(true) }

// Site holds the absolute URLs of one request: the public site home and the API root.
type Site struct {
	// Home is the site's base URL without a trailing slash, e.g. "https://example.com".
	Home string
	// Root is the API root without a trailing slash, e.g. "https://example.com/wp-json/calendar/events/v1".
	Root string
	// Host is the host part of Home, used by global IDs ("example.com?id=123").
	Host string
}

// Site returns the URLs for c: from CALENDAR_BASE_URL when set, else from the request's scheme and Host.
func (a *App) Site(c *gin.Context) Site {
	var home, host string
	if base := a.Config.BaseURL; base != nil {
		home, host = base.String(), base.Host+base.Path
	} else {
		scheme := "http"
		if c.Request.TLS != nil {
			scheme = "https"
		}
		host = c.Request.Host
		home = scheme + "://" + host
	}
	home = strings.TrimRight(home, "/")
	return Site{Home: home, Root: home + a.Config.APIRoot(), Host: host}
}

// HealthController answers the liveness and readiness probes at the server root.
type HealthController struct{ *App }

// Live handles GET /healthz: 200 while the process serves.
func (h HealthController) Live(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// Ready handles GET /readyz: 200 when the database answers a ping within a second, 503 when it does not or while
// the service shuts down.
func (h HealthController) Ready(c *gin.Context) {
	if h.shuttingDown.Load() {
		_ = c.Error(models.Errorf(models.KindUnavailable, "rest_shutting_down", "The service is shutting down."))
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), time.Second)
	defer cancel()
	if err := h.Store.Ping(ctx); err != nil {
		_ = c.Error(&models.Error{Kind: models.KindUnavailable, Code: "rest_database_unavailable",
			Message: "The database is unavailable; try again shortly.", Err: err})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}

// builtFromKey is the gin context key of the records an answer is built from (see BuiltFrom).
const builtFromKey = "calendar.builtFrom"

// BuiltFrom declares that the answer being built is made of these records alone, as the change history names
// them: the response cache may then keep it across writes that change none of them. A handler declares it only
// for an answer that depends on nothing else (not on the time, nor on records it does not name).
func BuiltFrom(c *gin.Context, refs []models.RecordRef) { c.Set(builtFromKey, refs) }

// AnswerBuiltFrom returns what BuiltFrom declared for the request's answer, false when nothing was.
func AnswerBuiltFrom(c *gin.Context) ([]models.RecordRef, bool) {
	refs, ok := c.Get(builtFromKey)
	if !ok {
		return nil, false
	}
	return refs.([]models.RecordRef), true
}

// answerExpiresKey is the gin context key of the time an answer stops being true (see AnswerExpires).
const answerExpiresKey = "calendar.answerExpires"

// AnswerExpires declares that the answer being built stops being what the handler would answer at t, the clock
// alone moving (a series record's next occurrences, once the first of them starts): the response cache serves it
// only before t.
func AnswerExpires(c *gin.Context, t time.Time) { c.Set(answerExpiresKey, t) }

// AnswerExpiry returns what AnswerExpires declared for the request's answer, the zero time when nothing was.
func AnswerExpiry(c *gin.Context) time.Time {
	t, _ := c.Get(answerExpiresKey)
	expires, _ := t.(time.Time)
	return expires
}

const nowKey = "calendar.now"

// RequestTime is the request's clock reading in whole seconds, taken once: every part of an answer that depends
// on "now" (default date windows, relative dates, upcoming filters) and the response cache's key see the same
// instant, so a cached answer is exactly what the handler computes for that second.
func RequestTime(c *gin.Context) time.Time {
	if t, ok := c.Get(nowKey); ok {
		return t.(time.Time)
	}
	t := time.Now().UTC().Truncate(time.Second)
	c.Set(nowKey, t)
	return t
}

// ClockDay and ClockSecond are the periods an answer that depends on the time holds for (see Endpoint.Clock):
// the current day on the site's calendar, or the current second.
func (a *App) ClockDay(c *gin.Context) string {
	return "day " + FormatDate(RequestTime(c), a.Config.Timezone)[:10]
}

// ClockSecond names the current second.
func ClockSecond(c *gin.Context) string {
	return "second " + strconv.FormatInt(RequestTime(c).Unix(), 10)
}

// UpcomingClock is the clock of venue and organizer lists: only_with_upcoming compares events with the current
// second; without it the answer does not depend on the time.
func UpcomingClock(c *gin.Context) string {
	p, err := endpoint.RequestParams(c)
	if err != nil {
		return ClockSecond(c)
	}
	raw, ok := p.Lookup("only_with_upcoming")
	if upcoming, err := endpoint.DecodeBool(raw); ok && raw != nil && (err != nil || upcoming) {
		return ClockSecond(c)
	}
	return ""
}
