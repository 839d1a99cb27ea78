-- A kept search's exact total without reading one index entry per match: search_day_counts holds, for every kept
-- search, status and pair of UTC days (the day an event starts, the day it ends), how many of its kept matches
-- (search_listed_events) have them, and how many of those match for every caller (everyone). A searched window's
-- total is then a sum over the days wholly inside it, plus the matches of its edge days read from the matches
-- themselves, as event_day_counts totals an unsearched window (models.Store.windowDaysSQL). Rows whose counts
-- reached zero stay, as in event_day_counts.
--
-- Per-statement triggers on search_listed_events keep the counts: its rows are written only by the triggers on
-- events (inside every writing transaction) and by the addition or removal of a kept search, so the counts move
-- in the same transactions as the matches, each row once per statement and in key order, so that two writers take
-- the rows' locks in the same order.

-- +goose Up
CREATE TABLE search_day_counts (
    search_id BIGINT      NOT NULL,
    status    VARCHAR(20) NOT NULL,
    start_day INTEGER     NOT NULL,
    end_day   INTEGER     NOT NULL,
    n         BIGINT      NOT NULL,
    everyone  BIGINT      NOT NULL,
    -- The key carries the counts, so that a window's sum is an index-only range however the rows of one search come
    -- to be spread over the table's pages by the writes.
    PRIMARY KEY (search_id, status, start_day, end_day) INCLUDE (n, everyone)
) WITH (autovacuum_vacuum_scale_factor = 0.01);

-- +goose StatementBegin
CREATE FUNCTION search_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_day_counts AS c (search_id, status, start_day, end_day, n, everyone)
        SELECT search_id, status, event_day(start_utc), event_day(end_utc), count(*), count(*) FILTER (WHERE everyone)
        FROM new_matches GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (search_id, status, start_day, end_day)
            DO UPDATE SET n = c.n + EXCLUDED.n, everyone = c.everyone + EXCLUDED.everyone;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO search_day_counts AS c (search_id, status, start_day, end_day, n, everyone)
        SELECT search_id, status, event_day(start_utc), event_day(end_utc), -count(*), -count(*) FILTER (WHERE everyone)
        FROM old_matches GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (search_id, status, start_day, end_day)
            DO UPDATE SET n = c.n + EXCLUDED.n, everyone = c.everyone + EXCLUDED.everyone;
    ELSE
        INSERT INTO search_day_counts AS c (search_id, status, start_day, end_day, n, everyone)
        SELECT search_id, status, start_day, end_day, sum(d), sum(e) FROM (
            SELECT search_id, status, event_day(start_utc) AS start_day, event_day(end_utc) AS end_day, 1 AS d,
                CASE WHEN everyone THEN 1 ELSE 0 END AS e
            FROM new_matches
            UNION ALL
            SELECT search_id, status, event_day(start_utc), event_day(end_utc), -1,
                CASE WHEN everyone THEN -1 ELSE 0 END
            FROM old_matches
        ) AS changes
        GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 OR sum(e) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (search_id, status, start_day, end_day)
            DO UPDATE SET n = c.n + EXCLUDED.n, everyone = c.everyone + EXCLUDED.everyone;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER search_day_counts_insert AFTER INSERT ON search_listed_events
    REFERENCING NEW TABLE AS new_matches FOR EACH STATEMENT EXECUTE FUNCTION search_day_counts_apply();
CREATE TRIGGER search_day_counts_update AFTER UPDATE ON search_listed_events
    REFERENCING OLD TABLE AS old_matches NEW TABLE AS new_matches FOR EACH STATEMENT
    EXECUTE FUNCTION search_day_counts_apply();
CREATE TRIGGER search_day_counts_delete AFTER DELETE ON search_listed_events
    REFERENCING OLD TABLE AS old_matches FOR EACH STATEMENT EXECUTE FUNCTION search_day_counts_apply();

INSERT INTO search_day_counts (search_id, status, start_day, end_day, n, everyone)
SELECT search_id, status, event_day(start_utc), event_day(end_utc), count(*), count(*) FILTER (WHERE everyone)
FROM search_listed_events GROUP BY 1, 2, 3, 4;

-- +goose Down
DROP TRIGGER search_day_counts_delete ON search_listed_events;
DROP TRIGGER search_day_counts_update ON search_listed_events;
DROP TRIGGER search_day_counts_insert ON search_listed_events;
DROP FUNCTION search_day_counts_apply();
DROP TABLE search_day_counts;
