-- Indexes for the event list (GET /events), as in the PostgreSQL migration: partial on listed events, in the
-- listing order (start_utc, id), with the filtered columns in the key where SQLite can use them. Search has no
-- index on SQLite (LIKE '%term%' cannot use one); PostgreSQL serves it with trigram indexes.

-- +goose Up
-- idx_events_status_start (status, start_utc, id) stays: the venue and organizer filter only_with_upcoming
-- probes events by status and start without the listing predicate.
DROP INDEX idx_events_start;
DROP INDEX idx_events_end;
DROP INDEX idx_events_featured_start;
DROP INDEX idx_events_ticketed_start;

CREATE INDEX idx_events_listed_status_start ON events (status, start_utc, id, end_utc) WHERE hide_from_listings = 0;
CREATE INDEX idx_events_listed_start ON events (start_utc, id, status, end_utc) WHERE hide_from_listings = 0;
CREATE INDEX idx_events_listed_status_end ON events (status, end_utc, start_utc, id) WHERE hide_from_listings = 0;
CREATE INDEX idx_events_listed_featured ON events (status, start_utc, id) WHERE featured = 1 AND hide_from_listings = 0;
CREATE INDEX idx_events_listed_ticketed ON events (status, start_utc, id) WHERE ticketed = 1 AND hide_from_listings = 0;

-- +goose Down
DROP INDEX idx_events_listed_ticketed;
DROP INDEX idx_events_listed_featured;
DROP INDEX idx_events_listed_status_end;
DROP INDEX idx_events_listed_start;
DROP INDEX idx_events_listed_status_start;
CREATE INDEX idx_events_start ON events (start_utc, id);
CREATE INDEX idx_events_end ON events (end_utc);
CREATE INDEX idx_events_featured_start ON events (start_utc, id) WHERE featured = 1;
CREATE INDEX idx_events_ticketed_start ON events (start_utc, id) WHERE ticketed = 1;
