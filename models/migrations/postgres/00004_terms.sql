-- Categories and tags: a case-folded copy of the name (computed by the service, so that case-insensitive matching,
-- search and ordering behave the same on SQLite and PostgreSQL), one name per parent for categories and one name
-- per taxonomy for tags (reference: term_exists), and indexes for the default order and for hide_empty/count.

-- +goose Up
ALTER TABLE categories ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE categories SET name_key = lower(name);
DROP INDEX idx_categories_name;
CREATE UNIQUE INDEX idx_categories_parent_name_key ON categories (COALESCE(parent_id, 0), name_key);
CREATE INDEX idx_categories_name_key ON categories (name_key, id);
CREATE INDEX idx_categories_count ON categories (count, id);

ALTER TABLE tags ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE tags SET name_key = lower(name);
DROP INDEX idx_tags_name;
CREATE UNIQUE INDEX idx_tags_name_key ON tags (name_key);
CREATE INDEX idx_tags_count ON tags (count, id);

-- +goose Down
DROP INDEX idx_tags_count;
DROP INDEX idx_tags_name_key;
ALTER TABLE tags DROP COLUMN name_key;
CREATE INDEX idx_tags_name ON tags (lower(name));

DROP INDEX idx_categories_count;
DROP INDEX idx_categories_name_key;
DROP INDEX idx_categories_parent_name_key;
ALTER TABLE categories DROP COLUMN name_key;
CREATE INDEX idx_categories_name ON categories (lower(name));
