-- An event's new status or dates update its kept links (category_listed_events, venue_listed_events) in place
-- instead of deleting them and inserting them again. Deleting and inserting made the category day counts' triggers
-- take every link away from its days and add it back, two upserts per link; an update hands them the old and the
-- new rows at once, and they write only the days whose counts changed: none for a series moved by an hour within
-- its days. A 105-occurrence series' start move at a million events took 9-16 ms in the database instead of
-- 18-22 ms. Links are deleted only for events no longer listed and inserted only for events listed again; a kept
-- venue link keeps its shared flag, which an event's own update cannot change.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION category_listed_events_events() RETURNS trigger LANGUAGE plpgsql AS $$
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
    DELETE FROM category_listed_events x USING new_events n
    WHERE x.event_id = n.id AND n.id = ANY (changed) AND n.hide_from_listings;
    UPDATE category_listed_events x SET status = n.status, start_utc = n.start_utc, end_utc = n.end_utc
    FROM new_events n WHERE x.event_id = n.id AND n.id = ANY (changed) AND NOT n.hide_from_listings;
    INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
    SELECT n.id, l.category_id, n.status, n.start_utc, n.end_utc
    FROM new_events n JOIN old_events o ON o.id = n.id JOIN event_categories l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND o.hide_from_listings AND NOT n.hide_from_listings;
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
    DELETE FROM venue_listed_events x USING new_events n
    WHERE x.event_id = n.id AND n.id = ANY (changed) AND n.hide_from_listings;
    UPDATE venue_listed_events x SET status = n.status, start_utc = n.start_utc, end_utc = n.end_utc
    FROM new_events n WHERE x.event_id = n.id AND n.id = ANY (changed) AND NOT n.hide_from_listings;
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc, shared)
    SELECT n.id, l.venue_id, n.status, n.start_utc, n.end_utc, count(*) OVER (PARTITION BY n.id) > 1
    FROM new_events n JOIN old_events o ON o.id = n.id JOIN event_venues l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND o.hide_from_listings AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION category_listed_events_events() RETURNS trigger LANGUAGE plpgsql AS $$
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
    DELETE FROM category_listed_events WHERE event_id = ANY (changed);
    INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
    SELECT n.id, l.category_id, n.status, n.start_utc, n.end_utc
    FROM new_events n JOIN event_categories l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
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
