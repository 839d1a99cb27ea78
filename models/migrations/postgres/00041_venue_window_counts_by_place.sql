-- A radius total in the kept window summed venue_window_counts with one index probe per venue within the circle:
-- 196 probes and 393 buffers for 25 miles around Chicago at 100,000 events, most of the radius list's statement.
-- Each kept count now carries its venue's coordinates, and idx_venue_window_counts_place orders the counts as the
-- geolocation index orders venues (status, then latitude and longitude), so that the counts of a circle's box are
-- one range; the total keeps those of the venues within the circle (docs/benchmarks.md, "Radius totals by place").
--
-- While venue_window names a window, every count of an existing venue carries the venue's coordinates:
--   - writers of venue links read the coordinates when they add their row of deltas, and the service reads them
--     when it counts the window again (Store.KeepVenueWindow) or folds the deltas;
--   - a change of a venue's coordinates forgets the window in the same transaction (venue_window_counts_place).
--     A reader that sees the new coordinates sees no window, and counts the circle's links until the service
--     counts the window again, within a minute, under the lock that waits for every writer of venue links. Venues
--     move seldom; a writer that read the old coordinates has committed by then, and its counts are counted again.

-- +goose Up
ALTER TABLE venue_window_counts ADD COLUMN geo_lat DOUBLE PRECISION, ADD COLUMN geo_lng DOUBLE PRECISION;
UPDATE venue_window_counts k SET geo_lat = v.geo_lat, geo_lng = v.geo_lng FROM venues v WHERE v.id = k.venue_id;
DROP INDEX idx_venue_window_counts;
CREATE INDEX idx_venue_window_counts_place ON venue_window_counts (status, geo_lat, geo_lng) INCLUDE (venue_id, n);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_window_counts_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    f TIMESTAMPTZ;
    u TIMESTAMPTZ;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(venue_window_lock());
    SELECT from_utc, until_utc INTO f, u FROM venue_window WHERE id = 1;
    IF f IS NULL THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO venue_window_counts (venue_id, status, n, geo_lat, geo_lng)
        SELECT c.venue_id, c.status, c.n, v.geo_lat, v.geo_lng FROM (
            SELECT venue_id, status, count(*) AS n FROM new_rows
            WHERE NOT shared AND start_utc >= f AND end_utc <= u GROUP BY venue_id, status) c
        LEFT JOIN venues v ON v.id = c.venue_id;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO venue_window_counts (venue_id, status, n, geo_lat, geo_lng)
        SELECT c.venue_id, c.status, c.n, v.geo_lat, v.geo_lng FROM (
            SELECT venue_id, status, -count(*) AS n FROM old_rows
            WHERE NOT shared AND start_utc >= f AND end_utc <= u GROUP BY venue_id, status) c
        LEFT JOIN venues v ON v.id = c.venue_id;
    ELSE
        INSERT INTO venue_window_counts (venue_id, status, n, geo_lat, geo_lng)
        SELECT c.venue_id, c.status, c.n, v.geo_lat, v.geo_lng FROM (
            SELECT venue_id, status, sum(d) AS n FROM (
                SELECT venue_id, status, 1 AS d FROM new_rows WHERE NOT shared AND start_utc >= f AND end_utc <= u
                UNION ALL
                SELECT venue_id, status, -1 FROM old_rows WHERE NOT shared AND start_utc >= f AND end_utc <= u) d
            GROUP BY venue_id, status HAVING sum(d) <> 0) c
        LEFT JOIN venues v ON v.id = c.venue_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION venue_window_counts_place() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE venue_window SET from_utc = NULL, until_utc = NULL WHERE id = 1 AND from_utc IS NOT NULL;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER venue_window_counts_place AFTER UPDATE OF geo_lat, geo_lng ON venues FOR EACH ROW
    WHEN (OLD.geo_lat IS DISTINCT FROM NEW.geo_lat OR OLD.geo_lng IS DISTINCT FROM NEW.geo_lng)
    EXECUTE FUNCTION venue_window_counts_place();

-- +goose Down
DROP TRIGGER venue_window_counts_place ON venues;
DROP FUNCTION venue_window_counts_place();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION venue_window_counts_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    f TIMESTAMPTZ;
    u TIMESTAMPTZ;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(venue_window_lock());
    SELECT from_utc, until_utc INTO f, u FROM venue_window WHERE id = 1;
    IF f IS NULL THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO venue_window_counts (venue_id, status, n)
        SELECT venue_id, status, count(*) FROM new_rows
        WHERE NOT shared AND start_utc >= f AND end_utc <= u GROUP BY venue_id, status;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO venue_window_counts (venue_id, status, n)
        SELECT venue_id, status, -count(*) FROM old_rows
        WHERE NOT shared AND start_utc >= f AND end_utc <= u GROUP BY venue_id, status;
    ELSE
        INSERT INTO venue_window_counts (venue_id, status, n)
        SELECT venue_id, status, sum(d) FROM (
            SELECT venue_id, status, 1 AS d FROM new_rows WHERE NOT shared AND start_utc >= f AND end_utc <= u
            UNION ALL
            SELECT venue_id, status, -1 FROM old_rows WHERE NOT shared AND start_utc >= f AND end_utc <= u) c
        GROUP BY venue_id, status HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP INDEX idx_venue_window_counts_place;
CREATE INDEX idx_venue_window_counts ON venue_window_counts (venue_id, status) INCLUDE (n);
ALTER TABLE venue_window_counts DROP COLUMN geo_lat, DROP COLUMN geo_lng;
