package models

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"time"

	"gorm.io/gorm"
)

// NewEvent is an event to insert with its links, every one an existing record: what InsertEvent takes.
type NewEvent struct {
	Event                                *Event
	Venues, Organizers, Categories, Tags []uint64
}

// ErrSlugTaken is InsertEvent's answer when an event already has the slug asked for: nothing was written. The
// caller takes the transactional path (CreateEventWithSlug), which finds the next free slug.
var ErrSlugTaken = errors.New("models: the slug is taken")

// maxInsertBatch bounds how many creates share one statement, and so how long the last of them waits.
const maxInsertBatch = 64

// InsertsEventsInOneStatement tells whether InsertEvent is available: on PostgreSQL, whose data-modifying CTEs
// write an event, its links, its count deltas and the data version in one statement. SQLite, which has none and
// runs one writer at a time anyway, creates every event in a transaction (CreateEventWithSlug, LinkNewEvent).
func (s *Store) InsertsEventsInOneStatement() bool { return s.inserts != nil }

// InsertEvent writes ne's event with the slug it holds, its links, the count deltas of its terms and a new data
// version, as one statement, and sets the event's ID. Concurrent calls share that statement (a batch), which is
// what lets PostgreSQL take a thousand creates a second on two cores: one statement and one commit for every
// batch instead of five statements and a commit for every event. Each event is still written whole or not at all:
// a batch whose statement fails is written again one event at a time, so only the event at fault gets the error
// (a foreign key naming a record deleted meanwhile: AsError makes it the 400 of its parameter). A batch never
// holds two events with the same slug; an event whose slug is taken gets ErrSlugTaken.
//
// It runs outside any transaction, and its caller has read the linked records before, outside one too: that is
// safe because every link's foreign key checks, and locks, the record it names as the statement writes it.
func (s *Store) InsertEvent(ne *NewEvent) error {
	if s.inserts == nil {
		return ErrNeedsTransaction
	}
	e := ne.Event
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now()
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = e.CreatedAt
	}
	// The context never ends: once in a batch, the event may be written, so the caller waits for the answer.
	answer, _ := s.inserts.do(context.Background(), ne)
	return answer
}

// writeEvents is the inserts' coalescer's run: it writes the events in as few statements as their slugs allow (a
// statement could not tell two events with one slug apart) and answers each: nil with its ID set, ErrSlugTaken, or
// the error of its own insert.
func (s *Store) writeEvents(events []*NewEvent) []error {
	answers := make(map[*NewEvent]error, len(events))
	for rest := events; len(rest) > 0; {
		var round, later []*NewEvent
		slugs := map[string]bool{}
		for _, ne := range rest {
			if slugs[ne.Event.Slug] {
				later = append(later, ne)
				continue
			}
			slugs[ne.Event.Slug] = true
			round = append(round, ne)
		}
		s.writeRound(round, answers)
		rest = later
	}
	errs := make([]error, len(events))
	for i, ne := range events {
		errs[i] = answers[ne]
	}
	return errs
}

// writeRound inserts events with distinct slugs in one statement and records each one's answer. When the statement
// fails for one of them (a foreign key, a value the column refuses), it writes them one by one, so that each gets
// its own answer; when the database is unavailable, all get that answer at once.
func (s *Store) writeRound(round []*NewEvent, answers map[*NewEvent]error) {
	err := s.insertEventsAgainIfAborted(round)
	for i, ne := range round {
		answer := err
		if err != nil && len(round) > 1 && !isUnavailable(err) {
			answer = s.insertEventsAgainIfAborted(round[i : i+1])
		}
		if answer == nil && ne.Event.ID == 0 {
			answer = ErrSlugTaken
		}
		answers[ne] = answer
	}
}

// insertEventsAgainIfAborted runs insertEvents, and again while PostgreSQL aborts it (runAgainIfAborted). Such
// deadlocks happen when the links' foreign keys lock the venues, organizers and terms they name while a write that
// deletes one of them holds its row and waits for the events it updates. The batch runs on behalf of several
// requests, so no single request's context bounds it.
func (s *Store) insertEventsAgainIfAborted(events []*NewEvent) error {
	return runAgainIfAborted(context.Background(), func() error { return s.insertEvents(events) })
}

// insertStatementTimeout bounds one batch's statement; it runs on behalf of several requests, so no single
// request's context bounds it.
const insertStatementTimeout = 30 * time.Second

// insertEventsSQL writes a batch of events, given as one JSON array (each element read as a row of events, with
// the table's own column types and its link lists, plus its links), with their links, the venue and category
// pairs, the count deltas of published events' terms (one row per term, however many of the batch's events it
// counts: popular terms then have few pending deltas for readers to add up) and one data version, in one
// statement. Events whose slug is taken are skipped (ON CONFLICT DO NOTHING), and so are their links (they join
// the inserted rows by slug); the statement returns the IDs and slugs of the events it inserted. The data version
// is bumped as bumpVersion does, in a free shard (or, when all are taken, in the one @shard names), and only when
// an event was inserted. The main SELECT reads e whole, so the events' triggers fire first; then those of each
// data-modifying CTE, in the reverse of their order here: venues and organizers before categories, the order in
// which an update's triggers lock the links' kept rows (migration 00035).
const insertEventsSQL = `WITH x AS (
	SELECT r.*, l.venues, l.organizers, l.categories, l.tags
	FROM jsonb_array_elements(CAST(@batch AS jsonb)) AS j(event),
		jsonb_populate_record(NULL::events, j.event) AS r,
		jsonb_to_record(j.event) AS l(venues bigint[], organizers bigint[], categories bigint[], tags bigint[])
), e AS (
	INSERT INTO events (author_id, status, trashed_status, password, title, description, excerpt, slug, timezone,
		timezone_abbr, start_utc, end_utc, all_day, cost, website, show_map, show_map_link, hide_from_listings,
		sticky, featured, ticketed, image_id, parent_id, published_at, created_at, updated_at, venue_links,
		organizer_links, category_links, tag_links)
	SELECT author_id, status, trashed_status, password, title, description, excerpt, slug, timezone,
		timezone_abbr, start_utc, end_utc, all_day, cost, website, show_map, show_map_link, hide_from_listings,
		sticky, featured, ticketed, image_id, parent_id, published_at, created_at, updated_at, venue_links,
		organizer_links, category_links, tag_links
	FROM x
	ON CONFLICT (slug) DO NOTHING
	RETURNING id, slug
), ex AS (
	SELECT e.id, x.status, x.venues, x.organizers, x.categories, x.tags FROM e JOIN x ON x.slug = e.slug
), ld AS (
	INSERT INTO term_count_deltas (taxonomy, term_id, delta)
	SELECT taxonomy, term_id, count(*) FROM (
		SELECT 'categories' AS taxonomy, c.id AS term_id FROM ex, unnest(ex.categories) AS c(id)
		WHERE ex.status = 'publish'
		UNION ALL
		SELECT 'tags', t.id FROM ex, unnest(ex.tags) AS t(id) WHERE ex.status = 'publish'
	) d GROUP BY taxonomy, term_id
), lp AS (
	INSERT INTO event_venue_categories (venue_id, category_id, event_id)
	SELECT v.id, c.id, ex.id FROM ex, unnest(ex.venues) AS v(id), unnest(ex.categories) AS c(id)
), lt AS (
	INSERT INTO event_tags (event_id, tag_id) SELECT ex.id, t.id FROM ex, unnest(ex.tags) AS t(id)
), lc AS (
	INSERT INTO event_categories (event_id, category_id) SELECT ex.id, c.id FROM ex, unnest(ex.categories) AS c(id)
), lo AS (
	INSERT INTO event_organizers (event_id, organizer_id, position)
	SELECT ex.id, o.id, o.n - 1 FROM ex, unnest(ex.organizers) WITH ORDINALITY AS o(id, n)
), lv AS (
	INSERT INTO event_venues (event_id, venue_id, position)
	SELECT ex.id, v.id, v.n - 1 FROM ex, unnest(ex.venues) WITH ORDINALITY AS v(id, n)
), v AS (
	UPDATE data_versions SET version = version + 1
	WHERE shard = COALESCE(
		(SELECT shard FROM data_versions WHERE shard >= @shard ORDER BY shard LIMIT 1 FOR UPDATE SKIP LOCKED), @shard)
		AND EXISTS (SELECT 1 FROM e)
)
SELECT id, slug FROM e`

// insertedEvent is one element of insertEventsSQL's JSON array: an event's columns (Event's JSON) and its links.
type insertedEvent struct {
	*Event
	Venues     []uint64 `json:"venues"`
	Organizers []uint64 `json:"organizers"`
	Categories []uint64 `json:"categories"`
	Tags       []uint64 `json:"tags"`
}

// insertEvents runs insertEventsSQL for events and sets the ID of each it inserted (0 for a taken slug).
func (s *Store) insertEvents(events []*NewEvent) error {
	rows := make([]insertedEvent, len(events))
	bySlug := make(map[string]*Event, len(events))
	for i, ne := range events {
		ne.Event.ID = 0
		ne.Event.SetLinkLists(ne.Venues, ne.Organizers, ne.Categories, ne.Tags)
		rows[i] = insertedEvent{Event: ne.Event, Venues: ne.Venues, Organizers: ne.Organizers,
			Categories: ne.Categories, Tags: ne.Tags}
		bySlug[ne.Event.Slug] = ne.Event
	}
	batch, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), insertStatementTimeout)
	defer cancel()
	result, err := s.db.WithContext(ctx).Raw(insertEventsSQL,
		map[string]any{"batch": string(batch), "shard": rand.IntN(versionShards)}).Rows()
	if err != nil {
		return s.translate(err) // GORM's Rows does not translate
	}
	defer result.Close()
	for result.Next() {
		var id uint64
		var slug string
		if err := result.Scan(&id, &slug); err != nil {
			return s.translate(err)
		}
		if e := bySlug[slug]; e != nil {
			e.ID = id
		}
	}
	if err := result.Err(); err != nil {
		// A foreign key's failure arrives after the rows: the statement checks them as it ends.
		for _, ne := range events {
			ne.Event.ID = 0
		}
		return s.translate(err)
	}
	return nil
}

// translate turns a driver error into GORM's (ErrForeignKeyViolated, ErrDuplicatedKey), as the errors of GORM's
// own calls are, for AsError; errors GORM reported already are returned as they are.
func (s *Store) translate(err error) error {
	if t, ok := s.db.Dialector.(gorm.ErrorTranslator); ok {
		return t.Translate(err)
	}
	return err
}
