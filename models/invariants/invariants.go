// Package invariants checks a database against what every write must keep true of it: each event's link lists
// name exactly its link rows, and the totals kept for the lists (day counts, the latest starts of venues and
// organizers, the venue and category links of listed events and their day counts, the kept search matches and
// their day counts, term counts) equal a fresh count. The tests hold every test's database to them when the test
// ends, and the benchmark harness holds a seeded database to them (-check). Each check returns the problems it
// found, as sentences, and an error only when it could not read the database.
package invariants

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"calendar/models"
)

// LinkLists finds the events whose link lists and link rows differ.
func LinkLists(db *gorm.DB) ([]string, error) {
	var events []struct {
		ID                                                  uint64
		VenueLinks, OrganizerLinks, CategoryLinks, TagLinks *string
	}
	if err := db.Raw(`SELECT id, venue_links, organizer_links, category_links, tag_links FROM events`).
		Scan(&events).Error; err != nil {
		return nil, err
	}
	linked, err := linkRowsByEvent(db)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, e := range events {
		listed := ListItems(e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks)
		rows := linked[e.ID]
		slices.Sort(rows)
		if !slices.Equal(listed, rows) {
			problems = append(problems, fmt.Sprintf("event %d lists %v but has link rows %v", e.ID, listed, rows))
		}
	}
	return problems, nil
}

// ListItems are the entries of an event's link lists, each prefixed with its link table's name, sorted: the form
// in which LinkLists compares them with the link rows.
func ListItems(venues, organizers, categories, tags *string) []string {
	var out []string
	for _, l := range []struct {
		kind string
		list *string
	}{{"venues", venues}, {"organizers", organizers}, {"categories", categories}, {"tags", tags}} {
		if l.list != nil {
			for _, item := range strings.Split(*l.list, ",") {
				out = append(out, l.kind+" "+item)
			}
		}
	}
	slices.Sort(out)
	return out
}

// linkRowsByEvent returns each event's link rows in the lists' form, each item prefixed with its table's name.
func linkRowsByEvent(db *gorm.DB) (map[uint64][]string, error) {
	var rows []struct {
		Kind    string
		EventID uint64
		Item    string
	}
	err := db.Raw(`SELECT 'venues' AS kind, event_id, position || ':' || venue_id AS item FROM event_venues
		UNION ALL SELECT 'organizers', event_id, position || ':' || organizer_id FROM event_organizers
		UNION ALL SELECT 'categories', event_id, CAST(category_id AS TEXT) FROM event_categories
		UNION ALL SELECT 'tags', event_id, CAST(tag_id AS TEXT) FROM event_tags`).Scan(&rows).Error
	byEvent := map[uint64][]string{}
	for _, r := range rows {
		byEvent[r.EventID] = append(byEvent[r.EventID], r.Kind+" "+r.Item)
	}
	return byEvent, err
}

// KeptTotals runs DayCounts, LastStarts, LinkedPublishedDays, VenueListedEvents, VenueWindowCounts,
// CategoryListedEvents, CategoryDayCounts, SearchListedEvents, SearchDayCounts, SeriesGapDays, DayBlocks and
// TermCounts.
func KeptTotals(db *gorm.DB) ([]string, error) {
	var problems []string
	for _, check := range []func(*gorm.DB) ([]string, error){DayCounts, LastStarts, LinkedPublishedDays,
		VenueListedEvents, VenueWindowCounts, CategoryListedEvents, CategoryDayCounts, SearchListedEvents,
		SearchDayCounts, SeriesGapDays, DayBlocks, TermCounts} {
		found, err := check(db)
		if err != nil {
			return problems, err
		}
		problems = append(problems, found...)
	}
	return problems, nil
}

// DayCounts compares the kept day counts (event_day_counts, which list totals are summed from) with a fresh count
// of the listed events, and of those of them that are occurrences of a series, by status, start day and end day.
// The days are computed here from the stored instants, in UTC, not by the database's own day expression. It also
// finds event times that are not whole seconds: a window that ends at the last second of a day counts that day's
// events from the kept counts (models.Store.windowDays), which holds only while no event ends within that second.
func DayCounts(db *gorm.DB) ([]string, error) {
	var events []struct {
		ID               uint64
		StartUTC, EndUTC time.Time
	}
	if err := db.Raw("SELECT id, start_utc, end_utc FROM events").Scan(&events).Error; err != nil {
		return nil, err
	}
	var problems []string
	for _, e := range events {
		if e.StartUTC.Nanosecond() != 0 || e.EndUTC.Nanosecond() != 0 {
			problems = append(problems, fmt.Sprintf("event %d's times %s and %s are not whole seconds", e.ID,
				e.StartUTC.Format(time.RFC3339Nano), e.EndUTC.Format(time.RFC3339Nano)))
		}
	}
	counted, err := keptDayCounts(db, "", "occurrences",
		`SELECT 0 AS owner, status, start_utc, end_utc, series_id IS NOT NULL AS part FROM events
			WHERE NOT hide_from_listings`,
		"SELECT 0 AS owner, status, start_day, end_day, n, occurrences AS part FROM event_day_counts "+
			"WHERE n <> 0 OR occurrences <> 0")
	return append(problems, counted...), err
}

// VenueWindowCounts compares the kept counts of the radius window (venue_window_counts, its rows of deltas summed
// per venue and status, which radius totals in that window are summed from) with a fresh count of the kept venue
// links of events with one venue in the window venue_window names, and every count of an existing venue must carry
// the venue's coordinates. With no window named (forgotten when a venue moved, or never kept) the counts are not
// read and will be counted again: nothing is checked. Nor on SQLite, which counts radius totals.
func VenueWindowCounts(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	line := func(scan func(...any) error) (string, error) {
		var venue, n int64
		var status string
		err := scan(&venue, &status, &n)
		return fmt.Sprintf("venue %d %s: %d", venue, status, n), err
	}
	var named int64
	err := db.Raw("SELECT count(*) FROM venue_window WHERE from_utc IS NOT NULL").Scan(&named).Error
	if err != nil || named == 0 {
		return nil, err
	}
	kept, err := sortedRows(db, `SELECT venue_id, status, sum(n) FROM venue_window_counts GROUP BY 1, 2
		HAVING sum(n) <> 0`, line)
	if err != nil {
		return nil, err
	}
	fresh, err := sortedRows(db, models.FreshVenueWindowCounts, line)
	if err != nil {
		return nil, err
	}
	var problems []string
	if !slices.Equal(kept, fresh) {
		problems = append(problems,
			fmt.Sprintf("kept radius window counts %v, fresh from the kept venue links %v", kept, fresh))
	}
	moved, err := sortedRows(db, `SELECT DISTINCT k.venue_id FROM venue_window_counts k
		JOIN venues v ON v.id = k.venue_id
		WHERE k.geo_lat IS DISTINCT FROM v.geo_lat OR k.geo_lng IS DISTINCT FROM v.geo_lng`,
		func(scan func(...any) error) (string, error) {
			var venue int64
			err := scan(&venue)
			return fmt.Sprintf("venue %d", venue), err
		})
	if len(moved) > 0 {
		problems = append(problems,
			fmt.Sprintf("kept radius window counts with other coordinates than their venue's: %v", moved))
	}
	return problems, err
}

// utcDay is the day of t in days since 1970-01-01, in UTC.
func utcDay(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s < 0 && s%86400 != 0 {
		d--
	}
	return d
}

// LastStarts compares the latest starts kept per venue and organizer (linked_last_starts, which
// only_with_upcoming reads) with a fresh computation from the links and the events, for the published and the
// private events of each.
func LastStarts(db *gorm.DB) ([]string, error) {
	kept, err := lastStarts(db, `SELECT kind, id, published, private FROM linked_last_starts
		WHERE published IS NOT NULL OR private IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	fresh, err := lastStarts(db, `SELECT * FROM (`+models.FreshLastStarts+`) AS f
		WHERE published IS NOT NULL OR private IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, row := range append(slices.Clone(kept), fresh...) {
		if strings.Contains(row, notAnInstant) {
			problems = append(problems, row)
		}
	}
	if !slices.Equal(kept, fresh) {
		problems = append(problems, fmt.Sprintf("kept latest starts %v, fresh from the links %v", kept, fresh))
	}
	return problems, nil
}

// lastStarts reads the rows of query (kind, id, published, private) as sorted text. The instants are read as
// text (SQLite gives text where no type is declared) and written as RFC 3339 in UTC.
func lastStarts(db *gorm.DB, query string) ([]string, error) {
	return sortedRows(db, query, func(scan func(...any) error) (string, error) {
		var kind string
		var id uint64
		var published, private sql.NullString
		err := scan(&kind, &id, &published, &private)
		return fmt.Sprintf("%s%d %s %s", kind, id, instantText(published), instantText(private)), err
	})
}

// sortedRows reads the rows of query as sorted text, each row as line writes it from the values it scans.
func sortedRows(db *gorm.DB, query string, line func(scan func(...any) error) (string, error)) ([]string, error) {
	rows, err := db.Raw(query).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		l, err := line(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out, rows.Err()
}

// instantText writes an instant read as text (in any of the forms the drivers give) as RFC 3339 in UTC, "-" for
// none, and the text itself, marked, for what is no instant.
func instantText(v sql.NullString) string {
	if !v.Valid {
		return "-"
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999-07"} {
		if parsed, err := time.Parse(layout, v.String); err == nil {
			return parsed.UTC().Format(time.RFC3339)
		}
	}
	return notAnInstant + v.String
}

// VenueListedEvents compares the kept venue links of listed events (venue_listed_events, which radius queries are
// totalled from), with whether each event has other venues, with the links and the events themselves.
func VenueListedEvents(db *gorm.DB) ([]string, error) {
	return keptListedEvents(db, "venue", true, models.FreshVenueListedEvents)
}

// CategoryListedEvents compares the kept category links of listed events (category_listed_events, which category
// lists are totalled from) with the links and the events themselves.
func CategoryListedEvents(db *gorm.DB) ([]string, error) {
	return keptListedEvents(db, "category", false, models.FreshCategoryListedEvents)
}

// keptListedEvents compares the rows of table kind_listed_events, with its column shared when it has one, with
// fresh, the query that computes them.
func keptListedEvents(db *gorm.DB, kind string, shared bool, fresh string) ([]string, error) {
	columns := "event_id, " + kind + "_id, status, start_utc, end_utc"
	if shared {
		columns += ", shared"
	}
	kept, err := listedRows(db, "SELECT "+columns+" FROM "+kind+"_listed_events", shared)
	if err != nil {
		return nil, err
	}
	computed, err := listedRows(db, fresh, shared)
	if err != nil {
		return nil, err
	}
	if slices.Equal(kept, computed) {
		return nil, nil
	}
	return []string{fmt.Sprintf("kept %s links of listed events %v, fresh from the links %v", kind, kept,
		computed)}, nil
}

// listedRows reads the rows of query (event_id, the record's ID, status, start_utc, end_utc, and with shared the
// column shared) as sorted text, the instants as instantText writes them.
func listedRows(db *gorm.DB, query string, shared bool) ([]string, error) {
	return sortedRows(db, query, func(scan func(...any) error) (string, error) {
		var event, record uint64
		var status string
		var start, end sql.NullString
		var isShared bool
		dest := []any{&event, &record, &status, &start, &end}
		if shared {
			dest = append(dest, &isShared)
		}
		err := scan(dest...)
		row := fmt.Sprintf("e%d r%d %s %s %s", event, record, status, instantText(start), instantText(end))
		if isShared {
			row += " shared"
		}
		return row, err
	})
}

// SearchListedEvents compares the kept search matches (search_listed_events, which kept searches are paged and
// totalled from) with a match of every listed event made here, in Go: each term in the lower-cased title,
// description or excerpt, and for everyone, each term in the title or, without a password, in the others. It
// checks nothing on SQLite, which keeps no search.
func SearchListedEvents(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	kept, err := sortedRows(db, `SELECT COALESCE(k.terms, 'no kept search'), x.event_id, x.status, x.start_utc,
		x.end_utc, x.everyone FROM search_listed_events x LEFT JOIN kept_searches k ON k.id = x.search_id`,
		scanSearchMatch)
	if err != nil {
		return nil, err
	}
	var keys []string
	if err := db.Raw("SELECT terms FROM kept_searches").Scan(&keys).Error; err != nil {
		return nil, err
	}
	searches := make([][]string, len(keys))
	for i, key := range keys {
		if err := json.Unmarshal([]byte(key), &searches[i]); err != nil {
			return nil, err
		}
	}
	var events []struct {
		ID                                    uint64
		Status                                string
		StartUTC, EndUTC                      sql.NullString
		Title, Description, Excerpt, Password string
	}
	if err := db.Raw(`SELECT id, status, start_utc, end_utc, title, description, excerpt, password
		FROM events WHERE NOT hide_from_listings`).Scan(&events).Error; err != nil {
		return nil, err
	}
	var fresh []string
	for _, e := range events {
		for i, terms := range searches {
			if found, everyone := matchSearch(terms, e.Title, e.Description, e.Excerpt, e.Password == ""); found {
				fresh = append(fresh, searchMatchLine(keys[i], e.ID, e.Status, e.StartUTC, e.EndUTC, everyone))
			}
		}
	}
	slices.Sort(fresh)
	if slices.Equal(kept, fresh) {
		return nil, nil
	}
	return []string{fmt.Sprintf("kept search matches %v, fresh from the events %v", kept, fresh)}, nil
}

// SearchDayCounts compares each kept search's day counts (search_day_counts, which its totals are summed from) with
// a fresh count of its kept matches, and of those of them that match for everyone. It checks nothing on SQLite,
// which keeps no search.
func SearchDayCounts(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	return keptDayCounts(db, "search", "for everyone",
		"SELECT search_id AS owner, status, start_utc, end_utc, everyone AS part FROM search_listed_events",
		`SELECT search_id AS owner, status, start_day, end_day, n, everyone AS part FROM search_day_counts
			WHERE n <> 0 OR everyone <> 0`)
}

// CategoryDayCounts compares each category's day counts (category_day_counts, which a one-category list's total is
// summed from) with a fresh count of its kept links. It checks nothing on SQLite, which counts the links.
func CategoryDayCounts(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	return keptDayCounts(db, "category", "in all",
		"SELECT category_id AS owner, status, start_utc, end_utc, true AS part FROM category_listed_events",
		`SELECT category_id AS owner, status, start_day, end_day, n, n AS part FROM category_day_counts
			WHERE n <> 0`)
}

// LinkedPublishedDays compares the kept number of venues and organizers whose latest published start falls on each
// day (linked_published_days, which a visitor's only_with_upcoming total is summed from) with a fresh count of the
// kept latest starts, the kind standing for the status and the latest start for both days. It checks nothing on
// SQLite, which counts the latest starts.
func LinkedPublishedDays(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	return keptDayCounts(db, "", "of no part",
		`SELECT 0 AS owner, kind AS status, published AS start_utc, published AS end_utc, false AS part
			FROM linked_last_starts WHERE published IS NOT NULL`,
		`SELECT 0 AS owner, kind AS status, day AS start_day, day AS end_day, n, 0 AS part FROM linked_published_days
			WHERE n <> 0`)
}

// SeriesGapDays compares the kept days of each listed occurrence (series_listed_gaps) and their counts
// (series_gap_days, which a collapsed list's number of series is summed from) with a fresh computation from the
// events, and checks what the counts are for: for windows of whole days from a dozen of the occurrences' start
// days (and the days after them) to 0, 6, 13, 40 and 100,000 days later, in every status, the sum of the counts is
// the number of series with an occurrence in the window, counted from the events. It checks nothing on SQLite,
// which probes the series.
func SeriesGapDays(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	gapLine := func(scan func(...any) error) (string, error) {
		var id, series uint64
		var status string
		var before, start, until int64
		err := scan(&id, &series, &status, &before, &start, &until)
		return fmt.Sprintf("event %d of series %d: %s %d %d %d", id, series, status, before, start, until), err
	}
	dayLine := func(scan func(...any) error) (string, error) {
		var status string
		var day, until, n int64
		err := scan(&status, &day, &until, &n)
		return fmt.Sprintf("%s %d %d: %d", status, day, until, n), err
	}
	var problems []string
	for _, pair := range []struct {
		what, kept, fresh string
		line              func(func(...any) error) (string, error)
	}{
		{"occurrence days", "SELECT * FROM series_listed_gaps", models.FreshSeriesListedGaps, gapLine},
		{"gap day counts", "SELECT status, day, until_day, n FROM series_gap_days WHERE n <> 0",
			"WITH series_listed_gaps AS (" + models.FreshSeriesListedGaps + ") " + models.FreshSeriesGapDays,
			dayLine},
	} {
		kept, err := sortedRows(db, pair.kept, pair.line)
		if err != nil {
			return nil, err
		}
		counted, err := sortedRows(db, pair.fresh, pair.line)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(kept, counted) {
			problems = append(problems, fmt.Sprintf("kept %s %v, fresh %v", pair.what, kept, counted))
		}
	}
	wrong, err := sortedRows(db, seriesInWindows, func(scan func(...any) error) (string, error) {
		var status string
		var a, b, summed, counted int64
		err := scan(&status, &a, &b, &summed, &counted)
		return fmt.Sprintf("%s series in days %d to %d: summed %d, counted %d", status, a, b, summed, counted), err
	})
	return append(problems, wrong...), err
}

// DayBlocks compares the counts kept by blocks of 32 days (event_block_counts and series_gap_blocks, their shards
// summed, which long windows' totals are summed from) with the day counts they follow, summed by block. DayCounts
// and SeriesGapDays check the day counts themselves. It checks nothing on SQLite, which keeps no blocks.
func DayBlocks(db *gorm.DB) ([]string, error) {
	if db.Dialector.Name() != models.Postgres {
		return nil, nil
	}
	var problems []string
	for _, pair := range []struct{ what, kept, fresh string }{
		{"event day blocks", `SELECT status, start_block, end_block, sum(n), sum(occurrences) FROM event_block_counts
			GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(occurrences) <> 0`,
			"SELECT status, a, b, n, o FROM (" + models.FreshEventBlockCounts +
				") AS f(status, a, b, shard, n, o) WHERE n <> 0 OR o <> 0"},
		{"series gap blocks", `SELECT status, block, until_block, sum(n), 0 FROM series_gap_blocks
			GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
			"SELECT status, a, b, n, 0 FROM (" + models.FreshSeriesGapBlocks + ") AS f(status, a, b, shard, n) WHERE n <> 0"},
	} {
		line := func(scan func(...any) error) (string, error) {
			var status string
			var a, b, n, o int64
			err := scan(&status, &a, &b, &n, &o)
			return fmt.Sprintf("%s %d %d: %d %d", status, a, b, n, o), err
		}
		kept, err := sortedRows(db, pair.kept, line)
		if err != nil {
			return nil, err
		}
		fresh, err := sortedRows(db, pair.fresh, line)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(kept, fresh) {
			problems = append(problems, fmt.Sprintf("kept %s %v, fresh from the day counts %v", pair.what, kept, fresh))
		}
	}
	return problems, nil
}

// seriesInWindows is SeriesGapDays' windows whose summed number of series differs from the number counted.
const seriesInWindows = `WITH days AS (
		SELECT day FROM (SELECT day, row_number() OVER (ORDER BY day) AS r, count(*) OVER () AS c
			FROM (SELECT DISTINCT start_day AS day FROM series_listed_gaps) AS d) AS x
		WHERE (r - 1) % GREATEST(c / 12, 1) = 0),
	windows AS (
		SELECT s.status, a.a, a.a + k.k AS b
		FROM (SELECT DISTINCT status FROM events WHERE series_id IS NOT NULL) AS s,
			(SELECT day AS a FROM days UNION SELECT day + 1 FROM days) AS a, (VALUES (0), (6), (13), (40), (100000)) AS k(k)),
	compared AS (
		SELECT w.status, w.a, w.b,
			(SELECT COALESCE(SUM(g.n), 0) FROM series_gap_days g
				WHERE g.status = w.status AND g.day < w.a AND g.until_day <= w.b) AS summed,
			(SELECT count(DISTINCT e.series_id) FROM events e
				WHERE e.series_id IS NOT NULL AND NOT e.hide_from_listings AND e.status = w.status
				AND event_day(e.start_utc) >= w.a AND event_day(e.end_utc) <= w.b) AS counted
		FROM windows w)
	SELECT * FROM compared WHERE summed <> counted`

// keptDayCounts compares kept counts by owner (a search or a category, named owner; none when owner is ""), status,
// start day and end day, of all rows and of a part of them (named part), with a fresh count of the rows, the days
// computed here in UTC. rows selects owner, status, start_utc, end_utc and whether the row is in the part; counts
// selects owner, status, start_day, end_day, n and the part's count.
func keptDayCounts(db *gorm.DB, owner, part, rows, counts string) ([]string, error) {
	key := func(id uint64, status string, startDay, endDay int64) string {
		if owner == "" {
			return fmt.Sprintf("%s %d %d", status, startDay, endDay)
		}
		return fmt.Sprintf("%s %d %s %d %d", owner, id, status, startDay, endDay)
	}
	var matches []struct {
		Owner            uint64
		Status           string
		StartUTC, EndUTC time.Time
		Part             bool
	}
	if err := db.Raw(rows).Scan(&matches).Error; err != nil {
		return nil, err
	}
	type pair struct{ n, part int64 }
	fresh := map[string]pair{}
	for _, m := range matches {
		k := key(m.Owner, m.Status, utcDay(m.StartUTC), utcDay(m.EndUTC))
		c := fresh[k]
		c.n++
		if m.Part {
			c.part++
		}
		fresh[k] = c
	}
	var kept []struct {
		Owner            uint64
		Status           string
		StartDay, EndDay int64
		N, Part          int64
	}
	if err := db.Raw(counts).Scan(&kept).Error; err != nil {
		return nil, err
	}
	got := map[string]pair{}
	for _, k := range kept {
		got[key(k.Owner, k.Status, k.StartDay, k.EndDay)] = pair{k.N, k.Part}
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(fresh)) {
		if got[k] != fresh[k] {
			problems = append(problems, fmt.Sprintf("day count %q is %d (%d %s), the rows %d (%d)",
				k, got[k].n, got[k].part, part, fresh[k].n, fresh[k].part))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := fresh[k]; !ok {
			problems = append(problems, fmt.Sprintf("day count %q is %d (%d %s), no row has it",
				k, got[k].n, got[k].part, part))
		}
	}
	return problems, nil
}

// matchSearch tells whether every term is in one of the texts, ignoring case, and whether every term is in the
// title or, when open (no password), in one of the others.
func matchSearch(terms []string, title, description, excerpt string, open bool) (found, everyone bool) {
	title, description, excerpt = strings.ToLower(title), strings.ToLower(description), strings.ToLower(excerpt)
	found, everyone = true, true
	for _, term := range terms {
		t := strings.ToLower(term)
		inTitle, inOthers := strings.Contains(title, t), strings.Contains(description, t) || strings.Contains(excerpt, t)
		found = found && (inTitle || inOthers)
		everyone = everyone && (inTitle || (open && inOthers))
	}
	return found, everyone
}

// scanSearchMatch reads a kept search match as searchMatchLine writes it.
func scanSearchMatch(scan func(...any) error) (string, error) {
	var key, status string
	var event uint64
	var start, end sql.NullString
	var everyone bool
	err := scan(&key, &event, &status, &start, &end, &everyone)
	return searchMatchLine(key, event, status, start, end, everyone), err
}

// searchMatchLine is a search match as text.
func searchMatchLine(key string, event uint64, status string, start, end sql.NullString, everyone bool) string {
	return fmt.Sprintf("%s e%d %s %s %s everyone=%t", key, event, status, instantText(start), instantText(end), everyone)
}

// notAnInstant marks, in LastStarts' rows, a value that is no instant.
const notAnInstant = "not an instant: "

// TermCounts compares each category's and tag's kept count (its row's count plus its deltas not yet folded, which
// every answer shows) with a fresh count of the published events linked to it.
func TermCounts(db *gorm.DB) ([]string, error) {
	var problems []string
	for _, tax := range []struct{ table, join, column string }{
		{"categories", "event_categories", "category_id"}, {"tags", "event_tags", "tag_id"},
	} {
		var wrong []struct {
			ID          uint64
			Kept, Fresh int64
		}
		err := db.Raw(`SELECT id, kept, fresh FROM (SELECT t.id,
			t.count + COALESCE((SELECT SUM(d.delta) FROM term_count_deltas d
				WHERE d.taxonomy = '` + tax.table + `' AND d.term_id = t.id), 0) AS kept,
			(SELECT COUNT(*) FROM ` + tax.join + ` j JOIN events e ON e.id = j.event_id
				WHERE j.` + tax.column + ` = t.id AND e.status = 'publish') AS fresh
			FROM ` + tax.table + ` t) AS c WHERE kept <> fresh ORDER BY id`).Scan(&wrong).Error
		if err != nil {
			return nil, err
		}
		for _, w := range wrong {
			problems = append(problems, fmt.Sprintf("%s %d: kept count %d, a fresh count of its published events %d",
				tax.table, w.ID, w.Kept, w.Fresh))
		}
	}
	return problems, nil
}
