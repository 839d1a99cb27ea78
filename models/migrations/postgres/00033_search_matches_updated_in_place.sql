-- A kept search's matches are updated in place when an event's status or dates change and its texts, protection and
-- listing do not, instead of being deleted and matched again against every kept search: the search day counts
-- then move only the days that changed (none for an event moved within its days), and the texts are matched only
-- when they, the event's protection or its listing changed.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION search_listed_events_events() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    changed BIGINT[];
BEGIN
    PERFORM pg_advisory_xact_lock_shared(search_listed_events_lock());
    IF NOT EXISTS (SELECT 1 FROM kept_searches) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM search_listed_events x USING (SELECT id FROM old_events) o WHERE x.event_id = o.id;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- Only the events whose texts, protection or listing changed are matched again.
        changed := ARRAY(SELECT n.id FROM new_events n JOIN old_events o ON o.id = n.id
            WHERE (n.title, n.description, n.excerpt, n.password = '', n.hide_from_listings)
                IS DISTINCT FROM (o.title, o.description, o.excerpt, o.password = '', o.hide_from_listings));
        -- The others keep their matches: a new status or new dates are written onto them in place, and the day
        -- counts' trigger moves only the days that changed.
        UPDATE search_listed_events x SET status = n.status, start_utc = n.start_utc, end_utc = n.end_utc
        FROM new_events n JOIN old_events o ON o.id = n.id
        WHERE x.event_id = n.id AND n.id <> ALL (changed)
            AND (n.status, n.start_utc, n.end_utc) IS DISTINCT FROM (o.status, o.start_utc, o.end_utc);
        IF cardinality(changed) = 0 THEN
            RETURN NULL;
        END IF;
        -- A join with the IDs, not event_id = ANY (changed): planned without the array's length, that read the
        -- whole table (152 ms for a series' 158 occurrences among 1.5 million matches).
        DELETE FROM search_listed_events x USING unnest(changed) AS c (id) WHERE x.event_id = c.id;
    ELSE
        changed := ARRAY(SELECT id FROM new_events);
    END IF;
    INSERT INTO search_listed_events (search_id, event_id, status, start_utc, end_utc, everyone)
    WITH texts AS MATERIALIZED (
        SELECT row_number() OVER () AS k, title, description, excerpt, open,
            lower(title) AS t, lower(description) AS d, lower(excerpt) AS x
        FROM (SELECT DISTINCT title, description, excerpt, password = '' AS open FROM new_events
            WHERE id = ANY (changed) AND NOT hide_from_listings) AS distinct_texts
    ), matched AS (
        -- Per term: 2 when it is in the title, 1 when only in the description or the excerpt, 0 when in none.
        SELECT f.k, s.id AS search_id, bool_and(w.found = 2 OR (f.open AND w.found = 1)) AS everyone
        FROM texts f CROSS JOIN kept_searches s CROSS JOIN LATERAL (
            SELECT CASE WHEN strpos(f.t, needle) > 0 THEN 2
                WHEN strpos(f.d, needle) > 0 OR strpos(f.x, needle) > 0 THEN 1 ELSE 0 END AS found
            FROM unnest(s.needles) AS needle) AS w
        GROUP BY f.k, s.id
        HAVING bool_and(w.found > 0)
    )
    SELECT m.search_id, n.id, n.status, n.start_utc, n.end_utc, m.everyone
    FROM new_events n
    JOIN texts f ON f.title = n.title AND f.description = n.description AND f.excerpt = n.excerpt
        AND f.open = (n.password = '')
    JOIN matched m ON m.k = f.k
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION search_listed_events_events() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    changed BIGINT[];
BEGIN
    PERFORM pg_advisory_xact_lock_shared(search_listed_events_lock());
    IF NOT EXISTS (SELECT 1 FROM kept_searches) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM search_listed_events x USING (SELECT id FROM old_events) o WHERE x.event_id = o.id;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- Only the events whose texts, protection, status, dates or listing changed are matched again.
        changed := ARRAY(SELECT n.id FROM new_events n JOIN old_events o ON o.id = n.id
            WHERE (n.title, n.description, n.excerpt, n.password = '', n.status, n.start_utc, n.end_utc,
                   n.hide_from_listings)
                IS DISTINCT FROM (o.title, o.description, o.excerpt, o.password = '', o.status, o.start_utc,
                   o.end_utc, o.hide_from_listings));
        IF cardinality(changed) = 0 THEN
            RETURN NULL;
        END IF;
        -- A join with the IDs, not event_id = ANY (changed): planned without the array's length, that read the
        -- whole table (152 ms for a series' 158 occurrences among 1.5 million matches).
        DELETE FROM search_listed_events x USING unnest(changed) AS c (id) WHERE x.event_id = c.id;
    ELSE
        changed := ARRAY(SELECT id FROM new_events);
    END IF;
    INSERT INTO search_listed_events (search_id, event_id, status, start_utc, end_utc, everyone)
    WITH texts AS MATERIALIZED (
        SELECT row_number() OVER () AS k, title, description, excerpt, open,
            lower(title) AS t, lower(description) AS d, lower(excerpt) AS x
        FROM (SELECT DISTINCT title, description, excerpt, password = '' AS open FROM new_events
            WHERE id = ANY (changed) AND NOT hide_from_listings) AS distinct_texts
    ), matched AS (
        -- Per term: 2 when it is in the title, 1 when only in the description or the excerpt, 0 when in none.
        SELECT f.k, s.id AS search_id, bool_and(w.found = 2 OR (f.open AND w.found = 1)) AS everyone
        FROM texts f CROSS JOIN kept_searches s CROSS JOIN LATERAL (
            SELECT CASE WHEN strpos(f.t, needle) > 0 THEN 2
                WHEN strpos(f.d, needle) > 0 OR strpos(f.x, needle) > 0 THEN 1 ELSE 0 END AS found
            FROM unnest(s.needles) AS needle) AS w
        GROUP BY f.k, s.id
        HAVING bool_and(w.found > 0)
    )
    SELECT m.search_id, n.id, n.status, n.start_utc, n.end_utc, m.everyone
    FROM new_events n
    JOIN texts f ON f.title = n.title AND f.description = n.description AND f.excerpt = n.excerpt
        AND f.open = (n.password = '')
    JOIN matched m ON m.k = f.k
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
