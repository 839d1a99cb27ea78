-- only_with_upcoming without probing every venue or organizer: linked_last_starts keeps, for each venue (kind v) and
-- organizer (kind o), the latest start of the published and of the private events linked to it. A record has an
-- event that has not started yet exactly when that latest start is not before now, so the filter reads one small
-- row per record instead of walking its events. Triggers keep the table current inside the writing transaction: a
-- new link, or an event's new status or start, can only raise a latest start; a removed link or a deleted event
-- makes the records concerned compute theirs again from their links, and an event's old start does so only for
-- the records whose latest start it was. Instants are UTC text of one format,
-- so max() and > order them. The table is its own, not columns of venues and organizers, so that keeping it never
-- changes those records.

-- +goose Up
CREATE TABLE linked_last_starts (
    kind      TEXT    NOT NULL, -- v: venue, o: organizer
    id        INTEGER NOT NULL,
    published DATETIME,
    private   DATETIME,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_venues_insert AFTER INSERT ON event_venues
BEGIN
    INSERT INTO linked_last_starts (kind, id, published, private)
    SELECT 'v', NEW.venue_id, CASE WHEN e.status = 'publish' THEN e.start_utc END,
        CASE WHEN e.status = 'private' THEN e.start_utc END
    FROM events e WHERE e.id = NEW.event_id
    ON CONFLICT (kind, id) DO UPDATE SET
        published = CASE WHEN excluded.published > coalesce(published, '') THEN excluded.published ELSE published END,
        private = CASE WHEN excluded.private > coalesce(private, '') THEN excluded.private ELSE private END;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_venues_delete AFTER DELETE ON event_venues
BEGIN
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    VALUES ('v', OLD.venue_id,
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = OLD.venue_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = OLD.venue_id AND e.status = 'private'));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_organizers_insert AFTER INSERT ON event_organizers
BEGIN
    INSERT INTO linked_last_starts (kind, id, published, private)
    SELECT 'o', NEW.organizer_id, CASE WHEN e.status = 'publish' THEN e.start_utc END,
        CASE WHEN e.status = 'private' THEN e.start_utc END
    FROM events e WHERE e.id = NEW.event_id
    ON CONFLICT (kind, id) DO UPDATE SET
        published = CASE WHEN excluded.published > coalesce(published, '') THEN excluded.published ELSE published END,
        private = CASE WHEN excluded.private > coalesce(private, '') THEN excluded.private ELSE private END;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_organizers_delete AFTER DELETE ON event_organizers
BEGIN
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    VALUES ('o', OLD.organizer_id,
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = OLD.organizer_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = OLD.organizer_id AND e.status = 'private'));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_events_update AFTER UPDATE OF status, start_utc ON events
WHEN NEW.status IS NOT OLD.status OR NEW.start_utc IS NOT OLD.start_utc
BEGIN
    -- The event's new status or start can only raise a latest start; only the records whose latest start was its
    -- old start compute theirs again.
    INSERT INTO linked_last_starts (kind, id, published, private)
    SELECT 'v', x.venue_id, CASE WHEN NEW.status = 'publish' THEN NEW.start_utc END,
        CASE WHEN NEW.status = 'private' THEN NEW.start_utc END
    FROM event_venues x WHERE x.event_id = NEW.id AND NEW.status IN ('publish', 'private')
    ON CONFLICT (kind, id) DO UPDATE SET
        published = CASE WHEN excluded.published > coalesce(published, '') THEN excluded.published ELSE published END,
        private = CASE WHEN excluded.private > coalesce(private, '') THEN excluded.private ELSE private END;
    INSERT INTO linked_last_starts (kind, id, published, private)
    SELECT 'o', x.organizer_id, CASE WHEN NEW.status = 'publish' THEN NEW.start_utc END,
        CASE WHEN NEW.status = 'private' THEN NEW.start_utc END
    FROM event_organizers x WHERE x.event_id = NEW.id AND NEW.status IN ('publish', 'private')
    ON CONFLICT (kind, id) DO UPDATE SET
        published = CASE WHEN excluded.published > coalesce(published, '') THEN excluded.published ELSE published END,
        private = CASE WHEN excluded.private > coalesce(private, '') THEN excluded.private ELSE private END;
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    SELECT 'v', x.venue_id,
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = x.venue_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = x.venue_id AND e.status = 'private')
    FROM event_venues x JOIN linked_last_starts s ON s.kind = 'v' AND s.id = x.venue_id
    WHERE x.event_id = NEW.id AND ((OLD.status = 'publish' AND s.published = OLD.start_utc)
        OR (OLD.status = 'private' AND s.private = OLD.start_utc));
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    SELECT 'o', x.organizer_id,
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = x.organizer_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = x.organizer_id AND e.status = 'private')
    FROM event_organizers x JOIN linked_last_starts s ON s.kind = 'o' AND s.id = x.organizer_id
    WHERE x.event_id = NEW.id AND ((OLD.status = 'publish' AND s.published = OLD.start_utc)
        OR (OLD.status = 'private' AND s.private = OLD.start_utc));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER linked_last_starts_events_delete AFTER DELETE ON events
BEGIN
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    SELECT 'v', x.venue_id,
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = x.venue_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
         WHERE l.venue_id = x.venue_id AND e.status = 'private')
    FROM event_venues x WHERE x.event_id = OLD.id;
    INSERT OR REPLACE INTO linked_last_starts (kind, id, published, private)
    SELECT 'o', x.organizer_id,
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = x.organizer_id AND e.status = 'publish'),
        (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
         WHERE l.organizer_id = x.organizer_id AND e.status = 'private')
    FROM event_organizers x WHERE x.event_id = OLD.id;
END;
-- +goose StatementEnd

INSERT INTO linked_last_starts (kind, id, published, private)
SELECT 'v', l.venue_id, max(CASE WHEN e.status = 'publish' THEN e.start_utc END),
    max(CASE WHEN e.status = 'private' THEN e.start_utc END)
FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id;
INSERT INTO linked_last_starts (kind, id, published, private)
SELECT 'o', l.organizer_id, max(CASE WHEN e.status = 'publish' THEN e.start_utc END),
    max(CASE WHEN e.status = 'private' THEN e.start_utc END)
FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id;

-- +goose Down
DROP TRIGGER linked_last_starts_events_delete;
DROP TRIGGER linked_last_starts_events_update;
DROP TRIGGER linked_last_starts_organizers_delete;
DROP TRIGGER linked_last_starts_organizers_insert;
DROP TRIGGER linked_last_starts_venues_delete;
DROP TRIGGER linked_last_starts_venues_insert;
DROP TABLE linked_last_starts;
