-- The tables that keep list totals and list pages (the kept links per venue, category and search, the day counts,
-- the latest starts per venue and organizer) are read by index-only scans, which visit the table for every page a
-- write touched since its last vacuum, as for events (migration 00011). Their rows change with nearly every write
-- of an event: a series' start move rewrites hundreds of kept links. They are vacuumed after a hundredth of their
-- rows changed or were inserted, instead of PostgreSQL's default fifth. With autovacuum off, as on the CI machines,
-- nothing changes; an operator may choose other values (ALTER TABLE ... SET (autovacuum_vacuum_scale_factor = ...)).

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['venue_listed_events', 'category_listed_events', 'search_listed_events', 'event_day_counts',
        'linked_last_starts', 'linked_published_days'] LOOP
        EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_scale_factor = 0.01, '
            'autovacuum_vacuum_insert_scale_factor = 0.01)', t);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['venue_listed_events', 'category_listed_events', 'search_listed_events', 'event_day_counts',
        'linked_last_starts', 'linked_published_days'] LOOP
        EXECUTE format('ALTER TABLE %I RESET (autovacuum_vacuum_scale_factor, '
            'autovacuum_vacuum_insert_scale_factor)', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
