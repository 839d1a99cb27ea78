package models

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// EventSeries is what makes an event a series (migration 00015): its recurrence lines, the client's
// hide_from_listings of the series (its own row is always hidden, so lists never show the series record), and how
// far its occurrences have been created.
type EventSeries struct {
	EventID    uint64 `gorm:"primaryKey;autoIncrement:false"`
	Recurrence string `gorm:"not null"`
	// RecurrenceText is the English summary of the lines.
	RecurrenceText   string `gorm:"not null;default:''"`
	HideFromListings bool   `gorm:"not null;default:false"`
	// ExpandedUntil is the horizon the series was last expanded to; nil when its rules end before any horizon.
	ExpandedUntil *time.Time
	// VenueLinks, OrganizerLinks, CategoryLinks and TagLinks are the series' links, in the form of the events'
	// link lists (Event.VenueLinks): the series record has no link rows, so that only occurrences count.
	VenueLinks     *string
	OrganizerLinks *string
	CategoryLinks  *string
	TagLinks       *string
}

// TableName is the series' table.
func (EventSeries) TableName() string { return "event_series" }

// Lines are the series' recurrence lines.
func (s *EventSeries) Lines() []string {
	if s.Recurrence == "" {
		return []string{}
	}
	return strings.Split(s.Recurrence, "\n")
}

// EventOccurrence makes an event an occurrence of a series: its series, its original start (RECURRENCE-ID) and
// the fields it changed on its own.
type EventOccurrence struct {
	EventID      uint64    `gorm:"primaryKey;autoIncrement:false"`
	SeriesID     uint64    `gorm:"not null"`
	RecurrenceID time.Time `gorm:"not null"`
	// Overrides are the API names of the fields the occurrence changed on its own, comma-separated.
	Overrides string `gorm:"not null;default:''"`
}

// IsException reports whether the occurrence was edited on its own.
func (o *EventOccurrence) IsException() bool { return o.Overrides != "" }

// Overridden reports whether the occurrence changed field on its own.
func (o *EventOccurrence) Overridden(field string) bool {
	for _, f := range strings.Split(o.Overrides, ",") {
		if f == field {
			return true
		}
	}
	return false
}

// AddOverrides records fields as changed by the occurrence on its own.
func (o *EventOccurrence) AddOverrides(fields ...string) {
	for _, f := range fields {
		if f == "" || o.Overridden(f) {
			continue
		}
		if o.Overrides != "" {
			o.Overrides += ","
		}
		o.Overrides += f
	}
}

// SaveSeries writes a series' row, creating or replacing it.
func (s *Store) SaveSeries(ser *EventSeries) error {
	return s.db.Clauses(clause.OnConflict{UpdateAll: true}).Create(ser).Error
}

// SeriesRecord tells, in one statement, who may read event id (its Owned) and whether it is a series record: what a
// list of a series' occurrences checks before it lists them. ErrNotFound when no event has the ID.
func (s *Store) SeriesRecord(id uint64) (Owned, bool, error) {
	var rows []struct {
		Owned
		IsSeries bool
	}
	err := s.db.Raw(`SELECT e.author_id, e.status, e.trashed_status,
		EXISTS (SELECT 1 FROM event_series s WHERE s.event_id = e.id) AS is_series FROM events e WHERE e.id = ?`, id).
		Scan(&rows).Error
	switch {
	case err != nil:
		return Owned{}, false, err
	case len(rows) == 0:
		return Owned{}, false, ErrNotFound
	}
	return rows[0].Owned, rows[0].IsSeries, nil
}

// OccurrenceOf returns the occurrence row of event id, or ErrNotFound when the event is not an occurrence.
func (s *Store) OccurrenceOf(id uint64) (*EventOccurrence, error) {
	var rows []EventOccurrence
	if err := s.db.Where("event_id = ?", id).Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	return &rows[0], nil
}

// OccurrencesOf returns the occurrence rows of a series, by original start. On PostgreSQL they stay locked until
// the transaction ends: a write of the series reads them before the occurrences' events, and an edit of one
// occurrence writes its row, so the two apply one after the other instead of one overwriting the other.
func (s *Store) OccurrencesOf(seriesID uint64) ([]EventOccurrence, error) {
	db := s.db
	if s.dialect == Postgres {
		db = db.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var rows []EventOccurrence
	err := db.Where("series_id = ?", seriesID).Order("recurrence_id").Find(&rows).Error
	return rows, err
}

// AddOccurrences records events as occurrences of their series.
func (s *Store) AddOccurrences(rows []EventOccurrence) error {
	if len(rows) == 0 {
		return nil
	}
	return s.db.CreateInBatches(rows, 200).Error
}

// SaveOccurrence writes an occurrence's row.
func (s *Store) SaveOccurrence(o *EventOccurrence) error {
	return s.db.Save(o).Error
}

// EventsInSeries keeps the occurrences of the series whose record is event id.
func EventsInSeries(id uint64) Scope {
	return func(db *gorm.DB) *gorm.DB {
		return db.Where("events.series_id = ? AND events.id <> ?", id, id)
	}
}

// OccurrenceEvents returns the occurrences of a series that pass scopes (a reader's visibility, say) as events
// (without their links), by start, at most limit of them starting at or after from.
func (s *Store) OccurrenceEvents(seriesID uint64, from time.Time, limit int, scopes ...Scope) ([]Event, error) {
	scopes = append([]Scope{EventsInSeries(seriesID), EventsStartingAtOrAfter(from)}, scopes...)
	return s.eventsIn(s.orderedEventIDs(scopes).Limit(limit), limit)
}

// setSeriesFacts sets e's series facts from its occurrence row (nil unless e is an occurrence) and the row of the
// series it belongs to (nil when none): Series on a series record, which also takes its series' links' lists,
// and Occurrence and OccurrenceSeries on an occurrence.
func (e *Event) setSeriesFacts(occurrence *EventOccurrence, series *EventSeries) {
	if series != nil && series.EventID == e.ID {
		e.Series = series
		e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = series.VenueLinks, series.OrganizerLinks,
			series.CategoryLinks, series.TagLinks
	}
	if occurrence != nil {
		e.Occurrence = occurrence
		if series != nil && series.EventID == occurrence.SeriesID {
			e.OccurrenceSeries = series
		}
	}
}

// LinkIDs returns the records e's link lists name: venues and organizers in their order, categories and tags.
func (e *Event) LinkIDs() (venues, organizers, categories, tags []uint64, err error) {
	rows, err := e.appendLinkRows(nil)
	for _, r := range rows {
		switch r.key.kind {
		case "v":
			venues = append(venues, r.key.id)
		case "o":
			organizers = append(organizers, r.key.id)
		case "c":
			categories = append(categories, r.key.id)
		case "t":
			tags = append(tags, r.key.id)
		}
	}
	return venues, organizers, categories, tags, err
}

// DetachEventLinks removes e's link rows and lists and what it added to term counts, for an event that becomes a
// series record (whose links are its series' lists).
func (s *Store) DetachEventLinks(e *Event) error {
	before, err := e.TermLinks()
	if err != nil {
		return err
	}
	for _, table := range []string{"event_venue_categories", "event_venues", "event_organizers", "event_categories", "event_tags"} {
		if err := s.db.Exec("DELETE FROM "+table+" WHERE event_id = ?", e.ID).Error; err != nil {
			return err
		}
	}
	e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = nil, nil, nil, nil
	if err := s.db.Exec(setLinkListsSQL, nil, nil, nil, nil, e.ID).Error; err != nil {
		return err
	}
	return s.AdjustTermCounts(before, TermLinks{})
}

// DeleteEvents removes events permanently with what they add to term counts; their links and occurrence rows go
// with them (ON DELETE CASCADE).
func (s *Store) DeleteEvents(events []Event) error {
	if len(events) == 0 {
		return nil
	}
	ids := make([]uint64, len(events))
	var deltas []TermCountDelta
	for i := range events {
		ids[i] = events[i].ID
		before, err := events[i].TermLinks()
		if err != nil {
			return err
		}
		deltas = append(deltas, countDeltas(before, TermLinks{})...)
	}
	if len(deltas) > 0 {
		if err := s.db.CreateInBatches(deltas, 500).Error; err != nil {
			return err
		}
	}
	if err := s.lockDayCountsOf(ids); err != nil {
		return err
	}
	return s.db.Exec("DELETE FROM events WHERE id IN ?", ids).Error
}

// SeriesOccurrenceEvents returns every occurrence of a series as events with their link lists (no links loaded),
// by start.
func (s *Store) SeriesOccurrenceEvents(seriesID uint64) ([]Event, error) {
	return scanEvents(s.db.Raw(selectEvents+` WHERE events.series_id = ? AND events.id <> ? ORDER BY `+eventOrder,
		seriesID, seriesID), 16)
}

// HiddenOccurrenceStarts returns, by series, the original starts of the occurrences of series that reader may not
// read (EventsVisibleTo): a draft, a private or a pending occurrence of another author. A series' rule still
// produces them, so a feed written for reader excludes them (EXDATE) rather than show, under the series' fields, a
// date it may not see. Occurrences in the trash are left out: cancelling one already gave the series its EXDATE.
func (s *Store) HiddenOccurrenceStarts(series []uint64, reader *User) (map[uint64][]time.Time, error) {
	if len(series) == 0 {
		return nil, nil
	}
	readable := s.db.Session(&gorm.Session{NewDB: true}).Model(&Event{}).Scopes(EventsVisibleTo(reader)).
		Where("events.series_id IN ?", series).Select("events.id")
	var rows []EventOccurrence
	if err := s.db.Table("event_occurrences").Joins("JOIN events ON events.id = event_occurrences.event_id").
		Where("event_occurrences.series_id IN ? AND events.status <> ? AND event_occurrences.event_id NOT IN (?)",
			series, StatusTrash, readable).
		Order("event_occurrences.series_id, event_occurrences.recurrence_id").
		Select("event_occurrences.*").Find(&rows).Error; err != nil {
		return nil, err
	}
	hidden := map[uint64][]time.Time{}
	for _, o := range rows {
		hidden[o.SeriesID] = append(hidden[o.SeriesID], o.RecurrenceID)
	}
	return hidden, nil
}

// LockSeriesOccurrences is SeriesOccurrenceEvents for changing the occurrences in the current transaction, which
// holds the series record's lock (LockEvent): on PostgreSQL their rows are locked first, in ID order (as
// unlinkEvents locks events), and read after the locks. A write of one occurrence that committed meanwhile is then
// seen, not overwritten with what the series write read before it, and the term counts move from what the
// occurrences link when the series write changes them.
func (s *Store) LockSeriesOccurrences(seriesID uint64) ([]Event, error) {
	if s.dialect == Postgres {
		var ids []uint64
		if err := s.db.Raw("SELECT id FROM events WHERE series_id = ? AND id <> ? ORDER BY id FOR UPDATE",
			seriesID, seriesID).Scan(&ids).Error; err != nil {
			return nil, err
		}
	}
	return s.SeriesOccurrenceEvents(seriesID)
}

// DeleteSeriesRow removes a series' row (the series record becomes a single event) with its occurrence rows.
func (s *Store) DeleteSeriesRow(id uint64) error {
	return s.db.Exec("DELETE FROM event_series WHERE event_id = ?", id).Error
}

// MoveOccurrences gives the occurrences of series from whose original start is at or after at to series to.
func (s *Store) MoveOccurrences(from, to uint64, at time.Time) error {
	if err := s.db.Exec(`UPDATE events SET series_id = ? WHERE id IN (SELECT event_id FROM event_occurrences
		WHERE series_id = ? AND recurrence_id >= ?)`, to, from, at).Error; err != nil {
		return err
	}
	return s.db.Exec("UPDATE event_occurrences SET series_id = ? WHERE series_id = ? AND recurrence_id >= ?", to, from, at).Error
}

// MarkSeriesRecord records on event id's row that it is a series record (series_id its own ID), or a single
// event again (nil).
func (s *Store) MarkSeriesRecord(e *Event, series bool) error {
	e.SeriesID = nil
	if series {
		e.SeriesID = &e.ID
	}
	return s.db.Exec("UPDATE events SET series_id = ? WHERE id = ?", e.SeriesID, e.ID).Error
}

// SeriesToExtend returns the IDs of up to limit series whose occurrences end before until (the horizon job's
// candidates), oldest expansion first.
func (s *Store) SeriesToExtend(until time.Time, limit int) ([]uint64, error) {
	var ids []uint64
	err := s.db.Model(&EventSeries{}).Where("expanded_until IS NOT NULL AND expanded_until < ?", until).
		Order("expanded_until").Limit(limit).Pluck("event_id", &ids).Error
	return ids, err
}

// ClaimSeries returns the series row of id, locked for this transaction, if its occurrences still end before
// until; nil otherwise. On PostgreSQL a row another instance holds is skipped (SKIP LOCKED): that instance is
// extending it, and the next run sees the result. So each extension is done once, however many instances run the
// job; SQLite runs one write transaction at a time.
func (s *Store) ClaimSeries(id uint64, until time.Time) (*EventSeries, error) {
	db := s.db
	if s.dialect == Postgres {
		db = db.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
	}
	var rows []EventSeries
	err := db.Where("event_id = ? AND expanded_until IS NOT NULL AND expanded_until < ?", id, until).Limit(1).Find(&rows).Error
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], nil
}

// EventsByIDs returns the events with ids (without their links), in no particular order.
func (s *Store) EventsByIDs(ids []uint64) ([]Event, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return scanEvents(s.db.Raw(selectEvents+" WHERE events.id IN ?", ids), len(ids))
}

// CollapseSeries keeps, of each series, only its first occurrence (by start, then ID) among the events that pass
// scopes (the list's other filters); single events are kept. An occurrence is kept when it is the first that one
// probe of idx_events_series (series_id, start_utc, id) finds for its series, a probe that stops at the first
// occurrence passing scopes. A page probes only the occurrences it walks past, so page 1 costs a few probes however
// many series there are; finding every series' first occurrence up front had cost one probe per series (913 probes,
// 4.9 ms a page at 100,000 events, against 0.16 ms). The outer row is reached from the probe through event_series,
// whose own FROM does not hide it.
func CollapseSeries(scopes []Scope) Scope {
	return func(db *gorm.DB) *gorm.DB {
		probe := db.Session(&gorm.Session{NewDB: true}).Model(&Event{}).Select("events.id").Scopes(scopes...).
			Where("events.series_id = s.event_id").Order(eventOrder).Limit(1)
		first := db.Session(&gorm.Session{NewDB: true}).Table("event_series AS s").Select("(?)", probe).
			Where("s.event_id = events.series_id")
		return db.Where("(events.series_id IS NULL OR events.id = (?))", first)
	}
}

// ListCollapsed is ListEventsIn for a list with collapse_series=true: one page of the events that pass filters with
// each series once (CollapseSeries), and their total. The total is the single events that pass plus the series with
// an occurrence that passes, one probe of idx_events_series per series: counting the events with the collapse
// condition would probe once per occurrence. The probe is a scalar subquery, not EXISTS, which PostgreSQL turns
// into a semi join that a prepared statement's generic plan merged with every occurrence of the window (see
// docs/benchmarks.md, "A collapsed list's total in every plan"). The single events of a window (w, nil otherwise;
// a window with a circle or categories counts them) are summed from the kept day counts, which keep how many of
// each day's events are occurrences; on PostgreSQL the series of a window of whole days and one status are summed
// from kept counts too (seriesInWindowSQL).
//
// A list that nothing but its window narrows runs from generic plans (withGenericPlans): PostgreSQL estimated the
// page's generic plan at five times the cost of one made for its values, so it planned the page at every call
// (0.95 ms of bind against 0.25 ms of execution at 100,000 events), though the generic plan runs as fast (0.13 ms
// against 0.14 ms at a million).
func (s *Store) ListCollapsed(filters []Scope, page Page, w *Window) (events []Event, total int64, err error) {
	if w.DaysTotal() {
		err = s.withGenericPlans(func(s *Store) error {
			events, total, err = s.listCollapsed(filters, page, w)
			return err
		})
		return events, total, err
	}
	return s.listCollapsed(filters, page, w)
}

// listCollapsed is ListCollapsed on the store it chose. The first page of a window whose series the kept gap
// counts sum (seriesSummed) is read with its total in one statement, as a window's first page is
// (firstPageOfDays).
func (s *Store) listCollapsed(filters []Scope, page Page, w *Window) ([]Event, int64, error) {
	scopes := append(slices.Clip(filters), CollapseSeries(filters))
	summed := s.seriesSummed(w)
	if summed && page.Offset() == 0 {
		return s.firstPageOfDays(w, s.collapsedDays(w), "@page",
			map[string]any{"page": s.orderedEventIDs(scopes).Limit(page.Size)}, page.Size)
	}
	return s.listCounted(scopes, page, func() (int64, error) {
		if summed {
			days, err := s.windowDays(w, false, s.collapsedDays(w))
			return sumDays(days), err
		}
		var singles, series int64
		inSeries := s.db.Model(&Event{}).Select("1").Scopes(filters...).
			Where("events.series_id = s.event_id").Limit(1)
		if err := s.db.Table("event_series AS s").Where("(?) IS NOT NULL", inSeries).Count(&series).Error; err != nil {
			return 0, err
		}
		if w.DaysTotal() {
			days, err := s.windowDays(w, false, s.listedDays(true))
			return sumDays(days) + series, err
		}
		err := s.db.Model(&Event{}).Scopes(filters...).Where("events.series_id IS NULL").Count(&singles).Error
		return singles + series, err
	})
}

// collapsedDays counts what a collapsed list of the window w totals when its series are summed (seriesSummed): its
// single events from the kept day counts, plus its series from the kept gap counts (seriesInWindowSQL).
func (s *Store) collapsedDays(w *Window) dayCounted {
	c := s.listedDays(true)
	c.plus, c.bound = "SELECT 0, CAST(("+seriesInWindowSQL+") AS BIGINT)", seriesInWindowArgs(w)
	return c
}

// seriesInWindowSQL counts the series with an occurrence of one status in a window of whole days (its first day and
// its last), from the kept gap counts: the migration that creates series_gap_days shows why the sum of n over
// day < @first and until_day <= @last counts each such series once. Probing each series for an occurrence in the
// window took 40 ms for the 9,464 series of a million events. The sum is read as windowBlocksSQL reads a window's
// day counts: the blocks of 32 days (series_gap_blocks) before the first day's block and before the last day's, the
// gap days of the first day's block, then those before it whose until falls in the last day's block. Summing the
// gap days alone read every past one (2,803 rows at 100,000 events).
const seriesInWindowSQL = `SELECT COALESCE(SUM(n), 0) FROM (
	SELECT n FROM series_gap_blocks WHERE status = @status AND block < @first_block AND until_block < @last_block
	UNION ALL SELECT n FROM series_gap_days WHERE status = @status AND day >= @first_block_day AND day < @first
		AND until_day <= @last
	UNION ALL SELECT n FROM series_gap_days WHERE status = @status AND day < @first_block_day
		AND until_day >= @last_block_day AND until_day <= @last) AS kept`

// seriesInWindowArgs are seriesInWindowSQL's named arguments for the window w.
func seriesInWindowArgs(w *Window) map[string]any {
	first, last := utcDay(w.Start), utcDay(w.End)
	return map[string]any{"status": w.Statuses[0], "first": first, "last": last,
		"first_block": dayBlock(first), "first_block_day": dayBlock(first) << 5,
		"last_block": dayBlock(last), "last_block_day": dayBlock(last) << 5}
}

// seriesSummed tells whether seriesInWindowSQL counts the series of w: on PostgreSQL, for a window the kept day
// counts total, of one status, from the start of a day to the end of one.
func (s *Store) seriesSummed(w *Window) bool {
	return s.dialect == Postgres && w.DaysTotal() && len(w.Statuses) == 1 && !w.End.Before(w.Start) &&
		w.coversFirstDay() && w.coversLastDay()
}

// occurrenceBatch is how many occurrences one INSERT writes.
const occurrenceBatch = 200

// InsertOccurrences inserts new occurrences of one series (each Slug holds its slug's base, Date-based; the
// occurrences share their links) with their links, link lists and what they add to term counts, in a few
// statements whatever their number: the events in batches, then each link table in batches. Slugs repeated in the
// batch get -2, -3, …; one another event has already is found in one read and, like a batch that fails on a slug a
// concurrent writer took meanwhile (rolled back to a savepoint), inserted the careful way (CreateEventWithSlug).
// Call it inside the transaction that writes the series.
func (s *Store) InsertOccurrences(events []*Event, venues, organizers, categories, tags []uint64) error {
	if len(events) == 0 {
		return nil
	}
	bases := make([]string, len(events))
	uses := map[string]int{}
	candidates := make([]string, len(events))
	for i, e := range events {
		e.ID = 0
		e.SetLinkLists(venues, organizers, categories, tags)
		bases[i] = e.Slug
		uses[e.Slug]++
		e.Slug = slugCandidate(e.Slug, uses[e.Slug])
		candidates[i] = e.Slug
	}
	taken := map[string]bool{}
	for start := 0; start < len(candidates); start += occurrenceBatch {
		var found []string
		chunk := candidates[start:min(start+occurrenceBatch, len(candidates))]
		if err := s.db.Model(&Event{}).Where("slug IN ?", chunk).Pluck("slug", &found).Error; err != nil {
			return err
		}
		for _, f := range found {
			taken[f] = true
		}
	}
	var fast, careful []int
	for i, e := range events {
		if taken[e.Slug] {
			careful = append(careful, i)
		} else {
			fast = append(fast, i)
		}
	}
	if len(fast) > 0 {
		rows := make([]*Event, len(fast))
		for j, i := range fast {
			rows[j] = events[i]
		}
		if err := s.db.SavePoint("occurrences").Error; err != nil {
			return err
		}
		if err := s.db.Omit(clause.Associations).CreateInBatches(rows, occurrenceBatch).Error; err != nil {
			if err := s.db.RollbackTo("occurrences").Error; err != nil {
				return err
			}
			careful = append(careful, fast...)
		}
	}
	for _, i := range careful {
		if err := s.CreateEventWithSlug(events[i], bases[i]); err != nil {
			return err
		}
	}
	return s.linkOccurrences(events, venues, organizers, categories, tags)
}

// linkOccurrences writes the link rows of new occurrences that share their links, and their term-count deltas.
func (s *Store) linkOccurrences(events []*Event, venues, organizers, categories, tags []uint64) error {
	var ev []EventVenue
	var eo []EventOrganizer
	var ec []EventCategory
	var et []EventTag
	var pairs []EventVenueCategory
	published := 0
	for _, e := range events {
		for p, id := range venues {
			ev = append(ev, EventVenue{EventID: e.ID, VenueID: id, Position: p})
		}
		for p, id := range organizers {
			eo = append(eo, EventOrganizer{EventID: e.ID, OrganizerID: id, Position: p})
		}
		for _, id := range categories {
			ec = append(ec, EventCategory{EventID: e.ID, CategoryID: id})
		}
		for _, id := range tags {
			et = append(et, EventTag{EventID: e.ID, TagID: id})
		}
		pairs = append(pairs, EventVenueCategories(e.ID, venues, categories)...)
		if e.Status == StatusPublish {
			published++
		}
	}
	for _, rows := range []any{ev, eo, ec, et, pairs} {
		if err := createAll(s.db, rows); err != nil {
			return err
		}
	}
	var deltas []TermCountDelta
	if published > 0 {
		for _, id := range categories {
			deltas = append(deltas, TermCountDelta{Taxonomy: CategoryTaxonomy.table, TermID: id, Delta: published})
		}
		for _, id := range tags {
			deltas = append(deltas, TermCountDelta{Taxonomy: TagTaxonomy.table, TermID: id, Delta: published})
		}
	}
	return createAll(s.db, deltas)
}

// createAll inserts a slice of rows in batches; an empty slice is nothing to do.
func createAll(db *gorm.DB, rows any) error {
	if reflect.ValueOf(rows).Len() == 0 {
		return nil
	}
	return db.CreateInBatches(rows, 500).Error
}
