-- The change history: every write of an event, venue, organizer, category or tag, or of an event's links, adds rows
-- here in its own transaction, by triggers that no write path can bypass (raw batch inserts included). Incremental
-- sync and webhooks read it.
--
-- kind: 1 event, 2 venue, 3 organizer, 4 category, 5 tag. op: c created, u updated (fields: the columns that
-- changed), d deleted (old: the row as it was, without its password), l links or count changed (a record's row is
-- unchanged, but what lists derive from it is not). SQLite has one writer at a time, so ids grow in commit order
-- (AUTOINCREMENT never reuses a pruned one). at is Unix seconds, for pruning.

-- +goose Up
CREATE TABLE changes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    kind      INTEGER NOT NULL,
    record_id INTEGER NOT NULL,
    op        TEXT    NOT NULL,
    fields    TEXT,
    old       TEXT,
    at        INTEGER NOT NULL DEFAULT (unixepoch())
);
CREATE INDEX idx_changes_kind_id ON changes (kind, id, record_id);

CREATE TABLE service_keys (
    name  VARCHAR(32) PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose StatementBegin
CREATE TRIGGER events_changes_insert AFTER INSERT ON events BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.id, 'c');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER events_changes_update AFTER UPDATE ON events BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 1, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.all_day IS NOT NEW.all_day THEN ',all_day' ELSE '' END ||
        CASE WHEN OLD.author_id IS NOT NEW.author_id THEN ',author_id' ELSE '' END ||
        CASE WHEN OLD.category_links IS NOT NEW.category_links THEN ',category_links' ELSE '' END ||
        CASE WHEN OLD.cost IS NOT NEW.cost THEN ',cost' ELSE '' END ||
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.end_utc IS NOT NEW.end_utc THEN ',end_utc' ELSE '' END ||
        CASE WHEN OLD.excerpt IS NOT NEW.excerpt THEN ',excerpt' ELSE '' END ||
        CASE WHEN OLD.featured IS NOT NEW.featured THEN ',featured' ELSE '' END ||
        CASE WHEN OLD.hide_from_listings IS NOT NEW.hide_from_listings THEN ',hide_from_listings' ELSE '' END ||
        CASE WHEN OLD.image_id IS NOT NEW.image_id THEN ',image_id' ELSE '' END ||
        CASE WHEN OLD.organizer_links IS NOT NEW.organizer_links THEN ',organizer_links' ELSE '' END ||
        CASE WHEN OLD.parent_id IS NOT NEW.parent_id THEN ',parent_id' ELSE '' END ||
        CASE WHEN OLD.password IS NOT NEW.password THEN ',password' ELSE '' END ||
        CASE WHEN OLD.published_at IS NOT NEW.published_at THEN ',published_at' ELSE '' END ||
        CASE WHEN OLD.show_map IS NOT NEW.show_map THEN ',show_map' ELSE '' END ||
        CASE WHEN OLD.show_map_link IS NOT NEW.show_map_link THEN ',show_map_link' ELSE '' END ||
        CASE WHEN OLD.slug IS NOT NEW.slug THEN ',slug' ELSE '' END ||
        CASE WHEN OLD.start_utc IS NOT NEW.start_utc THEN ',start_utc' ELSE '' END ||
        CASE WHEN OLD.status IS NOT NEW.status THEN ',status' ELSE '' END ||
        CASE WHEN OLD.sticky IS NOT NEW.sticky THEN ',sticky' ELSE '' END ||
        CASE WHEN OLD.tag_links IS NOT NEW.tag_links THEN ',tag_links' ELSE '' END ||
        CASE WHEN OLD.ticketed IS NOT NEW.ticketed THEN ',ticketed' ELSE '' END ||
        CASE WHEN OLD.timezone IS NOT NEW.timezone THEN ',timezone' ELSE '' END ||
        CASE WHEN OLD.timezone_abbr IS NOT NEW.timezone_abbr THEN ',timezone_abbr' ELSE '' END ||
        CASE WHEN OLD.title IS NOT NEW.title THEN ',title' ELSE '' END ||
        CASE WHEN OLD.trashed_status IS NOT NEW.trashed_status THEN ',trashed_status' ELSE '' END ||
        CASE WHEN OLD.venue_links IS NOT NEW.venue_links THEN ',venue_links' ELSE '' END ||
        CASE WHEN OLD.website IS NOT NEW.website THEN ',website' ELSE '' END AS f) WHERE f <> '' OR NEW.updated_at IS NOT OLD.updated_at;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER events_changes_delete AFTER DELETE ON events BEGIN
    INSERT INTO changes (kind, record_id, op, old) VALUES (1, OLD.id, 'd', json_object('id', OLD.id, 'author_id', OLD.author_id, 'status', OLD.status, 'trashed_status', OLD.trashed_status, 'title', OLD.title, 'description', OLD.description, 'excerpt', OLD.excerpt, 'slug', OLD.slug, 'timezone', OLD.timezone, 'timezone_abbr', OLD.timezone_abbr, 'start_utc', OLD.start_utc, 'end_utc', OLD.end_utc, 'all_day', OLD.all_day, 'cost', OLD.cost, 'website', OLD.website, 'show_map', OLD.show_map, 'show_map_link', OLD.show_map_link, 'hide_from_listings', OLD.hide_from_listings, 'sticky', OLD.sticky, 'featured', OLD.featured, 'ticketed', OLD.ticketed, 'image_id', OLD.image_id, 'parent_id', OLD.parent_id, 'published_at', OLD.published_at, 'venue_links', OLD.venue_links, 'organizer_links', OLD.organizer_links, 'category_links', OLD.category_links, 'tag_links', OLD.tag_links));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER venues_changes_insert AFTER INSERT ON venues BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (2, NEW.id, 'c');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER venues_changes_update AFTER UPDATE ON venues BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 2, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.address IS NOT NEW.address THEN ',address' ELSE '' END ||
        CASE WHEN OLD.author_id IS NOT NEW.author_id THEN ',author_id' ELSE '' END ||
        CASE WHEN OLD.city IS NOT NEW.city THEN ',city' ELSE '' END ||
        CASE WHEN OLD.country IS NOT NEW.country THEN ',country' ELSE '' END ||
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.excerpt IS NOT NEW.excerpt THEN ',excerpt' ELSE '' END ||
        CASE WHEN OLD.geo_lat IS NOT NEW.geo_lat THEN ',geo_lat' ELSE '' END ||
        CASE WHEN OLD.geo_lng IS NOT NEW.geo_lng THEN ',geo_lng' ELSE '' END ||
        CASE WHEN OLD.image_id IS NOT NEW.image_id THEN ',image_id' ELSE '' END ||
        CASE WHEN OLD.name IS NOT NEW.name THEN ',name' ELSE '' END ||
        CASE WHEN OLD.password IS NOT NEW.password THEN ',password' ELSE '' END ||
        CASE WHEN OLD.phone IS NOT NEW.phone THEN ',phone' ELSE '' END ||
        CASE WHEN OLD.province IS NOT NEW.province THEN ',province' ELSE '' END ||
        CASE WHEN OLD.published_at IS NOT NEW.published_at THEN ',published_at' ELSE '' END ||
        CASE WHEN OLD.show_map IS NOT NEW.show_map THEN ',show_map' ELSE '' END ||
        CASE WHEN OLD.show_map_link IS NOT NEW.show_map_link THEN ',show_map_link' ELSE '' END ||
        CASE WHEN OLD.slug IS NOT NEW.slug THEN ',slug' ELSE '' END ||
        CASE WHEN OLD.state IS NOT NEW.state THEN ',state' ELSE '' END ||
        CASE WHEN OLD.stateprovince IS NOT NEW.stateprovince THEN ',stateprovince' ELSE '' END ||
        CASE WHEN OLD.status IS NOT NEW.status THEN ',status' ELSE '' END ||
        CASE WHEN OLD.trashed_status IS NOT NEW.trashed_status THEN ',trashed_status' ELSE '' END ||
        CASE WHEN OLD.website IS NOT NEW.website THEN ',website' ELSE '' END ||
        CASE WHEN OLD.zip IS NOT NEW.zip THEN ',zip' ELSE '' END AS f) WHERE f <> '' OR NEW.updated_at IS NOT OLD.updated_at;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER venues_changes_delete AFTER DELETE ON venues BEGIN
    INSERT INTO changes (kind, record_id, op, old) VALUES (2, OLD.id, 'd', json_object('id', OLD.id, 'author_id', OLD.author_id, 'status', OLD.status, 'trashed_status', OLD.trashed_status, 'name', OLD.name, 'description', OLD.description, 'excerpt', OLD.excerpt, 'slug', OLD.slug, 'image_id', OLD.image_id, 'address', OLD.address, 'city', OLD.city, 'country', OLD.country, 'province', OLD.province, 'state', OLD.state, 'zip', OLD.zip, 'phone', OLD.phone, 'website', OLD.website, 'stateprovince', OLD.stateprovince, 'show_map', OLD.show_map, 'show_map_link', OLD.show_map_link, 'geo_lat', OLD.geo_lat, 'geo_lng', OLD.geo_lng, 'published_at', OLD.published_at));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER organizers_changes_insert AFTER INSERT ON organizers BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (3, NEW.id, 'c');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER organizers_changes_update AFTER UPDATE ON organizers BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 3, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.author_id IS NOT NEW.author_id THEN ',author_id' ELSE '' END ||
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.email IS NOT NEW.email THEN ',email' ELSE '' END ||
        CASE WHEN OLD.excerpt IS NOT NEW.excerpt THEN ',excerpt' ELSE '' END ||
        CASE WHEN OLD.image_id IS NOT NEW.image_id THEN ',image_id' ELSE '' END ||
        CASE WHEN OLD.name IS NOT NEW.name THEN ',name' ELSE '' END ||
        CASE WHEN OLD.password IS NOT NEW.password THEN ',password' ELSE '' END ||
        CASE WHEN OLD.phone IS NOT NEW.phone THEN ',phone' ELSE '' END ||
        CASE WHEN OLD.published_at IS NOT NEW.published_at THEN ',published_at' ELSE '' END ||
        CASE WHEN OLD.slug IS NOT NEW.slug THEN ',slug' ELSE '' END ||
        CASE WHEN OLD.status IS NOT NEW.status THEN ',status' ELSE '' END ||
        CASE WHEN OLD.trashed_status IS NOT NEW.trashed_status THEN ',trashed_status' ELSE '' END ||
        CASE WHEN OLD.website IS NOT NEW.website THEN ',website' ELSE '' END AS f) WHERE f <> '' OR NEW.updated_at IS NOT OLD.updated_at;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER organizers_changes_delete AFTER DELETE ON organizers BEGIN
    INSERT INTO changes (kind, record_id, op, old) VALUES (3, OLD.id, 'd', json_object('id', OLD.id, 'author_id', OLD.author_id, 'status', OLD.status, 'trashed_status', OLD.trashed_status, 'name', OLD.name, 'description', OLD.description, 'excerpt', OLD.excerpt, 'slug', OLD.slug, 'image_id', OLD.image_id, 'phone', OLD.phone, 'website', OLD.website, 'email', OLD.email, 'published_at', OLD.published_at));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER categories_changes_insert AFTER INSERT ON categories BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (4, NEW.id, 'c');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER categories_changes_update AFTER UPDATE ON categories BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 4, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.name IS NOT NEW.name THEN ',name' ELSE '' END ||
        CASE WHEN OLD.parent_id IS NOT NEW.parent_id THEN ',parent_id' ELSE '' END ||
        CASE WHEN OLD.slug IS NOT NEW.slug THEN ',slug' ELSE '' END AS f) WHERE f <> '';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER categories_changes_delete AFTER DELETE ON categories BEGIN
    INSERT INTO changes (kind, record_id, op, old) VALUES (4, OLD.id, 'd', json_object('id', OLD.id, 'name', OLD.name, 'slug', OLD.slug, 'description', OLD.description, 'parent_id', OLD.parent_id));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tags_changes_insert AFTER INSERT ON tags BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (5, NEW.id, 'c');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tags_changes_update AFTER UPDATE ON tags BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 5, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.name IS NOT NEW.name THEN ',name' ELSE '' END ||
        CASE WHEN OLD.slug IS NOT NEW.slug THEN ',slug' ELSE '' END AS f) WHERE f <> '';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tags_changes_delete AFTER DELETE ON tags BEGIN
    INSERT INTO changes (kind, record_id, op, old) VALUES (5, OLD.id, 'd', json_object('id', OLD.id, 'name', OLD.name, 'slug', OLD.slug, 'description', OLD.description));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_venues_changes_insert AFTER INSERT ON event_venues BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (2, NEW.venue_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_venues_changes_delete AFTER DELETE ON event_venues BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, OLD.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (2, OLD.venue_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_venues_changes_update AFTER UPDATE ON event_venues BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (2, NEW.venue_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_organizers_changes_insert AFTER INSERT ON event_organizers BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (3, NEW.organizer_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_organizers_changes_delete AFTER DELETE ON event_organizers BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, OLD.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (3, OLD.organizer_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_organizers_changes_update AFTER UPDATE ON event_organizers BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) VALUES (3, NEW.organizer_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_categories_changes_insert AFTER INSERT ON event_categories BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_categories_changes_delete AFTER DELETE ON event_categories BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, OLD.event_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_tags_changes_insert AFTER INSERT ON event_tags BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_tags_changes_delete AFTER DELETE ON event_tags BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, OLD.event_id, 'l');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER term_count_deltas_changes AFTER INSERT ON term_count_deltas BEGIN
    INSERT INTO changes (kind, record_id, op)
        VALUES (CASE NEW.taxonomy WHEN 'categories' THEN 4 ELSE 5 END, NEW.term_id, 'l');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER events_changes_insert;
DROP TRIGGER events_changes_update;
DROP TRIGGER events_changes_delete;
DROP TRIGGER venues_changes_insert;
DROP TRIGGER venues_changes_update;
DROP TRIGGER venues_changes_delete;
DROP TRIGGER organizers_changes_insert;
DROP TRIGGER organizers_changes_update;
DROP TRIGGER organizers_changes_delete;
DROP TRIGGER categories_changes_insert;
DROP TRIGGER categories_changes_update;
DROP TRIGGER categories_changes_delete;
DROP TRIGGER tags_changes_insert;
DROP TRIGGER tags_changes_update;
DROP TRIGGER tags_changes_delete;
DROP TRIGGER event_venues_changes_insert;
DROP TRIGGER event_venues_changes_delete;
DROP TRIGGER event_venues_changes_update;
DROP TRIGGER event_organizers_changes_insert;
DROP TRIGGER event_organizers_changes_delete;
DROP TRIGGER event_organizers_changes_update;
DROP TRIGGER event_categories_changes_insert;
DROP TRIGGER event_categories_changes_delete;
DROP TRIGGER event_tags_changes_insert;
DROP TRIGGER event_tags_changes_delete;
DROP TRIGGER term_count_deltas_changes;
DROP TABLE service_keys;
DROP TABLE changes;
