-- A collapsed list's total (collapse_series=true: each series once) counts its single events and its series apart.
-- event_day_counts now also keeps, beside n, how many of those listed events are occurrences of a series
-- (series_id set): a date window's single events are then n - occurrences summed over its days, without reading
-- them. The triggers keep both counts in the same statement.

-- +goose Up
ALTER TABLE event_day_counts ADD COLUMN occurrences BIGINT NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION event_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n, occurrences)
        SELECT status, event_day(start_utc), event_day(end_utc), count(*), count(series_id)
        FROM new_events WHERE NOT hide_from_listings
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n, occurrences)
        SELECT status, event_day(start_utc), event_day(end_utc), -count(*), -count(series_id)
        FROM old_events WHERE NOT hide_from_listings
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    ELSE
        INSERT INTO event_day_counts AS c (status, start_day, end_day, n, occurrences)
        SELECT status, start_day, end_day, sum(d), sum(o) FROM (
            SELECT status, event_day(start_utc) AS start_day, event_day(end_utc) AS end_day, 1 AS d,
                CASE WHEN series_id IS NULL THEN 0 ELSE 1 END AS o
            FROM new_events WHERE NOT hide_from_listings
            UNION ALL
            SELECT status, event_day(start_utc), event_day(end_utc), -1, CASE WHEN series_id IS NULL THEN 0 ELSE -1 END
            FROM old_events WHERE NOT hide_from_listings
        ) AS changes
        GROUP BY 1, 2, 3 HAVING sum(d) <> 0 OR sum(o) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (status, start_day, end_day) DO UPDATE SET n = c.n + EXCLUDED.n,
            occurrences = c.occurrences + EXCLUDED.occurrences;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

UPDATE event_day_counts AS c SET occurrences = x.o
FROM (SELECT status, event_day(start_utc) AS start_day, event_day(end_utc) AS end_day, count(*) AS o
      FROM events WHERE NOT hide_from_listings AND series_id IS NOT NULL GROUP BY 1, 2, 3) AS x
WHERE c.status = x.status AND c.start_day = x.start_day AND c.end_day = x.end_day;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION event_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
ALTER TABLE event_day_counts DROP COLUMN occurrences;
