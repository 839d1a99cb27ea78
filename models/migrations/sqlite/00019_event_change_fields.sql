-- An event's change row names every column an update changed but updated_at: series_id (added with series),
-- created_at and id were left out of the list (TestEventChangesNameEveryColumn checks it against the table).

-- +goose Up
DROP TRIGGER events_changes_update;
-- +goose StatementBegin
CREATE TRIGGER events_changes_update AFTER UPDATE ON events BEGIN
    INSERT INTO changes (kind, record_id, op, fields) SELECT 1, NEW.id, 'u', substr(f, 2) FROM (SELECT
        CASE WHEN OLD.all_day IS NOT NEW.all_day THEN ',all_day' ELSE '' END ||
        CASE WHEN OLD.author_id IS NOT NEW.author_id THEN ',author_id' ELSE '' END ||
        CASE WHEN OLD.category_links IS NOT NEW.category_links THEN ',category_links' ELSE '' END ||
        CASE WHEN OLD.cost IS NOT NEW.cost THEN ',cost' ELSE '' END ||
        CASE WHEN OLD.created_at IS NOT NEW.created_at THEN ',created_at' ELSE '' END ||
        CASE WHEN OLD.description IS NOT NEW.description THEN ',description' ELSE '' END ||
        CASE WHEN OLD.end_utc IS NOT NEW.end_utc THEN ',end_utc' ELSE '' END ||
        CASE WHEN OLD.excerpt IS NOT NEW.excerpt THEN ',excerpt' ELSE '' END ||
        CASE WHEN OLD.featured IS NOT NEW.featured THEN ',featured' ELSE '' END ||
        CASE WHEN OLD.hide_from_listings IS NOT NEW.hide_from_listings THEN ',hide_from_listings' ELSE '' END ||
        CASE WHEN OLD.id IS NOT NEW.id THEN ',id' ELSE '' END ||
        CASE WHEN OLD.image_id IS NOT NEW.image_id THEN ',image_id' ELSE '' END ||
        CASE WHEN OLD.organizer_links IS NOT NEW.organizer_links THEN ',organizer_links' ELSE '' END ||
        CASE WHEN OLD.parent_id IS NOT NEW.parent_id THEN ',parent_id' ELSE '' END ||
        CASE WHEN OLD.password IS NOT NEW.password THEN ',password' ELSE '' END ||
        CASE WHEN OLD.published_at IS NOT NEW.published_at THEN ',published_at' ELSE '' END ||
        CASE WHEN OLD.series_id IS NOT NEW.series_id THEN ',series_id' ELSE '' END ||
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

-- +goose Down
DROP TRIGGER events_changes_update;
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
