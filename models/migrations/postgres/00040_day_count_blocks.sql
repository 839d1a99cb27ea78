-- A list's total over a long window read every kept day count of the window: the default window (two years from
-- today) summed 1,761 rows of event_day_counts, and a collapsed list's number of series also summed every gap day
-- before today (2,803 rows of series_gap_days), 0.4 and 0.5 ms a request at 100,000 events, most of what building a
-- collapsed list cost the database. The same counts are now also kept per block of 32 days (a day's block is
-- day >> 5): a window's sum reads the blocks that lie inside it and the day counts of its two edge blocks only,
-- about a hundred rows whatever the window's length (models.Store.windowDaysSQL and seriesInWindow).
--
-- The blocks follow the day counts: statement triggers on event_day_counts and series_gap_days add what each of
-- their statements changed to its blocks. A block row is shared by every write of events in its 32 days, and it
-- stays locked until the writing transaction ends; so that concurrent writers of one block seldom wait for each
-- other, each block is kept in four rows (shard, the writing session's process ID modulo 4), which a sum adds up.
--
-- The edge blocks' day counts are read by a range of an index: the first block's by the primary keys (start day,
-- or gap day), the last block's by the new indexes on the end day and the until day.

-- +goose Up
CREATE TABLE event_block_counts (
    status      TEXT     NOT NULL,
    start_block INTEGER  NOT NULL,
    end_block   INTEGER  NOT NULL,
    shard       SMALLINT NOT NULL,
    n           BIGINT   NOT NULL,
    occurrences BIGINT   NOT NULL,
    PRIMARY KEY (status, start_block, end_block, shard)
) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.01);

CREATE TABLE series_gap_blocks (
    status      VARCHAR(20) NOT NULL,
    block       INTEGER     NOT NULL,
    until_block INTEGER     NOT NULL,
    shard       SMALLINT    NOT NULL,
    n           BIGINT      NOT NULL,
    PRIMARY KEY (status, block, until_block, shard)
) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.01);

CREATE INDEX idx_event_day_counts_end ON event_day_counts (status, end_day, start_day);
CREATE INDEX idx_series_gap_days_until ON series_gap_days (status, until_day, day);

-- +goose StatementBegin
CREATE FUNCTION event_block_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_block_counts AS c (status, start_block, end_block, shard, n, occurrences)
        SELECT status, start_day >> 5, end_day >> 5, pg_backend_pid() % 4, sum(n), sum(occurrences)
        FROM new_counts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_block, end_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO event_block_counts AS c (status, start_block, end_block, shard, n, occurrences)
        SELECT status, start_day >> 5, end_day >> 5, pg_backend_pid() % 4, -sum(n), -sum(occurrences)
        FROM old_counts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_block, end_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    ELSE
        INSERT INTO event_block_counts AS c (status, start_block, end_block, shard, n, occurrences)
        SELECT status, start_block, end_block, pg_backend_pid() % 4, sum(n), sum(o) FROM (
            SELECT status, start_day >> 5 AS start_block, end_day >> 5 AS end_block, n, occurrences AS o
            FROM new_counts
            UNION ALL
            SELECT status, start_day >> 5, end_day >> 5, -n, -occurrences FROM old_counts
        ) AS changes
        GROUP BY 1, 2, 3 HAVING sum(n) <> 0 OR sum(o) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_block, end_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION series_gap_blocks_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO series_gap_blocks AS c (status, block, until_block, shard, n)
        SELECT status, day >> 5, until_day >> 5, pg_backend_pid() % 4, sum(n)
        FROM new_counts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, block, until_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO series_gap_blocks AS c (status, block, until_block, shard, n)
        SELECT status, day >> 5, until_day >> 5, pg_backend_pid() % 4, -sum(n)
        FROM old_counts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, block, until_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        INSERT INTO series_gap_blocks AS c (status, block, until_block, shard, n)
        SELECT status, block, until_block, pg_backend_pid() % 4, sum(n) FROM (
            SELECT status, day >> 5 AS block, until_day >> 5 AS until_block, n FROM new_counts
            UNION ALL
            SELECT status, day >> 5, until_day >> 5, -n FROM old_counts
        ) AS changes
        GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (status, block, until_block, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER event_block_counts_insert AFTER INSERT ON event_day_counts
    REFERENCING NEW TABLE AS new_counts FOR EACH STATEMENT EXECUTE FUNCTION event_block_counts_apply();
CREATE TRIGGER event_block_counts_update AFTER UPDATE ON event_day_counts
    REFERENCING OLD TABLE AS old_counts NEW TABLE AS new_counts FOR EACH STATEMENT
    EXECUTE FUNCTION event_block_counts_apply();
CREATE TRIGGER event_block_counts_delete AFTER DELETE ON event_day_counts
    REFERENCING OLD TABLE AS old_counts FOR EACH STATEMENT EXECUTE FUNCTION event_block_counts_apply();

CREATE TRIGGER series_gap_blocks_insert AFTER INSERT ON series_gap_days
    REFERENCING NEW TABLE AS new_counts FOR EACH STATEMENT EXECUTE FUNCTION series_gap_blocks_apply();
CREATE TRIGGER series_gap_blocks_update AFTER UPDATE ON series_gap_days
    REFERENCING OLD TABLE AS old_counts NEW TABLE AS new_counts FOR EACH STATEMENT
    EXECUTE FUNCTION series_gap_blocks_apply();
CREATE TRIGGER series_gap_blocks_delete AFTER DELETE ON series_gap_days
    REFERENCING OLD TABLE AS old_counts FOR EACH STATEMENT EXECUTE FUNCTION series_gap_blocks_apply();

INSERT INTO event_block_counts (status, start_block, end_block, shard, n, occurrences)
SELECT status, start_day >> 5, end_day >> 5, 0, sum(n), sum(occurrences) FROM event_day_counts GROUP BY 1, 2, 3;
INSERT INTO series_gap_blocks (status, block, until_block, shard, n)
SELECT status, day >> 5, until_day >> 5, 0, sum(n) FROM series_gap_days GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER series_gap_blocks_delete ON series_gap_days;
DROP TRIGGER series_gap_blocks_update ON series_gap_days;
DROP TRIGGER series_gap_blocks_insert ON series_gap_days;
DROP TRIGGER event_block_counts_delete ON event_day_counts;
DROP TRIGGER event_block_counts_update ON event_day_counts;
DROP TRIGGER event_block_counts_insert ON event_day_counts;
DROP FUNCTION series_gap_blocks_apply();
DROP FUNCTION event_block_counts_apply();
DROP INDEX idx_series_gap_days_until;
DROP INDEX idx_event_day_counts_end;
DROP TABLE series_gap_blocks;
DROP TABLE event_block_counts;
