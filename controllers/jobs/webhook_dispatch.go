package jobs

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"calendar/models"
)

// RecordKey names one record of the change history: its kind and ID.
type RecordKey struct {
	Kind models.ChangeKind
	ID   uint64
}

// Record is a record a batch of changes touched, as the deliveries need it shaped.
type Record struct {
	RecordKey
	// Deleted says the record was deleted for good; Old then holds its row as it was (models.Change.Old).
	Deleted bool
	Old     string
}

// Shapes is what deliveries carry, shaped as the API shows records. The handlers' package provides it: it owns
// the API shapes.
type Shapes interface {
	// Records shapes records as an administrator reads them in lists: a record that exists as it is now in tx, a
	// deleted one as it was. A record that no longer exists, but whose deletion came later than the changes read
	// (so another batch tells it), is left out.
	Records(tx *models.Store, records []Record) (map[RecordKey]json.RawMessage, error)
	// Fields are the API fields that show the stored columns named (the columns an update changed).
	Fields(columns []string) []string
}

// recordChange is what one batch of the change history says of one record.
type recordChange struct {
	Record
	created bool     // the record was created in the batch
	columns []string // the stored columns that changed
	at      int64
}

// build makes the deliveries of a batch of changes (the dispatcher's callback): one per subscription that asked
// for its type and record the batch touched, in the order of each record's first change, with the record as an
// administrator reads it now (or as it was, when it was deleted for good).
func (s *WebhookSender) build(tx *models.Store, subs []models.Webhook, changes []models.Change) (
	[]models.WebhookDelivery, error) {
	order := recordChanges(changes)
	records := make([]Record, len(order))
	for i, rc := range order {
		records[i] = rc.Record
	}
	data, err := s.shapes.Records(tx, records)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	var out []models.WebhookDelivery
	for _, rc := range order {
		typ, payload, ok := s.payload(rc, data)
		if !ok {
			continue
		}
		for _, sub := range subs {
			if sub.Events != "*" && !slices.Contains(strings.Split(sub.Events, ","), typ) {
				continue
			}
			out = append(out, models.WebhookDelivery{WebhookID: sub.ID, Kind: rc.Kind, RecordID: rc.ID, Type: typ,
				Payload: payload, Status: models.DeliveryPending, CreatedAt: now, NextAttemptAt: now})
		}
	}
	return out, nil
}

// recordChanges gathers a batch of changes by record, in the order of each record's first change.
func recordChanges(changes []models.Change) []*recordChange {
	var order []*recordChange
	byKey := map[RecordKey]*recordChange{}
	for _, ch := range changes {
		key := RecordKey{ch.Kind, ch.RecordID}
		rc := byKey[key]
		if rc == nil {
			rc = &recordChange{Record: Record{RecordKey: key}}
			byKey[key] = rc
			order = append(order, rc)
		}
		rc.at = max(rc.at, ch.At)
		switch ch.Op {
		case "c":
			rc.created, rc.Deleted = true, false
		case "d":
			rc.Deleted, rc.Old = true, ch.Old
		case "u":
			for _, col := range strings.Split(ch.Fields, ",") {
				if col != "" && !slices.Contains(rc.columns, col) {
					rc.columns = append(rc.columns, col)
				}
			}
		}
	}
	return order
}

// payload is the delivery type of a record's changes and what its deliveries carry besides id and type: an object
// of occurred_at, data (the shaped record, spliced as it is: encoding/json would validate and compact it again)
// and, for an update, the fields that changed.
func (s *WebhookSender) payload(rc *recordChange, data map[RecordKey]json.RawMessage) (string, string, bool) {
	shaped, ok := data[rc.RecordKey]
	op := "updated"
	var changed []string
	switch {
	case rc.Deleted && rc.created:
		return "", "", false // created and deleted within the batch: nothing to tell
	case !ok:
		return "", "", false // deleted by a change of a later batch, which tells it
	case rc.Deleted:
		op = "deleted"
	case rc.created:
		op = "created"
	default:
		changed = s.shapes.Fields(rc.columns)
		var status struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(shaped, &status) == nil && status.Status == models.StatusTrash &&
			slices.Contains(changed, "status") {
			op = "deleted" // moved to the trash: the record, as an administrator reads it, has status trash
		}
	}
	body := make([]byte, 0, len(shaped)+128)
	body = append(body, `{"occurred_at":"`...)
	body = time.Unix(rc.at, 0).UTC().AppendFormat(body, "2006-01-02 15:04:05")
	body = append(append(body, `","data":`...), shaped...)
	if len(changed) > 0 {
		names, err := json.Marshal(changed)
		if err != nil {
			return "", "", false
		}
		body = append(append(body, `,"changed":`...), names...)
	}
	return rc.Kind.Name() + "." + op, string(append(body, '}')), true
}
