-- A list filtered by venue and category intersects the two link tables. Each venue holds a few hundred events at
-- a million, and testing each one's categories cost about 600 index probes per list, so the intersection is kept
-- as a table: one row per venue and category of an event, whose primary key answers "events at these venues in
-- these categories" with a few index entries. Its rows reference the two link rows they pair, so removing either
-- link (an update that replaces them, or deleting the event, venue or category) removes the pair with it; writes
-- that add links add the pairs (models.EventVenueCategories).

-- +goose Up
CREATE TABLE event_venue_categories (
    venue_id    BIGINT NOT NULL,
    category_id BIGINT NOT NULL,
    event_id    BIGINT NOT NULL,
    PRIMARY KEY (venue_id, category_id, event_id),
    FOREIGN KEY (event_id, venue_id) REFERENCES event_venues (event_id, venue_id) ON DELETE CASCADE,
    FOREIGN KEY (event_id, category_id) REFERENCES event_categories (event_id, category_id) ON DELETE CASCADE
);
-- The cascades from the link tables find an event's pairs by event.
CREATE INDEX idx_event_venue_categories_event ON event_venue_categories (event_id);
INSERT INTO event_venue_categories (venue_id, category_id, event_id)
    SELECT v.venue_id, c.category_id, v.event_id FROM event_venues v JOIN event_categories c ON c.event_id = v.event_id;

-- +goose Down
DROP TABLE event_venue_categories;
