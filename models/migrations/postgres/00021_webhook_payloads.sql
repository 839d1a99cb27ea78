-- What a delivery carries is stored once per change, in webhook_payloads, and each subscription's delivery of that
-- change names it (payload_id). A payload copied into every delivery had the dispatcher write each change's record
-- once per subscription, and every update of a delivery (its claim, its outcome) copy the record again. A payload
-- is deleted once no delivery names it any longer: the pruning of the delivery log deletes those older than the
-- oldest one still named, which idx_webhook_deliveries_payload finds.

-- +goose Up
CREATE TABLE webhook_payloads (
    id      BIGSERIAL PRIMARY KEY,
    payload TEXT NOT NULL
);
ALTER TABLE webhook_deliveries ADD COLUMN payload_id BIGINT;
INSERT INTO webhook_payloads (id, payload) SELECT id, payload FROM webhook_deliveries;
UPDATE webhook_deliveries SET payload_id = id;
SELECT setval(pg_get_serial_sequence('webhook_payloads', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM webhook_payloads;
ALTER TABLE webhook_deliveries ALTER COLUMN payload_id SET NOT NULL, DROP COLUMN payload;
CREATE INDEX idx_webhook_deliveries_payload ON webhook_deliveries (payload_id);

-- +goose Down
ALTER TABLE webhook_deliveries ADD COLUMN payload TEXT;
UPDATE webhook_deliveries d SET payload = p.payload FROM webhook_payloads p WHERE p.id = d.payload_id;
ALTER TABLE webhook_deliveries ALTER COLUMN payload SET NOT NULL, DROP COLUMN payload_id;
DROP TABLE webhook_payloads;
