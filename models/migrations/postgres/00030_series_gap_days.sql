-- A collapsed list's number of series without probing every series: how many series have an occurrence in a window
-- (start at or after a, end at or before b) is read from counts kept per day.
--
-- Take one series' listed occurrences of one status in list order (start, then ID). For each occurrence o let
-- before(o) be the start of the one before it (none for the first) and until(o) the earliest end of o and every
-- occurrence after it. The series has an occurrence in the window exactly when its first occurrence starting at or
-- after a has until <= b, and that occurrence is the only one with before < a <= start. So the number of series is
-- the number of occurrences with before < a <= start and until <= b, which is
--     #{before < a, until <= b} - #{start < a, until <= b}
-- as start < a implies before < a. With a and b on day boundaries both are sums over days: series_gap_days holds,
-- per status and pair of days (day, until_day), +1 for each occurrence whose before falls on day (the first
-- occurrence's on day -2147483648) and -1 for each whose start does. The count is the sum of n over day < a's day
-- and until_day <= b's day (models.Store.ListCollapsed); at a million events it reads a few thousand rows where
-- probing each of 9,386 series took 40 ms.
--
-- series_listed_gaps keeps each occurrence's days, so that a write can take back what it contributed. A statement
-- trigger on events computes again every series whose occurrences it changed (status, start, end, listing or
-- series), after taking a lock per series so that two writers of one series compute it one after the other, each
-- from a snapshot that holds the other's change.

-- +goose Up
CREATE TABLE series_listed_gaps (
    event_id   BIGINT      PRIMARY KEY,
    series_id  BIGINT      NOT NULL,
    status     VARCHAR(20) NOT NULL,
    before_day INTEGER     NOT NULL,
    start_day  INTEGER     NOT NULL,
    until_day  INTEGER     NOT NULL
);
CREATE INDEX idx_series_listed_gaps_series ON series_listed_gaps (series_id);

CREATE TABLE series_gap_days (
    status    VARCHAR(20) NOT NULL,
    day       INTEGER     NOT NULL,
    until_day INTEGER     NOT NULL,
    n         BIGINT      NOT NULL,
    -- The key carries the count, so that the sum is an index-only range.
    PRIMARY KEY (status, day, until_day) INCLUDE (n)
) WITH (autovacuum_vacuum_scale_factor = 0.01);

-- +goose StatementBegin
-- The kept days of the listed occurrences of the series ids, as they are now.
CREATE FUNCTION series_listed_gaps_of(ids BIGINT[]) RETURNS SETOF series_listed_gaps LANGUAGE sql STABLE AS $$
    SELECT e.id, e.series_id, e.status, COALESCE(event_day(lag(e.start_utc) OVER w), -2147483648),
        event_day(e.start_utc),
        event_day(min(e.end_utc) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING))
    FROM events e WHERE e.series_id = ANY (ids) AND NOT e.hide_from_listings
    WINDOW w AS (PARTITION BY e.series_id, e.status ORDER BY e.start_utc, e.id)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION series_gap_days_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids BIGINT[];
    fresh series_listed_gaps[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        ids := ARRAY(SELECT DISTINCT series_id FROM new_events WHERE series_id IS NOT NULL ORDER BY 1);
    ELSIF TG_OP = 'DELETE' THEN
        ids := ARRAY(SELECT DISTINCT series_id FROM old_events WHERE series_id IS NOT NULL ORDER BY 1);
    ELSE
        ids := ARRAY(SELECT DISTINCT s FROM new_events n JOIN old_events o ON o.id = n.id,
                LATERAL (VALUES (n.series_id), (o.series_id)) AS v(s)
            WHERE s IS NOT NULL AND (n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc
                OR n.end_utc IS DISTINCT FROM o.end_utc OR n.hide_from_listings IS DISTINCT FROM o.hide_from_listings
                OR n.series_id IS DISTINCT FROM o.series_id)
            ORDER BY 1);
    END IF;
    IF cardinality(ids) = 0 THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || ' series gaps'), hashtext(x::text))
    FROM unnest(ids) AS x ORDER BY hashtext(x::text);
    -- Each statement below sees every write committed while this one waited for the locks.
    fresh := ARRAY(SELECT g FROM series_listed_gaps_of(ids) AS g);
    WITH old AS (DELETE FROM series_listed_gaps WHERE series_id = ANY (ids) RETURNING *)
    INSERT INTO series_gap_days AS c (status, day, until_day, n)
    SELECT status, day, until_day, sum(d) FROM (
        SELECT status, before_day AS day, until_day, 1 AS d FROM unnest(fresh)
        UNION ALL SELECT status, start_day, until_day, -1 FROM unnest(fresh)
        UNION ALL SELECT status, before_day, until_day, -1 FROM old
        UNION ALL SELECT status, start_day, until_day, 1 FROM old
    ) AS changes
    GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (status, day, until_day) DO UPDATE SET n = c.n + EXCLUDED.n;
    INSERT INTO series_listed_gaps SELECT * FROM unnest(fresh);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER series_gap_days_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION series_gap_days_events();
CREATE TRIGGER series_gap_days_update AFTER UPDATE ON events
    REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT
    EXECUTE FUNCTION series_gap_days_events();
CREATE TRIGGER series_gap_days_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION series_gap_days_events();

INSERT INTO series_listed_gaps
SELECT g.* FROM series_listed_gaps_of(ARRAY(SELECT DISTINCT series_id FROM events WHERE series_id IS NOT NULL)) AS g;
INSERT INTO series_gap_days (status, day, until_day, n)
SELECT status, day, until_day, sum(d) FROM (
    SELECT status, before_day AS day, until_day, 1 AS d FROM series_listed_gaps
    UNION ALL SELECT status, start_day, until_day, -1 FROM series_listed_gaps
) AS c GROUP BY 1, 2, 3 HAVING sum(d) <> 0;

-- +goose Down
DROP TRIGGER series_gap_days_delete ON events;
DROP TRIGGER series_gap_days_update ON events;
DROP TRIGGER series_gap_days_insert ON events;
DROP FUNCTION series_gap_days_events();
DROP FUNCTION series_listed_gaps_of(BIGINT[]);
DROP TABLE series_gap_days;
DROP TABLE series_listed_gaps;
