-- A search's exact total without matching every candidate at each build: kept_searches holds the searches asked
-- again and again (their terms, and the same lower-cased), and search_listed_events holds, for each of them,
-- every listed event (hide_from_listings false) that it matches, with the event's status, start and end. Its window
-- index answers "which listed events with these statuses, inside this date window, match this search, in list
-- order, and how many" as one index range per status, the way venue_listed_events answers a radius query.
--
-- A search matches an event when every term is in its title, description or excerpt, ignoring case: ILIKE with the
-- term escaped, which on a UTF-8 database compares the lower-cased text with the lower-cased term, so the triggers
-- look for each lower-cased term (needles) in the lower-cased texts. everyone tells whether it also matches under
-- the rule for callers who may not edit the event: of a password-protected event, only the title counts.
--
-- search_id names a kept_searches row without a foreign key, whose check cost 8 ms for a series' 2,355 matches;
-- dropping a search deletes its matches first.
--
-- Triggers keep the table current inside the writing transaction, on every instance. A search is added under an
-- exclusive advisory lock of the schema (models/search_kept.go), and every trigger takes the same lock shared
-- before it reads kept_searches: an addition therefore waits for the writers in flight to commit and then matches
-- every event it can see, while a writer that comes later waits for it and then sees the new search. The triggers
-- are per statement, with transition tables, and match each distinct text of a statement once (a series' 105
-- occurrences share one).

-- +goose Up
CREATE TABLE kept_searches (
    id       BIGSERIAL   PRIMARY KEY,
    terms    TEXT        NOT NULL UNIQUE,
    needles  TEXT[]      NOT NULL,
    used_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX idx_kept_searches_used_at ON kept_searches (used_at);

CREATE TABLE search_listed_events (
    search_id BIGINT      NOT NULL,
    event_id  BIGINT      NOT NULL,
    status    VARCHAR(20) NOT NULL,
    start_utc TIMESTAMPTZ NOT NULL,
    end_utc   TIMESTAMPTZ NOT NULL,
    everyone  BOOLEAN     NOT NULL,
    PRIMARY KEY (search_id, event_id)
);
CREATE INDEX idx_search_listed_events_window ON search_listed_events (search_id, status, start_utc, event_id)
    INCLUDE (end_utc, everyone);
CREATE INDEX idx_search_listed_events_event ON search_listed_events (event_id);

-- +goose StatementBegin
CREATE FUNCTION search_listed_events_lock() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT hashtext(current_schema() || ' kept searches')::bigint
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- JIT is off: the cross product of texts and kept searches makes the planner expect hundreds of thousands of rows
-- where there are a few thousand, and compiling the statement took 34 ms of a 5 ms match.
CREATE FUNCTION search_listed_events_events() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

CREATE TRIGGER search_listed_events_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION search_listed_events_events();
CREATE TRIGGER search_listed_events_update AFTER UPDATE ON events
    REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT
    EXECUTE FUNCTION search_listed_events_events();
CREATE TRIGGER search_listed_events_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION search_listed_events_events();

-- +goose Down
DROP TRIGGER search_listed_events_delete ON events;
DROP TRIGGER search_listed_events_update ON events;
DROP TRIGGER search_listed_events_insert ON events;
DROP FUNCTION search_listed_events_events();
DROP FUNCTION search_listed_events_lock();
DROP TABLE search_listed_events;
DROP TABLE kept_searches;
