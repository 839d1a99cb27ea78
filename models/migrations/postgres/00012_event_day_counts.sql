-- A list's exact total without counting its events at every request: event_day_counts holds, for every status and
-- every pair of UTC days (the day an event starts, the day it ends), how many listed events (hide_from_listings
-- false) have them. Triggers on events keep it current inside the writing transaction, so the counts are never
-- behind what a reader of the same snapshot sees, on any instance. A date window's total is then a sum over the
-- days wholly inside it, plus an exact count of the events on its two edge days (models.Store.windowCounts). Rows
-- whose count reached zero stay: they are few (one per status and pair of days) and are reused.
--
-- The triggers are per statement, with transition tables: a statement that writes many events (the seeder's batch
-- inserts, a term's deletion) updates each count row once, in key order, so that two writers take the rows' locks
-- in the same order. A statement that changes none of the counted columns changes no row.

-- +goose Up
CREATE TABLE event_day_counts (
    status    TEXT    NOT NULL,
    start_day INTEGER NOT NULL, -- days since 1970-01-01 of start_utc, in UTC
    end_day   INTEGER NOT NULL, -- the same of end_utc
    n         BIGINT  NOT NULL,
    PRIMARY KEY (status, start_day, end_day)
);

-- +goose StatementBegin
CREATE FUNCTION event_day(t TIMESTAMPTZ) RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ((t AT TIME ZONE 'UTC')::date - DATE '1970-01-01') $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION event_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n)
        SELECT status, event_day(start_utc), event_day(end_utc), count(*)
        FROM new_events WHERE NOT hide_from_listings
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n)
        SELECT status, event_day(start_utc), event_day(end_utc), -count(*)
        FROM old_events WHERE NOT hide_from_listings
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n)
        SELECT status, start_day, end_day, sum(d) FROM (
            SELECT status, event_day(start_utc) AS start_day, event_day(end_utc) AS end_day, 1 AS d
            FROM new_events WHERE NOT hide_from_listings
            UNION ALL
            SELECT status, event_day(start_utc), event_day(end_utc), -1
            FROM old_events WHERE NOT hide_from_listings
        ) AS changes
        GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER event_day_counts_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_apply();
CREATE TRIGGER event_day_counts_update AFTER UPDATE ON events
    REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_apply();
CREATE TRIGGER event_day_counts_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION event_day_counts_apply();

INSERT INTO event_day_counts (status, start_day, end_day, n)
SELECT status, event_day(start_utc), event_day(end_utc), count(*)
FROM events WHERE NOT hide_from_listings GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER event_day_counts_delete ON events;
DROP TRIGGER event_day_counts_update ON events;
DROP TRIGGER event_day_counts_insert ON events;
DROP FUNCTION event_day_counts_apply();
DROP FUNCTION event_day(TIMESTAMPTZ);
DROP TABLE event_day_counts;
