package models

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"calendar/controllers/input"
)

// maxCaseRows bounds the rows one CASE update writes (a few parameters each; SQLite takes 32,766 at most).
const maxCaseRows = 1000

// SetOnEvents sets columns (trusted column names to values) on the events with ids, in one statement per 10,000
// IDs: a series update copies the fields it changed to the occurrences that did not change them on their own.
// Row triggers (change history, kept day counts) fire for each row as for any update.
func (s *Store) SetOnEvents(ids []uint64, columns map[string]any) error {
	for chunk := range slices.Chunk(ids, maxRefreshedEvents) {
		if err := s.db.Model(&Event{}).Where("id IN ?", chunk).UpdateColumns(columns).Error; err != nil {
			return err
		}
	}
	return nil
}

// OccurrenceMove is the dates one occurrence gets from a series update (when Dates: an occurrence that moved on
// its own keeps its dates), and its new original start (RECURRENCE-ID) when that moved.
type OccurrenceMove struct {
	EventID      uint64
	Dates        bool
	Start, End   time.Time
	Abbr         string
	RecurrenceID *time.Time
}

// SetOccurrenceDates writes the dates of moves (timezone and allDay the series'; updated at at) and the original
// starts that moved: one statement per 1,000 occurrences for the events and one for their occurrence rows.
func (s *Store) SetOccurrenceDates(moves []OccurrenceMove, timezone string, allDay bool, at time.Time) error {
	when := "?"
	if s.dialect == Postgres {
		when = "CAST(? AS TIMESTAMPTZ)" // CASE arms of bare parameters would be text
	}
	var dated []OccurrenceMove
	for _, m := range moves {
		if m.Dates {
			dated = append(dated, m)
		}
	}
	for chunk := range slices.Chunk(dated, maxCaseRows) {
		var start, end, abbr strings.Builder
		var startArgs, endArgs, abbrArgs []any
		ids := make([]uint64, len(chunk))
		for i, m := range chunk {
			ids[i] = m.EventID
			start.WriteString(" WHEN ? THEN " + when)
			end.WriteString(" WHEN ? THEN " + when)
			abbr.WriteString(" WHEN ? THEN ?")
			startArgs = append(startArgs, m.EventID, m.Start.UTC())
			endArgs = append(endArgs, m.EventID, m.End.UTC())
			abbrArgs = append(abbrArgs, m.EventID, m.Abbr)
		}
		sql := "UPDATE events SET start_utc = CASE id" + start.String() + " END, end_utc = CASE id" + end.String() +
			" END, timezone_abbr = CASE id" + abbr.String() + " END, timezone = ?, all_day = ?, updated_at = ? WHERE id IN ?"
		args := append(append(append(startArgs, endArgs...), abbrArgs...), timezone, allDay, at, ids)
		if err := s.db.Exec(sql, args...).Error; err != nil {
			return err
		}
	}
	var moved []OccurrenceMove
	for _, m := range moves {
		if m.RecurrenceID != nil {
			moved = append(moved, m)
		}
	}
	for chunk := range slices.Chunk(moved, maxCaseRows) {
		var rid strings.Builder
		args := make([]any, 0, 2*len(chunk)+1)
		ids := make([]uint64, len(chunk))
		for i, m := range chunk {
			ids[i] = m.EventID
			rid.WriteString(" WHEN ? THEN " + when)
			args = append(args, m.EventID, m.RecurrenceID.UTC())
		}
		sql := "UPDATE event_occurrences SET recurrence_id = CASE event_id" + rid.String() + " END WHERE event_id IN ?"
		if err := s.db.Exec(sql, append(args, ids)...).Error; err != nil {
			return err
		}
	}
	return nil
}

// rowFields are the fields a series update still applies occurrence by occurrence: a status or links change
// what the occurrence adds to term counts, which is written with its links.
var rowFields = []string{"status", "venue", "organizer", "categories", "tags"}

// needsRowWrites reports whether a series update sends one of rowFields.
func needsRowWrites(fields []string) bool {
	for _, f := range fields {
		if slices.Contains(rowFields, f) {
			return true
		}
	}
	return false
}

// fieldColumns returns the columns of events field is stored in, with the values of series record e (ser its
// series); none for dates and rowFields.
func fieldColumns(e *Event, ser *EventSeries, field string) map[string]any {
	switch field {
	case "title":
		return map[string]any{"title": e.Title}
	case "description":
		return map[string]any{"description": e.Description}
	case "excerpt":
		return map[string]any{"excerpt": e.Excerpt}
	case "author":
		return map[string]any{"author_id": e.AuthorID}
	case "date":
		return map[string]any{"published_at": e.PublishedAt}
	case "image":
		return map[string]any{"image_id": e.ImageID}
	case "cost":
		return map[string]any{"cost": e.Cost}
	case "website":
		return map[string]any{"website": e.Website}
	case "show_map":
		return map[string]any{"show_map": e.ShowMap}
	case "show_map_link":
		return map[string]any{"show_map_link": e.ShowMapLink}
	case "hide_from_listings":
		return map[string]any{"hide_from_listings": ser.HideFromListings}
	case "sticky":
		return map[string]any{"sticky": e.Sticky}
	case "featured":
		return map[string]any{"featured": e.Featured}
	case "ticketed":
		return map[string]any{"ticketed": e.Ticketed}
	case "parent":
		return map[string]any{"parent_id": e.ParentID}
	case "password":
		return map[string]any{"password": e.Password}
	}
	return nil
}

// copiedFields are the fields of a series update that the occurrence of row takes from the series: those sent
// that it did not change on its own, its dates aside.
func copiedFields(fields []string, row EventOccurrence) []string {
	var out []string
	for _, f := range fields {
		if f != "dates" && !row.Overridden(f) {
			out = append(out, f)
		}
	}
	return out
}

// occurrenceMove is what a series update writes to the occurrence of row whose original start becomes rid: its
// dates from the series record e when the series' dates changed or its original start moved, unless it moved on
// its own; and its original start when that moved. ok is false when neither changes.
func occurrenceMove(e *Event, row EventOccurrence, rid time.Time, datesChanged bool) (m OccurrenceMove, ok bool) {
	movedID := !rid.Equal(row.RecurrenceID)
	m = OccurrenceMove{EventID: row.EventID, Dates: (datesChanged || movedID) && !row.Overridden("dates")}
	if m.Dates {
		m.Start, m.End = OccurrenceDates(e, rid)
		m.Abbr = input.TimezoneAbbr(input.StoredLocation(e.Timezone), e.Timezone, m.Start)
	}
	if movedID {
		r := rid.UTC()
		m.RecurrenceID = &r
	}
	return m, m.Dates || movedID
}

// changeOccurrences applies a series update that sends none of rowFields to its kept occurrences (m.Kept, indexes
// of rows) in a number of statements that does not grow with theirs: the occurrences that copy the same fields
// (all but the exceptions, usually) get them in one UPDATE, and those whose dates change get them in one batched
// UPDATE, with their moved original starts in one more. Exceptions keep the fields they changed on their own and
// every occurrence its ID.
func (s *Store) changeOccurrences(e *Event, rows []EventOccurrence,
	kept map[int]time.Time, byID map[uint64]*Event, fields []string, datesChanged bool) error {
	groups := map[string][]uint64{}
	var moves []OccurrenceMove
	for i, rid := range kept {
		row := rows[i]
		if byID[row.EventID] == nil {
			continue
		}
		if copied := copiedFields(fields, row); len(copied) > 0 {
			key := strings.Join(copied, ",")
			groups[key] = append(groups[key], row.EventID)
		}
		if m, ok := occurrenceMove(e, row, rid, datesChanged); ok {
			moves = append(moves, m)
		}
	}
	now := e.UpdatedAt
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		columns := map[string]any{"updated_at": now}
		for _, f := range strings.Split(key, ",") {
			for c, v := range fieldColumns(e, e.Series, f) {
				columns[c] = v
			}
		}
		ids := groups[key]
		slices.Sort(ids)
		if err := s.SetOnEvents(ids, columns); err != nil {
			return err
		}
	}
	slices.SortFunc(moves, func(a, b OccurrenceMove) int { return cmp.Compare(a.EventID, b.EventID) })
	return s.SetOccurrenceDates(moves, e.Timezone, e.AllDay, now)
}

// copyField gives occurrence o the value field has on series record e (ser is e's series).
func copyField(o, e *Event, ser *EventSeries, field string) {
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
