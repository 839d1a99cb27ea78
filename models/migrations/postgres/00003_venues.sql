-- Venues and organizers.
-- The duplicate rule looks records up by name, ignoring case.
-- has_events probes, for each venue or organizer, whether one of its events is not a draft, pending or
-- trashed: idx_events_listed answers that from the index alone (an index-only scan), per event or for all of them.
-- only_with_upcoming is served by idx_events_status_start (status, start_utc, id) of the initial schema.

-- +goose Up
CREATE INDEX idx_venues_name_lower ON venues (lower(name));
CREATE INDEX idx_organizers_name_lower ON organizers (lower(name));
CREATE INDEX idx_events_listed ON events (id) WHERE status IN ('publish', 'future', 'private');

-- +goose Down
DROP INDEX idx_events_listed;
DROP INDEX idx_organizers_name_lower;
DROP INDEX idx_venues_name_lower;
