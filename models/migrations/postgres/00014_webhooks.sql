-- Webhooks: subscriptions, the deliveries waiting for or done by the sender, and the dispatcher's position in the
-- change history (one row: the changes up to it have their deliveries). Times are Unix milliseconds.

-- +goose Up
CREATE TABLE webhooks (
    id         BIGSERIAL PRIMARY KEY,
    url        TEXT        NOT NULL,
    events     TEXT        NOT NULL,
    secret     TEXT        NOT NULL,
    created_at BIGINT      NOT NULL,
    updated_at BIGINT      NOT NULL
);

CREATE TABLE webhook_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    webhook_id      BIGINT      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    kind            SMALLINT    NOT NULL,
    record_id       BIGINT      NOT NULL,
    type            VARCHAR(32) NOT NULL,
    payload         TEXT        NOT NULL,
    status          VARCHAR(16) NOT NULL,
    attempts        INTEGER     NOT NULL DEFAULT 0,
    last_status     INTEGER     NOT NULL DEFAULT 0,
    last_error      TEXT        NOT NULL DEFAULT '',
    created_at      BIGINT      NOT NULL,
    next_attempt_at BIGINT      NOT NULL,
    done_at         BIGINT      NOT NULL DEFAULT 0
);
-- The sender's queue: due deliveries first; and per record, so that a later change waits for an earlier one.
CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX idx_webhook_deliveries_record ON webhook_deliveries (webhook_id, kind, record_id, id)
    WHERE status = 'pending';
CREATE INDEX idx_webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);

CREATE TABLE webhook_cursor (
    id          INTEGER PRIMARY KEY,
    from_seq    BIGINT  NOT NULL DEFAULT 0,
    from_snap   TEXT    NOT NULL DEFAULT '',
    until_seq   BIGINT  NOT NULL DEFAULT 0,
    until_snap  TEXT    NOT NULL DEFAULT '',
    busy        BOOLEAN   NOT NULL DEFAULT FALSE,
    after_id    BIGINT  NOT NULL DEFAULT 0
);
INSERT INTO webhook_cursor (id, from_snap) VALUES (1, CAST(pg_current_snapshot() AS TEXT));

-- +goose Down
DROP TABLE webhook_cursor;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
