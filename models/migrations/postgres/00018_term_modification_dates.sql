-- Categories and tags get a modification date, so that their reads carry Last-Modified and their writes honour
-- If-Unmodified-Since, as events, venues and organizers do. A term's answer changes when its own fields change,
-- when (for a category) an ancestor's slug or the line of its ancestors changes, since its URL shows their slugs,
-- and when its count moves. The writes of the first two set updated_at. A count moves by appending a row to
-- term_count_deltas, never by touching the term's row (so concurrent event writes that share a term do not queue
-- on its lock): each delta row keeps when it was written (at, Unix seconds), a term's last change is the latest of
-- its updated_at and its pending deltas' at, and the compaction that folds the deltas into the count carries their
-- latest at into updated_at. Existing terms take the time of this migration, a date no earlier than their last
-- change.

-- +goose Up
ALTER TABLE categories ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT date_trunc('second', now());
ALTER TABLE tags ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT date_trunc('second', now());
ALTER TABLE term_count_deltas ADD COLUMN at BIGINT NOT NULL DEFAULT CAST(floor(extract(epoch FROM now())) AS BIGINT);

-- +goose Down
ALTER TABLE term_count_deltas DROP COLUMN at;
ALTER TABLE tags DROP COLUMN updated_at;
ALTER TABLE categories DROP COLUMN updated_at;
