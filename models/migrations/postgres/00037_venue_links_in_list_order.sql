-- The kept venue links in list order, of every venue at once: a radius list whose circle holds many venues takes its
-- page from the first links of its window in this order, those at a venue within the circle, instead of merging
-- the first links of each venue (see listNear in models/event_window.go).

-- +goose Up
CREATE INDEX idx_venue_listed_events_order ON venue_listed_events (status, start_utc, event_id) INCLUDE (venue_id, end_utc);

-- +goose Down
DROP INDEX idx_venue_listed_events_order;
