-- Radius queries (GET /events with geoloc_lat and geoloc_lng) find their venues with a box on (geo_lat, geo_lng),
-- measure each venue in the box, and join its id to event_venues. With id included, PostgreSQL answers all of that
-- from the index alone (an index-only scan) instead of reading a venue row per venue in the box.

-- +goose Up
DROP INDEX idx_venues_geo;
CREATE INDEX idx_venues_geo ON venues (geo_lat, geo_lng) INCLUDE (id) WHERE geo_lat IS NOT NULL;

-- +goose Down
DROP INDEX idx_venues_geo;
CREATE INDEX idx_venues_geo ON venues (geo_lat, geo_lng) WHERE geo_lat IS NOT NULL;
