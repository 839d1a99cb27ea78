package models

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Webhook is a subscription: the service POSTs the changes of the types in Events to URL, signed with Secret.
type Webhook struct {
	ID  uint64 `gorm:"primaryKey"`
	URL string `gorm:"not null"`
	// Events is "*" or a comma-separated list of types such as event.created.
	Events    string `gorm:"not null"`
	Secret    string `gorm:"not null"`
	CreatedAt int64  `gorm:"not null;autoCreateTime:milli"`
	UpdatedAt int64  `gorm:"not null;autoUpdateTime:milli"`
}

// Delivery statuses.
const (
	DeliveryPending = "pending"
	DeliverySent    = "sent"
	DeliveryFailed  = "failed"
)

// WebhookDelivery is one POST of one change to one subscription, waiting in the database until it is sent or
// given up.
type WebhookDelivery struct {
	ID            uint64     `gorm:"primaryKey"`
	WebhookID     uint64     `gorm:"not null"`
	Kind          ChangeKind `gorm:"not null"`
	RecordID      uint64     `gorm:"not null"`
	Type          string     `gorm:"size:32;not null"`
	PayloadID     uint64     `gorm:"not null"`
	Status        string     `gorm:"size:16;not null"`
	Attempts      int        `gorm:"not null;default:0"`
	LastStatus    int        `gorm:"not null;default:0"`
	LastError     string     `gorm:"not null;default:''"`
	CreatedAt     int64      `gorm:"not null"`
	NextAttemptAt int64      `gorm:"not null"`
	DoneAt        int64      `gorm:"not null;default:0"`
	// Payload is what the delivery carries (a webhookPayload, stored once for every subscription's delivery of
	// one change): set on the deliveries a dispatch makes and a claim returns, not read with the log.
	Payload string `gorm:"-"`
}

// webhookPayload is what the deliveries of one change carry, whatever their subscription.
type webhookPayload struct {
	ID      uint64 `gorm:"primaryKey"`
	Payload string `gorm:"not null"`
}

func (webhookPayload) TableName() string { return "webhook_payloads" }

// queuedDelivery is a delivery waiting to be sent, in the sender's queue (webhook_queue): a row per pending
// delivery of the log, with what a claim chooses by. A delivery leaves the queue when it is sent or fails for good.
// A transaction that writes both rows of a delivery writes its queue row first (a claim locks it to choose it), so
// that two of them never wait for each other's locks in a cycle.
type queuedDelivery struct {
	ID            uint64 `gorm:"primaryKey;autoIncrement:false"`
	WebhookID     uint64
	Kind          ChangeKind
	RecordID      uint64
	CreatedAt     int64
	NextAttemptAt int64
}

func (queuedDelivery) TableName() string { return "webhook_queue" }

// queued is d's row in the queue.
func queued(d *WebhookDelivery) queuedDelivery {
	return queuedDelivery{ID: d.ID, WebhookID: d.WebhookID, Kind: d.Kind, RecordID: d.RecordID,
		CreatedAt: d.CreatedAt, NextAttemptAt: d.NextAttemptAt}
}

// ErrWebhookNotFound is the answer for a subscription or delivery that does not exist.
var ErrWebhookNotFound = errors.New("models: no such webhook")

// CreateWebhook stores a new subscription.
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook) error {
	return s.outsideVersion(ctx, func(db *gorm.DB) error { return db.Create(w).Error })
}

// Webhooks lists the subscriptions by ID.
func (s *Store) Webhooks(ctx context.Context) ([]Webhook, error) {
	var out []Webhook
	err := s.db.WithContext(ctx).Order("id").Find(&out).Error
	return out, err
}

// WebhooksByID reads the subscriptions with these IDs, by ID; an ID with no subscription (deleted) is absent.
func (s *Store) WebhooksByID(ctx context.Context, ids []uint64) (map[uint64]*Webhook, error) {
	var list []Webhook
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&list).Error; err != nil {
		return nil, err
	}
	return webhooksByID(list), nil
}

// webhooksByID maps the subscriptions of list by ID.
func webhooksByID(list []Webhook) map[uint64]*Webhook {
	out := make(map[uint64]*Webhook, len(list))
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out
}

// Webhook reads one subscription.
func (s *Store) Webhook(ctx context.Context, id uint64) (*Webhook, error) {
	var w Webhook
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrWebhookNotFound
	}
	return &w, err
}

// SaveWebhook writes a changed subscription.
func (s *Store) SaveWebhook(ctx context.Context, w *Webhook) error {
	return s.outsideVersion(ctx, func(db *gorm.DB) error {
		return db.Model(w).Select("url", "events", "secret", "updated_at").Updates(w).Error
	})
}

// DeleteWebhook deletes a subscription and its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, id uint64) error {
	return s.outsideVersion(ctx, func(db *gorm.DB) error {
		if err := db.Where("webhook_id = ?", id).Delete(&queuedDelivery{}).Error; err != nil {
			return err
		}
		if err := db.Where("webhook_id = ?", id).Delete(&WebhookDelivery{}).Error; err != nil {
			return err
		}
		res := db.Where("id = ?", id).Delete(&Webhook{})
		if res.Error == nil && res.RowsAffected == 0 {
			return ErrWebhookNotFound
		}
		return res.Error
	})
}

// WebhookDeliveries lists one page of a subscription's deliveries, newest first, and how many it has.
func (s *Store) WebhookDeliveries(ctx context.Context, webhookID uint64, p Page) ([]WebhookDelivery, int64, error) {
	db := s.db.WithContext(ctx).Model(&WebhookDelivery{}).Where("webhook_id = ?", webhookID)
	var total int64
	if err := db.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []WebhookDelivery{}
	err := db.Order("id DESC").Offset(p.Offset()).Limit(p.Size).Find(&out).Error
	return out, total, err
}

// Redeliver puts a delivery back in the queue, due now, with its attempts counted anew.
func (s *Store) Redeliver(ctx context.Context, webhookID, id uint64, now time.Time) (*WebhookDelivery, error) {
	var d WebhookDelivery
	err := s.outsideVersion(ctx, func(db *gorm.DB) error {
		res := db.Where("id = ? AND webhook_id = ?", id, webhookID).Limit(1).Find(&d)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrWebhookNotFound
		}
		d.Status, d.Attempts, d.NextAttemptAt, d.DoneAt = DeliveryPending, 0, now.UnixMilli(), 0
		q := queued(&d)
		if err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}},
			DoUpdates: clause.AssignmentColumns([]string{"next_attempt_at"})}).Create(&q).Error; err != nil {
			return err
		}
		return db.Model(&WebhookDelivery{}).Where("id = ?", id).Updates(map[string]any{"status": d.Status,
			"attempts": d.Attempts, "next_attempt_at": d.NextAttemptAt, "done_at": d.DoneAt}).Error
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Change is one row of the change history, as the webhook dispatcher reads it.
type Change struct {
	ID       int64
	Kind     ChangeKind
	RecordID uint64
	Op       string
	Fields   string
	Old      string
	At       int64 // Unix seconds
}

// webhookCursor is the dispatcher's position: the changes up to From have their deliveries; while Busy, those
// after From and up to Until are being turned into deliveries, up to change AfterID.
type webhookCursor struct {
	ID        int
	FromSeq   int64
	FromSnap  string
	UntilSeq  int64
	UntilSnap string
	Busy      bool
	AfterID   int64
}

func (webhookCursor) TableName() string { return "webhook_cursor" }

// DispatchLease is how many of the deliveries a dispatch makes go to its caller to send at once (Max), leased
// until Until as ClaimDeliveries would lease them: the caller sends them without claiming them.
type DispatchLease struct {
	Max   int
	Until time.Time
}

// Dispatched is what one DispatchChanges did: how many changes it read, and the deliveries it leased to its caller
// with their subscriptions.
type Dispatched struct {
	Read          int
	Leased        []WebhookDelivery
	Subscriptions map[uint64]*Webhook
}

// DispatchChanges turns the next batch of at most limit changes (created, updated or deleted records; link and
// count changes are left to sync) into deliveries, in one transaction: build makes the deliveries of the changes,
// in change order, and the dispatcher's position moves past them with their insertion. Up to lease.Max of them,
// each the only delivery of its subscription and record waiting to be sent, are inserted as claimed by the
// caller until lease.Until (an attempt counted); the others wait to be claimed. Only one instance dispatches at a
// time (the position's row lock; others skip their turn). With no subscription it only moves the position; with
// no new change it does nothing (nothingToDispatch).
func (s *Store) DispatchChanges(ctx context.Context, limit int, lease DispatchLease,
	build func(tx *Store, subs []Webhook, changes []Change) ([]WebhookDelivery, error)) (Dispatched, error) {
	if idle, err := s.nothingToDispatch(ctx); err != nil || idle {
		return Dispatched{}, err
	}
	var out Dispatched
	err := s.db.WithContext(ctx).Transaction(func(db *gorm.DB) error {
		out = Dispatched{}
		tx := s.on(db)
		var cur webhookCursor
		q := db.Where("id = 1")
		if s.dialect == Postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
		}
		if res := q.Limit(1).Find(&cur); res.Error != nil || res.RowsAffected == 0 {
			return res.Error // another instance is dispatching
		}
		if !cur.Busy {
			pos, err := tx.SyncPosition(ctx)
			if err != nil {
				return err
			}
			cur.UntilSeq, cur.UntilSnap, cur.AfterID = pos.Seq, pos.Snap, 0
			cur.Busy = true
		}
		var subs []Webhook
		if err := db.Order("id").Find(&subs).Error; err != nil {
			return err
		}
		var changes []Change
		if len(subs) > 0 {
			dispatchable, err := tx.dispatchableChanges(cur.from(), SyncPosition{Seq: cur.UntilSeq, Snap: cur.UntilSnap})
			if err != nil {
				return err
			}
			err = dispatchable.Where("id > ?", cur.AfterID).Order("id").Limit(limit).
				Select("id, kind, record_id, op, COALESCE(fields, '') AS fields, COALESCE(CAST(old AS TEXT), '') AS old, at").
				Scan(&changes).Error
			if err != nil {
				return err
			}
			out.Read = len(changes)
			if len(changes) > 0 {
				deliveries, err := build(tx, subs, changes)
				if err != nil {
					return err
				}
				if out.Leased, err = tx.insertDeliveries(deliveries, lease); err != nil {
					return err
				}
				cur.AfterID = changes[len(changes)-1].ID
			}
		}
		out.Subscriptions = webhooksByID(subs)
		if len(changes) < limit {
			cur.FromSeq, cur.FromSnap, cur.Busy, cur.AfterID = cur.UntilSeq, cur.UntilSnap, false, 0
		}
		return db.Model(&webhookCursor{}).Where("id = 1").Select("*").Updates(&cur).Error
	})
	if err != nil {
		return Dispatched{}, err
	}
	return out, nil
}

// from is the position the dispatcher's current or next window starts after.
func (c webhookCursor) from() SyncPosition { return SyncPosition{Seq: c.FromSeq, Snap: c.FromSnap} }

// dispatchableChanges is the query of the changes a dispatch makes deliveries of, committed after from and up to
// until: records created, updated or deleted, of every kind (the PostgreSQL index (kind, xid, record_id) is read as
// five ranges).
func (s *Store) dispatchableChanges(from, until SyncPosition) (*gorm.DB, error) {
	window, err := s.changeWindow(from, until)
	if err != nil {
		return nil, err
	}
	return s.db.Table("changes").Scopes(window).Where("kind IN (1, 2, 3, 4, 5) AND op <> 'l'"), nil
}

// nothingToDispatch tells whether a dispatch now would only rewrite the position: the last dispatch closed its
// window and no change it would read has been committed since. Skipping it spares an idle service a row lock and
// an update of the position at every poll, each a transaction ID and a WAL record (and, on PostgreSQL, each moves
// the snapshot the next poll would compare with). It reads without locking: a change committed after it looked
// is found by the next poll, since the position has not moved past it.
func (s *Store) nothingToDispatch(ctx context.Context) (bool, error) {
	db := s.db.WithContext(ctx)
	var cur webhookCursor
	if res := db.Where("id = 1").Limit(1).Find(&cur); res.Error != nil || res.RowsAffected == 0 || cur.Busy {
		return false, res.Error
	}
	now, err := s.SyncPosition(ctx)
	if err != nil {
		return false, err
	}
	dispatchable, err := s.WithContext(ctx).dispatchableChanges(cur.from(), now)
	if err != nil {
		return false, err
	}
	var found []int64
	err = dispatchable.Limit(1).Pluck("id", &found).Error
	return len(found) == 0, err
}

// deliveryKey names the deliveries that are sent in order: those of one subscription and record.
type deliveryKey struct {
	WebhookID uint64
	Kind      ChangeKind
	RecordID  uint64
}

// insertDeliveries inserts new deliveries (at most one per subscription and record, as a dispatch makes them),
// the first lease.Max of them whose subscription and record have no delivery waiting as claimed until
// lease.Until, and returns those.
func (s *Store) insertDeliveries(deliveries []WebhookDelivery, lease DispatchLease) ([]WebhookDelivery, error) {
	if len(deliveries) == 0 {
		return nil, nil
	}
	var waiting map[deliveryKey]bool
	if lease.Max > 0 {
		var err error
		if waiting, err = s.deliveriesWaiting(deliveries); err != nil {
			return nil, err
		}
	}
	var leased []int
	for i := range deliveries {
		d := &deliveries[i]
		if len(leased) < lease.Max && !waiting[deliveryKey{d.WebhookID, d.Kind, d.RecordID}] {
			d.NextAttemptAt, d.Attempts = lease.Until.UnixMilli(), 1
			leased = append(leased, i)
		}
	}
	if err := s.insertPayloads(deliveries); err != nil {
		return nil, err
	}
	if err := s.db.CreateInBatches(deliveries, 500).Error; err != nil {
		return nil, err
	}
	queue := make([]queuedDelivery, len(deliveries))
	for i := range deliveries {
		queue[i] = queued(&deliveries[i])
	}
	if err := s.db.CreateInBatches(queue, 500).Error; err != nil {
		return nil, err
	}
	out := make([]WebhookDelivery, len(leased))
	for j, i := range leased {
		out[j] = deliveries[i]
	}
	return out, nil
}

// insertPayloads stores each payload of deliveries once (the deliveries of one change, one per subscription, carry
// the same) and names it in their PayloadID.
func (s *Store) insertPayloads(deliveries []WebhookDelivery) error {
	var payloads []webhookPayload
	index := map[string]int{}
	for _, d := range deliveries {
		if _, ok := index[d.Payload]; !ok {
			index[d.Payload] = len(payloads)
			payloads = append(payloads, webhookPayload{Payload: d.Payload})
		}
	}
	if err := s.db.CreateInBatches(payloads, 500).Error; err != nil {
		return err
	}
	for i := range deliveries {
		deliveries[i].PayloadID = payloads[index[deliveries[i].Payload]].ID
	}
	return nil
}

// withPayloads sets the Payload of deliveries, read in one statement; a payload missing is an error, not an
// empty delivery.
func withPayloads(db *gorm.DB, deliveries []WebhookDelivery) error {
	if len(deliveries) == 0 {
		return nil
	}
	ids := make([]uint64, len(deliveries))
	for i, d := range deliveries {
		ids[i] = d.PayloadID
	}
	var payloads []webhookPayload
	if err := db.Where("id IN ?", ids).Find(&payloads).Error; err != nil {
		return err
	}
	byID := make(map[uint64]string, len(payloads))
	for _, p := range payloads {
		byID[p.ID] = p.Payload
	}
	for i := range deliveries {
		d := &deliveries[i]
		payload, ok := byID[d.PayloadID]
		if !ok {
			return fmt.Errorf("models: webhook delivery %d names payload %d, which is not stored", d.ID, d.PayloadID)
		}
		d.Payload = payload
	}
	return nil
}

// deliveriesWaiting tells which subscriptions and records of deliveries already have a delivery waiting to be
// sent, in one read through the queue's index by record (a dispatch's deliveries name at most its batch of
// changes' records).
func (s *Store) deliveriesWaiting(deliveries []WebhookDelivery) (map[deliveryKey]bool, error) {
	hooks, kinds, records := map[uint64]bool{}, map[ChangeKind]bool{}, map[uint64]bool{}
	for _, d := range deliveries {
		hooks[d.WebhookID], kinds[d.Kind], records[d.RecordID] = true, true, true
	}
	var keys []deliveryKey
	err := s.db.Model(&queuedDelivery{}).Distinct("webhook_id", "kind", "record_id").
		Where("webhook_id IN ? AND kind IN ? AND record_id IN ?",
			slices.Collect(maps.Keys(hooks)), slices.Collect(maps.Keys(kinds)), slices.Collect(maps.Keys(records))).
		Scan(&keys).Error
	waiting := make(map[deliveryKey]bool, len(keys))
	for _, k := range keys {
		waiting[k] = true
	}
	return waiting, err
}

// ClaimDeliveries takes up to limit due deliveries for this instance to send: each is the oldest one of its
// subscription and record in the queue (so one record's changes go out in order), and is leased until lease: no
// other instance takes it before then, and one that was taken by an instance that died is taken again after. On
// PostgreSQL, rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED), and a row another instance
// claimed meanwhile is re-checked and left, so each claim goes to one instance. Each claim counts an attempt.
func (s *Store) ClaimDeliveries(ctx context.Context, now, lease time.Time, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	// PostgreSQL skips the rows another instance is claiming; SQLite has one writer and no row locks. The due rows
	// are chosen and locked once, in a materialized CTE: written as "id IN (subquery)", PostgreSQL may run the
	// locking subquery again when the update meets a row another transaction changed, which locks and claims more
	// rows than limit (a row sent twice) and lets the statement run for as long as the queue keeps changing.
	locking := ""
	if s.dialect == Postgres {
		locking = " FOR UPDATE SKIP LOCKED"
	}
	err := s.outsideVersion(ctx, func(db *gorm.DB) error {
		if s.dialect == Postgres {
			if err := db.Exec("SET LOCAL statement_timeout = '10s'").Error; err != nil {
				return err
			}
			// Planned for its values: a generic plan, made without the instant and the limit, read and
			// anti-joined every queued delivery on each claim, seconds a claim once a backlog formed.
			db = s.on(db).PlannedForValues().db
		}
		var ids []uint64
		if err := db.Raw(`WITH due AS MATERIALIZED (SELECT q.id FROM webhook_queue q
				WHERE q.next_attempt_at <= ?
				AND NOT EXISTS (SELECT 1 FROM webhook_queue e
					WHERE e.webhook_id = q.webhook_id AND e.kind = q.kind AND e.record_id = q.record_id AND e.id < q.id)
				ORDER BY q.next_attempt_at, q.id LIMIT ?`+locking+`)
			UPDATE webhook_queue SET next_attempt_at = ? WHERE id IN (SELECT id FROM due)
			RETURNING id`, now.UnixMilli(), limit, lease.UnixMilli()).Scan(&ids).Error; err != nil || len(ids) == 0 {
			return err
		}
		if err := db.Raw(`UPDATE webhook_deliveries SET next_attempt_at = ?, attempts = attempts + 1 WHERE id IN ?
			RETURNING *`, lease.UnixMilli(), ids).Scan(&out).Error; err != nil {
			return err
		}
		return withPayloads(db, out)
	})
	return out, err
}

// outsideVersion runs fn in a transaction of its own that does not advance the data version: webhook bookkeeping
// changes no answer the response cache holds.
func (s *Store) outsideVersion(ctx context.Context, fn func(db *gorm.DB) error) error {
	return s.db.WithContext(ctx).Transaction(fn)
}

// DeliveryOutcome is the outcome of one attempt at a claimed delivery (as ClaimDeliveries returned it): the
// receiver's status (0 when there was none) and what went wrong; sent, due again at Next, or failed for good (Next
// zero); recorded as of At.
type DeliveryOutcome struct {
	Claim  *WebhookDelivery
	Status int
	Error  string
	Sent   bool
	Next   time.Time
	At     time.Time
}

// maxOutcomesPerStatement bounds the deliveries one UPDATE marks sent.
const maxOutcomesPerStatement = 1000

// FinishDeliveries records the outcomes of attempts, in one transaction: the deliveries sent, one UPDATE for each
// status the receivers answered (so a batch of a few hundred is a statement or two and one commit, where a
// statement and a commit per delivery had cost the sender more than its requests), and each failure on its own. A
// delivery another attempt has sent meanwhile stays sent. A failure is recorded only while its claim is the
// delivery's latest: an attempt that outlived its lease must not move the next attempt of the instance that
// claimed the delivery after it, which would let a third one claim it too.
func (s *Store) FinishDeliveries(ctx context.Context, outcomes []DeliveryOutcome) error {
	sent := map[int][]uint64{}
	var at int64
	for _, o := range outcomes {
		if o.Sent {
			sent[o.Status] = append(sent[o.Status], o.Claim.ID)
			at = max(at, o.At.UnixMilli())
		}
	}
	return s.outsideVersion(ctx, func(db *gorm.DB) error {
		for status, ids := range sent {
			for start := 0; start < len(ids); start += maxOutcomesPerStatement {
				chunk := ids[start:min(start+maxOutcomesPerStatement, len(ids))]
				if err := db.Where("id IN ?", chunk).Delete(&queuedDelivery{}).Error; err != nil {
					return err
				}
				err := db.Model(&WebhookDelivery{}).Where("id IN ? AND status = ?", chunk, DeliveryPending).
					Updates(map[string]any{"status": DeliverySent, "done_at": at, "last_status": status,
						"last_error": ""}).Error
				if err != nil {
					return err
				}
			}
		}
		for _, o := range outcomes {
			if !o.Sent {
				if err := recordFailure(db, o); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// recordFailure records a failed attempt: due again at o.Next, or failed for good (and out of the queue). The
// queue row is written first, and only while the attempt's claim is the delivery's latest (its attempts).
func recordFailure(db *gorm.DB, o DeliveryOutcome) error {
	queue := db.Where(`id = ? AND EXISTS (SELECT 1 FROM webhook_deliveries d
		WHERE d.id = webhook_queue.id AND d.status = ? AND d.attempts = ?)`, o.Claim.ID, DeliveryPending, o.Claim.Attempts)
	values := map[string]any{"last_status": o.Status, "last_error": o.Error}
	var res *gorm.DB
	if o.Next.IsZero() {
		values["status"], values["done_at"] = DeliveryFailed, o.At.UnixMilli()
		res = queue.Delete(&queuedDelivery{})
	} else {
		values["next_attempt_at"] = o.Next.UnixMilli()
		res = queue.Model(&queuedDelivery{}).Update("next_attempt_at", o.Next.UnixMilli())
	}
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	return db.Model(&WebhookDelivery{}).Where("id = ?", o.Claim.ID).Updates(values).Error
}

// PruneDeliveries deletes, from the delivery log, the deliveries made before cutoff that are done (sent or failed)
// and returns how many. Like PruneChanges it walks the log from its oldest delivery up to the first one young
// enough to keep, a batch at a time, so it costs nothing when there is nothing to prune; a delivery waiting to be
// sent (one redelivered long after it was made) is kept whatever its age.
func (s *Store) PruneDeliveries(ctx context.Context, cutoff time.Time) (int64, error) {
	pruned, err := s.deleteInBatches(ctx, `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
		WHERE status <> ? AND id < COALESCE((SELECT id FROM webhook_deliveries WHERE created_at >= ? ORDER BY id
			LIMIT 1), (SELECT MAX(id) + 1 FROM webhook_deliveries))
		ORDER BY id LIMIT ?)`, DeliveryPending, cutoff.UnixMilli())
	if err != nil {
		return pruned, err
	}
	// Then the payloads older than the oldest one a delivery still names: no delivery names them any longer, and
	// none will, since every delivery of a payload is made in the transaction that stores it.
	_, err = s.deleteInBatches(ctx, `DELETE FROM webhook_payloads WHERE id IN (SELECT id FROM webhook_payloads
		WHERE id < COALESCE((SELECT MIN(payload_id) FROM webhook_deliveries), (SELECT MAX(id) + 1 FROM webhook_payloads))
		ORDER BY id LIMIT ?)`)
	return pruned, err
}

// DeliveryQueue reports how many deliveries are pending and when the oldest of them was made (zero: none).
func (s *Store) DeliveryQueue(ctx context.Context) (int64, time.Time, error) {
	var row struct {
		N      int64
		Oldest int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) AS n, COALESCE(MIN(created_at), 0) AS oldest
		FROM webhook_queue`).Scan(&row).Error
	if err != nil || row.Oldest == 0 {
		return row.N, time.Time{}, err
	}
	return row.N, time.UnixMilli(row.Oldest), nil
}

// VacuumWebhookQueue reclaims, on PostgreSQL, the queue rows of deliveries sent or failed for good and the old
// versions of those claimed. Until a vacuum removes them, every claim walks their index entries: at a thousand
// deliveries a second that is tens of thousands within a minute, autovacuum's fastest round, and without end
// where autovacuum is off. The queue holds only what waits to be sent, so a vacuum takes milliseconds and takes no
// lock that the sender waits for.
func (s *Store) VacuumWebhookQueue(ctx context.Context) error {
	return s.vacuumSmallTables(ctx, "webhook_queue")
}
