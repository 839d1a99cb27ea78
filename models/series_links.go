package models

import (
	"strconv"
	"strings"

	"gorm.io/gorm/clause"
)

// seriesList is the event_series column that holds a series' links of one link table, and whether its entries
// carry positions (position:id, as venues and organizers do) or are bare IDs.
type seriesList struct {
	column     string
	positioned bool
}

// seriesLists maps each link table to its series list.
var seriesLists = map[string]seriesList{
	"event_venues":     {"venue_links", true},
	"event_organizers": {"organizer_links", true},
	"event_categories": {"category_links", false},
	"event_tags":       {"tag_links", false},
}

// maxSeriesPerUpdate bounds the series one CASE update writes (two parameters each, plus the IDs).
const maxSeriesPerUpdate = 5000

// unlinkSeries removes record id of joinTable's kind from the lists of every series that links to it (the series
// record has no link rows, so unlinking the occurrences alone would leave the series showing it and the horizon
// job giving it to new occurrences). The series records are locked first, in ID order, as a series write locks
// its record before its occurrences; then one read and one UPDATE per 5,000 series write the lists, whatever
// their number. Call it inside the transaction that trashes or deletes the record, before unlinking its events.
func (s *Store) unlinkSeries(joinTable string, id uint64) error {
	list, ok := seriesLists[joinTable]
	if !ok {
		return nil
	}
	sep := ","
	if list.positioned {
		sep = ":"
	}
	match := "',' || " + list.column + " || ',' LIKE ?"
	pattern := "%" + sep + strconv.FormatUint(id, 10) + ",%"
	if s.dialect == Postgres {
		var locked []uint64
		err := s.db.Table("events").Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("id IN (SELECT event_id FROM event_series WHERE "+match+")", pattern).Order("id").
			Pluck("id", &locked).Error
		if err != nil || len(locked) == 0 {
			return err
		}
	}
	var rows []struct {
		EventID uint64
		List    *string
	}
	err := s.db.Table("event_series").Select("event_id, "+list.column+" AS list").Where(match, pattern).
		Order("event_id").Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return err
	}
	for start := 0; start < len(rows); start += maxSeriesPerUpdate {
		chunk := rows[start:min(start+maxSeriesPerUpdate, len(rows))]
		var sql strings.Builder
		sql.WriteString("UPDATE event_series SET " + list.column + " = CASE event_id")
		args := make([]any, 0, 2*len(chunk)+1)
		ids := make([]uint64, len(chunk))
		for i, r := range chunk {
			sql.WriteString(" WHEN ? THEN ?")
			args = append(args, r.EventID, withoutID(r.List, id, list.positioned))
			ids[i] = r.EventID
		}
		sql.WriteString(" END WHERE event_id IN ?")
		if err := s.db.Exec(sql.String(), append(args, ids)...).Error; err != nil {
			return err
		}
	}
	return nil
}

// withoutID returns a link list (LinkLists' form) without id, positions renumbered; nil when nothing is left.
func withoutID(list *string, id uint64, positioned bool) *string {
	if list == nil {
		return nil
	}
	var kept []uint64
	for _, entry := range strings.Split(*list, ",") {
		if positioned {
			if _, after, ok := strings.Cut(entry, ":"); ok {
				entry = after
			}
		}
		v, err := strconv.ParseUint(entry, 10, 64)
		if err == nil && v != id {
			kept = append(kept, v)
		}
	}
	return linkList(kept, positioned)
}
