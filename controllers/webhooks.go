package controllers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/jobs"
	"calendar/models"
)

// WebhookTypes are the change types a subscription may ask for ("*": all of them).
var WebhookTypes = func() []string {
	var out []string
	for _, kind := range []string{"event", "venue", "organizer", "category", "tag"} {
		for _, op := range []string{"created", "updated", "deleted"} {
			out = append(out, kind+"."+op)
		}
	}
	return out
}()

// WebhookController serves /webhooks: subscriptions, their delivery log and redelivery, for administrators only.
type WebhookController struct{ *App }

// WebhookFields are the writable fields of a subscription.
type WebhookFields struct {
	URL    endpoint.Opt[string]   `param:"url" validate:"omitempty,max=2000" doc:"Where deliveries are POSTed: an http or https URL whose host resolves to public addresses only (loopback, private, link-local and other non-public addresses are refused unless the service allows them)."`
	Events endpoint.Opt[[]string] `param:"events" doc:"The change types to deliver (list or CSV): event.created, event.updated, event.deleted, and the same for venue, organizer, category and tag; * for all (the default)."`
	Secret endpoint.Opt[string]   `param:"secret" validate:"omitempty,min=16,max=200" doc:"The key of the deliveries' HMAC-SHA256 signatures, 16 to 200 characters; generated when not given on create. Shown only in the answer to the create."`
}

// WebhookIDPath is the {id} of /webhooks/{id}.
type WebhookIDPath struct {
	ID endpoint.Opt[int64] `param:"id" in:"path" doc:"The subscription ID."`
}

// WebhookUpdateInput is an update of a subscription.
type WebhookUpdateInput struct {
	WebhookIDPath
	WebhookFields
}

// WebhookDeliveriesInput pages a subscription's delivery log.
type WebhookDeliveriesInput struct {
	WebhookIDPath
	endpoint.Paging
}

// RedeliverInput names one delivery of a subscription.
type RedeliverInput struct {
	WebhookIDPath
	Delivery endpoint.Opt[int64] `param:"delivery" in:"path" doc:"The delivery ID."`
}

// requireAdmin answers 403 to anyone but an administrator (anonymous callers got 401 before).
func requireAdmin(c *gin.Context) error {
	if u := models.UserFrom(c.Request.Context()); u == nil || u.Role != models.RoleAdministrator {
		return models.Forbidden()
	}
	return nil
}

// webhookJSON is a subscription as the API shows it: never its secret, except to the create.
func webhookJSON(w *models.Webhook, withSecret bool) orderedMap {
	events := []string{"*"}
	if w.Events != "*" {
		events = strings.Split(w.Events, ",")
	}
	out := orderedMap{{"id", w.ID}, {"url", w.URL}, {"events", events},
		{"created_at", formatMilli(w.CreatedAt)}, {"updated_at", formatMilli(w.UpdatedAt)}}
	if withSecret {
		out = append(out, orderedEntry{"secret", w.Secret})
	}
	return out
}

// formatMilli writes Unix milliseconds as the API writes UTC dates.
func formatMilli(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
}

// Create handles POST /webhooks.
func (wc *WebhookController) Create(c *gin.Context, in *WebhookFields) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w := &models.Webhook{Events: "*"}
	if err := wc.assignWebhook(c.Request.Context(), w, in); err != nil {
		return err
	}
	if w.Secret == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		w.Secret = "whsec_" + hex.EncodeToString(b)
	}
	if err := wc.Store.CreateWebhook(c.Request.Context(), w); err != nil {
		return err
	}
	c.Header("Location", wc.Site(c).Root+"/webhooks/"+strconv.FormatUint(w.ID, 10))
	c.JSON(http.StatusCreated, webhookJSON(w, true))
	return nil
}

// assignWebhook checks the fields sent and sets them on w.
func (wc *WebhookController) assignWebhook(ctx context.Context, w *models.Webhook, in *WebhookFields) error {
	if in.URL.Set {
		if err := wc.checkWebhookURL(ctx, in.URL.V); err != nil {
			return models.InvalidParam("url", err.Error())
		}
		w.URL = in.URL.V
	}
	if in.Events.Set {
		events, err := webhookEvents(in.Events.V)
		if err != nil {
			return models.InvalidParam("events", err.Error())
		}
		w.Events = events
	}
	if in.Secret.Set {
		w.Secret = in.Secret.V
	}
	return nil
}

// webhookEvents checks a subscription's types and returns how they are stored: "*" or a CSV.
func webhookEvents(list []string) (string, error) {
	if len(list) == 0 {
		return "", errors.New("must name at least one change type, or *")
	}
	var out []string
	for _, e := range list {
		e = strings.TrimSpace(e)
		if e == "*" {
			return "*", nil
		}
		if !slices.Contains(WebhookTypes, e) {
			return "", fmt.Errorf("%q is not a change type (one of %s, or *)", e, strings.Join(WebhookTypes, ", "))
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return strings.Join(out, ","), nil
}

// checkWebhookURL refuses a URL that is not http(s), or whose host is or resolves to a non-public address
// (unless the service allows them).
func (wc *WebhookController) checkWebhookURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return errors.New("must be an absolute http or https URL")
	}
	if wc.Config.Webhooks.AllowPrivate {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("the host %s does not resolve", u.Hostname())
	}
	for _, a := range addrs {
		if !jobs.PublicAddress(a) {
			return fmt.Errorf("the host %s resolves to %s, which is not a public address", u.Hostname(), a.Unmap())
		}
	}
	return nil
}

// List handles GET /webhooks.
func (wc *WebhookController) List(c *gin.Context, _ *struct{}) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	subs, err := wc.Store.Webhooks(c.Request.Context())
	if err != nil {
		return err
	}
	out := make([]orderedMap, len(subs))
	for i := range subs {
		out[i] = webhookJSON(&subs[i], false)
	}
	c.JSON(http.StatusOK, orderedMap{{"webhooks", out}})
	return nil
}

// find reads the subscription of the path, or answers 404.
func (wc *WebhookController) find(c *gin.Context, id endpoint.Opt[int64]) (*models.Webhook, error) {
	if id.V <= 0 {
		return nil, errWebhookNotFound
	}
	w, err := wc.Store.Webhook(c.Request.Context(), uint64(id.V))
	if errors.Is(err, models.ErrWebhookNotFound) {
		return nil, errWebhookNotFound
	}
	return w, err
}

var errWebhookNotFound = models.Errorf(models.KindNotFound, "rest-webhook-not-found", "No webhook has this ID.")

// Get handles GET /webhooks/{id}.
func (wc *WebhookController) Get(c *gin.Context, in *WebhookIDPath) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w, err := wc.find(c, in.ID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, webhookJSON(w, false))
	return nil
}

// Update handles POST, PUT and PATCH /webhooks/{id}.
func (wc *WebhookController) Update(c *gin.Context, in *WebhookUpdateInput) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w, err := wc.find(c, in.ID)
	if err != nil {
		return err
	}
	if err := wc.assignWebhook(c.Request.Context(), w, &in.WebhookFields); err != nil {
		return err
	}
	if err := wc.Store.SaveWebhook(c.Request.Context(), w); err != nil {
		return err
	}
	c.JSON(http.StatusOK, webhookJSON(w, false))
	return nil
}

// Delete handles DELETE /webhooks/{id}: the subscription and its deliveries are gone.
func (wc *WebhookController) Delete(c *gin.Context, in *WebhookIDPath) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w, err := wc.find(c, in.ID)
	if err != nil {
		return err
	}
	if err := wc.Store.DeleteWebhook(c.Request.Context(), w.ID); err != nil {
		return err
	}
	c.JSON(http.StatusOK, webhookJSON(w, false))
	return nil
}

// deliveryJSON is one entry of the delivery log.
func deliveryJSON(d *models.WebhookDelivery) orderedMap {
	var next any
	if d.Status == models.DeliveryPending {
		next = formatMilli(d.NextAttemptAt)
	}
	var done any
	if d.DoneAt != 0 {
		done = formatMilli(d.DoneAt)
	}
	return orderedMap{{"id", d.ID}, {"type", d.Type}, {"record_id", d.RecordID}, {"status", d.Status},
		{"attempts", d.Attempts}, {"last_status", d.LastStatus}, {"last_error", d.LastError},
		{"created_at", formatMilli(d.CreatedAt)}, {"next_attempt_at", next}, {"done_at", done}}
}

// Deliveries handles GET /webhooks/{id}/deliveries: the newest first, paged.
func (wc *WebhookController) Deliveries(c *gin.Context, in *WebhookDeliveriesInput) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w, err := wc.find(c, in.ID)
	if err != nil {
		return err
	}
	page := in.Resolve(wc.Config.MaxPerPage)
	list, total, err := wc.Store.WebhookDeliveries(c.Request.Context(), w.ID, page)
	if err != nil {
		return err
	}
	out := make([]orderedMap, len(list))
	for i := range list {
		out[i] = deliveryJSON(&list[i])
	}
	totalPages := endpoint.TotalPages(total, page.Size)
	args := endpoint.QueryArgs{}.Add("per_page", strconv.Itoa(page.Size))
	links := pageLinks(wc.Site(c).Root+"/webhooks/"+strconv.FormatUint(w.ID, 10)+"/deliveries", args, page.Number,
		totalPages)
	endpoint.SetListHeaders(c, total, totalPages, links)
	c.JSON(http.StatusOK, orderedMap{{"deliveries", out}, {"total", total}, {"total_pages", totalPages}})
	return nil
}

// Redeliver handles POST /webhooks/{id}/deliveries/{delivery}/redeliver: the delivery is due again now.
func (wc *WebhookController) Redeliver(c *gin.Context, in *RedeliverInput) error {
	if err := requireAdmin(c); err != nil {
		return err
	}
	w, err := wc.find(c, in.ID)
	if err != nil {
		return err
	}
	d, err := wc.Store.Redeliver(c.Request.Context(), w.ID, uint64(max(in.Delivery.V, 0)), time.Now())
	if errors.Is(err, models.ErrWebhookNotFound) {
		return models.Errorf(models.KindNotFound, "rest-delivery-not-found", "This webhook has no delivery with this ID.")
	}
	if err != nil {
		return err
	}
	wc.Webhooks.Wake()
	c.JSON(http.StatusAccepted, deliveryJSON(d))
	return nil
}
