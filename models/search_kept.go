package models

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Kept searches (PostgreSQL). A search window's exact total cost a match of every trigram candidate at each build:
// tens of milliseconds at 100,000 events, and growing with the calendar. A search asked again is therefore kept:
// kept_searches holds its terms, and search_listed_events every listed event it matches, with the event's status,
// start and end, kept current by triggers on events inside every writing transaction (migration 00025). Its page
// and total are then one index range per status, and no text is matched at the build.
//
// A search is kept at its second ask on an instance (the first is built as any search), when one of its terms is
// long enough to be found through the trigram indexes (minKeptTermRunes) and it matches at most maxKeptMatches
// events. At most maxKeptSearches are kept; adding one past that drops the least recently used. On SQLite,
// searches are always counted.
const (
	maxKeptSearches    = 2000
	maxKeptMatches     = 100000
	minKeptTermRunes   = 3
	keptSearchUseEvery = 10 * time.Minute
	// maxSearchAsks bounds the searches an instance remembers having been asked; past it, it forgets them all.
	maxSearchAsks = 10000
)

// searchAsks is what an instance remembers of the searches asked: which were asked once, which match too many
// events to be kept, and when each kept search was last marked used.
type searchAsks struct {
	mu       sync.Mutex
	asked    map[string]searchAsk
	markedAt map[string]time.Time
	// vacuuming is 1 while a vacuum of the kept matches runs, 2 when another is due after it.
	vacuuming atomic.Int32
	// keeping is held while the instance keeps a search: writes wait for a search being kept (see keepSearch), so
	// an instance keeps one at a time, and a search asked meanwhile is counted and kept at a later ask.
	keeping sync.Mutex
}

type searchAsk uint8

const (
	askedOnce searchAsk = iota + 1
	tooBroad
)

func newSearchAsks() *searchAsks {
	return &searchAsks{asked: map[string]searchAsk{}, markedAt: map[string]time.Time{}}
}

// worthKeeping records an ask of the search and tells whether it should now be kept: it was asked before and was
// not found too broad.
func (a *searchAsks) worthKeeping(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch a.asked[key] {
	case askedOnce:
		return true
	case tooBroad:
		return false
	}
	if len(a.asked) >= maxSearchAsks {
		clear(a.asked)
	}
	a.asked[key] = askedOnce
	return false
}

// markTooBroad remembers that the search matches too many events to be kept.
func (a *searchAsks) markTooBroad(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked[key] = tooBroad
}

// dueForUse tells whether a kept search's last use should be written now, and if so notes that it is.
func (a *searchAsks) dueForUse(key string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.markedAt[key]) < keptSearchUseEvery {
		return false
	}
	if len(a.markedAt) >= maxSearchAsks {
		clear(a.markedAt)
	}
	a.markedAt[key] = now
	return true
}

// searchKey is a kept search's identity (kept_searches.terms): its terms as a JSON array, in the order given (a
// search and the same terms reordered are two searches of the same events; keeping them apart costs little).
func searchKey(terms []string) string {
	key, _ := json.Marshal(terms) // a []string always encodes
	return string(key)
}

// keepable tells whether a search may be kept: one of its terms is long enough for the trigram indexes to find
// its candidates when the search is added.
func keepable(terms []string) bool {
	for _, t := range terms {
		if utf8.RuneCountInString(t) >= minKeptTermRunes {
			return true
		}
	}
	return false
}

// listSearched returns one page of a searched window and its total: from the kept search matches when the search
// is kept (keeping it first when it is now worth it), else by matching and counting as ListEvents does.
func (s *Store) listSearched(scopes []Scope, page Page, w *Window) ([]Event, int64, error) {
	if s.dialect != Postgres || w.protected == protectedSeenBySome || !keepable(w.Search) {
		return s.ListEvents(scopes, page) // never kept: no lookup
	}
	key := searchKey(w.Search)
	events, total, kept, err := s.listKeptSearch(key, page, w)
	if err != nil || kept {
		return events, total, err
	}
	if s.memos.searches.worthKeeping(key) && s.memos.searches.keeping.TryLock() {
		added, err := s.keepSearch(key, w.Search)
		s.memos.searches.keeping.Unlock()
		if err != nil {
			return nil, 0, err
		}
		if added {
			go s.vacuumKeptMatches()
			if events, total, kept, err = s.listKeptSearch(key, page, w); err != nil || kept {
				return events, total, err
			}
		}
	}
	return s.ListEvents(scopes, page)
}

// vacuumKeptMatches vacuums and analyzes search_listed_events and search_day_counts after a search was kept, one at
// a time (a search kept while one runs makes it run once more); autovacuum would come by a minute or more later.
//   - A kept search's page and total are index-only scans, which read the tables' rows too until a vacuum marks
//     their pages all-visible: the 5,427 matches of a search at 100,000 events cost 5,460 reads of the table
//     before the vacuum, none after; the total of another read its 887 day counts from the table too (36 buffers,
//     0.40 ms), and 10 buffers in 0.15 ms after. Only the pages changed since the last vacuum are read.
//   - Without statistics the planner takes every event to have thousands of matches, and the triggers' delete of
//     a series' 158 occurrences' matches read all 1.5 million rows (240 ms) instead of their index entries.
//
// It runs outside any request, on the connection pool itself (no statement a request sends), and a failure leaves
// the work to autovacuum.
func (s *Store) vacuumKeptMatches() {
	v := &s.memos.searches.vacuuming
	if v.Add(1) > 1 {
		return // the running vacuum goes once more
	}
	for {
		if pool, err := s.root.DB(); err == nil {
			_, _ = pool.ExecContext(context.Background(), "VACUUM (ANALYZE) search_listed_events, search_day_counts")
		}
		if v.Add(-1) == 0 {
			return
		}
		v.Store(1)
	}
}

// keptSearchPage selects, for the kept search named @terms, one page of the window's matches (an index range per
// status) and their total ({total}: a sum of the search's day counts, keptSearchDays), or one row with no event
// when the page is empty; no row at all when the search is not kept. {everyone} narrows the matches to those every
// caller may find, and {page} is the page (Page.literalLimit). The total is a lateral subquery of the search's row,
// summed once: in the select list, it was summed again for every row of the page (2.5 ms instead of 0.4 ms for a
// page of 10 at a million events).
const keptSearchPage = `SELECT k.id AS search_id, m.event_id, t.total FROM kept_searches k
	CROSS JOIN LATERAL ({total}) AS t (total) LEFT JOIN LATERAL (
	SELECT x.event_id FROM search_listed_events x
	WHERE x.search_id = k.id AND x.status IN @statuses AND x.start_utc >= @start AND x.end_utc <= @end {everyone}
	ORDER BY x.start_utc, x.event_id {page}) m ON true
	WHERE k.terms = @terms`

// keptSearchDays counts a kept search's matches by day for keptSearchPage, whose kept search is k: the whole days
// from its day counts (search_day_counts, kept by triggers on its matches), the edge days a window cuts from the
// matches themselves. A cut last day reads the matches of the whole window, which have no index on their end.
func keptSearchDays(everyone bool) dayCounted {
	c := dayCounted{kept: "search_day_counts WHERE search_id = k.id AND", keptN: "n",
		rows: "search_listed_events AS events", listed: "events.search_id = k.id"}
	if everyone {
		c.keptN, c.listed = "everyone", c.listed+" AND events.everyone"
	}
	return c
}

// listKeptSearch is listSearched from the kept matches; kept is false when the search is not kept.
func (s *Store) listKeptSearch(key string, page Page, w *Window) (events []Event, total int64, kept bool, err error) {
	everyone := w.protected != protectedSeenByAll
	totalSQL, args := "SELECT 0", map[string]any{}
	if days, dayArgs := s.windowDaysSQL(w, false, keptSearchDays(everyone)); days != "" {
		totalSQL, args = "SELECT CAST(COALESCE(SUM(d.n), 0) AS BIGINT) FROM ("+days+") AS d", dayArgs
	}
	matchesFor := ""
	if everyone {
		matchesFor = "AND x.everyone"
	}
	for name, v := range map[string]any{"terms": key, "statuses": w.Statuses, "start": w.Start, "end": w.End,
		"offset": page.Offset()} {
		args[name] = v
	}
	var rows []struct {
		SearchID uint64
		EventID  *uint64
		Total    int64
	}
	query := strings.NewReplacer("{total}", totalSQL, "{everyone}", matchesFor, "{page}", page.literalLimit("@offset")).
		Replace(keptSearchPage)
	if err = s.db.Raw(query, args).Scan(&rows).Error; err != nil || len(rows) == 0 {
		return nil, 0, false, err
	}
	s.markSearchUsed(key)
	if rows[0].EventID == nil {
		return []Event{}, rows[0].Total, true, nil
	}
	ids := make([]uint64, len(rows))
	for i, r := range rows {
		ids[i] = *r.EventID
	}
	events, err = scanEvents(s.db.Raw(selectEvents+" WHERE events.id IN ? ORDER BY "+eventOrder, ids), len(ids))
	return events, rows[0].Total, true, err
}

// markSearchUsed writes that the kept search was used, at most every keptSearchUseEvery per instance, so that it
// is not the one dropped when a search past maxKeptSearches is added. It is a transaction of its own, which
// changes no data a list shows (the data version stays). A failure only leaves the search older than it is.
func (s *Store) markSearchUsed(key string) {
	if !s.memos.searches.dueForUse(key, time.Now()) {
		return
	}
	_ = s.bookkeeping().Transaction(func(tx *gorm.DB) error {
		return tx.Exec("UPDATE kept_searches SET used_at = now() WHERE terms = ?", key).Error
	})
}

// bookkeeping is the store's database as opened, in the request's context: the kept searches' transactions run on
// it, whatever pool wrapping the list's reads go through.
func (s *Store) bookkeeping() *gorm.DB { return s.root.WithContext(s.db.Statement.Context) }

// errTooBroad rolls back the addition of a search that matches more than maxKeptMatches events.
var errTooBroad = errors.New("models: the search matches too many events to be kept")

// keepSearch adds the search to the kept searches with every listed event it matches, in one transaction under the
// exclusive advisory lock the triggers of events take shared (see the migration): it starts once the writers in
// flight have committed, and matches every event they wrote; writers that come after it wait for its commit, and
// then keep its matches themselves. Writes therefore wait while a search is kept: tens to hundreds of
// milliseconds at 100,000 events (docs/benchmarks.md, "Searches kept"), bounded by maxKeptMatches. It drops the
// least recently used searches past maxKeptSearches first, and reports whether the search is kept when it returns
// (another request may have added it meanwhile).
//
// The events are found with EventsMatching's conditions (ILIKE, which the trigram indexes serve): an event matches
// when every term is in one of its columns, and matches for everyone when the search rule also holds for an
// anonymous viewer. The triggers compare the lower-cased texts with the lower-cased terms, which is what ILIKE
// does on a UTF-8 database.
func (s *Store) keepSearch(key string, terms []string) (bool, error) {
	var inAny, everyone []clause.Expression
	for _, t := range terms {
		matched, rule := termConditions(s.db, t, nil)
		inAny, everyone = append(inAny, matched), append(everyone, matched, rule)
	}
	err := s.bookkeeping().Transaction(func(tx *gorm.DB) error {
		// The planner estimates a search's matches at a tenth of the events and reads them all (420 ms at 100,000
		// events for a search of 7,791 matches, writes waiting), where the trigram indexes find them in 60 ms.
		for _, setup := range []string{"SET LOCAL enable_seqscan = off",
			"SELECT pg_advisory_xact_lock(search_listed_events_lock())"} {
			if err := tx.Exec(setup).Error; err != nil {
				return err
			}
		}
		for _, drop := range dropLeastUsedSearches {
			if err := tx.Exec(drop, maxKeptSearches-1).Error; err != nil {
				return err
			}
		}
		var id uint64
		err := tx.Raw(`INSERT INTO kept_searches (terms, needles)
			VALUES (@key, ARRAY(SELECT lower(t) FROM json_array_elements_text(CAST(@key AS JSON)) AS t))
			ON CONFLICT (terms) DO NOTHING RETURNING id`, map[string]any{"key": key}).Scan(&id).Error
		if err != nil || id == 0 {
			return err
		}
		res := tx.Exec(`INSERT INTO search_listed_events (search_id, event_id, status, start_utc, end_utc, everyone)
			SELECT ?, events.id, events.status, events.start_utc, events.end_utc, ? FROM events
			WHERE NOT events.hide_from_listings AND ?`, id, clause.And(everyone...), clause.And(inAny...))
		if res.Error == nil && res.RowsAffected > maxKeptMatches {
			return errTooBroad
		}
		return res.Error
	})
	if errors.Is(err, errTooBroad) {
		s.memos.searches.markTooBroad(key)
		return false, nil
	}
	return err == nil, err
}

// dropLeastUsedSearches drop the kept searches past the given number of most recently used ones: their matches
// (whose triggers bring their day counts to zero), their day counts, then the searches.
var dropLeastUsedSearches = []string{
	`DELETE FROM search_listed_events WHERE search_id IN (SELECT id FROM kept_searches ` + leastUsed + `)`,
	`DELETE FROM search_day_counts WHERE search_id IN (SELECT id FROM kept_searches ` + leastUsed + `)`,
	`DELETE FROM kept_searches WHERE id IN (SELECT id FROM kept_searches ` + leastUsed + `)`,
}

const leastUsed = `ORDER BY used_at DESC, id DESC OFFSET ?`
