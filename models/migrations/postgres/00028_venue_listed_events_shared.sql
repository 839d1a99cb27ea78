-- A radius query's exact total without grouping every kept link in the circle by event: shared tells whether the
-- link's event has more than one venue. An event at two venues of the circle has two kept links there and must count
-- once, so the total used to group all the links in the circle by event (29,755 links, most of the list's 13.5 ms
-- at a million events).
-- Now the links of events with one venue, nearly all of them, are counted as index entries, and only the shared
-- ones are counted as distinct events: one index-only range per venue, with shared in the window index.
--
-- The triggers keep shared inside the writing transaction: a statement that adds or removes links sets it again on
-- every kept link of the events it touched, from the number of their links; one that changes an event's status,
-- dates or listing writes its kept links again with it.

-- +goose Up
ALTER TABLE venue_listed_events ADD COLUMN shared BOOLEAN NOT NULL DEFAULT false;
UPDATE venue_listed_events x SET shared = true
FROM (SELECT event_id FROM event_venues GROUP BY event_id HAVING count(*) > 1) m WHERE x.event_id = m.event_id;
DROP INDEX idx_venue_listed_events_window;
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc)
    INCLUDE (end_utc, event_id, shared);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_listed_events_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    touched BIGINT[] := '{}';
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM venue_listed_events x USING old_links o WHERE x.event_id = o.event_id AND x.venue_id = o.venue_id;
        touched := ARRAY(SELECT DISTINCT event_id FROM old_links);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
        SELECT n.event_id, n.venue_id, e.status, e.start_utc, e.end_utc
        FROM new_links n JOIN events e ON e.id = n.event_id WHERE NOT e.hide_from_listings;
        touched := touched || ARRAY(SELECT DISTINCT event_id FROM new_links);
    END IF;
    -- Only the kept links whose event's number of venues crossed one are written again.
    UPDATE venue_listed_events x SET shared = c.n > 1
    FROM (SELECT l.event_id, count(*) AS n FROM event_venues l WHERE l.event_id = ANY (touched) GROUP BY l.event_id) c
    WHERE x.event_id = c.event_id AND x.shared <> (c.n > 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_listed_events_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed BIGINT[];
BEGIN
    -- Only the events whose status, dates or listing changed are written again.
    changed := ARRAY(SELECT n.id FROM new_events n JOIN old_events o ON o.id = n.id
        WHERE (n.status, n.start_utc, n.end_utc, n.hide_from_listings)
            IS DISTINCT FROM (o.status, o.start_utc, o.end_utc, o.hide_from_listings));
    IF cardinality(changed) = 0 THEN
        RETURN NULL;
    END IF;
    DELETE FROM venue_listed_events WHERE event_id = ANY (changed);
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc, shared)
    SELECT n.id, l.venue_id, n.status, n.start_utc, n.end_utc, count(*) OVER (PARTITION BY n.id) > 1
    FROM new_events n JOIN event_venues l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_listed_events_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM venue_listed_events x USING old_links o WHERE x.event_id = o.event_id AND x.venue_id = o.venue_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
        SELECT n.event_id, n.venue_id, e.status, e.start_utc, e.end_utc
        FROM new_links n JOIN events e ON e.id = n.event_id WHERE NOT e.hide_from_listings;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_listed_events_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed BIGINT[];
BEGIN
    changed := ARRAY(SELECT n.id FROM new_events n JOIN old_events o ON o.id = n.id
        WHERE (n.status, n.start_utc, n.end_utc, n.hide_from_listings)
            IS DISTINCT FROM (o.status, o.start_utc, o.end_utc, o.hide_from_listings));
    IF cardinality(changed) = 0 THEN
        RETURN NULL;
    END IF;
    DELETE FROM venue_listed_events WHERE event_id = ANY (changed);
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT n.id, l.venue_id, n.status, n.start_utc, n.end_utc
    FROM new_events n JOIN event_venues l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP INDEX idx_venue_listed_events_window;
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc)
    INCLUDE (end_utc, event_id);
ALTER TABLE venue_listed_events DROP COLUMN shared;
