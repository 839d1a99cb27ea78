-- Categories and tags get a modification date, so that their reads carry Last-Modified and their writes honour
-- If-Unmodified-Since, as events, venues and organizers do. A term's answer changes when its own fields change,
-- when (for a category) an ancestor's slug or the line of its ancestors changes, since its URL shows their slugs,
-- and when its count moves. The writes of the first two set updated_at. A count moves by appending a row to
-- term_count_deltas, never by touching the term's row: each delta row keeps when it was written (at, Unix
-- seconds), a term's last change is the latest of its updated_at and its pending deltas' at, and the compaction
-- that folds the deltas into the count carries their latest at into updated_at. Existing terms take the time of
-- this migration, a date no earlier than their last change, written as the driver writes instants. SQLite adds a
-- column only with a constant default, so the delta table, which nothing references, is made again with its index
-- and its change-history trigger.

-- +goose Up
ALTER TABLE categories ADD COLUMN updated_at DATETIME NOT NULL DEFAULT '1970-01-01 00:00:00+00:00';
UPDATE categories SET updated_at = strftime('%Y-%m-%d %H:%M:%S+00:00', 'now');
ALTER TABLE tags ADD COLUMN updated_at DATETIME NOT NULL DEFAULT '1970-01-01 00:00:00+00:00';
UPDATE tags SET updated_at = strftime('%Y-%m-%d %H:%M:%S+00:00', 'now');

CREATE TABLE term_count_deltas_dated (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    taxonomy VARCHAR(16) NOT NULL,
    term_id  BIGINT      NOT NULL,
    delta    INTEGER     NOT NULL,
    at       INTEGER     NOT NULL DEFAULT (unixepoch())
);
INSERT INTO term_count_deltas_dated (id, taxonomy, term_id, delta) SELECT id, taxonomy, term_id, delta FROM term_count_deltas;
DROP TABLE term_count_deltas;
ALTER TABLE term_count_deltas_dated RENAME TO term_count_deltas;
CREATE INDEX idx_term_count_deltas_term ON term_count_deltas (taxonomy, term_id);
-- +goose StatementBegin
CREATE TRIGGER term_count_deltas_changes AFTER INSERT ON term_count_deltas BEGIN
    INSERT INTO changes (kind, record_id, op)
        VALUES (CASE NEW.taxonomy WHEN 'categories' THEN 4 ELSE 5 END, NEW.term_id, 'l');
END;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE term_count_deltas DROP COLUMN at;
ALTER TABLE tags DROP COLUMN updated_at;
ALTER TABLE categories DROP COLUMN updated_at;
