package controllers

import (
	"slices"
	"strings"
	"time"

	"calendar/controllers/input"
	"calendar/models"
)

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
func fieldColumns(e *models.Event, ser *models.EventSeries, field string) map[string]any {
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

// changeOccurrences applies a series update that sends none of rowFields to its kept occurrences (m.Kept, indexes
// of rows) in a number of statements that does not grow with theirs: the occurrences that copy the same fields
// (all but the exceptions, usually) get them in one UPDATE, and those whose dates change get them in one batched
// UPDATE, with their moved original starts in one more. Exceptions keep the fields they changed on their own and
// every occurrence its ID.
func (ec *EventController) changeOccurrences(tx *models.Store, e *models.Event, rows []models.EventOccurrence,
	kept map[int]time.Time, byID map[uint64]*models.Event, fields []string, datesChanged bool) error {
	groups := map[string][]uint64{}
	var moves []models.OccurrenceMove
	loc := eventLocation(e.Timezone)
	for i, rid := range kept {
		row := rows[i]
		if byID[row.EventID] == nil {
			continue
		}
		var copied []string
		for _, f := range fields {
			if f != "dates" && !row.Overridden(f) {
				copied = append(copied, f)
			}
		}
		if len(copied) > 0 {
			key := strings.Join(copied, ",")
			groups[key] = append(groups[key], row.EventID)
		}
		movedID := !rid.Equal(row.RecurrenceID)
		newDates := (datesChanged || movedID) && !row.Overridden("dates")
		if newDates || movedID {
			m := models.OccurrenceMove{EventID: row.EventID, Dates: newDates}
			if newDates {
				m.Start, m.End = models.OccurrenceDates(e, rid)
				m.Abbr = input.TimezoneAbbr(loc, e.Timezone, m.Start)
			}
			if movedID {
				r := rid.UTC()
				m.RecurrenceID = &r
			}
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
		if err := tx.SetOnEvents(ids, columns); err != nil {
			return err
		}
	}
	slices.SortFunc(moves, func(a, b models.OccurrenceMove) int { return cmpID(a.EventID, b.EventID) })
	return tx.SetOccurrenceDates(moves, e.Timezone, e.AllDay, now)
}

// cmpID orders IDs.
func cmpID(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
