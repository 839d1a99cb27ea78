-- Recurring events. A series is an event row of its own (the series record: what GET /events/{id} of the series
-- shows) plus a row of event_series with its recurrence lines; each of its occurrences is an ordinary event row
-- plus a row of event_occurrences naming its series and its original start (RECURRENCE-ID). Keeping the series'
-- facts in tables of their own leaves the events table, its list indexes and every list query as they are: the
-- series record is never listed because its row is hidden from listings (the client's own hide_from_listings of the
-- series is event_series.hide_from_listings), and it has no link rows and no link lists of its own: its links are
-- the lists of event_series (in the form of the events' lists), so it counts for no term, venue or organizer; its
-- occurrences do. events.series_id names the series of an occurrence, and a series record's own ID on the series
-- record: a read learns from the row itself whether it needs the series' facts (none for a list of single events),
-- and series=ID and collapse_series read an index of events.

-- event_series.recurrence holds the normalised RRULE, RDATE and EXDATE lines, one per line; expanded_until is the
-- horizon the series was last expanded to, NULL once its rules have ended (COUNT or UNTIL reached), so that the
-- horizon job reads only the series that still grow. event_occurrences.overrides names the fields the occurrence
-- changed on its own (comma-separated API names): updates of the series skip them.

-- +goose Up
CREATE TABLE event_series (
    event_id           INTEGER PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    recurrence         TEXT     NOT NULL,
    recurrence_text    TEXT     NOT NULL DEFAULT '',
    hide_from_listings BOOLEAN  NOT NULL DEFAULT 0,
    expanded_until     DATETIME,
    venue_links        TEXT,
    organizer_links    TEXT,
    category_links     TEXT,
    tag_links          TEXT
);
CREATE INDEX idx_event_series_expanded_until ON event_series (expanded_until) WHERE expanded_until IS NOT NULL;

CREATE TABLE event_occurrences (
    event_id      INTEGER PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    series_id     INTEGER  NOT NULL REFERENCES event_series (event_id) ON DELETE CASCADE,
    recurrence_id DATETIME NOT NULL,
    overrides     TEXT     NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX idx_event_occurrences_series ON event_occurrences (series_id, recurrence_id);

ALTER TABLE events ADD COLUMN series_id INTEGER REFERENCES events (id) ON DELETE CASCADE;
CREATE INDEX idx_events_series ON events (series_id, start_utc, id) WHERE series_id IS NOT NULL;

-- +goose Down
DROP INDEX idx_events_series;
ALTER TABLE events DROP COLUMN series_id;
DROP TABLE event_occurrences;
DROP TABLE event_series;
