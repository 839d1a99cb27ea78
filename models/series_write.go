package models

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"calendar/controllers/input"
	"calendar/models/recurrence"
)

// The series rules: what a create, update or delete does when its event is, or becomes, a series record or an
// occurrence. They run inside the write's transaction (CreateEvent, UpdateEvent, RemoveEvent), after the caller's
// permissions and precondition. docs/recurrence.md describes them as a client sees them.

// ScopeFollowing is the one value of an update's or delete's scope: the change applies to the occurrence and every
// later one.
const ScopeFollowing = "following"

// SeriesClock is the moment of a write and how far past that day an open-ended series has occurrences.
type SeriesClock struct {
	Now  time.Time
	Span time.Duration
}

// horizon is the last instant an open-ended series in loc has occurrences at the clock's moment.
func (c SeriesClock) horizon(loc *time.Location) time.Time { return SeriesHorizon(c.Now, c.Span, loc) }

// parse reads lines as the rule of series record e (its start, zone and all_day applied), and reports a bad rule
// as the recurrence parameter's error.
func (c SeriesClock) parse(e *Event, lines []string) (*recurrence.Set, error) {
	loc := input.StoredLocation(e.Timezone)
	set, err := recurrence.Parse(recurrence.Input{Lines: lines, Start: e.StartUTC.In(loc), AllDay: e.AllDay,
		Horizon: c.horizon(loc)})
	var re *recurrence.Error
	if errors.As(err, &re) {
		return nil, InvalidParam("recurrence", re.Error())
	}
	return set, err
}

// SeriesEdit is what an update sends that the series rules read beside the values Apply writes.
type SeriesEdit struct {
	// Fields are the API names of the fields sent, the dates as one ("dates"): an occurrence records them as
	// changed on its own, and a series update gives them to every occurrence that did not.
	Fields []string
	// Recurrence are the recurrence lines sent. Sent without lines ([] or null), it ends a series.
	Recurrence     []string
	RecurrenceSent bool
	// HideFromListings is the value sent, if any; a series keeps it for its occurrences (its record is never
	// listed).
	HideFromListings *bool
	// Scope is the scope sent, if any; ScopeFollowing is its one value.
	Scope *string
}

// startsSeries tells whether the update sends recurrence lines.
func (s SeriesEdit) startsSeries() bool { return s.RecurrenceSent && len(s.Recurrence) > 0 }

// checkScope refuses a scope that is not ScopeFollowing, or one sent for an event that is not an occurrence.
func checkScope(scope *string, e *Event) error {
	switch {
	case scope == nil:
		return nil
	case *scope != ScopeFollowing:
		return InvalidParam("scope", "must be \"following\" (or left out for this occurrence only)")
	case e.Occurrence == nil:
		return InvalidParam("scope", "applies to an occurrence of a series only; this event is not one")
	}
	return nil
}

// applyUpdate applies u to e, found and locked with its series facts, as an ordinary event, a series record, an
// occurrence, or an event becoming a series.
func (s *Store) applyUpdate(e *Event, u EventUpdate) error {
	if err := checkScope(u.Edit.Scope, e); err != nil {
		return err
	}
	switch {
	case e.Series != nil && u.Edit.RecurrenceSent && !u.Edit.startsSeries():
		return s.endSeries(e, u)
	case e.Series != nil:
		return s.updateSeries(e, u)
	case e.Occurrence != nil && u.Edit.RecurrenceSent:
		return InvalidParam("recurrence", "an occurrence has no rule of its own: change the series (event "+
			strconv.FormatUint(e.Occurrence.SeriesID, 10)+"), or send scope=following to change this occurrence and the later ones")
	case e.Occurrence != nil && u.Edit.Scope != nil:
		return s.splitSeries(e, u)
	case e.Occurrence != nil:
		return s.updateOccurrence(e, u)
	case u.Edit.startsSeries():
		return s.makeSeries(e, u)
	}
	return s.updateSingle(e, u)
}

// updateSingle is the ordinary update of e: the write applied, the row saved, the links sent stored.
func (s *Store) updateSingle(e *Event, u EventUpdate) error {
	before, err := e.TermLinks()
	if err != nil {
		return err
	}
	links, err := u.apply(s, e)
	if err != nil {
		return err
	}
	if err := s.SaveEvent(e); err != nil {
		return err
	}
	if err := s.lockLastStarts(links, e); err != nil {
		return err
	}
	return s.StoreEventLinks(e, links, before)
}

// updateOccurrence changes one occurrence as any event, and records the fields it changed as its own. Restoring
// a cancelled occurrence (one in the trash) makes its series produce it again.
func (s *Store) updateOccurrence(e *Event, u EventUpdate) error {
	cancelled := e.Status == StatusTrash
	if err := s.updateSingle(e, u); err != nil {
		return err
	}
	occ := *e.Occurrence
	occ.AddOverrides(u.Edit.Fields...)
	if err := s.SaveOccurrence(&occ); err != nil {
		return err
	}
	if cancelled && e.Status != StatusTrash {
		return s.uncancel(e)
	}
	return nil
}

// uncancel puts the original start of occurrence o back into its series' rule: no longer an EXDATE, and an RDATE
// when the rule does not produce it (it was cancelled with the ones after it), so that a later edit of the series
// keeps it and a feed lists it.
func (s *Store) uncancel(o *Event) error {
	head, set, err := s.lockSeriesOf(o)
	if err != nil {
		return err
	}
	ser := *head.Series
	ser.recordRule(set.Including(o.Occurrence.RecurrenceID.In(input.StoredLocation(head.Timezone))))
	return s.SaveSeries(&ser)
}

// createSeries writes e (applied, not yet inserted) as a series record with an occurrence for each start of its
// rule up to the horizon. The series record keeps the links as lists only (it counts for nothing and is never
// listed); every occurrence is an event of its own with the series' fields and links.
func (s *Store) createSeries(e *Event, p *EventPlan, lines []string, clock SeriesClock) error {
	set, err := clock.parse(e, lines)
	if err != nil {
		return err
	}
	hidden := e.HideFromListings
	e.HideFromListings = true
	if err := s.CreateEventWithSlug(e, p.Slug); err != nil {
		return err
	}
	return s.startSeries(e, set, p.EventLinkIDs, hidden, clock)
}

// makeSeries turns a single event into a series with the write applied: it keeps its ID as the series record,
// gives its links to the series and gets its occurrences.
func (s *Store) makeSeries(e *Event, u EventUpdate) error {
	if err := s.updateSingle(e, u); err != nil {
		return err
	}
	set, err := u.Clock.parse(e, u.Edit.Recurrence)
	if err != nil {
		return err
	}
	l, err := seriesLinks(e, EventLinkIDs{})
	if err != nil {
		return err
	}
	if err := s.DetachEventLinks(e); err != nil {
		return err
	}
	hidden := e.HideFromListings
	e.HideFromListings = true
	if err := s.SaveEvent(e); err != nil {
		return err
	}
	return s.startSeries(e, set, l, hidden, u.Clock)
}

// startSeries makes e, an event written without link rows, a series with links l: its series row, and its
// occurrences up to the horizon.
func (s *Store) startSeries(e *Event, set *recurrence.Set, l EventLinkIDs, hidden bool, clock SeriesClock) error {
	ser := &EventSeries{EventID: e.ID, HideFromListings: hidden}
	setSeriesRule(ser, e, set, clock)
	setSeriesLinks(e, ser, l)
	if err := s.SaveSeries(ser); err != nil {
		return err
	}
	if err := s.MarkSeriesRecord(e, true); err != nil {
		return err
	}
	return s.AddSeriesOccurrences(e, ser, set.Until(expandedUntil(ser, e), recurrence.MaxOccurrences), l.Venues,
		l.Organizers, l.Categories, l.Tags)
}

// setSeriesRule records set as ser's rule, expanded up to the clock's horizon when it does not end.
func setSeriesRule(ser *EventSeries, e *Event, set *recurrence.Set, clock SeriesClock) {
	ser.recordRule(set)
	if !set.Finite() {
		h := clock.horizon(input.StoredLocation(e.Timezone))
		ser.ExpandedUntil = &h
	}
}

// recordRule records set as ser's rule: its lines and summary, and no horizon for a rule that ends (its
// occurrences all exist). An open-ended rule keeps the horizon it is expanded to.
func (ser *EventSeries) recordRule(set *recurrence.Set) {
	ser.Recurrence, ser.RecurrenceText = strings.Join(set.Lines(), "\n"), set.Text()
	if set.Finite() {
		ser.ExpandedUntil = nil
	}
}

// expandedUntil is how far a series' occurrences go: its horizon, or for rules that end, as far as they go.
func expandedUntil(ser *EventSeries, e *Event) time.Time {
	if ser.ExpandedUntil != nil {
		return *ser.ExpandedUntil
	}
	return e.StartUTC.AddDate(1000, 0, 0)
}

// seriesLinks are the links of series record e (its series' lists, which its series facts put on it) with those
// the write sent in their place.
func seriesLinks(e *Event, sent EventLinkIDs) (EventLinkIDs, error) {
	var l EventLinkIDs
	var err error
	l.Venues, l.Organizers, l.Categories, l.Tags, err = e.LinkIDs()
	for _, r := range []struct{ dst, src *[]uint64 }{{&l.Venues, &sent.Venues}, {&l.Organizers, &sent.Organizers},
		{&l.Categories, &sent.Categories}, {&l.Tags, &sent.Tags}} {
		if *r.src != nil {
			*r.dst = *r.src
		}
	}
	return l, err
}

// setSeriesLinks stores l as the series' lists (on ser and on its record e, for the answer).
func setSeriesLinks(e *Event, ser *EventSeries, l EventLinkIDs) {
	ser.VenueLinks, ser.OrganizerLinks, ser.CategoryLinks, ser.TagLinks = LinkLists(l.Venues, l.Organizers,
		l.Categories, l.Tags)
	e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = ser.VenueLinks, ser.OrganizerLinks,
		ser.CategoryLinks, ser.TagLinks
}

// endSeries turns a series back into a single event (recurrence [] or null): its occurrences are deleted and the
// series record gets the series' links and listing back.
func (s *Store) endSeries(e *Event, u EventUpdate) error {
	ser := e.Series
	sent, err := u.apply(s, e)
	if err != nil {
		return err
	}
	l, err := seriesLinks(e, sent)
	if err != nil {
		return err
	}
	e.HideFromListings = ser.HideFromListings
	if u.Edit.HideFromListings != nil {
		e.HideFromListings = *u.Edit.HideFromListings
	}
	occurrences, err := s.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	if err := s.DeleteEvents(occurrences); err != nil {
		return err
	}
	if err := s.DeleteSeriesRow(e.ID); err != nil {
		return err
	}
	e.Series, e.SeriesID = nil, nil
	if err := s.SaveEvent(e); err != nil {
		return err
	}
	return s.LinkNewEvent(e, l.Venues, l.Organizers, l.Categories, l.Tags)
}

// updateSeries changes a series record and every occurrence that did not change the same field on its own, and
// matches the occurrences to the rule: those it still produces keep their IDs (moved with the start when it
// moved), those it no longer produces are deleted, new ones are created.
func (s *Store) updateSeries(e *Event, u EventUpdate) error {
	ser := *e.Series
	prev := *e
	sent, err := u.apply(s, e)
	if err != nil {
		return err
	}
	if u.Edit.HideFromListings != nil {
		ser.HideFromListings = *u.Edit.HideFromListings
	}
	e.HideFromListings = true
	var set *recurrence.Set
	if u.Edit.RecurrenceSent {
		set, err = u.Clock.parse(e, u.Edit.Recurrence)
	} else if set, err = ser.Rule(e); err == nil {
		set = set.MoveDates(prev.StartUTC) // the added and cancelled dates move with the occurrences
	}
	if err != nil {
		return err
	}
	l, err := seriesLinks(e, sent)
	if err != nil {
		return err
	}
	setSeriesRule(&ser, e, set, u.Clock)
	setSeriesLinks(e, &ser, l)
	if err := s.SaveEvent(e); err != nil {
		return err
	}
	if err := s.SaveSeries(&ser); err != nil {
		return err
	}
	e.Series = &ser
	return s.matchOccurrences(&prev, e, set, u.Edit.Fields, sent)
}

// matchOccurrences brings the occurrences of series record e (before the write: prev) in line with it: fields are
// the fields the write sent, and sent the links.
func (s *Store) matchOccurrences(prev, e *Event, set *recurrence.Set, fields []string, sent EventLinkIDs) error {
	rows, err := s.OccurrencesOf(e.ID)
	if err != nil {
		return err
	}
	events, err := s.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	byID := make(map[uint64]*Event, len(events))
	for i := range events {
		byID[events[i].ID] = &events[i]
	}
	stored := make([]time.Time, len(rows))
	for i, r := range rows {
		stored[i] = r.RecurrenceID
	}
	loc := input.StoredLocation(e.Timezone)
	m := recurrence.Match(stored, prev.StartUTC.In(loc), e.StartUTC.In(loc), set.Until(expandedUntil(e.Series, e), recurrence.MaxOccurrences))
	datesChanged := !prev.StartUTC.Equal(e.StartUTC) || !prev.EndUTC.Equal(e.EndUTC) || prev.AllDay != e.AllDay ||
		prev.Timezone != e.Timezone
	if !needsRowWrites(fields) {
		if err := s.changeOccurrences(e, rows, m.Kept, byID, fields, datesChanged); err != nil {
			return err
		}
		m.Kept = nil
	}
	relinked := make([]*Event, 0, len(m.Kept))
	for i := range m.Kept {
		if o := byID[rows[i].EventID]; o != nil {
			relinked = append(relinked, o)
		}
	}
	if err := s.lockLastStarts(sent, relinked...); err != nil {
		return err
	}
	for i, rid := range m.Kept {
		o := byID[rows[i].EventID]
		if o == nil {
			continue
		}
		if err := s.changeOccurrence(e, o, rows[i], rid, fields, datesChanged, sent); err != nil {
			return err
		}
	}
	if err := s.removeOccurrences(e, rows, m, byID); err != nil {
		return err
	}
	l, err := seriesLinks(e, EventLinkIDs{})
	if err != nil {
		return err
	}
	return s.AddSeriesOccurrences(e, e.Series, m.Added, l.Venues, l.Organizers, l.Categories, l.Tags)
}

// removeOccurrences deletes the occurrences of series record e that its rule no longer produces (m.Removed,
// indexes of rows), except the cancelled ones: an occurrence in the trash stays there, its start an EXDATE of the
// rule, and moves as that EXDATE moved with the series' start (m.Shifted), so that restoring it brings it back
// where the series now produces it.
func (s *Store) removeOccurrences(e *Event, rows []EventOccurrence, m recurrence.Matching, byID map[uint64]*Event) error {
	var removed []Event
	var moves []OccurrenceMove
	for _, i := range m.Removed {
		o := byID[rows[i].EventID]
		switch {
		case o == nil:
		case o.Status != StatusTrash:
			removed = append(removed, *o)
		default:
			if move, ok := occurrenceMove(e, rows[i], m.Shifted[i], false); ok {
				moves = append(moves, move)
			}
		}
	}
	if err := s.DeleteEvents(removed); err != nil {
		return err
	}
	return s.SetOccurrenceDates(moves, e.Timezone, e.AllDay, e.UpdatedAt)
}

// changeOccurrence applies a series update to one of its occurrences: the fields sent that it did not change on
// its own, its dates when the series' dates changed (unless it moved on its own), and its original start.
func (s *Store) changeOccurrence(e, o *Event, row EventOccurrence, rid time.Time, fields []string, datesChanged bool,
	sent EventLinkIDs) error {
	before, err := o.TermLinks()
	if err != nil {
		return err
	}
	copied := copiedFields(fields, row)
	for _, f := range copied {
		copyField(o, e, e.Series, f)
	}
	move, _ := occurrenceMove(e, row, rid, datesChanged)
	if move.Dates {
		o.Timezone, o.AllDay = e.Timezone, e.AllDay
		o.StartUTC, o.EndUTC, o.TimezoneAbbr = move.Start, move.End, move.Abbr
	}
	changed := len(copied) > 0 || move.Dates
	if changed {
		if err := s.SaveEvent(o); err != nil {
			return err
		}
	}
	var links EventLinkIDs
	for _, r := range []struct {
		field    string
		dst, src *[]uint64
	}{{"venue", &links.Venues, &sent.Venues}, {"organizer", &links.Organizers, &sent.Organizers},
		{"categories", &links.Categories, &sent.Categories}, {"tags", &links.Tags, &sent.Tags}} {
		if !row.Overridden(r.field) {
			*r.dst = *r.src
		}
	}
	if changed || links.sent() {
		if err := s.StoreEventLinks(o, links, before); err != nil {
			return err
		}
	}
	if move.RecurrenceID != nil {
		row.RecurrenceID = *move.RecurrenceID
		return s.SaveOccurrence(&row)
	}
	return nil
}

// splitSeries applies an update with scope=following: the series is split at occurrence o into a new series whose
// first occurrence o is (the occurrences from o on move to it with their IDs), the original series ends just
// before o, and the write applies to the new series as a series update.
func (s *Store) splitSeries(o *Event, u EventUpdate) error {
	seriesID, at := o.Occurrence.SeriesID, o.Occurrence.RecurrenceID
	head, set, err := s.lockSeriesOf(o)
	if err != nil {
		return err
	}
	loc := input.StoredLocation(head.Timezone)
	if !at.After(head.StartUTC) {
		// From the first occurrence on is the whole series.
		return s.updateSeries(head, u)
	}
	first, err := set.EndBefore(at.In(loc))
	if err != nil {
		return err
	}
	rest, err := set.From(at.In(loc))
	if err != nil {
		return InvalidParam("scope", err.Error())
	}
	// The new series record: a copy of the series record, starting at o's original start.
	tail := *head
	tail.ID, tail.Slug, tail.SeriesID = 0, "", nil
	tail.Series, tail.Occurrence, tail.OccurrenceSeries = nil, nil, nil
	tail.StartUTC, tail.EndUTC = OccurrenceDates(head, at)
	tail.TimezoneAbbr = input.TimezoneAbbr(loc, head.Timezone, tail.StartUTC)
	tail.VenueLinks, tail.OrganizerLinks, tail.CategoryLinks, tail.TagLinks = nil, nil, nil, nil
	if err := s.CreateEventWithSlug(&tail, head.Slug); err != nil {
		return err
	}
	tailSeries := EventSeries{EventID: tail.ID, HideFromListings: head.Series.HideFromListings,
		VenueLinks: head.Series.VenueLinks, OrganizerLinks: head.Series.OrganizerLinks,
		CategoryLinks: head.Series.CategoryLinks, TagLinks: head.Series.TagLinks}
	setSeriesRule(&tailSeries, &tail, rest, u.Clock)
	if err := s.SaveSeries(&tailSeries); err != nil {
		return err
	}
	if err := s.MarkSeriesRecord(&tail, true); err != nil {
		return err
	}
	if err := s.MoveOccurrences(seriesID, tail.ID, at); err != nil {
		return err
	}
	headSeries := *head.Series
	setSeriesRule(&headSeries, head, first, u.Clock)
	if err := s.SaveSeries(&headSeries); err != nil {
		return err
	}
	if err := s.LoadSeriesFactsOf(&tail); err != nil {
		return err
	}
	return s.updateSeries(&tail, u)
}

// lockSeriesOf locks the series record of occurrence o and reads its facts and rule.
func (s *Store) lockSeriesOf(o *Event) (*Event, *recurrence.Set, error) {
	head, err := s.LockEvent(o.Occurrence.SeriesID)
	if err != nil {
		return nil, nil, err
	}
	if err := s.LoadSeriesFactsOf(head); err != nil {
		return nil, nil, err
	}
	set, err := head.Series.Rule(head)
	return head, set, err
}

// removeInSeries deletes a series record (with all its occurrences) or an occurrence (cancelling it in the
// series' rule); e has its series facts. It reports false for an event outside any series.
func (s *Store) removeInSeries(e *Event, force bool, scope *string) (bool, error) {
	if err := checkScope(scope, e); err != nil {
		return true, err
	}
	switch {
	case e.Series != nil:
		return true, s.removeSeries(e, force)
	case e.Occurrence == nil:
		return false, nil
	}
	head, set, err := s.lockSeriesOf(e)
	if err != nil {
		return true, err
	}
	at := e.Occurrence.RecurrenceID
	loc := input.StoredLocation(head.Timezone)
	var doomed []Event
	switch {
	case scope != nil && !at.After(head.StartUTC):
		return true, s.removeSeries(head, force)
	case scope != nil:
		if set, err = set.EndBefore(at.In(loc)); err != nil {
			return true, err
		}
		if doomed, err = s.occurrencesFrom(head.ID, at); err != nil {
			return true, err
		}
	case at.Equal(head.StartUTC):
		// The first occurrence cannot be an EXDATE: the series starts at its next occurrence instead.
		next := set.Between(at.Add(time.Second), expandedUntil(head.Series, head).Add(time.Second), 1)
		if len(next) == 0 {
			return true, s.removeSeries(head, force)
		}
		if set, err = set.From(next[0]); err != nil {
			return true, err
		}
		head.StartUTC, head.EndUTC = OccurrenceDates(head, next[0])
		head.TimezoneAbbr = input.TimezoneAbbr(loc, head.Timezone, head.StartUTC)
		if err := s.SaveEvent(head); err != nil {
			return true, err
		}
		doomed = []Event{*e}
	default:
		if set, err = set.WithExdate(at.In(loc)); err != nil {
			return true, err
		}
		doomed = []Event{*e}
	}
	ser := *head.Series
	ser.recordRule(set)
	if err := s.SaveSeries(&ser); err != nil {
		return true, err
	}
	return true, s.trashOrDeleteAll(doomed, force)
}

// occurrencesFrom locks the occurrences of series record id and returns those whose original start is at or
// after at.
func (s *Store) occurrencesFrom(id uint64, at time.Time) ([]Event, error) {
	all, err := s.LockSeriesOccurrences(id)
	if err != nil {
		return nil, err
	}
	rows, err := s.OccurrencesOf(id)
	if err != nil {
		return nil, err
	}
	later := map[uint64]bool{}
	for _, r := range rows {
		later[r.EventID] = !r.RecurrenceID.Before(at)
	}
	var out []Event
	for _, o := range all {
		if later[o.ID] {
			out = append(out, o)
		}
	}
	return out, nil
}

// removeSeries trashes a series record and its occurrences, or deletes them all with force.
func (s *Store) removeSeries(e *Event, force bool) error {
	occurrences, err := s.LockSeriesOccurrences(e.ID)
	if err != nil {
		return err
	}
	if err := s.trashOrDeleteAll(occurrences, force); err != nil {
		return err
	}
	if force {
		return s.DeleteEvent(e.ID)
	}
	if e.Status != StatusTrash {
		e.TrashedStatus, e.Status = e.Status, StatusTrash
	}
	return s.SaveEvent(e)
}

// trashOrDeleteAll moves events to the trash (those not there yet), or deletes them permanently with force.
func (s *Store) trashOrDeleteAll(events []Event, force bool) error {
	if force {
		return s.DeleteEvents(events)
	}
	for i := range events {
		if events[i].Status == StatusTrash {
			continue
		}
		if err := s.trashOrDeleteEvent(&events[i], false); err != nil {
			return err
		}
	}
	return nil
}
