-- The sender's queue apart from the delivery log: webhook_queue holds one row per delivery waiting to be sent (its
-- subscription, record, and when it is due), and a delivery leaves it when it is sent or fails for good. Claims
-- read only this table. They had walked partial indexes of the whole log, past the entries of every delivery
-- ended since the log was last vacuumed: thousands under load, and without end where autovacuum is off. The queue
-- stays small, and the service vacuums it every few seconds (PostgreSQL).

-- +goose Up
CREATE TABLE webhook_queue (
    id              BIGINT   PRIMARY KEY,
    webhook_id      BIGINT   NOT NULL,
    kind            SMALLINT NOT NULL,
    record_id       BIGINT   NOT NULL,
    created_at      BIGINT   NOT NULL,
    next_attempt_at BIGINT   NOT NULL
);
-- Due deliveries first; and per record, so that a later change waits for an earlier one.
CREATE INDEX idx_webhook_queue_due ON webhook_queue (next_attempt_at, id);
CREATE INDEX idx_webhook_queue_record ON webhook_queue (webhook_id, kind, record_id, id);
INSERT INTO webhook_queue (id, webhook_id, kind, record_id, created_at, next_attempt_at)
SELECT id, webhook_id, kind, record_id, created_at, next_attempt_at FROM webhook_deliveries WHERE status = 'pending';
DROP INDEX idx_webhook_deliveries_due;
DROP INDEX idx_webhook_deliveries_record;

-- +goose Down
CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX idx_webhook_deliveries_record ON webhook_deliveries (webhook_id, kind, record_id, id)
    WHERE status = 'pending';
DROP TABLE webhook_queue;
