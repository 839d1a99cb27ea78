-- What a delivery carries is stored once per change, in webhook_payloads, and each subscription's delivery of that
-- change names it (payload_id). A payload copied into every delivery had the dispatcher write each change's record
-- once per subscription, and every update of a delivery (its claim, its outcome) copy the record again. A payload
-- is deleted once no delivery names it any longer: the pruning of the delivery log deletes those older than the
-- oldest one still named, which idx_webhook_deliveries_payload finds.

-- +goose Up
CREATE TABLE webhook_payloads (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    payload TEXT NOT NULL
);
ALTER TABLE webhook_deliveries ADD COLUMN payload_id BIGINT NOT NULL DEFAULT 0;
INSERT INTO webhook_payloads (id, payload) SELECT id, payload FROM webhook_deliveries;
UPDATE webhook_deliveries SET payload_id = id;
ALTER TABLE webhook_deliveries DROP COLUMN payload;
CREATE INDEX idx_webhook_deliveries_payload ON webhook_deliveries (payload_id);

-- +goose Down
ALTER TABLE webhook_deliveries ADD COLUMN payload TEXT NOT NULL DEFAULT '';
UPDATE webhook_deliveries SET payload = (SELECT p.payload FROM webhook_payloads p WHERE p.id = payload_id);
DROP INDEX idx_webhook_deliveries_payload;
ALTER TABLE webhook_deliveries DROP COLUMN payload_id;
DROP TABLE webhook_payloads;
