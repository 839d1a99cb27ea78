-- A category list's exact total without reading its events: category_listed_events holds, for every link of a
-- listed event (hide_from_listings false) to a category, the event's status, start and end. Its window index answers
-- "how many listed events with these statuses, inside this date window, in these categories" as one index range per
-- category. Triggers keep it current inside the writing transaction.

-- +goose Up
CREATE TABLE category_listed_events (
    event_id    INTEGER  NOT NULL,
    category_id INTEGER  NOT NULL,
    status      TEXT     NOT NULL,
    start_utc   DATETIME NOT NULL,
    end_utc     DATETIME NOT NULL,
    PRIMARY KEY (event_id, category_id)
) WITHOUT ROWID;
CREATE INDEX idx_category_listed_events_window
    ON category_listed_events (category_id, status, start_utc, end_utc);

-- +goose StatementBegin
CREATE TRIGGER category_listed_events_links_insert AFTER INSERT ON event_categories
BEGIN
    INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.category_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER category_listed_events_links_update AFTER UPDATE OF event_id, category_id ON event_categories
BEGIN
    DELETE FROM category_listed_events WHERE event_id = OLD.event_id AND category_id = OLD.category_id;
    INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
    SELECT NEW.event_id, NEW.category_id, e.status, e.start_utc, e.end_utc
    FROM events e WHERE e.id = NEW.event_id AND NOT e.hide_from_listings;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER category_listed_events_links_delete AFTER DELETE ON event_categories
BEGIN
    DELETE FROM category_listed_events WHERE event_id = OLD.event_id AND category_id = OLD.category_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER category_listed_events_events_update
AFTER UPDATE OF status, start_utc, end_utc, hide_from_listings ON events
WHEN NEW.status IS NOT OLD.status OR NEW.start_utc IS NOT OLD.start_utc OR NEW.end_utc IS NOT OLD.end_utc
    OR NEW.hide_from_listings IS NOT OLD.hide_from_listings
BEGIN
    DELETE FROM category_listed_events WHERE event_id = NEW.id;
    INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
    SELECT NEW.id, l.category_id, NEW.status, NEW.start_utc, NEW.end_utc
    FROM event_categories l WHERE l.event_id = NEW.id AND NOT NEW.hide_from_listings;
END;
-- +goose StatementEnd

INSERT INTO category_listed_events (event_id, category_id, status, start_utc, end_utc)
SELECT l.event_id, l.category_id, e.status, e.start_utc, e.end_utc
FROM event_categories l JOIN events e ON e.id = l.event_id WHERE NOT e.hide_from_listings;

-- +goose Down
DROP TRIGGER category_listed_events_events_update;
DROP TRIGGER category_listed_events_links_delete;
DROP TRIGGER category_listed_events_links_update;
DROP TRIGGER category_listed_events_links_insert;
DROP TABLE category_listed_events;
