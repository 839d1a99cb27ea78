package controllers

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"calendar/models"
)

// webhookAdmin is the reader webhook payloads are shaped for: an administrator, who reads every record whole.
var webhookAdmin = &models.User{Role: models.RoleAdministrator}

// recordChange is what one batch of the change history says of one record.
type recordChange struct {
	kind    models.ChangeKind
	id      uint64
	created bool     // the record was created in the batch
	deleted bool     // the record was deleted for good: old holds its row as it was
	trashed bool     // its status became trash
	fields  []string // the API fields that changed
	old     string
	at      int64
}

// columnFields maps the changed columns the history records to the API fields they show as.
var columnFields = map[string][]string{
	"author_id": {"author"}, "status": {"status"}, "trashed_status": {"status"}, "password": {"password"},
	"start_utc": {"start_date", "utc_start_date"}, "end_utc": {"end_date", "utc_end_date"},
	"image_id": {"image"}, "parent_id": {"parent"}, "published_at": {"date", "date_utc"},
	"venue_links": {"venue"}, "organizer_links": {"organizer"}, "category_links": {"categories"},
	"tag_links": {"tags"}, "stateprovince": {"stateprovince"},
}

// apiFields turns the CSV of changed columns into API field names.
func apiFields(columns string) []string {
	var out []string
	for _, col := range strings.Split(columns, ",") {
		if col == "" || col == "created_at" || col == "updated_at" {
			continue
		}
		names, ok := columnFields[col]
		if !ok {
			names = []string{col}
		}
		out = append(out, names...)
	}
	return out
}

// build makes the deliveries of a batch of changes (the dispatcher's callback): one per subscription that asked
// for its type and record the batch touched, in the order of each record's first change, with the record as an
// administrator reads it now (or as it was, when it was deleted for good).
func (s *WebhookSender) build(tx *models.Store, subs []models.Webhook, changes []models.Change) (
	[]models.WebhookDelivery, error) {
	var order []*recordChange
	byKey := map[[2]uint64]*recordChange{}
	for _, ch := range changes {
		key := [2]uint64{uint64(ch.Kind), ch.RecordID}
		rc := byKey[key]
		if rc == nil {
			rc = &recordChange{kind: ch.Kind, id: ch.RecordID}
			byKey[key] = rc
			order = append(order, rc)
		}
		rc.at = max(rc.at, ch.At)
		switch ch.Op {
		case "c":
			rc.created, rc.deleted = true, false
		case "d":
			rc.deleted, rc.old = true, ch.Old
		case "u":
			for _, f := range apiFields(ch.Fields) {
				if !slices.Contains(rc.fields, f) {
					rc.fields = append(rc.fields, f)
				}
			}
		}
	}
	data, err := s.currentRecords(tx, order)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	var out []models.WebhookDelivery
	for _, rc := range order {
		typ, payload, ok := rc.payload(data)
		if !ok {
			continue
		}
		for _, sub := range subs {
			if sub.Events != "*" && !slices.Contains(strings.Split(sub.Events, ","), typ) {
				continue
			}
			out = append(out, models.WebhookDelivery{WebhookID: sub.ID, Kind: rc.kind, RecordID: rc.id, Type: typ,
				Payload: payload, Status: models.DeliveryPending, CreatedAt: now, NextAttemptAt: now})
		}
	}
	return out, nil
}

// payload is the delivery type of a record's changes and what its deliveries carry besides id and type.
func (rc *recordChange) payload(data map[[2]uint64]json.RawMessage) (string, string, bool) {
	body := struct {
		OccurredAt string          `json:"occurred_at"`
		Data       json.RawMessage `json:"data"`
		Changed    []string        `json:"changed,omitempty"`
	}{OccurredAt: time.Unix(rc.at, 0).UTC().Format("2006-01-02 15:04:05")}
	op := "updated"
	switch current, ok := data[[2]uint64{uint64(rc.kind), rc.id}]; {
	case rc.deleted:
		if rc.created {
			return "", "", false // created and deleted within the batch: nothing to tell
		}
		op, body.Data = "deleted", deletedRecord(rc.old)
	case !ok:
		return "", "", false // deleted by a change of a later batch, which tells it
	case rc.created:
		op, body.Data = "created", current
	default:
		body.Data, body.Changed = current, rc.fields
		var status struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(current, &status) == nil && status.Status == models.StatusTrash &&
			slices.Contains(rc.fields, "status") {
			op = "deleted" // moved to the trash: the record, as an administrator reads it, has status trash
		}
		if body.Changed == nil {
			body.Changed = []string{}
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", "", false
	}
	return rc.kind.Name() + "." + op, string(raw), true
}

// deletedRecord is the data of a deletion: the stored fields of the record as it was (its password left out).
func deletedRecord(old string) json.RawMessage {
	if !json.Valid([]byte(old)) || old == "" {
		return json.RawMessage(`{}`)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(old), &fields); err != nil {
		return json.RawMessage(`{}`)
	}
	delete(fields, "password")
	raw, _ := json.Marshal(fields)
	return raw
}

// currentRecords reads the batch's records that still exist, as an administrator reads them in lists, keyed by
// kind and ID.
func (s *WebhookSender) currentRecords(tx *models.Store, order []*recordChange) (map[[2]uint64]json.RawMessage, error) {
	ids := map[models.ChangeKind][]uint64{}
	for _, rc := range order {
		if !rc.deleted {
			ids[rc.kind] = append(ids[rc.kind], rc.id)
		}
	}
	site := s.app.backgroundSite()
	viewer := Viewer{User: webhookAdmin}
	out := map[[2]uint64]json.RawMessage{}
	put := func(kind models.ChangeKind, id uint64, v any) error {
		raw, err := json.Marshal(v)
		if err == nil {
			out[[2]uint64{uint64(kind), id}] = raw
		}
		return err
	}
	if list := ids[models.ChangeEvent]; len(list) > 0 {
		events, _, err := tx.ListEvents([]models.Scope{models.EventsWithIDs(list)}, models.Page{Number: 1, Size: len(list)})
		if err != nil {
			return nil, err
		}
		if err := tx.LoadEventLinks(events); err != nil {
			return nil, err
		}
		shaper := (&EventController{App: s.app}).shaper(site, viewer)
		for i := range events {
			if err := put(models.ChangeEvent, events[i].ID, shaper.listRecord(&events[i])); err != nil {
				return nil, err
			}
		}
	}
	all := append(slices.Clone(editableStatuses), models.StatusTrash)
	if list := ids[models.ChangeVenue]; len(list) > 0 {
		recs, _, err := models.ListLinked[models.Venue](tx, models.LinkedFilter{Statuses: all, Viewer: webhookAdmin,
			IDs: list}, models.Page{Number: 1, Size: len(list)})
		if err != nil {
			return nil, err
		}
		for i := range recs {
			if err := put(models.ChangeVenue, recs[i].ID, venueKind.shape(s.app, site, &recs[i], viewer, false)); err != nil {
				return nil, err
			}
		}
	}
	if list := ids[models.ChangeOrganizer]; len(list) > 0 {
		recs, _, err := models.ListLinked[models.Organizer](tx, models.LinkedFilter{Statuses: all,
			Viewer: webhookAdmin, IDs: list}, models.Page{Number: 1, Size: len(list)})
		if err != nil {
			return nil, err
		}
		for i := range recs {
			if err := put(models.ChangeOrganizer, recs[i].ID, organizerKind.shape(s.app, site, &recs[i], viewer, false)); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range []termKind{categoryKind, tagKind} {
		list := ids[k.change]
		if len(list) == 0 {
			continue
		}
		terms, _, err := tx.Terms(k.tax, models.TermFilter{IDs: list, Viewer: webhookAdmin},
			models.Page{Number: 1, Size: len(list)})
		if err != nil {
			return nil, err
		}
		shaped, err := k.shapes(tx, site, terms)
		if err != nil {
			return nil, err
		}
		for i := range terms {
			if err := put(k.change, terms[i].ID, shaped[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// backgroundSite is the site URLs of work done outside a request (webhook payloads): from CALENDAR_BASE_URL, else
// the listen address on loopback.
func (a *App) backgroundSite() Site {
	home, host := "http://localhost", "localhost"
	if base := a.Config.BaseURL; base != nil {
		home, host = strings.TrimSuffix(base.String(), "/"), base.Host+base.Path
	}
	return Site{Home: home, Root: home + a.Config.APIRoot(), Host: host}
}
