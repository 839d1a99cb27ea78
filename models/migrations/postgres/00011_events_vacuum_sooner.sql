-- Counting a list's total reads indexes alone (an index-only scan) only over the pages vacuum has marked
-- all-visible; every page a write touched since needs a visit to the table. At a million events, after two
-- benchmark runs' writes (47,000 rows changed, 5% of the table) the default list's count ran 2.5 times slower with
-- every answer built (4.7 lists a second, 12 after a VACUUM). PostgreSQL's autovacuum waits by default for a fifth of
-- a table to change; events and their link tables are vacuumed after a hundredth instead. Vacuum skips the pages
-- still all-visible, so each run costs about what changed. An operator may choose other values (ALTER TABLE ...
-- SET (autovacuum_vacuum_scale_factor = ...)); with autovacuum off, as on the CI machines, nothing changes.

-- +goose Up
ALTER TABLE events SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE event_venues SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE event_organizers SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE event_categories SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE event_tags SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE event_venue_categories SET (autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.01);

-- +goose Down
ALTER TABLE event_venue_categories RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
ALTER TABLE event_tags RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
ALTER TABLE event_categories RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
ALTER TABLE event_organizers RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
ALTER TABLE event_venues RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
ALTER TABLE events RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor);
