package controllers

import (
	"strconv"
	"strings"
	"time"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
	"calendar/models/recurrence"
)

// scopeFollowing is the one value of scope: the change applies to the occurrence and every later one.
const scopeFollowing = "following"

// checkScope refuses a scope that is not "following", or one sent on an event that is not an occurrence.
func checkScope(scope endpoint.Opt[string], e *models.Event) error {
	if !scope.Set {
		return nil
	}
	if scope.V != scopeFollowing {
		return models.InvalidParam("scope", "must be \"following\" (or left out for this occurrence only)")
	}
	if e.Occurrence == nil {
		return models.InvalidParam("scope", "applies to an occurrence of a series only; this event is not one")
	}
	return nil
}

// sentFields are the API names of the fields a write sends, as an occurrence records what it changed on its own
// (its dates are one field: "dates").
func sentFields(in *EventFields, password endpoint.Opt[string]) []string {
	var out []string
	add := func(name string, sent bool) {
		if sent {
			out = append(out, name)
		}
	}
	add("title", in.Title.Set)
	add("description", in.Description.Set)
	add("excerpt", in.Excerpt.Set)
	add("status", in.Status.Set)
	add("author", in.Author.Set)
	add("date", in.Date.Set || in.DateUTC.Set)
	add("dates", in.Timezone.Set || in.AllDay.Set || in.StartDate.Set || in.EndDate.Set)
	add("image", in.Image.Set || in.Image.Null)
	add("cost", in.Cost.Set || in.Cost.Null)
	add("website", in.Website.Set || in.Website.Null)
	add("show_map", in.ShowMap.Set)
	add("show_map_link", in.ShowMapLink.Set)
	add("hide_from_listings", in.HideFromListings.Set)
	add("sticky", in.Sticky.Set)
	add("featured", in.Featured.Set)
	add("ticketed", in.Ticketed.Set)
	add("parent", in.Parent.Set || in.Parent.Null)
	add("venue", in.Venue.Set || in.Venue.Null)
	add("organizer", in.Organizer.Set || in.Organizer.Null)
	add("categories", in.Categories.Set || in.Categories.Null)
	add("tags", in.Tags.Set || in.Tags.Null)
	add("password", password.Set)
	return out
}

// copyField gives occurrence o the value field has on series record e (ser is e's series).
func copyField(o, e *models.Event, ser *models.EventSeries, field string) {
	switch field {
	case "title":
		o.Title = e.Title
	case "description":
		o.Description = e.Description
	case "excerpt":
		o.Excerpt = e.Excerpt
	case "status":
		o.Status, o.TrashedStatus = e.Status, e.TrashedStatus
	case "author":
		o.AuthorID = e.AuthorID
	case "date":
		o.PublishedAt = e.PublishedAt
	case "image":
		o.ImageID, o.Image = e.ImageID, e.Image
	case "cost":
		o.Cost = e.Cost
	case "website":
		o.Website = e.Website
	case "show_map":
		o.ShowMap = e.ShowMap
	case "show_map_link":
		o.ShowMapLink = e.ShowMapLink
	case "hide_from_listings":
		o.HideFromListings = ser.HideFromListings
	case "sticky":
		o.Sticky = e.Sticky
	case "featured":
		o.Featured = e.Featured
	case "ticketed":
		o.Ticketed = e.Ticketed
	case "parent":
		o.ParentID = e.ParentID
	case "password":
		o.Password = e.Password
	}
}

// seriesLinks are the links of series record e (its series' lists, which LoadSeriesFacts put on it) with those
// the write sent in their place.
func seriesLinks(e *models.Event, sent eventLinks) (eventLinks, error) {
	var l eventLinks
	var err error
	l.venues, l.organizers, l.categories, l.tags, err = e.LinkIDs()
	for _, r := range []struct{ dst, src *[]uint64 }{{&l.venues, &sent.venues}, {&l.organizers, &sent.organizers},
		{&l.categories, &sent.categories}, {&l.tags, &sent.tags}} {
		if *r.src != nil {
			*r.dst = *r.src
		}
	}
	return l, err
}

// setSeriesLinks stores links as the series' lists (on ser and on its record e, for the answer).
func setSeriesLinks(e *models.Event, ser *models.EventSeries, l eventLinks) {
	ser.VenueLinks, ser.OrganizerLinks, ser.CategoryLinks, ser.TagLinks = models.LinkLists(l.venues, l.organizers,
		l.categories, l.tags)
	e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = ser.VenueLinks, ser.OrganizerLinks,
		ser.CategoryLinks, ser.TagLinks
}

// startSeries makes e, an event written in tx without link rows, a series with links: its series row, and its
// occurrences up to the horizon.
func (ec *EventController) startSeries(tx *models.Store, e *models.Event, set *recurrence.Set, l eventLinks,
	hidden bool, now time.Time) error {
	ser := &models.EventSeries{EventID: e.ID, HideFromListings: hidden}
	ec.setSeriesRule(ser, e, set, now)
	setSeriesLinks(e, ser, l)
	if err := tx.SaveSeries(ser); err != nil {
		return err
	}
	if err := tx.MarkSeriesRecord(e, true); err != nil {
		return err
	}
	return tx.AddSeriesOccurrences(e, ser, set.Until(ec.expandedUntil(ser, e), recurrence.MaxOccurrences), l.venues,
		l.organizers, l.categories, l.tags)
}

// setSeriesRule records set as ser's rule: its lines, summary and how far it is expanded.
func (ec *EventController) setSeriesRule(ser *models.EventSeries, e *models.Event, set *recurrence.Set, now time.Time) {
	ser.Recurrence, ser.RecurrenceText, ser.ExpandedUntil = strings.Join(set.Lines(), "\n"), set.Text(), nil
	if !set.Finite() {
		h := ec.horizon(now, eventLocation(e.Timezone))
		ser.ExpandedUntil = &h
	}
}

// expandedUntil is how far a series' occurrences go: its horizon, or for rules that end, as far as they go.
func (ec *EventController) expandedUntil(ser *models.EventSeries, e *models.Event) time.Time {
	if ser.ExpandedUntil != nil {
		return *ser.ExpandedUntil
	}
	return e.StartUTC.AddDate(1000, 0, 0)
}

// updateInSeries applies an update to a series record, an occurrence, or an event that becomes a series, in tx.
// It reports false for a write that concerns no series (the ordinary update does it).
func (ec *EventController) updateInSeries(tx *models.Store, e *models.Event, w *eventWrite, scope endpoint.Opt[string]) (bool, error) {
	in := w.in
	if err := checkScope(scope, e); err != nil {
		return true, err
	}
	switch {
	case e.Series != nil && (in.Recurrence.Set || in.Recurrence.Null) && !in.wantsSeries():
		return true, ec.endSeries(tx, e, w)
	case e.Series != nil:
		return true, ec.updateSeries(tx, e, w)
	case e.Occurrence != nil && (in.Recurrence.Set || in.Recurrence.Null):
		return true, models.InvalidParam("recurrence", "an occurrence has no rule of its own: change the series (event "+
			uitoa(e.Occurrence.SeriesID)+"), or send scope=following to change this occurrence and the later ones")
	case e.Occurrence != nil && scope.Set:
		return true, ec.splitSeries(tx, e, w)
	case e.Occurrence != nil:
		return true, ec.updateOccurrence(tx, e, w)
	case in.wantsSeries():
		return true, ec.makeSeries(tx, e, w)
	}
	return false, nil
}

// updateOccurrence changes one occurrence as any event, and records the fields it changed as its own.
func (ec *EventController) updateOccurrence(tx *models.Store, e *models.Event, w *eventWrite) error {
	if err := ec.updateEvent(tx, e, w); err != nil {
		return err
	}
	occ := *e.Occurrence
	occ.AddOverrides(sentFields(w.in, w.password)...)
	return tx.SaveOccurrence(&occ)
}

// updateEvent is the ordinary update of e in tx: the write applied, the row saved, the links stored.
func (ec *EventController) updateEvent(tx *models.Store, e *models.Event, w *eventWrite) error {
	before, err := e.TermLinks()
	if err != nil {
		return err
	}
	if err := ec.applyEventWrite(tx, e, w); err != nil {
		return err
	}
	if err := tx.SaveEvent(e); err != nil {
		return err
	}
	return storeEventLinks(tx, e, w.links, before)
}

// makeSeries turns a single event into a series with the write applied: it keeps its ID as the series record,
// gives its links to the series and gets its occurrences.
func (ec *EventController) makeSeries(tx *models.Store, e *models.Event, w *eventWrite) error {
	if err := ec.updateEvent(tx, e, w); err != nil {
		return err
	}
	set, err := ec.parseSeries(e, w.in.Recurrence.V.Lines, w.now)
	if err != nil {
		return err
	}
	var l eventLinks
	if l.venues, l.organizers, l.categories, l.tags, err = e.LinkIDs(); err != nil {
		return err
	}
	if err := tx.DetachEventLinks(e); err != nil {
		return err
	}
	hidden := e.HideFromListings
	e.HideFromListings = true
	if err := tx.SaveEvent(e); err != nil {
		return err
	}
	return ec.startSeries(tx, e, set, l, hidden, w.now)
}

// endSeries turns a series back into a single event (recurrence [] or null): its occurrences are deleted and the
// series record gets the series' links and listing back.
func (ec *EventController) endSeries(tx *models.Store, e *models.Event, w *eventWrite) error {
	ser := e.Series
	if err := ec.applyEventWrite(tx, e, w); err != nil {
		return err
	}
	l, err := seriesLinks(e, w.links)
	if err != nil {
		return err
	}
	e.HideFromListings = ser.HideFromListings
	if w.in.HideFromListings.Set {
		e.HideFromListings = w.in.HideFromListings.V
	}
	occurrences, err := tx.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	if err := tx.DeleteEvents(occurrences); err != nil {
		return err
	}
	if err := tx.DeleteSeriesRow(e.ID); err != nil {
		return err
	}
	e.Series, e.SeriesID = nil, nil
	if err := tx.SaveEvent(e); err != nil {
		return err
	}
	return tx.LinkNewEvent(e, l.venues, l.organizers, l.categories, l.tags)
}

// updateSeries changes a series record and every occurrence that did not change the same field on its own, and
// matches the occurrences to the rule: those it still produces keep their IDs (moved with the start when it
// moved), those it no longer produces are deleted, new ones are created.
func (ec *EventController) updateSeries(tx *models.Store, e *models.Event, w *eventWrite) error {
	ser := *e.Series
	prev := *e
	if err := ec.applyEventWrite(tx, e, w); err != nil {
		return err
	}
	if w.in.HideFromListings.Set {
		ser.HideFromListings = w.in.HideFromListings.V
	}
	e.HideFromListings = true
	var set *recurrence.Set
	var err error
	if w.in.Recurrence.Set {
		set, err = ec.parseSeries(e, w.in.Recurrence.V.Lines, w.now)
	} else if set, err = ser.Rule(e); err == nil {
		set = set.MoveDates(prev.StartUTC) // the added and cancelled dates move with the occurrences
	}
	if err != nil {
		return err
	}
	l, err := seriesLinks(e, w.links)
	if err != nil {
		return err
	}
	ec.setSeriesRule(&ser, e, set, w.now)
	setSeriesLinks(e, &ser, l)
	if err := tx.SaveEvent(e); err != nil {
		return err
	}
	if err := tx.SaveSeries(&ser); err != nil {
		return err
	}
	e.Series = &ser
	return ec.matchOccurrences(tx, &prev, e, set, w)
}

// matchOccurrences brings the occurrences of series record e (before the write: prev) in line with it.
func (ec *EventController) matchOccurrences(tx *models.Store, prev, e *models.Event, set *recurrence.Set, w *eventWrite) error {
	rows, err := tx.OccurrencesOf(e.ID)
	if err != nil {
		return err
	}
	events, err := tx.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	byID := make(map[uint64]*models.Event, len(events))
	for i := range events {
		byID[events[i].ID] = &events[i]
	}
	stored := make([]time.Time, len(rows))
	for i, r := range rows {
		stored[i] = r.RecurrenceID
	}
	loc := eventLocation(e.Timezone)
	m := recurrence.Match(stored, prev.StartUTC.In(loc), e.StartUTC.In(loc), set.Until(ec.expandedUntil(e.Series, e), recurrence.MaxOccurrences))
	fields := sentFields(w.in, w.password)
	datesChanged := !prev.StartUTC.Equal(e.StartUTC) || !prev.EndUTC.Equal(e.EndUTC) || prev.AllDay != e.AllDay ||
		prev.Timezone != e.Timezone
	if !needsRowWrites(fields) {
		if err := ec.changeOccurrences(tx, e, rows, m.Kept, byID, fields, datesChanged); err != nil {
			return err
		}
		m.Kept = nil
	}
	for i, rid := range m.Kept {
		o := byID[rows[i].EventID]
		if o == nil {
			continue
		}
		if err := ec.changeOccurrence(tx, e, o, rows[i], rid, fields, datesChanged, w.links); err != nil {
			return err
		}
	}
	var removed []models.Event
	for _, i := range m.Removed {
		if o := byID[rows[i].EventID]; o != nil && o.Status != models.StatusTrash {
			// A trashed occurrence was cancelled (its start is an EXDATE now): it stays in the trash.
			removed = append(removed, *o)
		}
	}
	if err := tx.DeleteEvents(removed); err != nil {
		return err
	}
	l, err := seriesLinks(e, eventLinks{})
	if err != nil {
		return err
	}
	return tx.AddSeriesOccurrences(e, e.Series, m.Added, l.venues, l.organizers, l.categories, l.tags)
}

// changeOccurrence applies a series update to one of its occurrences: the fields sent that it did not change on
// its own, its dates when the series' dates changed (unless it moved on its own), and its original start.
func (ec *EventController) changeOccurrence(tx *models.Store, e, o *models.Event, row models.EventOccurrence,
	rid time.Time, fields []string, datesChanged bool, sent eventLinks) error {
	before, err := o.TermLinks()
	if err != nil {
		return err
	}
	changed := false
	for _, f := range fields {
		if f != "dates" && !row.Overridden(f) {
			copyField(o, e, e.Series, f)
			changed = true
		}
	}
	if (datesChanged || !rid.Equal(row.RecurrenceID)) && !row.Overridden("dates") {
		o.Timezone, o.AllDay = e.Timezone, e.AllDay
		o.StartUTC, o.EndUTC = models.OccurrenceDates(e, rid)
		o.TimezoneAbbr = input.TimezoneAbbr(eventLocation(e.Timezone), e.Timezone, o.StartUTC)
		changed = true
	}
	if changed {
		if err := tx.SaveEvent(o); err != nil {
			return err
		}
	}
	var links eventLinks
	for _, r := range []struct {
		field    string
		dst, src *[]uint64
	}{{"venue", &links.venues, &sent.venues}, {"organizer", &links.organizers, &sent.organizers},
		{"categories", &links.categories, &sent.categories}, {"tags", &links.tags, &sent.tags}} {
		if !row.Overridden(r.field) {
			*r.dst = *r.src
		}
	}
	if changed || links.venues != nil || links.organizers != nil || links.categories != nil || links.tags != nil {
		if err := storeEventLinks(tx, o, links, before); err != nil {
			return err
		}
	}
	if !rid.Equal(row.RecurrenceID) {
		row.RecurrenceID = rid.UTC()
		return tx.SaveOccurrence(&row)
	}
	return nil
}

// splitSeries applies an update with scope=following: the series is split at occurrence o into a new series whose
// first occurrence o is (the occurrences from o on move to it with their IDs), the original series ends just
// before o, and the write applies to the new series as a series update.
func (ec *EventController) splitSeries(tx *models.Store, o *models.Event, w *eventWrite) error {
	seriesID, at := o.Occurrence.SeriesID, o.Occurrence.RecurrenceID
	head, err := tx.LockEvent(seriesID)
	if err != nil {
		return err
	}
	if err := tx.LoadSeriesFactsOf(head); err != nil {
		return err
	}
	set, err := head.Series.Rule(head)
	if err != nil {
		return err
	}
	loc := eventLocation(head.Timezone)
	if !at.After(head.StartUTC) {
		// From the first occurrence on is the whole series.
		w2 := *w
		return ec.updateSeries(tx, head, &w2)
	}
	first, err := set.EndBefore(at.In(loc))
	if err != nil {
		return err
	}
	rest, err := set.From(at.In(loc))
	if err != nil {
		return models.InvalidParam("scope", err.Error())
	}
	// The new series record: a copy of the series record, starting at o's original start.
	tail := *head
	tail.ID, tail.Slug, tail.SeriesID = 0, "", nil
	tail.Series, tail.Occurrence, tail.OccurrenceSeries = nil, nil, nil
	tail.StartUTC, tail.EndUTC = models.OccurrenceDates(head, at)
	tail.TimezoneAbbr = input.TimezoneAbbr(loc, head.Timezone, tail.StartUTC)
	tail.VenueLinks, tail.OrganizerLinks, tail.CategoryLinks, tail.TagLinks = nil, nil, nil, nil
	if err := tx.CreateEventWithSlug(&tail, head.Slug); err != nil {
		return err
	}
	tailSeries := models.EventSeries{EventID: tail.ID, HideFromListings: head.Series.HideFromListings,
		VenueLinks: head.Series.VenueLinks, OrganizerLinks: head.Series.OrganizerLinks,
		CategoryLinks: head.Series.CategoryLinks, TagLinks: head.Series.TagLinks}
	ec.setSeriesRule(&tailSeries, &tail, rest, w.now)
	if err := tx.SaveSeries(&tailSeries); err != nil {
		return err
	}
	if err := tx.MarkSeriesRecord(&tail, true); err != nil {
		return err
	}
	if err := tx.MoveOccurrences(seriesID, tail.ID, at); err != nil {
		return err
	}
	headSeries := *head.Series
	ec.setSeriesRule(&headSeries, head, first, w.now)
	if err := tx.SaveSeries(&headSeries); err != nil {
		return err
	}
	if err := tx.LoadSeriesFactsOf(&tail); err != nil {
		return err
	}
	return ec.updateSeries(tx, &tail, w)
}

// uitoa writes an ID.
func uitoa(id uint64) string { return strconv.FormatUint(id, 10) }

// deleteInSeries deletes a series record (with all its occurrences) or an occurrence (cancelling it in the
// series' rule), in tx; e has its series facts. It reports false for an event outside any series.
func (ec *EventController) deleteInSeries(tx *models.Store, e *models.Event, force bool, scope endpoint.Opt[string], now time.Time) (bool, error) {
	if err := checkScope(scope, e); err != nil {
		return true, err
	}
	switch {
	case e.Series != nil:
		return true, ec.deleteSeries(tx, e, force)
	case e.Occurrence == nil:
		return false, nil
	}
	head, err := tx.LockEvent(e.Occurrence.SeriesID)
	if err != nil {
		return true, err
	}
	if err := tx.LoadSeriesFactsOf(head); err != nil {
		return true, err
	}
	set, err := head.Series.Rule(head)
	if err != nil {
		return true, err
	}
	at := e.Occurrence.RecurrenceID
	loc := eventLocation(head.Timezone)
	var doomed []models.Event
	switch {
	case scope.Set && !at.After(head.StartUTC):
		return true, ec.deleteSeries(tx, head, force)
	case scope.Set:
		if set, err = set.EndBefore(at.In(loc)); err != nil {
			return true, err
		}
		all, err := tx.LockSeriesOccurrences(head.ID)
		if err != nil {
			return true, err
		}
		rows, err := tx.OccurrencesOf(head.ID)
		if err != nil {
			return true, err
		}
		later := map[uint64]bool{}
		for _, r := range rows {
			later[r.EventID] = !r.RecurrenceID.Before(at)
		}
		for _, o := range all {
			if later[o.ID] {
				doomed = append(doomed, o)
			}
		}
	case at.Equal(head.StartUTC):
		// The first occurrence cannot be an EXDATE: the series starts at its next occurrence instead.
		next := set.Between(at.Add(time.Second), ec.expandedUntil(head.Series, head).Add(time.Second), 1)
		if len(next) == 0 {
			return true, ec.deleteSeries(tx, head, force)
		}
		if set, err = set.From(next[0]); err != nil {
			return true, err
		}
		head.StartUTC, head.EndUTC = models.OccurrenceDates(head, next[0])
		head.TimezoneAbbr = input.TimezoneAbbr(loc, head.Timezone, head.StartUTC)
		if err := tx.SaveEvent(head); err != nil {
			return true, err
		}
		doomed = []models.Event{*e}
	default:
		if set, err = set.WithExdate(at.In(loc)); err != nil {
			return true, err
		}
		doomed = []models.Event{*e}
	}
	ser := *head.Series
	ser.Recurrence, ser.RecurrenceText = strings.Join(set.Lines(), "\n"), set.Text()
	if set.Finite() {
		ser.ExpandedUntil = nil
	}
	if err := tx.SaveSeries(&ser); err != nil {
		return true, err
	}
	return true, trashOrDelete(tx, doomed, force)
}

// deleteSeries trashes a series record and its occurrences, or deletes them all with force.
func (ec *EventController) deleteSeries(tx *models.Store, e *models.Event, force bool) error {
	occurrences, err := tx.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	if err := trashOrDelete(tx, occurrences, force); err != nil {
		return err
	}
	if force {
		return tx.DeleteEvent(e.ID)
	}
	if e.Status != models.StatusTrash {
		e.TrashedStatus, e.Status = e.Status, models.StatusTrash
	}
	return tx.SaveEvent(e)
}

// trashOrDelete moves events to the trash (those not there yet), or deletes them permanently with force.
func trashOrDelete(tx *models.Store, events []models.Event, force bool) error {
	if force {
		return tx.DeleteEvents(events)
	}
	for i := range events {
		o := &events[i]
		if o.Status == models.StatusTrash {
			continue
		}
		before, err := o.TermLinks()
		if err != nil {
			return err
		}
		o.TrashedStatus, o.Status = o.Status, models.StatusTrash
		if err := tx.SaveEvent(o); err != nil {
			return err
		}
		if err := tx.AdjustTermCounts(before, models.TermLinks{}); err != nil {
			return err
		}
	}
	return nil
}
