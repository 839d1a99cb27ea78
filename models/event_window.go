package models

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Window is a list that kept totals can total without counting its events: listed events with one of Statuses that
// start at or after Start and end at or before End, with no other filter than one of Near, Categories or Search.
// Without any, the kept day counts (table event_day_counts, kept by triggers on events) total and page it; with
// Near, the kept venue links (venue_listed_events) total it; with Categories, the kept category links
// (category_listed_events); with Search, the kept search matches (search_listed_events) once the search is kept.
// Every other list counts its matches.
type Window struct {
	Statuses   []string
	Start, End time.Time
	// Near, when set, keeps only the events at a venue within the circle.
	Near *Circle
	// Categories, when set, keeps only the events in one of these categories (a filter's categories with their
	// descendants).
	Categories []uint64
	// Search, when set, keeps only the events that match every term (EventsMatching).
	Search []string
	// protected is which listed events' protected fields the viewer sees (set by WindowFor), which decides what
	// a search finds in them.
	protected protectedView
}

// protectedView is which of the events a window lists show the viewer their protected fields.
type protectedView uint8

const (
	protectedSeenByNone protectedView = iota // only the events without a password
	protectedSeenByAll                       // every event (the viewer may edit them all)
	protectedSeenBySome                      // some, by author and status, which the kept search matches do not tell apart
)

// empty tells whether w can hold no event: no status, or an end before its start.
func (w *Window) empty() bool { return len(w.Statuses) == 0 || w.End.Before(w.Start) }

// DaysTotal tells whether the kept day counts total w: it has none of Near, Categories and Search.
func (w *Window) DaysTotal() bool {
	return w != nil && w.Near == nil && w.Categories == nil && w.Search == nil
}

// WindowFor returns the window of a list of the statuses between start and end as u sees it, or nil when what u
// may read depends on each event's author (a contributor's own drafts), which the counts do not tell apart.
func WindowFor(u *User, statuses []string, start, end time.Time) *Window {
	switch {
	case u.can(capEditOthers) && u.can(capReadPrivate) && u.can(capEditPublished):
		// readableBy adds no condition: every status asked for counts.
		w := &Window{Statuses: statuses, Start: start.UTC(), End: end.UTC(), protected: protectedSeenBySome}
		if u.can(capEdit) && u.can(capEditPrivate) {
			w.protected = protectedSeenByAll
		}
		return w
	case u.can(capEdit) || u.can(capEditPublished):
		return nil
	default:
		if !slices.Contains(statuses, StatusPublish) {
			statuses = nil // readableBy keeps published events only
		} else {
			statuses = []string{StatusPublish}
		}
	}
	return &Window{Statuses: statuses, Start: start.UTC(), End: end.UTC()}
}

// dayCount is the number of a window's events that start on one UTC day (days since 1970-01-01).
type dayCount struct {
	Day int64
	N   int64
}

const secondsPerDay = 24 * 60 * 60

// utcDay is the day of t, in days since 1970-01-01 in UTC.
func utcDay(t time.Time) int64 {
	s := t.Unix()
	d := s / secondsPerDay
	if s < 0 && s%secondsPerDay != 0 {
		d--
	}
	return d
}

// dayStart is the first instant of day d.
func dayStart(d int64) time.Time { return time.Unix(d*secondsPerDay, 0).UTC() }

// coversFirstDay tells whether w starts at the first instant of its first day.
func (w *Window) coversFirstDay() bool { return w.Start.Equal(dayStart(utcDay(w.Start))) }

// coversLastDay tells whether w reaches the last second of its last day or later, which covers the day whole (see
// windowDays).
func (w *Window) coversLastDay() bool {
	return !w.End.Before(dayStart(utcDay(w.End) + 1).Add(-time.Second))
}

// The three parts of a window's count by start day, which never count an event twice. From the kept counts
// ({kept}: the table with the start of its condition), every event whose start and end days lie inside the window's
// (from @low to @high: strictly inside, or up to and including an edge day the window covers whole). From the
// counted rows themselves ({rows}, named events, with {listed} their condition), the events of an edge day the
// window cuts: those that start on the first day (a range of an index on start), and those that end on the last and
// start after the days the other parts counted (a range of the one on end, where the rows have one). {day} is the
// dialect's day of events.start_utc. The first page needs only the total, so the kept counts are summed whole
// ({table_day} the window's first day, bound, and no {table_group}): grouping them by day took several times as
// long as summing them. The first day is bound rather than written in: written, every window's first page was a
// statement of its own, parsed and planned at each run (a one-week window's first page took 0.7 ms to parse and
// 2 ms to bind, against 1.3 ms to run, in a statement log of the mixed readers).
const (
	windowKeptSQL = `SELECT {table_day} AS day, CAST(COALESCE(SUM({kept_n}), 0) AS BIGINT) AS n FROM {kept}
	status IN @statuses AND start_day >= @low AND end_day <= @high {table_group}`
	// windowBlockPartsSQL reads what windowKeptSQL sums from kept counts that are also kept by blocks of 32 days
	// ({blocks}: see migration 00040), as rows of a start block and a count: the blocks wholly inside the kept
	// days, then the day counts of the first block, then those of the last block that start after the first. Each
	// event is in exactly one part, and the three read about a hundred rows for any window, where a two-year
	// window's day counts are thousands.
	windowBlockPartsSQL = `
	SELECT start_block AS block, {kept_n} AS n FROM {blocks} status IN @statuses AND start_block > @low_block
		AND end_block < @high_block
	UNION ALL SELECT start_day >> 5, {kept_n} FROM {kept} status IN @statuses AND start_day >= @low
		AND start_day < @low_next AND end_day <= @high
	UNION ALL SELECT start_day >> 5, {kept_n} FROM {kept} status IN @statuses AND start_day >= @low_next
		AND end_day >= @high_first AND end_day <= @high`
	// windowBlocksSQL is windowKeptSQL's sum, not grouped by day, from windowBlockPartsSQL.
	windowBlocksSQL = `SELECT CAST(@first AS BIGINT) AS day, CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM (` +
		windowBlockPartsSQL + `) AS kept`
	windowFirstDaySQL = `
UNION ALL
SELECT {day} AS day, COUNT(*) AS n FROM {rows}
	WHERE {listed} AND events.status IN @statuses AND events.start_utc >= @start AND events.start_utc < @second_start
	AND events.end_utc <= @end {singles} GROUP BY 1`
	windowLastDaySQL = `
UNION ALL
SELECT {day} AS day, COUNT(*) AS n FROM {rows}
	WHERE {listed} AND events.status IN @statuses AND events.end_utc >= @last_start AND events.end_utc <= @end
	AND events.start_utc >= @after_first {singles} GROUP BY 1`
)

// dayCounted is what a window's day counts count (see windowKeptSQL): the values of its placeholders, and the
// named arguments they bind.
type dayCounted struct {
	kept, keptN, rows, listed, singles string
	// blocks, when set, is the table with the start of its condition that keeps the same counts by blocks of 32
	// days (windowBlocksSQL).
	blocks string
	// plus, when set, is a statement whose one row (day, n) a sum of the window's counts adds (collapsedDays).
	plus  string
	bound map[string]any
}

// keptIn returns query with c's kept counts in place of {kept}, {kept_n} and {blocks}.
func (c dayCounted) keptIn(query string) string {
	return strings.NewReplacer("{kept}", c.kept, "{kept_n}", c.keptN, "{blocks}", c.blocks).Replace(query)
}

// listedDays counts the listed events, or with singlesOnly those that are no occurrence of a series (the kept
// counts' n - occurrences).
func (s *Store) listedDays(singlesOnly bool) dayCounted {
	c := dayCounted{kept: "event_day_counts WHERE", keptN: "n", rows: "events",
		listed: isFalse(s.db, "events.hide_from_listings")}
	if singlesOnly {
		c.keptN, c.singles = "n - occurrences", "AND events.series_id IS NULL"
	}
	if s.dialect == Postgres {
		c.blocks = "event_block_counts WHERE"
	}
	return c
}

// dayBlock is the block of 32 days that day d is in, as migration 00040 keeps counts by: d >> 5.
func dayBlock(d int64) int64 { return d >> 5 }

// blockArgs are the named arguments of windowBlocksSQL and windowPageDaysSQL for the kept days from low to high:
// those days, the blocks they are in, the first day of the block after low's and the first day of high's.
func blockArgs(low, high int64) map[string]any {
	return map[string]any{"low": low, "high": high, "low_block": dayBlock(low), "low_next": (dayBlock(low) + 1) << 5,
		"high_block": dayBlock(high), "high_first": dayBlock(high) << 5}
}

// windowDays returns how many of the window's events that c counts start on each day, in day order (a day may come
// twice); unless byDay, the events of the days the kept counts total come as one count dated the window's first day.
//
// An edge day the window covers whole is totalled from the kept counts too. The default list's window, from the
// start of today to the end of a day, does so at both ends when the site's time zone is UTC: its count is then one
// read of the kept counts. The last day is whole when the window ends at its last second or later, as event times
// are whole seconds (every write truncates them, and invariants.DayCounts checks it).
func (s *Store) windowDays(w *Window, byDay bool, c dayCounted) ([]dayCount, error) {
	query, args := s.windowDaysSQL(w, byDay, c)
	if query == "" {
		return nil, nil
	}
	var rows []dayCount
	err := s.db.Raw(query, args).Scan(&rows).Error
	slices.SortStableFunc(rows, func(a, b dayCount) int { return int(a.Day - b.Day) })
	return rows, err
}

// sumDays is the number of events the day counts count.
func sumDays(days []dayCount) int64 {
	var n int64
	for _, d := range days {
		n += d.N
	}
	return n
}

// windowDaysSQL is windowDays' statement for what c counts, with its named arguments; "" when the window is empty.
func (s *Store) windowDaysSQL(w *Window, byDay bool, c dayCounted) (string, map[string]any) {
	if w.empty() {
		return "", nil
	}
	day := "event_day(events.start_utc)"
	if s.dialect == SQLite {
		day = "CAST(julianday(substr(events.start_utc, 1, 10)) - 2440587.5 AS INTEGER)"
	}
	first, last := utcDay(w.Start), utcDay(w.End)
	tableDay, tableGroup := "CAST(@first AS BIGINT)", ""
	if byDay {
		tableDay, tableGroup = "start_day", "GROUP BY start_day"
	}
	// The kept counts total the events whose start and end days lie in [low, high].
	query, low, high, afterFirst := windowKeptSQL, first+1, last-1, dayStart(first+1)
	if c.blocks != "" && !byDay {
		query = windowBlocksSQL
	}
	if w.coversFirstDay() {
		low, afterFirst = first, w.Start
	} else {
		query += windowFirstDaySQL
	}
	if w.coversLastDay() {
		high = last
	} else {
		query += windowLastDaySQL
	}
	if c.plus != "" && !byDay {
		query += "\nUNION ALL " + c.plus
	}
	query = strings.NewReplacer("{day}", day, "{rows}", c.rows, "{listed}", c.listed, "{singles}", c.singles,
		"{table_day}", tableDay, "{table_group}", tableGroup).Replace(c.keptIn(query))
	args := map[string]any{
		"statuses": w.Statuses, "first": first, "start": w.Start, "end": w.End,
		"second_start": dayStart(first + 1), "last_start": dayStart(last), "after_first": afterFirst,
	}
	maps.Copy(args, blockArgs(low, high))
	maps.Copy(args, c.bound)
	return query, args
}

// listWindow returns one page of the window's events and their total, from the kept day counts: the total is
// their sum (read with the first page's rows: firstWindowPage), and a page past the first starts its index scan at
// the first day that page reaches (the counts of the days before it tell how many events to skip), so a deep page
// reads about one day of index, not every event before it.
func (s *Store) listWindow(scopes []Scope, page Page, w *Window) ([]Event, int64, error) {
	if page.Offset() == 0 {
		return s.firstWindowPage(scopes, page, w)
	}
	total, from, skip, err := s.windowPageStart(w, int64(page.Offset()))
	if err != nil || skip >= total {
		return []Event{}, total, err
	}
	ids := s.orderedEventIDs(scopes)
	if from != nil {
		ids = ids.Where("events.start_utc >= ?", *from)
	}
	events, err := s.eventsIn(ids.Offset(int(skip)).Limit(page.Size), page.Size)
	return events, total, err
}

// windowPageStart locates the page of the window w that skips offset events: it returns the window's total, the
// day from which the page's index scan starts (nil: the window's start) and how many of the events from that day
// on come before the page (skip >= total: the page is past the last). A window whose edge days are whole is
// located from the counts kept by blocks of 32 days where there are any (windowPageDaysSQL), about two hundred
// rows where the day counts of a two-year window are thousands.
func (s *Store) windowPageStart(w *Window, offset int64) (total int64, from *time.Time, skip int64, err error) {
	var days []dayCount
	if c := s.listedDays(false); c.blocks != "" && w.coversFirstDay() && w.coversLastDay() {
		days, err = s.windowPageDays(w, offset, c)
	} else {
		days, err = s.windowDays(w, true, c)
	}
	total = sumDays(days)
	if err != nil || offset >= total {
		return total, nil, offset, err
	}
	i, skip := locateDay(days, offset)
	if i > 0 {
		t := dayStart(days[i].Day)
		from = &t
	}
	return total, from, skip, nil
}

// locateDay finds, in day counts in day order (a day may come twice), the first of the day whose events hold the
// skip-th (from 0): its index (len(days) when there are fewer), and how many events of that day and later come
// before it.
func locateDay(days []dayCount, skip int64) (int, int64) {
	for i := 0; i < len(days); {
		j, n := i, int64(0)
		for ; j < len(days) && days[j].Day == days[i].Day; j++ {
			n += days[j].N
		}
		if skip < n {
			return i, skip
		}
		skip -= n
		i = j
	}
	return len(days), skip
}

// windowPageDaysSQL counts the listed events of a window whose edge days are whole by the block of 32 days they
// start in (windowBlockPartsSQL), each block dated its first day in the window; and the block that holds the event
// @offset (from 0) by start day instead. One statement reads both, so they agree.
const windowPageDaysSQL = `WITH blocks AS (
	SELECT GREATEST(block << 5, @low) AS day, CAST(SUM(n) AS BIGINT) AS n FROM (` + windowBlockPartsSQL + `) AS kept
	GROUP BY block),
landing AS (
	SELECT day FROM (SELECT day, SUM(n) OVER (ORDER BY day) AS upto FROM blocks) AS b
	WHERE upto > @offset ORDER BY day LIMIT 1)
SELECT day, n FROM blocks WHERE day NOT IN (SELECT day FROM landing)
UNION ALL
SELECT c.start_day, CAST(SUM(c.n) AS BIGINT) FROM event_day_counts c, landing l
	WHERE c.status IN @statuses AND c.start_day >= l.day AND c.start_day < ((l.day >> 5) + 1) << 5
	AND c.end_day <= @high GROUP BY c.start_day
ORDER BY day`

// windowPageDays is windowPageDaysSQL for the window w, whose edge days are whole, the page at offset and the
// listed events' counts c (listedDays).
func (s *Store) windowPageDays(w *Window, offset int64, c dayCounted) ([]dayCount, error) {
	if w.empty() {
		return nil, nil
	}
	args := blockArgs(utcDay(w.Start), utcDay(w.End))
	args["statuses"], args["offset"] = w.Statuses, offset
	var days []dayCount
	err := s.db.Raw(c.keptIn(windowPageDaysSQL), args).Scan(&days).Error
	return days, err
}

// firstWindowPage returns the first page of the window's events and their total in one statement: the page's
// rows, each with the sum of the window's day counts (an uncorrelated subquery, computed once). A first page is
// empty exactly when the window is, so an empty answer's total is 0.
func (s *Store) firstWindowPage(scopes []Scope, page Page, w *Window) ([]Event, int64, error) {
	return s.firstPageOfDays(w, s.listedDays(false), "@page",
		map[string]any{"page": s.orderedEventIDs(scopes).Limit(page.Size)}, page.Size)
}

// firstPageOfDays is firstWindowPage for what c counts, with the page's IDs selected by the subquery pageIDs,
// whose named arguments are pageArgs (besides windowDaysSQL's).
func (s *Store) firstPageOfDays(w *Window, c dayCounted, pageIDs string, pageArgs map[string]any, size int) (
	[]Event, int64, error) {
	days, args := s.windowDaysSQL(w, false, c)
	if days == "" {
		return []Event{}, 0, nil
	}
	maps.Copy(args, pageArgs)
	var total int64
	events, err := scanEvents(s.db.Raw(selectEventColumns+", (SELECT CAST(COALESCE(SUM(d.n), 0) AS BIGINT) FROM ("+
		days+") AS d) AS total"+fromEvents+" WHERE events.id IN ("+pageIDs+") ORDER BY "+eventOrder, args), size, &total)
	return events, total, err
}

// categoryPageIDs selects one page ({page}: Page.literalLimit) of the IDs of a window's events in one category
// (@category), in list order, from the category's kept links: one range of idx_category_listed_events_window,
// where paging the events and probing each for its link read every event of the window up to the page's last
// (about 280 probes for a page of ten in a category of one event in 28).
const categoryPageIDs = `SELECT event_id FROM category_listed_events WHERE category_id = @category
	AND status IN @statuses AND start_utc >= @start AND end_utc <= @end
	ORDER BY start_utc, event_id {page}`

// listCategory returns one page of a window narrowed to one category, and its total, on PostgreSQL: the page from
// the category's kept links (categoryPageIDs), the total from its day counts (categoryDays), one statement for a
// first page.
func (s *Store) listCategory(page Page, w *Window) ([]Event, int64, error) {
	c := categoryDays(w.Categories[0])
	pageIDs := strings.Replace(categoryPageIDs, "{page}", page.literalLimit("@offset"), 1)
	pageArgs := map[string]any{"offset": page.Offset(), "statuses": w.Statuses, "start": w.Start, "end": w.End}
	maps.Copy(pageArgs, c.bound)
	if page.Offset() == 0 {
		return s.firstPageOfDays(w, c, pageIDs, pageArgs, page.Size)
	}
	days, err := s.windowDays(w, false, c)
	total := sumDays(days)
	if err != nil || int64(page.Offset()) >= total {
		return []Event{}, total, err
	}
	events, err := scanEvents(s.db.Raw(selectEvents+" WHERE events.id IN ("+pageIDs+") ORDER BY "+eventOrder,
		pageArgs), page.Size)
	return events, total, err
}

// ListEventsIn is ListEvents for a list that may be a window (w, nil otherwise): a window is totalled and paged
// from the kept day counts, or from the kept venue links when it is narrowed to a circle, or from the kept search
// matches when it is searched, or on PostgreSQL from one category's kept links and day counts when it is narrowed
// to one category; one narrowed to several categories is paged with its scopes and totalled from the kept category
// links.
func (s *Store) ListEventsIn(scopes []Scope, page Page, w *Window) ([]Event, int64, error) {
	switch {
	case w == nil:
		return s.ListEvents(scopes, page)
	case w.Near != nil:
		return s.listNear(page, w)
	case len(w.Categories) == 1 && s.dialect == Postgres:
		return s.listCategory(page, w)
	case w.Categories != nil:
		return s.listCounted(scopes, page, func() (int64, error) { return s.categoriesTotal(w) })
	case w.Search != nil:
		return s.listSearched(scopes, page, w)
	}
	return s.listWindow(scopes, page, w)
}

// categoriesTotal counts the events of a window narrowed to categories from their kept category links
// (category_listed_events): one range of idx_category_listed_events_window per category, never a read of events.
// An event in several of the categories counts once.
func (s *Store) categoriesTotal(w *Window) (int64, error) {
	query := countCategoriesEvents
	if len(w.Categories) == 1 {
		query = countCategoryEvents
	}
	var total int64
	err := s.db.Raw(query, w.Categories, w.Statuses, w.Start, w.End).Scan(&total).Error
	return total, err
}

// categoryDays counts one category's listed events: the whole days from its day counts (category_day_counts, kept
// by triggers on its kept links), the edge days a window cuts from the links themselves. A cut last day reads the
// links of the whole window, which have no index on their end.
func categoryDays(category uint64) dayCounted {
	return dayCounted{kept: "category_day_counts WHERE category_id = @category AND", keptN: "n",
		rows: "category_listed_events AS events", listed: "events.category_id = @category",
		bound: map[string]any{"category": category}}
}

// The counts of categoriesTotal: an event in several categories counts once, which one category does not need.
const (
	countCategoriesEvents = "SELECT count(DISTINCT event_id) FROM category_listed_events " + categoriesWindow
	countCategoryEvents   = "SELECT count(*) FROM category_listed_events " + categoriesWindow
	categoriesWindow      = "WHERE category_id IN ? AND status IN ? AND start_utc >= ? AND end_utc <= ?"
)

// listNear returns one page of a window narrowed to a circle, and its total, in one statement (two past the last
// page): the page from the kept venue links (venue_listed_events) of the venues within the circle (nearPageIDs), the
// total from the same links or, in the default window, from counts kept per venue (nearTotal). Neither reads the
// events that are not on the page. The statement finds the venues within the circle once (circleVenues), and both
// its parts read them: finding them computes the distance of every venue in the circle's box, about 0.2 ms for
// the 247 venues of 25 miles around Chicago, which the total and the page each spent before.
func (s *Store) listNear(page Page, w *Window) ([]Event, int64, error) {
	venues, venueArgs := circleVenues(s.db, *w.Near)
	total, totalArgs := s.nearTotal(w)
	pageIDs, pageArgs := s.nearPageIDs(w, page)
	var n int64
	events, err := scanEvents(s.db.Raw(venues+selectEventColumns+", ("+total+") AS total"+fromEvents+
		" WHERE events.id IN ("+pageIDs+") ORDER BY "+eventOrder, slices.Concat(venueArgs, totalArgs, pageArgs)...),
		page.Size, &n)
	if err != nil || len(events) > 0 {
		return events, n, err
	}
	if page.Offset() > 0 {
		// Past the last page: the total still counts every match.
		err = s.db.Raw(venues+total, slices.Concat(venueArgs, totalArgs)...).Scan(&n).Error
	}
	return []Event{}, n, err
}

// nearTotalSQL counts the events of a window narrowed to a circle (the venues v of circleVenues) from the kept venue
// links of the venues within it: the links of events with one venue as index entries, and those of events with
// several (shared) as distinct events, as an event at two venues of the circle has a link at each. Grouping every
// link in the circle by event took most of the list's 13.5 ms for 29,755 links at a million events
// (docs/benchmarks.md, "Radius totals without grouping").
const nearTotalSQL = `SELECT COUNT(*) FILTER (WHERE NOT x.shared) + COUNT(DISTINCT x.event_id) FILTER (WHERE x.shared)
	FROM venue_listed_events x
	WHERE x.venue_id IN (SELECT id FROM v) AND x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?`

// nearTotalKeptSQL is nearTotalSQL on PostgreSQL: in the window that venue_window keeps (the default window, once
// the service has moved it to today), the links of events with one venue are summed from their kept counts per
// venue and status (venue_window_counts); in any other window they are counted. Each kept count carries its
// venue's coordinates, so that the counts of the circle's box ({box}, on the counts k) are one range of
// idx_venue_window_counts_place, of which the sum keeps those of the circle's venues, looked up in a hash of them
// (see nearPageProbed for IS TRUE): 25 miles around Chicago at 100,000 events read 247 counts in one range where
// one index probe per venue read 393 buffers (docs/benchmarks.md, "Radius totals by place"). The links of shared
// events are counted as distinct events from their partial index (idx_venue_listed_events_shared), with the same
// lookup: the planner, which cannot estimate the circle's venues, would otherwise scan them all for each shared
// link. At a million events the circle of the harness sums 196 venues' counts in 0.8 ms where counting its 28,437
// links took 9.3 ms (docs/benchmarks.md, "Radius totals in the default window"). The window's instants come
// first, then the statuses and the box, then each count's window.
const nearTotalKeptSQL = `SELECT CAST(CASE
	WHEN EXISTS (SELECT 1 FROM venue_window w WHERE w.from_utc = ? AND w.until_utc = ?)
	THEN (SELECT COALESCE(SUM(k.n), 0) FROM venue_window_counts k
		WHERE k.status IN ? AND {box} AND (k.venue_id IN (SELECT id FROM v)) IS TRUE)
	ELSE (SELECT COUNT(*) FROM venue_listed_events x WHERE x.venue_id IN (SELECT id FROM v) AND NOT x.shared
		AND x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?) END
	+ (SELECT COUNT(DISTINCT x.event_id) FROM venue_listed_events x WHERE x.shared
		AND x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ? AND (x.venue_id IN (SELECT id FROM v)) IS TRUE)
	AS BIGINT)`

// nearTotal returns the statement that totals a window narrowed to a circle (nearTotalKeptSQL, or nearTotalSQL on
// SQLite), with its arguments.
func (s *Store) nearTotal(w *Window) (string, []any) {
	window := []any{w.Statuses, w.Start, w.End}
	if s.dialect != Postgres {
		return nearTotalSQL, window
	}
	box, boxArgs := w.Near.box().condition("k")
	return strings.Replace(nearTotalKeptSQL, "{box}", box, 1),
		slices.Concat([]any{w.Start, w.End, w.Statuses}, boxArgs, window, window)
}

// The page of a window narrowed to a circle (the venues v of circleVenues), in list order ({limit}:
// Page.literalLimit's clause, its offset bound last). On PostgreSQL each venue within the circle gives at most
// {reach} (the page's offset and size, a literal for the plan's sake like the page's size) of its kept links in
// list order, one short range of idx_venue_listed_events_window each, and the page is taken from their merge: no
// event past a page's reach at its venue can be on the page. SQLite, which has no lateral joins, orders every link
// in the circle.
const (
	nearPagePostgres = `SELECT p.event_id FROM v CROSS JOIN LATERAL (` + nearVenueReach + `) AS p
	GROUP BY p.event_id, p.start_utc ORDER BY p.start_utc, p.event_id {limit}`
	nearVenueReach = `SELECT x.event_id, x.start_utc
	FROM venue_listed_events x WHERE x.venue_id = v.id AND x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?
	ORDER BY x.start_utc, x.event_id LIMIT {reach}`
	nearPageSQLite = `SELECT x.event_id FROM venue_listed_events x
	WHERE x.venue_id IN (SELECT id FROM v) AND x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?
	GROUP BY x.event_id, x.start_utc ORDER BY x.start_utc, x.event_id {limit}`
)

// nearPageProbed is nearPagePostgres for a window of one status, which first probes the window's first {prefix}
// kept links of every venue in list order (one range of idx_venue_listed_events_order) when the circle holds more
// than {venues} venues. The links among them at a venue within the circle are the first of the circle's: when they
// are {reach} events or more, or the probe read the whole window, they give the page, and the merge of each venue's
// links (nearPagePostgres) is never run. Otherwise, or for a circle of few venues, the merge gives it. For 25 miles
// around Chicago at 100,000 events (196 venues, one link in 30 within the circle) the probe read 1,000 links in
// 0.85 ms where the merge read 1,647 from 196 ranges in 2.35 ms (docs/benchmarks.md, "Radius pages from the window's
// first links").
//
// The probe stops at the {reach}th event it finds within the circle: the links come in list order, a link's venue
// is looked up in a hash of the circle's venues (a hashed subplan: the test is wrapped in IS TRUE so that the
// planner keeps it a filter, as a semi-join would not keep the links' order and would sort all {prefix} of them),
// and an event's links, adjacent in that order, are made distinct as they come. The harness's circle reads about
// 380 links instead of 1,000. The window's first links are counted again only when it found fewer. The window's
// arguments come three times.
const nearPageProbed = `WITH found AS MATERIALIZED (SELECT DISTINCT p.start_utc, p.event_id
		FROM (SELECT x.event_id, x.start_utc, x.venue_id
		FROM venue_listed_events x WHERE x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?
		AND (SELECT count(*) FROM v) > {venues} ORDER BY x.start_utc, x.event_id LIMIT {prefix}) AS p
		WHERE (p.venue_id IN (SELECT id FROM v)) IS TRUE ORDER BY p.start_utc, p.event_id LIMIT {reach}),
	probed AS MATERIALIZED (SELECT (SELECT count(*) FROM v) > {venues}
		AND ((SELECT count(*) FROM found) >= {reach} OR (SELECT count(*) FROM (SELECT 1 FROM venue_listed_events x
			WHERE x.status IN ? AND x.start_utc >= ? AND x.end_utc <= ?
			ORDER BY x.start_utc, x.event_id LIMIT {prefix}) AS w) < {prefix}) AS enough)
	SELECT q.event_id FROM (SELECT f.event_id, f.start_utc FROM found f WHERE (SELECT enough FROM probed)
	UNION ALL
	SELECT p.event_id, p.start_utc FROM v CROSS JOIN LATERAL (` + nearVenueReach + `) AS p
		WHERE NOT (SELECT enough FROM probed) GROUP BY p.event_id, p.start_utc) AS q
	ORDER BY q.start_utc, q.event_id {limit}`

// The probe's bounds: it runs for circles of more than nearProbeVenues venues (merging each venue's first links
// costs about as much as probing a thousand links at 64 venues) and pages that reach no further than
// nearProbeMaxReach events, and reads nearProbePerEvent links for each event the page reaches: enough when one link
// of the window in a hundred is within the circle.
const (
	nearProbeVenues   = 64
	nearProbePerEvent = 100
	nearProbeMaxReach = 100
)

// nearPageIDs returns the statement that selects one page of the IDs of a window's events at the venues within a
// circle (nearPageProbed, nearPagePostgres or nearPageSQLite), with its arguments.
func (s *Store) nearPageIDs(w *Window, page Page) (string, []any) {
	reach, window := page.Offset()+page.Size, []any{w.Statuses, w.Start, w.End}
	query, args := nearPagePostgres, window
	switch {
	case s.dialect != Postgres:
		query = nearPageSQLite
	case len(w.Statuses) == 1 && reach <= nearProbeMaxReach:
		query, args = nearPageProbed, slices.Concat(window, window, window)
	}
	if page.Offset() > 0 {
		args = append(slices.Clone(args), page.Offset())
	}
	return strings.NewReplacer("{reach}", strconv.Itoa(reach), "{venues}", strconv.Itoa(nearProbeVenues),
		"{prefix}", strconv.Itoa(nearProbePerEvent*reach), "{limit}", page.literalLimit("?")).Replace(query), args
}
