-- A collapsed list's total (collapse_series=true: each series once) counts its single events and its series apart.
-- event_day_counts now also keeps, beside n, how many of those listed events are occurrences of a series
-- (series_id set): a date window's single events are then n - occurrences summed over its days, without reading
-- them. The triggers keep both counts, and the update triggers also fire on a change of series_id, so that the
-- occurrence count follows any write that makes a listed event an occurrence or a single event.

-- +goose Up
ALTER TABLE event_day_counts ADD COLUMN occurrences INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER event_day_counts_insert;
DROP TRIGGER event_day_counts_delete;
DROP TRIGGER event_day_counts_update_old;
DROP TRIGGER event_day_counts_update_new;
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_insert AFTER INSERT ON events
WHEN NOT NEW.hide_from_listings
BEGIN
    INSERT INTO event_day_counts (status, start_day, end_day, n, occurrences)
    VALUES (NEW.status, CAST(julianday(substr(NEW.start_utc, 1, 10)) - 2440587.5 AS INTEGER),
            CAST(julianday(substr(NEW.end_utc, 1, 10)) - 2440587.5 AS INTEGER), 1, (NEW.series_id IS NOT NULL))
    ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = n + 1, occurrences = occurrences + excluded.occurrences;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_delete AFTER DELETE ON events
WHEN NOT OLD.hide_from_listings
BEGIN
    UPDATE event_day_counts SET n = n - 1, occurrences = occurrences - (OLD.series_id IS NOT NULL)
    WHERE status = OLD.status AND start_day = CAST(julianday(substr(OLD.start_utc, 1, 10)) - 2440587.5 AS INTEGER)
      AND end_day = CAST(julianday(substr(OLD.end_utc, 1, 10)) - 2440587.5 AS INTEGER);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_update_old AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings, series_id ON events
WHEN NOT OLD.hide_from_listings
BEGIN
    UPDATE event_day_counts SET n = n - 1, occurrences = occurrences - (OLD.series_id IS NOT NULL)
    WHERE status = OLD.status AND start_day = CAST(julianday(substr(OLD.start_utc, 1, 10)) - 2440587.5 AS INTEGER)
      AND end_day = CAST(julianday(substr(OLD.end_utc, 1, 10)) - 2440587.5 AS INTEGER);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_day_counts_update_new AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings, series_id ON events
WHEN NOT NEW.hide_from_listings
BEGIN
    INSERT INTO event_day_counts (status, start_day, end_day, n, occurrences)
    VALUES (NEW.status, CAST(julianday(substr(NEW.start_utc, 1, 10)) - 2440587.5 AS INTEGER),
            CAST(julianday(substr(NEW.end_utc, 1, 10)) - 2440587.5 AS INTEGER), 1, (NEW.series_id IS NOT NULL))
    ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = n + 1, occurrences = occurrences + excluded.occurrences;
END;
-- +goose StatementEnd

UPDATE event_day_counts SET occurrences = x.o
FROM (SELECT status, CAST(julianday(substr(start_utc, 1, 10)) - 2440587.5 AS INTEGER) AS start_day,
             CAST(julianday(substr(end_utc, 1, 10)) - 2440587.5 AS INTEGER) AS end_day, count(*) AS o
      FROM events WHERE NOT hide_from_listings AND series_id IS NOT NULL GROUP BY 1, 2, 3) AS x
WHERE event_day_counts.status = x.status AND event_day_counts.start_day = x.start_day
  AND event_day_counts.end_day = x.end_day;

-- +goose Down
DROP TRIGGER event_day_counts_insert;
DROP TRIGGER event_day_counts_delete;
DROP TRIGGER event_day_counts_update_old;
DROP TRIGGER event_day_counts_update_new;
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
ALTER TABLE event_day_counts DROP COLUMN occurrences;
