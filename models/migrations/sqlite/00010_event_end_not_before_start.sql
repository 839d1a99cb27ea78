-- An event never ends before it starts: the writes refuse such dates (end_date 400), and the list's date scopes
-- rely on it, bounding start by an end bound and end by a start bound (models.EventsStartingAtOrAfter). SQLite
-- cannot add a CHECK constraint to a table, so two triggers make the rule the database's own.

-- +goose Up
-- +goose StatementBegin
CREATE TRIGGER events_end_not_before_start_insert BEFORE INSERT ON events
WHEN julianday(NEW.end_utc) < julianday(NEW.start_utc)
BEGIN
    SELECT RAISE(ABORT, 'events_end_not_before_start');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER events_end_not_before_start_update BEFORE UPDATE OF start_utc, end_utc ON events
WHEN julianday(NEW.end_utc) < julianday(NEW.start_utc)
BEGIN
    SELECT RAISE(ABORT, 'events_end_not_before_start');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER events_end_not_before_start_update;
DROP TRIGGER events_end_not_before_start_insert;
