-- Every read of events shows each event's venues, organizers, categories and tags. Reading which ones from the four
-- link tables took four index probes per event, more than half of what PostgreSQL spent on a page of a list at a
-- million events, so each event row also keeps its links as four lists, in the form the read scans
-- (models.Event.VenueLinks and the three after it): venues and organizers as position:id, categories and tags as
-- IDs, comma-separated, NULL for none. The link tables stay what filters, counts and joins use; every write that
-- changes an event's links, trashing or deleting a record it links to included, writes its lists in the same
-- transaction (models.LinkLists, Store.RefreshEventLinkLists).

-- +goose Up
ALTER TABLE events ADD COLUMN venue_links TEXT;
ALTER TABLE events ADD COLUMN organizer_links TEXT;
ALTER TABLE events ADD COLUMN category_links TEXT;
ALTER TABLE events ADD COLUMN tag_links TEXT;
UPDATE events SET
    venue_links = (SELECT string_agg(position || ':' || venue_id, ',') FROM event_venues WHERE event_id = events.id),
    organizer_links = (SELECT string_agg(position || ':' || organizer_id, ',') FROM event_organizers
        WHERE event_id = events.id),
    category_links = (SELECT string_agg(CAST(category_id AS TEXT), ',') FROM event_categories
        WHERE event_id = events.id),
    tag_links = (SELECT string_agg(CAST(tag_id AS TEXT), ',') FROM event_tags WHERE event_id = events.id);

-- +goose Down
ALTER TABLE events DROP COLUMN tag_links;
ALTER TABLE events DROP COLUMN category_links;
ALTER TABLE events DROP COLUMN organizer_links;
ALTER TABLE events DROP COLUMN venue_links;
