-- Indexes for the event list (GET /events). Every list query keeps listed events only (hide_from_listings is
-- false), so the listing indexes are partial on that. The page query picks IDs in the listing order
-- (start_utc, id) from a covering index (INCLUDE holds every column a filter tests), so filters that the order
-- cannot narrow cost index entries, not row reads; the count runs as an index-only scan too.

-- +goose Up
-- idx_events_status_start (status, start_utc, id) stays: the venue and organizer filter only_with_upcoming
-- probes events by status and start without the listing predicate.
DROP INDEX idx_events_start;
DROP INDEX idx_events_end;
DROP INDEX idx_events_featured_start;
DROP INDEX idx_events_ticketed_start;

-- One status (visitors: publish; status=draft): the window on start_utc, in listing order.
CREATE INDEX idx_events_listed_status_start ON events (status, start_utc, id)
    INCLUDE (end_utc, featured, ticketed, author_id, trashed_status, parent_id) WHERE NOT hide_from_listings;
-- Several statuses (editors' default "any"): the listing order with the status as a covered filter.
CREATE INDEX idx_events_listed_start ON events (start_utc, id)
    INCLUDE (status, end_utc, featured, ticketed, author_id, trashed_status, parent_id) WHERE NOT hide_from_listings;
-- end_date, ends_before, ends_after: a range on end_utc.
CREATE INDEX idx_events_listed_status_end ON events (status, end_utc)
    INCLUDE (start_utc, id) WHERE NOT hide_from_listings;
-- featured=true and ticketed=true: the few flagged events, in listing order.
CREATE INDEX idx_events_listed_featured ON events (status, start_utc, id)
    INCLUDE (end_utc) WHERE featured AND NOT hide_from_listings;
CREATE INDEX idx_events_listed_ticketed ON events (status, start_utc, id)
    INCLUDE (end_utc) WHERE ticketed AND NOT hide_from_listings;

-- search matches every term with ILIKE '%term%' in title, description or excerpt; trigram indexes serve each
-- column (the planner ORs their bitmaps). The extension goes to public so that it outlives any one schema.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE INDEX idx_events_title_trgm ON events USING gin (title gin_trgm_ops);
CREATE INDEX idx_events_description_trgm ON events USING gin (description gin_trgm_ops);
CREATE INDEX idx_events_excerpt_trgm ON events USING gin (excerpt gin_trgm_ops);

-- +goose Down
DROP INDEX idx_events_excerpt_trgm;
DROP INDEX idx_events_description_trgm;
DROP INDEX idx_events_title_trgm;
DROP INDEX idx_events_listed_ticketed;
DROP INDEX idx_events_listed_featured;
DROP INDEX idx_events_listed_status_end;
DROP INDEX idx_events_listed_start;
DROP INDEX idx_events_listed_status_start;
CREATE INDEX idx_events_start ON events (start_utc, id);
CREATE INDEX idx_events_end ON events (end_utc);
CREATE INDEX idx_events_featured_start ON events (start_utc, id) WHERE featured;
CREATE INDEX idx_events_ticketed_start ON events (start_utc, id) WHERE ticketed;
