-- An event never ends before it starts: the writes refuse such dates (end_date 400), and the list's date scopes
-- rely on it, bounding start by an end bound and end by a start bound (models.EventsStartingAtOrAfter). The
-- constraint makes the rule the database's own.

-- +goose Up
ALTER TABLE events ADD CONSTRAINT events_end_not_before_start CHECK (end_utc >= start_utc);

-- +goose Down
ALTER TABLE events DROP CONSTRAINT events_end_not_before_start;
