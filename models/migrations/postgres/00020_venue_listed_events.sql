-- A radius query's exact total without reading its events: venue_listed_events holds, for every link of a listed
-- event (hide_from_listings false) to a venue, the event's status, start and end. Its window index answers "how many
-- listed events with these statuses, inside this date window, at these venues" as index ranges of the venues near
-- the point, without a read of events per match (a radius of 25 miles around a city read 3,700 event rows at
-- 100,000 events). Triggers keep it current inside the writing transaction, so it is never behind what a reader of
-- the same snapshot sees, on any instance. The triggers are per statement, with transition tables, so that a
-- statement that writes many events or links (a series, a bulk load) changes the table once.

-- +goose Up
CREATE TABLE venue_listed_events (
    event_id  BIGINT       NOT NULL,
    venue_id  BIGINT       NOT NULL,
    status    VARCHAR(20)  NOT NULL,
    start_utc TIMESTAMPTZ  NOT NULL,
    end_utc   TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (event_id, venue_id)
);
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc)
    INCLUDE (end_utc, event_id);

-- +goose StatementBegin
CREATE FUNCTION venue_listed_events_links() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE FUNCTION venue_listed_events_events() RETURNS trigger LANGUAGE plpgsql AS $$
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
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT n.id, l.venue_id, n.status, n.start_utc, n.end_utc
    FROM new_events n JOIN event_venues l ON l.event_id = n.id
    WHERE n.id = ANY (changed) AND NOT n.hide_from_listings;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER venue_listed_events_links_insert AFTER INSERT ON event_venues
    REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION venue_listed_events_links();
CREATE TRIGGER venue_listed_events_links_update AFTER UPDATE ON event_venues
    REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links FOR EACH STATEMENT
    EXECUTE FUNCTION venue_listed_events_links();
CREATE TRIGGER venue_listed_events_links_delete AFTER DELETE ON event_venues
    REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION venue_listed_events_links();
CREATE TRIGGER venue_listed_events_events_update AFTER UPDATE ON events
    REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT
    EXECUTE FUNCTION venue_listed_events_events();

INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
SELECT l.event_id, l.venue_id, e.status, e.start_utc, e.end_utc
FROM event_venues l JOIN events e ON e.id = l.event_id WHERE NOT e.hide_from_listings;

-- +goose Down
DROP TRIGGER venue_listed_events_events_update ON events;
DROP TRIGGER venue_listed_events_links_delete ON event_venues;
DROP TRIGGER venue_listed_events_links_update ON event_venues;
DROP TRIGGER venue_listed_events_links_insert ON event_venues;
DROP FUNCTION venue_listed_events_events();
DROP FUNCTION venue_listed_events_links();
DROP TABLE venue_listed_events;
