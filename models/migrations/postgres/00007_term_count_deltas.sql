-- Term counts are moved by appending deltas instead of updating the term rows, so concurrent event writes that
-- share a category or tag never queue on its row lock; a compactor folds the deltas into the counts. The data
-- version gets more shards, for the same reason.

-- +goose Up
CREATE TABLE term_count_deltas (
    id       BIGSERIAL PRIMARY KEY,
    taxonomy VARCHAR(16) NOT NULL,
    term_id  BIGINT      NOT NULL,
    delta    INTEGER     NOT NULL
);
CREATE INDEX idx_term_count_deltas_term ON term_count_deltas (taxonomy, term_id);
INSERT INTO data_versions (shard) VALUES (16), (17), (18), (19), (20), (21), (22), (23), (24), (25), (26), (27),
    (28), (29), (30), (31), (32), (33), (34), (35), (36), (37), (38), (39), (40), (41), (42), (43), (44), (45), (46),
    (47), (48), (49), (50), (51), (52), (53), (54), (55), (56), (57), (58), (59), (60), (61), (62), (63);

-- +goose Down
DELETE FROM data_versions WHERE shard >= 16;
DROP TABLE term_count_deltas;
