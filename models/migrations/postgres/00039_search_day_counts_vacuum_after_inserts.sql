-- A kept search's total is an index-only scan of its day counts (search_day_counts, whose primary key holds the
-- counts), which reads the table's rows too until vacuum marks their pages all-visible. Keeping a search inserts
-- its day counts all at once, and PostgreSQL's autovacuum waits by default for a fifth of a table to be inserted
-- before it comes: the table is vacuumed after a hundredth of it is inserted, as its matches
-- (search_listed_events) already are. The service also vacuums both after each search it keeps.

-- +goose Up
ALTER TABLE search_day_counts SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);

-- +goose Down
ALTER TABLE search_day_counts SET (autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE search_day_counts RESET (autovacuum_vacuum_insert_scale_factor);
