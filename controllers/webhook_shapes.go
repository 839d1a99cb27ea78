package controllers

import (
	"encoding/json"
	"slices"
	"strings"

	"calendar/controllers/jobs"
	"calendar/models"
)

// webhookAdmin is the reader webhook payloads are shaped for: an administrator, who reads every record whole.
var webhookAdmin = &models.User{Role: models.RoleAdministrator}

// webhookShapes shapes what webhook deliveries carry (jobs.Shapes): records as an administrator reads them in
// lists, whether they exist now or were deleted, and the API names of changed columns.
type webhookShapes struct{ app *App }

// columnFields maps the changed columns the history records to the API fields they show as.
var columnFields = map[string][]string{
	"author_id": {"author"}, "status": {"status"}, "trashed_status": {"status"}, "password": {"password"},
	"start_utc": {"start_date", "utc_start_date"}, "end_utc": {"end_date", "utc_end_date"},
	"image_id": {"image"}, "parent_id": {"parent"}, "published_at": {"date", "date_utc"},
	"venue_links": {"venue"}, "organizer_links": {"organizer"}, "category_links": {"categories"},
	"tag_links": {"tags"}, "stateprovince": {"stateprovince"},
}

// Fields turns the changed columns into API field names, each once.
func (webhookShapes) Fields(columns []string) []string {
	var out []string
	for _, col := range columns {
		if col == "created_at" || col == "updated_at" {
			continue
		}
		names, ok := columnFields[col]
		if !ok {
			names = []string{col}
		}
		for _, name := range names {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// recordsOfKind are the records of one kind a batch of deliveries needs: the IDs of those that exist and the rows
// of those deleted.
type recordsOfKind struct {
	ids     []uint64
	deleted []models.DeletedRow
}

// Records shapes the records of a batch of changes, keyed by kind and ID: as an administrator reads them in lists
// now, or, deleted, as such a read showed them before.
func (w webhookShapes) Records(tx *models.Store, records []jobs.Record) (map[jobs.RecordKey]json.RawMessage, error) {
	byKind := map[models.ChangeKind]*recordsOfKind{}
	for _, r := range records {
		k := byKind[r.Kind]
		if k == nil {
			k = &recordsOfKind{}
			byKind[r.Kind] = k
		}
		if r.Deleted {
			k.deleted = append(k.deleted, models.DeletedRow{ID: r.ID, Old: r.Old})
		} else {
			k.ids = append(k.ids, r.ID)
		}
	}
	out := map[jobs.RecordKey]json.RawMessage{}
	site := w.app.backgroundSite()
	for kind, recs := range byKind {
		var err error
		switch kind {
		case models.ChangeEvent:
			err = webhookEventRecords(w.app, tx, site, recs, out)
		case models.ChangeVenue:
			err = webhookLinked(w.app, tx, site, venueKind, kind, recs, out)
		case models.ChangeOrganizer:
			err = webhookLinked(w.app, tx, site, organizerKind, kind, recs, out)
		case models.ChangeCategory:
			err = webhookTerms(tx, site, categoryKind, recs, out)
		case models.ChangeTag:
			err = webhookTerms(tx, site, tagKind, recs, out)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// putShape adds the JSON of v to out under kind and id.
func putShape(out map[jobs.RecordKey]json.RawMessage, kind models.ChangeKind, id uint64, v any) error {
	raw, err := json.Marshal(v)
	if err == nil {
		out[jobs.RecordKey{Kind: kind, ID: id}] = raw
	}
	return err
}

// webhookEventRecords shapes the events of recs into out.
func webhookEventRecords(a *App, tx *models.Store, site Site, recs *recordsOfKind, out map[jobs.RecordKey]json.RawMessage) error {
	var events []models.Event
	if len(recs.ids) > 0 {
		var err error
		if events, _, err = tx.ListEvents([]models.Scope{models.EventsWithIDs(recs.ids)},
			models.Page{Number: 1, Size: len(recs.ids)}); err != nil {
			return err
		}
		if err := tx.LoadEventLinks(events); err != nil {
			return err
		}
	}
	if len(recs.deleted) > 0 {
		deleted, err := tx.DeletedEvents(recs.deleted)
		if err != nil {
			return err
		}
		events = append(events, deleted...)
	}
	shaper := (&EventController{App: a}).shaper(site, Viewer{User: webhookAdmin})
	for i := range events {
		r := shaper.listRecord(&events[i])
		raw, err := r.appendJSON(make([]byte, 0, recordSizeHint)) // json.Marshal would compact it again
		if err != nil {
			return err
		}
		out[jobs.RecordKey{Kind: models.ChangeEvent, ID: events[i].ID}] = raw
	}
	return nil
}

// webhookLinked shapes the venues or organizers (k) of recs into out.
func webhookLinked[T any, P models.LinkedRecord[T], In any](a *App, tx *models.Store, site Site,
	k *linkedKind[T, P, In], kind models.ChangeKind, recs *recordsOfKind, out map[jobs.RecordKey]json.RawMessage) error {
	var list []T
	if len(recs.ids) > 0 {
		var err error
		if list, _, err = models.ListLinked[T, P](tx, models.LinkedFilter{
			Statuses: append(slices.Clone(editableStatuses), models.StatusTrash), Viewer: webhookAdmin, IDs: recs.ids},
			models.Page{Number: 1, Size: len(recs.ids)}); err != nil {
			return err
		}
	}
	if len(recs.deleted) > 0 {
		deleted, err := models.DeletedLinked[T, P](tx, kind, recs.deleted)
		if err != nil {
			return err
		}
		list = append(list, deleted...)
	}
	for i := range list {
		rec := P(&list[i])
		if err := putShape(out, kind, *rec.Linked().ID, k.shape(a, site, &list[i], Viewer{User: webhookAdmin}, false)); err != nil {
			return err
		}
	}
	return nil
}

// webhookTerms shapes the categories or tags (k) of recs into out.
func webhookTerms(tx *models.Store, site Site, k termKind, recs *recordsOfKind, out map[jobs.RecordKey]json.RawMessage) error {
	var terms []models.Term
	if len(recs.ids) > 0 {
		var err error
		if terms, _, err = tx.Terms(k.tax, models.TermFilter{IDs: recs.ids, Viewer: webhookAdmin},
			models.Page{Number: 1, Size: len(recs.ids)}); err != nil {
			return err
		}
	}
	terms = append(terms, tx.DeletedTerms(recs.deleted)...)
	shaped, err := k.shapes(tx, site, terms)
	if err != nil {
		return err
	}
	for i := range terms {
		if err := putShape(out, k.change, terms[i].ID, shaped[i]); err != nil {
			return err
		}
	}
	return nil
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
