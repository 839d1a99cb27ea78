package models

import (
	"slices"
	"strings"
	"time"
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
