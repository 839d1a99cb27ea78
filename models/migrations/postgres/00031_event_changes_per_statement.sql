-- An event's change rows are written once per statement instead of once per row: a series write inserts or rewrites
-- a hundred occurrences in one statement, and a plpgsql call per row was about a tenth of a 105-occurrence series
-- title update's time in the database. The rows are the same as before: 'c' for an insert, 'd' with the old row
-- (password removed) for a delete, and 'u' naming the columns an update changed (every column but updated_at, in
-- sorted order; the rows are joined by id, which never changes), none when it changed nothing else. A column added
-- to events must be added here too (TestEventChangesNameEveryColumn checks).

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION record_event_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (kind, record_id, op) SELECT 1, n.id, 'c' FROM new_events n;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO changes (kind, record_id, op, fields)
        SELECT 1, id, 'u', fields FROM (
            SELECT n.id, concat_ws(',',
            CASE WHEN n.all_day IS DISTINCT FROM o.all_day THEN 'all_day' END,
            CASE WHEN n.author_id IS DISTINCT FROM o.author_id THEN 'author_id' END,
            CASE WHEN n.category_links IS DISTINCT FROM o.category_links THEN 'category_links' END,
            CASE WHEN n.cost IS DISTINCT FROM o.cost THEN 'cost' END,
            CASE WHEN n.created_at IS DISTINCT FROM o.created_at THEN 'created_at' END,
            CASE WHEN n.description IS DISTINCT FROM o.description THEN 'description' END,
            CASE WHEN n.end_utc IS DISTINCT FROM o.end_utc THEN 'end_utc' END,
            CASE WHEN n.excerpt IS DISTINCT FROM o.excerpt THEN 'excerpt' END,
            CASE WHEN n.featured IS DISTINCT FROM o.featured THEN 'featured' END,
            CASE WHEN n.hide_from_listings IS DISTINCT FROM o.hide_from_listings THEN 'hide_from_listings' END,
            CASE WHEN n.image_id IS DISTINCT FROM o.image_id THEN 'image_id' END,
            CASE WHEN n.organizer_links IS DISTINCT FROM o.organizer_links THEN 'organizer_links' END,
            CASE WHEN n.parent_id IS DISTINCT FROM o.parent_id THEN 'parent_id' END,
            CASE WHEN n.password IS DISTINCT FROM o.password THEN 'password' END,
            CASE WHEN n.published_at IS DISTINCT FROM o.published_at THEN 'published_at' END,
            CASE WHEN n.series_id IS DISTINCT FROM o.series_id THEN 'series_id' END,
            CASE WHEN n.show_map IS DISTINCT FROM o.show_map THEN 'show_map' END,
            CASE WHEN n.show_map_link IS DISTINCT FROM o.show_map_link THEN 'show_map_link' END,
            CASE WHEN n.slug IS DISTINCT FROM o.slug THEN 'slug' END,
            CASE WHEN n.start_utc IS DISTINCT FROM o.start_utc THEN 'start_utc' END,
            CASE WHEN n.status IS DISTINCT FROM o.status THEN 'status' END,
            CASE WHEN n.sticky IS DISTINCT FROM o.sticky THEN 'sticky' END,
            CASE WHEN n.tag_links IS DISTINCT FROM o.tag_links THEN 'tag_links' END,
            CASE WHEN n.ticketed IS DISTINCT FROM o.ticketed THEN 'ticketed' END,
            CASE WHEN n.timezone IS DISTINCT FROM o.timezone THEN 'timezone' END,
            CASE WHEN n.timezone_abbr IS DISTINCT FROM o.timezone_abbr THEN 'timezone_abbr' END,
            CASE WHEN n.title IS DISTINCT FROM o.title THEN 'title' END,
            CASE WHEN n.trashed_status IS DISTINCT FROM o.trashed_status THEN 'trashed_status' END,
            CASE WHEN n.venue_links IS DISTINCT FROM o.venue_links THEN 'venue_links' END,
            CASE WHEN n.website IS DISTINCT FROM o.website THEN 'website' END) AS fields
            FROM new_events n JOIN old_events o ON o.id = n.id
        ) AS compared
        WHERE fields <> '';
    ELSE
        INSERT INTO changes (kind, record_id, op, old)
        SELECT 1, o.id, 'd', to_jsonb(o) - 'password' FROM old_events o;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TRIGGER events_changes ON events;
CREATE TRIGGER events_changes_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION record_event_changes();
CREATE TRIGGER events_changes_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION record_event_changes();
CREATE TRIGGER events_changes_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events
    FOR EACH STATEMENT EXECUTE FUNCTION record_event_changes();
DROP FUNCTION record_event_change();

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION record_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    f TEXT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.id, 'c');
    ELSIF TG_OP = 'UPDATE' THEN
        f := concat_ws(',',
            CASE WHEN NEW.all_day IS DISTINCT FROM OLD.all_day THEN 'all_day' END,
            CASE WHEN NEW.author_id IS DISTINCT FROM OLD.author_id THEN 'author_id' END,
            CASE WHEN NEW.category_links IS DISTINCT FROM OLD.category_links THEN 'category_links' END,
            CASE WHEN NEW.cost IS DISTINCT FROM OLD.cost THEN 'cost' END,
            CASE WHEN NEW.created_at IS DISTINCT FROM OLD.created_at THEN 'created_at' END,
            CASE WHEN NEW.description IS DISTINCT FROM OLD.description THEN 'description' END,
            CASE WHEN NEW.end_utc IS DISTINCT FROM OLD.end_utc THEN 'end_utc' END,
            CASE WHEN NEW.excerpt IS DISTINCT FROM OLD.excerpt THEN 'excerpt' END,
            CASE WHEN NEW.featured IS DISTINCT FROM OLD.featured THEN 'featured' END,
            CASE WHEN NEW.hide_from_listings IS DISTINCT FROM OLD.hide_from_listings THEN 'hide_from_listings' END,
            CASE WHEN NEW.id IS DISTINCT FROM OLD.id THEN 'id' END,
            CASE WHEN NEW.image_id IS DISTINCT FROM OLD.image_id THEN 'image_id' END,
            CASE WHEN NEW.organizer_links IS DISTINCT FROM OLD.organizer_links THEN 'organizer_links' END,
            CASE WHEN NEW.parent_id IS DISTINCT FROM OLD.parent_id THEN 'parent_id' END,
            CASE WHEN NEW.password IS DISTINCT FROM OLD.password THEN 'password' END,
            CASE WHEN NEW.published_at IS DISTINCT FROM OLD.published_at THEN 'published_at' END,
            CASE WHEN NEW.series_id IS DISTINCT FROM OLD.series_id THEN 'series_id' END,
            CASE WHEN NEW.show_map IS DISTINCT FROM OLD.show_map THEN 'show_map' END,
            CASE WHEN NEW.show_map_link IS DISTINCT FROM OLD.show_map_link THEN 'show_map_link' END,
            CASE WHEN NEW.slug IS DISTINCT FROM OLD.slug THEN 'slug' END,
            CASE WHEN NEW.start_utc IS DISTINCT FROM OLD.start_utc THEN 'start_utc' END,
            CASE WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'status' END,
            CASE WHEN NEW.sticky IS DISTINCT FROM OLD.sticky THEN 'sticky' END,
            CASE WHEN NEW.tag_links IS DISTINCT FROM OLD.tag_links THEN 'tag_links' END,
            CASE WHEN NEW.ticketed IS DISTINCT FROM OLD.ticketed THEN 'ticketed' END,
            CASE WHEN NEW.timezone IS DISTINCT FROM OLD.timezone THEN 'timezone' END,
            CASE WHEN NEW.timezone_abbr IS DISTINCT FROM OLD.timezone_abbr THEN 'timezone_abbr' END,
            CASE WHEN NEW.title IS DISTINCT FROM OLD.title THEN 'title' END,
            CASE WHEN NEW.trashed_status IS DISTINCT FROM OLD.trashed_status THEN 'trashed_status' END,
            CASE WHEN NEW.venue_links IS DISTINCT FROM OLD.venue_links THEN 'venue_links' END,
            CASE WHEN NEW.website IS DISTINCT FROM OLD.website THEN 'website' END);
        IF f <> '' THEN
            INSERT INTO changes (kind, record_id, op, fields) VALUES (1, NEW.id, 'u', f);
        END IF;
    ELSE
        INSERT INTO changes (kind, record_id, op, old) VALUES (1, OLD.id, 'd', to_jsonb(OLD) - 'password');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TRIGGER events_changes_insert ON events;
DROP TRIGGER events_changes_update ON events;
DROP TRIGGER events_changes_delete ON events;
CREATE TRIGGER events_changes AFTER INSERT OR UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION record_event_change();
DROP FUNCTION record_event_changes();
