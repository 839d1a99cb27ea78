-- A radius query's exact total without reading its events: venue_listed_events holds, for every link of a listed
-- event (hide_from_listings false) to a venue, the event's status, start and end. Its window index answers "how many
-- listed events with these statuses, inside this date window, at these venues" as index ranges of the venues near
-- the point, without a read of events per match. Triggers keep it current inside the writing transaction.

-- +goose Up
CREATE TABLE venue_listed_events (
    event_id  INTEGER  NOT NULL,
    venue_id  INTEGER  NOT NULL,
    status    TEXT     NOT NULL,
    start_utc DATETIME NOT NULL,
    end_utc   DATETIME NOT NULL,
    PRIMARY KEY (event_id, venue_id)
) WITHOUT ROWID;
CREATE INDEX idx_venue_listed_events_window ON venue_listed_events (venue_id, status, start_utc, end_utc);

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

INSERT INTO venue_listed_events (event_id, venue_id, status, start_utc, end_utc)
SELECT l.event_id, l.venue_id, e.status, e.start_utc, e.end_utc
FROM event_venues l JOIN events e ON e.id = l.event_id WHERE NOT e.hide_from_listings;

-- +goose Down
DROP TRIGGER venue_listed_events_events_update;
DROP TRIGGER venue_listed_events_links_delete;
DROP TRIGGER venue_listed_events_links_update;
DROP TRIGGER venue_listed_events_links_insert;
DROP TABLE venue_listed_events;
