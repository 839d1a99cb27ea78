-- Venues and organizers.
-- has_events probes, for each venue or organizer, whether one of its events is not a draft, pending or
-- trashed: idx_events_listed answers that from the index alone. (The duplicate rule's case-insensitive name
-- lookup uses calendar_fold, which no SQLite index can serve; venue and organizer tables are small.)

-- +goose Up
CREATE INDEX idx_events_listed ON events (id) WHERE status IN ('publish', 'future', 'private');

-- +goose Down
DROP INDEX idx_events_listed;
