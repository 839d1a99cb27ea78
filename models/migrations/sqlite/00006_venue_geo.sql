-- Radius queries (GET /events with geoloc_lat and geoloc_lng) find their venues with a box on (geo_lat, geo_lng).
-- A SQLite index always carries the rowid (venues.id), so idx_venues_geo of the initial schema already covers
-- them; PostgreSQL's migration 00006 adds id to its index. Nothing changes here: this file keeps both dialects at
-- the same version.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
