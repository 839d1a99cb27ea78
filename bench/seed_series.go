package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"calendar/config"
	"calendar/controllers/input"
	"calendar/models"
	"calendar/models/recurrence"
)

// seriesPlan decides how the seeded events divide into single events and occurrences of series: occurrences make
// up share of them, spread over the whole ID range (a series is started whenever the occurrences fall behind their
// share of the events made so far), and the occurrences and single events together are exactly n.
type seriesPlan struct {
	n, made, occurrences, target int
	share                        float64
	nextID                       uint64
	// horizon is how far past today the service expands an open-ended series (CALENDAR_RECURRENCE_HORIZON, read
	// as the service reads it, so that the horizon job finds the seeded series already expanded).
	horizon time.Duration
}

// newSeriesPlan plans n events of which share are occurrences of series.
func newSeriesPlan(n int, share float64) (*seriesPlan, error) {
	cfg, _, err := config.Load(nil, os.Getenv, io.Discard)
	if err != nil {
		return nil, err
	}
	return &seriesPlan{n: n, target: int(float64(n)*share + 0.5), share: share, nextID: 1,
		horizon: cfg.RecurrenceHorizon}, nil
}

// done says whether every event is made.
func (p *seriesPlan) done() bool { return p.made >= p.n }

// seriesNext says whether the next event made should start a series.
func (p *seriesPlan) seriesNext() bool {
	return p.occurrences < p.target && float64(p.occurrences) < p.share*float64(p.made+1)
}

// room is the most occurrences the next series may have.
func (p *seriesPlan) room() int { return min(p.target-p.occurrences, p.n-p.made) }

// takeID hands out the next event ID.
func (p *seriesPlan) takeID() uint64 {
	id := p.nextID
	p.nextID++
	return id
}

// seededSeries is one series as the service stores it: the series record, its event_series row, its occurrences
// with their event_occurrences rows, and the links every occurrence has.
type seededSeries struct {
	record      models.Event
	series      models.EventSeries
	occurrences []models.Event
	rows        []models.EventOccurrence
	links       seededLinks
}

// seededLinks are the records one event (or every occurrence of one series) links to.
type seededLinks struct {
	venues, organizers, categories, tags []uint64
}

// seriesRule is a kind of recurrence the seeder gives a series meant to start near start: the series' start (the
// rule's first occurrence, which the service requires it to be) and the lines a client would send.
type seriesRule func(s *seeder, start time.Time, allDay bool) (time.Time, []string)

// seriesRules are the kinds of series seeded, in proportion to how often each appears: weekly classes (open-ended
// and with a COUNT), monthly meetings (open-ended, and on the n-th weekday with a COUNT), and festivals of
// consecutive days ending on an UNTIL.
var seriesRules = []seriesRule{
	weeklyOpen, weeklyOpen, weeklyOpen, weeklyTwoDays, weeklyTwoDays,
	monthlyOpen, monthlyOpen, monthlyNthWeekday, dailyUntil, dailyUntil,
}

// weeklyOpen repeats every week on the start's weekday with no end: expanded to the horizon.
func weeklyOpen(_ *seeder, start time.Time, _ bool) (time.Time, []string) {
	return start, []string{"RRULE:FREQ=WEEKLY;BYDAY=" + weekdayCode(start.Weekday())}
}

// weeklyTwoDays repeats on the start's weekday and two days later, 10 to 40 times.
func weeklyTwoDays(s *seeder, start time.Time, _ bool) (time.Time, []string) {
	days := weekdayCode(start.Weekday()) + "," + weekdayCode((start.Weekday()+2)%7)
	return start, []string{fmt.Sprintf("RRULE:FREQ=WEEKLY;BYDAY=%s;COUNT=%d", days, 10+s.rng.IntN(31))}
}

// monthlyOpen repeats on the start's day of the month (moved to the 28th at most, so that no month is skipped)
// with no end.
func monthlyOpen(_ *seeder, start time.Time, _ bool) (time.Time, []string) {
	if start.Day() > 28 {
		start = start.AddDate(0, 0, 28-start.Day())
	}
	return start, []string{"RRULE:FREQ=MONTHLY"}
}

// monthlyNthWeekday repeats on the n-th weekday of the month the start is (the first to the fourth), 6 to 24
// times.
func monthlyNthWeekday(s *seeder, start time.Time, _ bool) (time.Time, []string) {
	if start.Day() > 28 {
		start = start.AddDate(0, 0, 28-start.Day())
	}
	nth := (start.Day()-1)/7 + 1
	return start, []string{fmt.Sprintf("RRULE:FREQ=MONTHLY;BYDAY=%d%s;COUNT=%d", nth, weekdayCode(start.Weekday()),
		6+s.rng.IntN(19))}
}

// dailyUntil repeats every day for 3 to 15 days, the last one given as UNTIL (a date for an all-day series, UTC
// otherwise).
func dailyUntil(s *seeder, start time.Time, allDay bool) (time.Time, []string) {
	last := start.AddDate(0, 0, 2+s.rng.IntN(13))
	until := last.UTC().Format("20060102T150405Z")
	if allDay {
		until = last.Format("20060102")
	}
	return start, []string{"RRULE:FREQ=DAILY;UNTIL=" + until}
}

// weekdayCode is the RFC 5545 code of a weekday.
func weekdayCode(d time.Weekday) string {
	return [...]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}[d]
}

// series makes one series with at most room occurrences, its record taking the plan's next ID and each
// occurrence the following ones, as a client creating it through POST /events would have it stored.
func (s *seeder) series(p *seriesPlan, start time.Time) (seededSeries, error) {
	id := p.takeID()
	record := s.event(id, start.Truncate(15*time.Minute)) // a series starts on a quarter hour, as clients set them
	set, err := s.seriesRule(p, &record)
	if err != nil {
		return seededSeries{}, err
	}
	ser := models.EventSeries{EventID: id, Recurrence: strings.Join(set.Lines(), "\n"), RecurrenceText: set.Text()}
	loc := input.StoredLocation(record.Timezone)
	expandUntil := record.StartUTC.AddDate(1000, 0, 0)
	if !set.Finite() {
		h := models.SeriesHorizon(s.now, p.horizon, loc)
		ser.ExpandedUntil, expandUntil = &h, h
	}
	starts := set.Until(expandUntil, recurrence.MaxOccurrences)
	links := s.links()
	ser.VenueLinks, ser.OrganizerLinks, ser.CategoryLinks, ser.TagLinks = models.LinkLists(links.venues,
		links.organizers, links.categories, links.tags)
	record.HideFromListings, record.SeriesID = true, &record.ID // hidden; its client's hide_from_listings is ser's
	out := seededSeries{record: record, series: ser, links: links}
	for _, at := range starts {
		o := occurrence(&record, &ser, p.takeID(), at, loc)
		out.occurrences = append(out.occurrences, o)
		out.rows = append(out.rows, models.EventOccurrence{EventID: o.ID, SeriesID: id, RecurrenceID: at.UTC()})
	}
	s.overrideOne(&out)
	return out, nil
}

// seriesRule picks the series' rule, moves its record's dates to the rule's first occurrence, excludes one
// occurrence in two (an EXDATE), and falls back to a weekly COUNT when the rule would make more occurrences than
// the plan has room for.
func (s *seeder) seriesRule(p *seriesPlan, record *models.Event) (*recurrence.Set, error) {
	loc := input.StoredLocation(record.Timezone)
	start, lines := seriesRules[s.rng.IntN(len(seriesRules))](s, record.StartUTC.In(loc), record.AllDay)
	moveRecord(record, start)
	set, err := s.parseRule(p, record, lines)
	if err != nil {
		return nil, err
	}
	expanded := set.Until(s.expansionEnd(p, record, set), p.room()+1)
	if len(expanded) > p.room() {
		return s.parseRule(p, record, []string{fmt.Sprintf("RRULE:FREQ=WEEKLY;COUNT=%d", p.room())})
	}
	if len(expanded) > 2 && s.rng.IntN(2) == 0 {
		return set.WithExdate(expanded[1+s.rng.IntN(len(expanded)-1)])
	}
	return set, nil
}

// parseRule reads a series' lines as the service does when the series is written.
func (s *seeder) parseRule(p *seriesPlan, record *models.Event, lines []string) (*recurrence.Set, error) {
	loc := input.StoredLocation(record.Timezone)
	return recurrence.Parse(recurrence.Input{Lines: lines, Start: record.StartUTC.In(loc), AllDay: record.AllDay,
		Horizon: models.SeriesHorizon(s.now, p.horizon, loc)})
}

// expansionEnd is how far the service creates a series' occurrences: its horizon, or for rules that end, as far as
// they go.
func (s *seeder) expansionEnd(p *seriesPlan, record *models.Event, set *recurrence.Set) time.Time {
	if set.Finite() {
		return record.StartUTC.AddDate(1000, 0, 0)
	}
	return models.SeriesHorizon(s.now, p.horizon, input.StoredLocation(record.Timezone))
}

// moveRecord gives a series record a new start, keeping its length (an all-day record stays one whole day).
func moveRecord(record *models.Event, start time.Time) {
	length := record.EndUTC.Sub(record.StartUTC)
	record.StartUTC, record.EndUTC = start.UTC(), start.UTC().Add(length)
}

// occurrence is the occurrence of series record starting at at, with the given ID: the record's fields, the
// series' listing, its own dates, zone abbreviation and slug ({record slug}-{day}); addEvent gives it the series'
// links.
func occurrence(record *models.Event, ser *models.EventSeries, id uint64, at time.Time, loc *time.Location) models.Event {
	o := *record
	o.ID = id
	o.HideFromListings = ser.HideFromListings
	o.SeriesID = &ser.EventID
	o.StartUTC, o.EndUTC = models.OccurrenceDates(record, at)
	o.TimezoneAbbr = input.TimezoneAbbr(loc, record.Timezone, o.StartUTC)
	o.Slug = record.Slug + "-" + at.In(loc).Format("2006-01-02")
	return o
}

// overrideOne edits the third occurrence of one series in four on its own, as PATCH /events/{occurrence} with a
// title would: its title differs from the series' and its row names the field.
func (s *seeder) overrideOne(ser *seededSeries) {
	if len(ser.occurrences) < 3 || s.rng.IntN(4) != 0 {
		return
	}
	o := &ser.occurrences[2]
	o.Title += " (special guest)"
	o.UpdatedAt = o.UpdatedAt.Add(24 * time.Hour)
	ser.rows[2].AddOverrides("title")
}

// links picks the records of one event: 1 venue, 1–3 organizers, 1–3 categories and 0–4 tags.
func (s *seeder) links() seededLinks {
	return seededLinks{venues: []uint64{uint64(1 + s.rng.IntN(seedVenues))},
		organizers: s.distinct(1+s.rng.IntN(3), seedOrganizers),
		categories: s.distinct(1+s.rng.IntN(3), seedTopCats*(seedChildCats+1)),
		tags:       s.distinct(s.rng.IntN(5), seedTags)}
}
