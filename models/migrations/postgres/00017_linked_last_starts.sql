-- only_with_upcoming without probing every venue or organizer: linked_last_starts keeps, for each venue (kind v) and
-- organizer (kind o), the latest start of the published and of the private events linked to it. A record has an
-- event that has not started yet exactly when that latest start is not before now, so the filter reads one small
-- row per record instead of walking its events (the count of a venue list read every upcoming event and every
-- link: 72,000 and 109,000 rows at 100,000 events). Triggers keep the table current inside the writing
-- transaction: a new link, or an event's new status or start, can only raise a latest start; a removed link makes
-- its record compute its latest start again from its links (an index range per record), and an event's old start
-- does so only for the records whose latest start it was (trashing an event at a million events had taken 0.7 s
-- when every record of the event computed it again). Records are locked before they are computed again. The
-- table is its own, not columns of venues and organizers, so that keeping it never changes those records.

-- +goose Up
CREATE TABLE linked_last_starts (
    kind      CHAR(1)     NOT NULL, -- v: venue, o: organizer
    id        BIGINT      NOT NULL,
    published TIMESTAMPTZ,
    private   TIMESTAMPTZ,
    PRIMARY KEY (kind, id)
);

-- +goose StatementBegin
CREATE FUNCTION linked_last_starts_refresh(k CHAR(1), ids BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- Lock the rows first, in key order: a writer that computed a record's latest start from a snapshot taken before
    -- another writer's change to it committed would otherwise overwrite that change. Each statement below takes a
    -- new snapshot, which includes every transaction that held these locks.
    -- A record without a row gets one first (waiting for a writer that is inserting it), so that it can be locked.
    INSERT INTO linked_last_starts (kind, id) SELECT k, x FROM unnest(ids) AS x ORDER BY x ON CONFLICT DO NOTHING;
    PERFORM 1 FROM linked_last_starts WHERE kind = k AND id = ANY (ids) ORDER BY id FOR UPDATE;
    IF k = 'v' THEN
        INSERT INTO linked_last_starts AS s (kind, id, published, private)
        SELECT 'v', x.id,
            (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
             WHERE l.venue_id = x.id AND e.status = 'publish'),
            (SELECT max(e.start_utc) FROM event_venues l JOIN events e ON e.id = l.event_id
             WHERE l.venue_id = x.id AND e.status = 'private')
        FROM (SELECT DISTINCT unnest(ids) AS id) AS x ORDER BY x.id
        ON CONFLICT (kind, id) DO UPDATE SET published = EXCLUDED.published, private = EXCLUDED.private;
    ELSE
        INSERT INTO linked_last_starts AS s (kind, id, published, private)
        SELECT 'o', x.id,
            (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
             WHERE l.organizer_id = x.id AND e.status = 'publish'),
            (SELECT max(e.start_utc) FROM event_organizers l JOIN events e ON e.id = l.event_id
             WHERE l.organizer_id = x.id AND e.status = 'private')
        FROM (SELECT DISTINCT unnest(ids) AS id) AS x ORDER BY x.id
        ON CONFLICT (kind, id) DO UPDATE SET published = EXCLUDED.published, private = EXCLUDED.private;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION linked_last_starts_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k CHAR(1) := CASE TG_TABLE_NAME WHEN 'event_venues' THEN 'v' ELSE 'o' END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF k = 'v' THEN
            INSERT INTO linked_last_starts AS s (kind, id, published, private)
            SELECT 'v', n.venue_id, max(e.start_utc) FILTER (WHERE e.status = 'publish'),
                max(e.start_utc) FILTER (WHERE e.status = 'private')
            FROM new_links n JOIN events e ON e.id = n.event_id GROUP BY n.venue_id ORDER BY n.venue_id
            ON CONFLICT (kind, id) DO UPDATE SET published = GREATEST(s.published, EXCLUDED.published),
                private = GREATEST(s.private, EXCLUDED.private);
        ELSE
            INSERT INTO linked_last_starts AS s (kind, id, published, private)
            SELECT 'o', n.organizer_id, max(e.start_utc) FILTER (WHERE e.status = 'publish'),
                max(e.start_utc) FILTER (WHERE e.status = 'private')
            FROM new_links n JOIN events e ON e.id = n.event_id GROUP BY n.organizer_id ORDER BY n.organizer_id
            ON CONFLICT (kind, id) DO UPDATE SET published = GREATEST(s.published, EXCLUDED.published),
                private = GREATEST(s.private, EXCLUDED.private);
        END IF;
    ELSIF k = 'v' THEN
        PERFORM linked_last_starts_refresh('v', ARRAY(SELECT venue_id FROM old_links));
    ELSE
        PERFORM linked_last_starts_refresh('o', ARRAY(SELECT organizer_id FROM old_links));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION linked_last_starts_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    venues BIGINT[];
    organizers BIGINT[];
BEGIN
    -- c below is each event whose status or start changed, as it was and as it is.
    IF NOT EXISTS (SELECT 1 FROM new_events n JOIN old_events o ON o.id = n.id
                   WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) THEN
        RETURN NULL;
    END IF;
    -- A new status or start can only raise a record's latest start.
    INSERT INTO linked_last_starts AS s (kind, id, published, private)
    SELECT 'v', l.venue_id, max(c.new_start) FILTER (WHERE c.new_status = 'publish'),
        max(c.new_start) FILTER (WHERE c.new_status = 'private')
    FROM (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c JOIN event_venues l ON l.event_id = c.id
    WHERE c.new_status IN ('publish', 'private') GROUP BY l.venue_id ORDER BY l.venue_id
    ON CONFLICT (kind, id) DO UPDATE SET published = GREATEST(s.published, EXCLUDED.published),
        private = GREATEST(s.private, EXCLUDED.private);
    INSERT INTO linked_last_starts AS s (kind, id, published, private)
    SELECT 'o', l.organizer_id, max(c.new_start) FILTER (WHERE c.new_status = 'publish'),
        max(c.new_start) FILTER (WHERE c.new_status = 'private')
    FROM (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c JOIN event_organizers l ON l.event_id = c.id
    WHERE c.new_status IN ('publish', 'private') GROUP BY l.organizer_id ORDER BY l.organizer_id
    ON CONFLICT (kind, id) DO UPDATE SET published = GREATEST(s.published, EXCLUDED.published),
        private = GREATEST(s.private, EXCLUDED.private);
    -- Only a record whose latest start was an event's old start can fall: lock the records the old starts may
    -- concern, then (with a snapshot taken after the locks) compute again those whose latest start it was.
    venues := ARRAY(SELECT DISTINCT l.venue_id FROM (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c JOIN event_venues l ON l.event_id = c.id
                    WHERE c.old_status IN ('publish', 'private') ORDER BY 1);
    organizers := ARRAY(SELECT DISTINCT l.organizer_id FROM (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c
                        JOIN event_organizers l ON l.event_id = c.id
                        WHERE c.old_status IN ('publish', 'private') ORDER BY 1);
    PERFORM 1 FROM linked_last_starts WHERE kind = 'v' AND id = ANY (venues) ORDER BY id FOR UPDATE;
    PERFORM 1 FROM linked_last_starts WHERE kind = 'o' AND id = ANY (organizers) ORDER BY id FOR UPDATE;
    PERFORM linked_last_starts_refresh('v', ARRAY(
        SELECT s.id FROM linked_last_starts s JOIN event_venues l ON s.kind = 'v' AND s.id = l.venue_id
        JOIN (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c ON c.id = l.event_id
        WHERE (c.old_status = 'publish' AND s.published = c.old_start)
           OR (c.old_status = 'private' AND s.private = c.old_start)));
    PERFORM linked_last_starts_refresh('o', ARRAY(
        SELECT s.id FROM linked_last_starts s JOIN event_organizers l ON s.kind = 'o' AND s.id = l.organizer_id
        JOIN (SELECT n.id, o.status AS old_status, o.start_utc AS old_start, n.status AS new_status, n.start_utc AS new_start
          FROM new_events n JOIN old_events o ON o.id = n.id
          WHERE n.status IS DISTINCT FROM o.status OR n.start_utc IS DISTINCT FROM o.start_utc) c ON c.id = l.event_id
        WHERE (c.old_status = 'publish' AND s.published = c.old_start)
           OR (c.old_status = 'private' AND s.private = c.old_start)));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER linked_last_starts_venues_insert AFTER INSERT ON event_venues
    REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION linked_last_starts_links();
CREATE TRIGGER linked_last_starts_venues_delete AFTER DELETE ON event_venues
    REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION linked_last_starts_links();
CREATE TRIGGER linked_last_starts_organizers_insert AFTER INSERT ON event_organizers
    REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION linked_last_starts_links();
CREATE TRIGGER linked_last_starts_organizers_delete AFTER DELETE ON event_organizers
    REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION linked_last_starts_links();
CREATE TRIGGER linked_last_starts_events_update AFTER UPDATE ON events
    REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT
    EXECUTE FUNCTION linked_last_starts_events();

INSERT INTO linked_last_starts (kind, id, published, private)
SELECT 'v', l.venue_id, max(e.start_utc) FILTER (WHERE e.status = 'publish'),
    max(e.start_utc) FILTER (WHERE e.status = 'private')
FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id;
INSERT INTO linked_last_starts (kind, id, published, private)
SELECT 'o', l.organizer_id, max(e.start_utc) FILTER (WHERE e.status = 'publish'),
    max(e.start_utc) FILTER (WHERE e.status = 'private')
FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id;

-- +goose Down
DROP TRIGGER linked_last_starts_events_update ON events;
DROP TRIGGER linked_last_starts_organizers_delete ON event_organizers;
DROP TRIGGER linked_last_starts_organizers_insert ON event_organizers;
DROP TRIGGER linked_last_starts_venues_delete ON event_venues;
DROP TRIGGER linked_last_starts_venues_insert ON event_venues;
DROP FUNCTION linked_last_starts_events();
DROP FUNCTION linked_last_starts_links();
DROP FUNCTION linked_last_starts_refresh(CHAR(1), BIGINT[]);
DROP TABLE linked_last_starts;
