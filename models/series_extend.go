package models

import (
	"context"
	"time"

	"calendar/controllers/input"
	"calendar/models/recurrence"
)

// SeriesHorizon is the last instant an open-ended series in loc has occurrences at now: span past the end of today
// in loc.
func SeriesHorizon(now time.Time, span time.Duration, loc *time.Location) time.Time {
	return input.EndOfDay(now.Add(span), loc)
}

// Rule reads the rule ser has stored for its record e. Its limit on occurrences up to the horizon held when it was
// written; as the days pass, a series may grow past it, which is no reason to stop extending or editing it.
func (ser *EventSeries) Rule(e *Event) (*recurrence.Set, error) {
	return recurrence.Parse(recurrence.Input{Lines: ser.Lines(), Start: e.StartUTC.In(input.StoredLocation(e.Timezone)),
		AllDay: e.AllDay})
}

// OccurrenceDates are the start and end of the occurrence of series record e starting at start: as long as e on
// the wall clock for an all-day series (whole days), as long in time otherwise.
func OccurrenceDates(e *Event, start time.Time) (time.Time, time.Time) {
	loc := input.StoredLocation(e.Timezone)
	start = start.In(loc)
	if e.AllDay {
		s0, e0 := e.StartUTC.In(loc), e.EndUTC.In(loc)
		days := int(time.Date(e0.Year(), e0.Month(), e0.Day(), 0, 0, 0, 0, time.UTC).
			Sub(time.Date(s0.Year(), s0.Month(), s0.Day(), 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
		end := time.Date(start.Year(), start.Month(), start.Day()+days, 23, 59, 59, 0, loc)
		return start.UTC(), end.UTC()
	}
	return start.UTC(), start.Add(e.EndUTC.Sub(e.StartUTC)).UTC()
}

// occurrenceOf is the occurrence of series record e that starts at start: the series' fields, its own dates, and
// as the base of its slug the series' slug and the occurrence's day.
func occurrenceOf(e *Event, ser *EventSeries, start time.Time) *Event {
	o := *e
	o.ID = 0
	o.Series, o.Occurrence, o.OccurrenceSeries = nil, nil, nil
	o.VenueLinks, o.OrganizerLinks, o.CategoryLinks, o.TagLinks = nil, nil, nil, nil
	o.HideFromListings = ser.HideFromListings
	seriesID := e.ID
	o.SeriesID = &seriesID
	o.StartUTC, o.EndUTC = OccurrenceDates(e, start)
	loc := input.StoredLocation(e.Timezone)
	o.TimezoneAbbr = input.TimezoneAbbr(loc, e.Timezone, o.StartUTC)
	o.Slug = e.Slug + "-" + start.In(loc).Format("2006-01-02")
	return &o
}

// AddSeriesOccurrences creates an occurrence of the series record e for each start, with the links given, in a
// few statements (InsertOccurrences). Call it inside the transaction that writes the series.
func (s *Store) AddSeriesOccurrences(e *Event, ser *EventSeries, starts []time.Time, venues, organizers, categories,
	tags []uint64) error {
	events := make([]*Event, len(starts))
	for i, start := range starts {
		events[i] = occurrenceOf(e, ser, start)
	}
	if err := s.InsertOccurrences(events, venues, organizers, categories, tags); err != nil {
		return err
	}
	rows := make([]EventOccurrence, len(starts))
	for i, start := range starts {
		rows[i] = EventOccurrence{EventID: events[i].ID, SeriesID: e.ID, RecurrenceID: start.UTC()}
	}
	return s.AddOccurrences(rows)
}

// ExtendSeries is the horizon job's unit of work: in one transaction, it adds to series id the occurrences between
// its last expansion and its horizon at now (span past the end of today in the series' zone), with the series'
// links, and reports whether it did: false when the series is already there, ends before, is trashed, or another
// instance holds it (ClaimSeries). It waits for a write of the series under way: it locks the series record, as
// every write of the series does.
func (s *Store) ExtendSeries(ctx context.Context, id uint64, now time.Time, span time.Duration) (bool, error) {
	extended := false
	err := s.Tx(ctx, func(tx *Store) error {
		extended = false
		e, err := tx.LockEvent(id)
		if err != nil {
			return err
		}
		horizon := SeriesHorizon(now, span, input.StoredLocation(e.Timezone))
		ser, err := tx.ClaimSeries(id, horizon)
		if err != nil || ser == nil || e.Status == StatusTrash {
			return err
		}
		set, err := ser.Rule(e)
		if err != nil {
			return err
		}
		starts := set.Between(ser.ExpandedUntil.Add(time.Second), horizon.Add(time.Second), recurrence.MaxOccurrences)
		e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = ser.VenueLinks, ser.OrganizerLinks,
			ser.CategoryLinks, ser.TagLinks
		venues, organizers, categories, tags, err := e.LinkIDs()
		if err != nil {
			return err
		}
		if err := tx.AddSeriesOccurrences(e, ser, starts, venues, organizers, categories, tags); err != nil {
			return err
		}
		ser.ExpandedUntil = &horizon
		extended = true
		return tx.SaveSeries(ser)
	})
	return extended, err
}
