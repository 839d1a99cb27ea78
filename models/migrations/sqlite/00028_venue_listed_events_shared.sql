-- A radius query's exact total without grouping every kept link in the circle by event: shared tells whether the
-- link's event has more than one venue. The links of events with one venue are counted as index entries, and only
-- the shared ones as distinct events. The triggers keep shared inside the writing transaction: a link added or
-- removed sets it again on the kept links of its event, from the number of its links.

-- +goose Up
ALTER TABLE venue_listed_events ADD COLUMN shared BOOLEAN NOT NULL DEFAULT 0;
UPDATE venue_listed_events SET shared = 1
WHERE event_id IN (SELECT event_id FROM event_venues GROUP BY event_id HAVING count(*) > 1);
DROP INDEX idx_venue_listed_events_window;
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc, end_utc, shared);

DROP TRIGGER venue_listed_events_links_insert;
DROP TRIGGER venue_listed_events_links_update;
DROP TRIGGER venue_listed_events_links_delete;
DROP TRIGGER venue_listed_events_events_update;

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_insert AFTER INSERT ON event_venues
BEGIN
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.venue_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
    UPDATE venue_listed_events SET shared = 1 WHERE event_id = NEW.event_id AND NOT shared
        AND (SELECT count(*) FROM event_venues l WHERE l.event_id = NEW.event_id) > 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_update AFTER UPDATE OF event_id, venue_id ON event_venues
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = OLD.event_id AND venue_id = OLD.venue_id;
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.venue_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
    UPDATE venue_listed_events
    SET shared = (SELECT count(*) > 1 FROM event_venues l WHERE l.event_id = venue_listed_events.event_id)
    WHERE event_id IN (OLD.event_id, NEW.event_id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_delete AFTER DELETE ON event_venues
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = OLD.event_id AND venue_id = OLD.venue_id;
    UPDATE venue_listed_events SET shared = 0 WHERE event_id = OLD.event_id AND shared
        AND (SELECT count(*) FROM event_venues l WHERE l.event_id = OLD.event_id) < 2;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_events_update AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings ON events
WHEN NEW.status IS NOT OLD.status OR NEW.start_utc IS NOT OLD.start_utc OR NEW.end_utc IS NOT OLD.end_utc
    OR NEW.hide_from_listings IS NOT OLD.hide_from_listings
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = NEW.id;
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc, shared)
    SELECT NEW.id, l.venue_id, NEW.status, NEW.start_utc, NEW.end_utc,
        (SELECT count(*) > 1 FROM event_venues c WHERE c.event_id = NEW.id)
    FROM event_venues l WHERE l.event_id = NEW.id AND NOT NEW.hide_from_listings;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER venue_listed_events_events_update;
DROP TRIGGER venue_listed_events_links_delete;
DROP TRIGGER venue_listed_events_links_update;
DROP TRIGGER venue_listed_events_links_insert;

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_insert AFTER INSERT ON event_venues
BEGIN
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.venue_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_update AFTER UPDATE OF event_id, venue_id ON event_venues
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = OLD.event_id AND venue_id = OLD.venue_id;
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.venue_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_links_delete AFTER DELETE ON event_venues
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = OLD.event_id AND venue_id = OLD.venue_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER venue_listed_events_events_update AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings ON events
WHEN NEW.status IS NOT OLD.status OR NEW.start_utc IS NOT OLD.start_utc OR NEW.end_utc IS NOT OLD.end_utc
    OR NEW.hide_from_listings IS NOT OLD.hide_from_listings
BEGIN
    DELETE FROM venue_listed_events WHERE event_id = NEW.id;
    INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
    SELECT NEW.id, l.venue_id, NEW.status, NEW.start_utc, NEW.end_utc
    FROM event_venues l WHERE l.event_id = NEW.id AND NOT NEW.hide_from_listings;
END;
-- +goose StatementEnd

DROP INDEX idx_venue_listed_events_window;
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc, end_utc);
ALTER TABLE venue_listed_events DROP COLUMN shared;
