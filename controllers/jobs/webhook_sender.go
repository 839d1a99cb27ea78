package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"calendar/config"
	"calendar/models"
)

// WebhookSender turns the change history into deliveries and sends them: inside the service, a bounded number at
// a time, each with a timeout, retried with growing delays. Deliveries wait in the database, so a restart loses
// none, and instances sharing a PostgreSQL database share the work, each delivery sent by one of them.
type WebhookSender struct {
	cfg    config.Webhooks
	store  *models.Store
	log    *slog.Logger
	shapes Shapes
	client *http.Client
	wake   chan struct{}

	sent, failed, retried prometheus.Counter
	depth, oldest         prometheus.Gauge
}

// dispatchBatch bounds the changes one dispatch transaction turns into deliveries.
const dispatchBatch = 500

// NewWebhookSender makes the sender of store's deliveries, configured by cfg, whose deliveries carry what shapes
// makes of the records. Run runs it.
func NewWebhookSender(cfg config.Webhooks, store *models.Store, log *slog.Logger, shapes Shapes) *WebhookSender {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dialer := &net.Dialer{Timeout: timeout}
	if !cfg.AllowPrivate {
		// Checked on the address actually dialled, after resolution: a host that resolved to a public address
		// when the subscription was made and to a private one now (DNS rebinding) is refused here.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !PublicAddress(ap.Addr()) {
				return fmt.Errorf("refused to connect to %s: not a public address", address)
			}
			return nil
		}
	}
	transport := &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 16,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: timeout, Proxy: nil}
	s := &WebhookSender{cfg: cfg, store: store, log: log, shapes: shapes, wake: make(chan struct{}, 1),
		client: &http.Client{Transport: transport, Timeout: timeout,
			// A redirect is an answer that is not 2xx: retried, never followed (it could lead anywhere).
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "calendar_webhook_deliveries_sent_total",
			Help: "Webhook deliveries a receiver accepted (2xx), sent by this instance."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Name: "calendar_webhook_deliveries_failed_total",
			Help: "Webhook deliveries given up after their retries, by this instance."}),
		retried: prometheus.NewCounter(prometheus.CounterOpts{Name: "calendar_webhook_deliveries_retried_total",
			Help: "Webhook attempts that failed and were scheduled again, by this instance."}),
		depth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "calendar_webhook_queue_depth",
			Help: "Webhook deliveries waiting to be sent (all instances)."}),
		oldest: prometheus.NewGauge(prometheus.GaugeOpts{Name: "calendar_webhook_oldest_pending_seconds",
			Help: "Age of the oldest webhook delivery waiting to be sent (0 when none)."}),
	}
	return s
}

// Collectors are the sender's Prometheus metrics.
func (s *WebhookSender) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.sent, s.failed, s.retried, s.depth, s.oldest}
}

// Wake makes the sender look for due deliveries now instead of at its next poll.
func (s *WebhookSender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run dispatches and sends until ctx ends, then waits for the attempts under way (each bounded by the timeout),
// records their outcomes and returns. Claimed deliveries that an abrupt stop leaves unsent are claimed again once
// their lease ends. Three loops share the work, so that none waits for another: the dispatcher turns new changes
// into deliveries at each poll and sends those it could lease at once; the claimer claims the other due
// deliveries at each poll and whenever attempts ended; the recorder writes the outcomes of ended attempts, as many
// at a time as ended while it wrote the last ones.
func (s *WebhookSender) Run(ctx context.Context) {
	poll, concurrency := s.cfg.Poll, s.cfg.Concurrency
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	if concurrency <= 0 {
		concurrency = 16
	}
	p := &pool{slots: make(chan struct{}, claimAhead*concurrency), attempts: make(chan struct{}, concurrency),
		outcomes: make(chan models.DeliveryOutcome, 4*concurrency), ended: make(chan struct{}, 1)}
	recorded := make(chan struct{})
	go func() { s.record(p.outcomes); close(recorded) }()
	dispatched := make(chan struct{})
	go func() { s.dispatchEvery(ctx, poll, p); close(dispatched) }()
	s.claimEvery(ctx, poll, p)
	<-dispatched
	p.inflight.Wait()
	close(p.outcomes)
	<-recorded
}

// pool is what the deliveries an instance sends share: a slot each from their claim until their outcome is handed
// to the recorder (claimAhead per attempt that runs at once), and a slot of attempts for the attempt. ended tells
// the claimer that a delivery freed its slot.
type pool struct {
	slots, attempts, ended chan struct{}
	inflight               sync.WaitGroup
	outcomes               chan models.DeliveryOutcome
}

// free is how many deliveries the pool can take now.
func (p *pool) free() int { return cap(p.slots) - len(p.slots) }

// dispatchEvery dispatches at every poll until ctx ends.
func (s *WebhookSender) dispatchEvery(ctx context.Context, poll time.Duration, p *pool) {
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		s.dispatch(ctx, p)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// claimEvery claims and sends due deliveries at every poll and Wake until ctx ends, and whenever deliveries ended
// after a claim that found as many as it could take (so more may be due). A claim that finds none waits for the
// next poll: it is a statement all the same.
func (s *WebhookSender) claimEvery(ctx context.Context, poll time.Duration, p *pool) {
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	lastGauge := time.Time{}
	for more := true; ; {
		if more {
			more = s.claimAndSend(ctx, p)
		}
		if time.Since(lastGauge) > 5*time.Second {
			s.measure(ctx)
			lastGauge = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			more = true
		case <-s.wake:
			more = true
		case <-p.ended:
		}
	}
}

// dispatch turns new changes into deliveries, a batch at a time, until it has caught up. Each batch's deliveries
// that the pool can take are leased to this instance as they are made and sent at once, without waiting for the
// claimer's next poll and a claim statement of their own.
func (s *WebhookSender) dispatch(ctx context.Context, p *pool) {
	for ctx.Err() == nil {
		now := time.Now()
		d, err := s.store.DispatchChanges(ctx, dispatchBatch,
			models.DispatchLease{Max: p.free(), Until: now.Add(s.lease())}, s.build)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("webhooks: dispatching changes", "error", err)
			}
			return
		}
		s.sendAll(d.Leased, d.Subscriptions, now.Add(s.lease()-recordMargin), p)
		if d.Read < dispatchBatch {
			return
		}
	}
}

// claimAndSend claims as many due deliveries as the pool can take, reads their subscriptions in one query, and
// sends them. While deliveries are under way it waits for half the pool to be free, so that each claim, a
// transaction of its own, serves many deliveries. It tells whether more may be due: it waited, or
// it found as many as it could take.
func (s *WebhookSender) claimAndSend(ctx context.Context, p *pool) bool {
	free := p.free()
	if free == 0 || (free < (cap(p.slots)+1)/2 && len(p.slots) > 0) || ctx.Err() != nil {
		return true
	}
	now := time.Now()
	deliveries, err := s.store.ClaimDeliveries(ctx, now, now.Add(s.lease()), free)
	if err == nil && len(deliveries) > 0 {
		var subs map[uint64]*models.Webhook
		if subs, err = s.store.WebhooksByID(ctx, subscriptionsOf(deliveries)); err == nil {
			s.sendAll(deliveries, subs, now.Add(s.lease()-recordMargin), p)
			return len(deliveries) == free
		}
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn("webhooks: claiming deliveries", "error", err) // claimed again when the lease ends
	}
	return false
}

// sendAll sends each delivery to its subscription in a goroutine of its own, which holds a slot of the pool until
// its outcome is handed to the recorder and takes a slot of attempts (first come, first served) for the attempt.
// A delivery whose subscription was deleted meanwhile (with its deliveries) is left.
func (s *WebhookSender) sendAll(deliveries []models.WebhookDelivery, subs map[uint64]*models.Webhook,
	deadline time.Time, p *pool) {
	for i := range deliveries {
		d := &deliveries[i]
		sub := subs[d.WebhookID]
		if sub == nil {
			continue
		}
		p.slots <- struct{}{}
		p.inflight.Add(1)
		go func() {
			defer func() {
				<-p.slots
				p.inflight.Done()
				select {
				case p.ended <- struct{}{}:
				default:
				}
			}()
			p.attempts <- struct{}{}
			o := s.send(d, sub, deadline)
			<-p.attempts
			p.outcomes <- o
		}()
	}
}

// record writes the outcomes it receives until outcomes is closed: the first that arrives with every other
// already waiting, so that attempts finishing while a batch is written share the next one.
func (s *WebhookSender) record(outcomes <-chan models.DeliveryOutcome) {
	for o := range outcomes {
		batch := []models.DeliveryOutcome{o}
		for more := true; more; {
			select {
			case o, ok := <-outcomes:
				if !ok {
					more = false
					break
				}
				batch = append(batch, o)
			default:
				more = false
			}
		}
		if err := s.store.FinishDeliveries(context.Background(), batch); err != nil {
			// Left pending: each is claimed and sent again once its lease ends.
			s.log.Warn("webhooks: recording attempts", "deliveries", len(batch), "error", err)
		}
	}
}

// subscriptionsOf lists the distinct subscriptions of deliveries.
func subscriptionsOf(deliveries []models.WebhookDelivery) []uint64 {
	seen := map[uint64]bool{}
	var ids []uint64
	for _, d := range deliveries {
		if !seen[d.WebhookID] {
			seen[d.WebhookID] = true
			ids = append(ids, d.WebhookID)
		}
	}
	return ids
}

// An instance claims up to claimAhead deliveries for each attempt it runs at once, so each delivery it claims
// waits for at most claimAhead-1 attempts before its own. A claim lasts claimAhead attempts' timeouts and
// leaseMargin. The attempt, with the database reads before its request, must end recordMargin before the claim
// does, which leaves that long to record its outcome.
const (
	claimAhead   = 16
	leaseMargin  = 10 * time.Second
	recordMargin = 5 * time.Second
)

// lease is how long a claimed delivery is this instance's.
func (s *WebhookSender) lease() time.Duration {
	return claimAhead*s.client.Timeout + leaseMargin
}

// send makes one attempt, which must end by deadline, and returns its outcome. So an attempt never runs past the
// lease of its claim, after which another instance may claim the delivery and send it again. It runs to its end
// even while the service stops, so that no answered attempt goes unrecorded.
func (s *WebhookSender) send(d *models.WebhookDelivery, sub *models.Webhook, deadline time.Time) models.DeliveryOutcome {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	status, errText := s.post(ctx, sub, d, deliveryBody(d))
	o := models.DeliveryOutcome{Claim: d, Status: status, Error: errText, At: time.Now(),
		Sent: status >= 200 && status < 300}
	if o.Sent {
		s.sent.Inc()
		return o
	}
	if delay, retry := s.retryDelay(d.Attempts); retry {
		o.Next = o.At.Add(delay)
		s.retried.Inc()
	} else {
		s.failed.Inc()
	}
	s.log.Info("webhooks: delivery failed", "delivery", d.ID, "webhook", d.WebhookID, "attempt", d.Attempts,
		"status", status, "error", errText, "retry_at", o.Next)
	return o
}

// post sends the delivery and returns the receiver's status (0 when there was none) and what went wrong.
func (s *WebhookSender) post(ctx context.Context, sub *models.Webhook, d *models.WebhookDelivery,
	body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "calendar-webhooks/1")
	req.Header.Set("X-Calendar-Delivery", strconv.FormatUint(d.ID, 10))
	req.Header.Set("X-Calendar-Signature", Signature(sub.Secret, time.Now(), body))
	res, err := s.client.Do(req)
	if err != nil {
		return 0, sanitiseError(err, sub.URL)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode >= 300 {
		return res.StatusCode, "the receiver answered " + res.Status
	}
	return res.StatusCode, ""
}

// sanitiseError is the text of a failed attempt, without the URL (whose query may hold a receiver's token).
func sanitiseError(err error, rawURL string) string {
	text := err.Error()
	if rawURL != "" {
		text = strings.ReplaceAll(text, rawURL, "the webhook URL")
	}
	if len(text) > 500 {
		text = text[:500]
	}
	return text
}

// Signature is the X-Calendar-Signature of body sent at t: "t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>" keyed with the secret>".
func Signature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// retryDelay is the wait after a delivery's attempts-th failed attempt, and false once the retries have covered
// the configured span (3 days by default): 1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h.
func (s *WebhookSender) retryDelay(attempts int) (time.Duration, bool) {
	delays, span := s.cfg.RetryDelays, s.cfg.RetryFor
	if len(delays) == 0 {
		delays = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour,
			12 * time.Hour}
	}
	if span <= 0 {
		span = 72 * time.Hour
	}
	var waited time.Duration
	for i := 0; i < attempts-1; i++ {
		waited += delays[min(i, len(delays)-1)]
	}
	if waited >= span {
		return 0, false
	}
	return delays[min(attempts-1, len(delays)-1)], true
}

// measure sets the queue gauges.
func (s *WebhookSender) measure(ctx context.Context) {
	n, oldest, err := s.store.DeliveryQueue(ctx)
	if err != nil {
		return
	}
	s.depth.Set(float64(n))
	if oldest.IsZero() {
		s.oldest.Set(0)
	} else {
		s.oldest.Set(time.Since(oldest).Seconds())
	}
}

// deliveryBody is the JSON POSTed: the delivery's id and type, then what the dispatcher stored (occurred_at, data
// and changed). It is the same on every attempt.
func deliveryBody(d *models.WebhookDelivery) []byte {
	head, _ := json.Marshal(struct {
		ID   uint64 `json:"id"`
		Type string `json:"type"`
	}{d.ID, d.Type})
	body := append(head[:len(head)-1], ',')
	return append(body, d.Payload[1:]...)
}

// sharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), which netip does not count as private.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// PublicAddress tells whether a is a public unicast address: not loopback, private, link-local (which holds the
// cloud metadata address 169.254.169.254), shared, multicast or unspecified. Subscriptions are checked with it
// when they are written, and the sender again at every connection.
func PublicAddress(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsValid() && a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() &&
		!sharedAddressSpace.Contains(a) && !(a.Is4() && a.As4()[0] == 0)
}
