-- A list's exact total without counting its events at every request: event_day_counts holds, for every status and
-- every pair of UTC days (the day an event starts, the day it ends), how many listed events (hide_from_listings
-- false) have them. Triggers on events keep it current inside the writing transaction, so the counts are never
-- behind what a reader of the same snapshot sees. A date window's total is then a sum over the days wholly inside
-- it, plus an exact count of the events on its two edge days (models.Store.windowCounts). Rows whose count reached
-- zero stay: they are few (one per status and pair of days) and are reused. Instants are stored as UTC text, so a
-- day is the first ten characters; julianday turns it into days since 1970-01-01.

-- +goose Up
CREATE TABLE event_day_counts (
    status    TEXT    NOT NULL,
    start_day INTEGER NOT NULL,
    end_day   INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (status, start_day, end_day)
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER event_day_counts_insert AFTER INSERT ON events
WHEN NOT NEW.hide_from_listings
BEGIN
    INSERT INTO event_day_counts (status, start_day, end_day, n)
    VALUES (NEW.status, CAST(julianday(substr(NEW.start_utc, 1, 10)) - 2440587.5 AS INTEGER),
            CAST(julianday(substr(NEW.end_utc, 1, 10)) - 2440587.5 AS INTEGER), 1)
    ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_delete AFTER DELETE ON events
WHEN NOT OLD.hide_from_listings
BEGIN
    UPDATE event_day_counts SET n = n - 1
    WHERE status = OLD.status AND start_day = CAST(julianday(substr(OLD.start_utc, 1, 10)) - 2440587.5 AS INTEGER)
      AND end_day = CAST(julianday(substr(OLD.end_utc, 1, 10)) - 2440587.5 AS INTEGER);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_update_old AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings ON events
WHEN NOT OLD.hide_from_listings
BEGIN
    UPDATE event_day_counts SET n = n - 1
    WHERE status = OLD.status AND start_day = CAST(julianday(substr(OLD.start_utc, 1, 10)) - 2440587.5 AS INTEGER)
      AND end_day = CAST(julianday(substr(OLD.end_utc, 1, 10)) - 2440587.5 AS INTEGER);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_update_new AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings ON events
WHEN NOT NEW.hide_from_listings
BEGIN
    INSERT INTO event_day_counts (status, start_day, end_day, n)
    VALUES (NEW.status, CAST(julianday(substr(NEW.start_utc, 1, 10)) - 2440587.5 AS INTEGER),
            CAST(julianday(substr(NEW.end_utc, 1, 10)) - 2440587.5 AS INTEGER), 1)
    ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

INSERT INTO event_day_counts (status, start_day, end_day, n)
SELECT status, CAST(julianday(substr(start_utc, 1, 10)) - 2440587.5 AS INTEGER),
       CAST(julianday(substr(end_utc, 1, 10)) - 2440587.5 AS INTEGER), count(*)
FROM events WHERE NOT hide_from_listings GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER event_day_counts_update_new;
DROP TRIGGER event_day_counts_update_old;
DROP TRIGGER event_day_counts_delete;
DROP TRIGGER event_day_counts_insert;
DROP TABLE event_day_counts;
