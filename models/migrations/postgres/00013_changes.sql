-- The change history: every write of an event, venue, organizer, category or tag, or of an event's links, adds rows
-- here in its own transaction, by triggers that no write path can bypass (raw batch inserts included). Incremental
-- sync and webhooks read it.
--
-- kind: 1 event, 2 venue, 3 organizer, 4 category, 5 tag. op: c created, u updated (fields: the columns that
-- changed), d deleted (old: the row as it was, without its password), l links or count changed (a record's row is
-- unchanged, but what lists derive from it is not). xid is the writing transaction: a reader's snapshot tells
-- exactly which changes it saw, whatever order their transactions commit in. at is Unix seconds, for pruning.

-- +goose Up
CREATE TABLE changes (
    id        BIGSERIAL PRIMARY KEY,
    xid       xid8     NOT NULL DEFAULT pg_current_xact_id(),
    kind      SMALLINT NOT NULL,
    record_id BIGINT   NOT NULL,
    op        CHAR(1)  NOT NULL,
    fields    TEXT,
    old       JSONB,
    at        BIGINT   NOT NULL DEFAULT CAST(extract(epoch FROM now()) AS BIGINT)
);
CREATE INDEX idx_changes_kind_xid ON changes (kind, xid, record_id);

CREATE TABLE service_keys (
    name  VARCHAR(32) PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION record_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    f TEXT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (kind, record_id, op) VALUES (CAST(TG_ARGV[0] AS SMALLINT), NEW.id, 'c');
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT string_agg(n.key, ',' ORDER BY n.key) INTO f FROM jsonb_each(to_jsonb(NEW)) n
            WHERE n.key NOT IN ('updated_at', 'count', 'name_key') AND n.value IS DISTINCT FROM to_jsonb(OLD) -> n.key;
        IF f IS NOT NULL THEN
            INSERT INTO changes (kind, record_id, op, fields) VALUES (CAST(TG_ARGV[0] AS SMALLINT), NEW.id, 'u', f);
        END IF;
    ELSE
        INSERT INTO changes (kind, record_id, op, old)
            VALUES (CAST(TG_ARGV[0] AS SMALLINT), OLD.id, 'd', to_jsonb(OLD) - 'password');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- link_change records the events, and the venues or organizers (TG_ARGV[0]), whose links a statement changed,
-- once per transaction and record.
-- +goose StatementBegin
CREATE FUNCTION link_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, record_id, op)
        SELECT DISTINCT 1, r.event_id, 'l' FROM changed_rows r
        WHERE NOT EXISTS (SELECT 1 FROM changes c
            WHERE c.kind = 1 AND c.xid = pg_current_xact_id() AND c.record_id = r.event_id);
    IF TG_ARGV[0] = 'venue' THEN
        INSERT INTO changes (kind, record_id, op)
            SELECT DISTINCT 2, r.venue_id, 'l' FROM changed_rows r
            WHERE NOT EXISTS (SELECT 1 FROM changes c
                WHERE c.kind = 2 AND c.xid = pg_current_xact_id() AND c.record_id = r.venue_id);
    ELSIF TG_ARGV[0] = 'organizer' THEN
        INSERT INTO changes (kind, record_id, op)
            SELECT DISTINCT 3, r.organizer_id, 'l' FROM changed_rows r
            WHERE NOT EXISTS (SELECT 1 FROM changes c
                WHERE c.kind = 3 AND c.xid = pg_current_xact_id() AND c.record_id = r.organizer_id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A term's count moves with its events; the delta rows say which.
-- +goose StatementBegin
CREATE FUNCTION term_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, record_id, op)
        SELECT DISTINCT CASE r.taxonomy WHEN 'categories' THEN 4 ELSE 5 END, r.term_id, 'l' FROM changed_rows r
        WHERE NOT EXISTS (SELECT 1 FROM changes c WHERE c.kind = CASE r.taxonomy WHEN 'categories' THEN 4 ELSE 5 END
            AND c.xid = pg_current_xact_id() AND c.record_id = r.term_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER events_changes AFTER INSERT OR UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION record_change('1');
CREATE TRIGGER venues_changes AFTER INSERT OR UPDATE OR DELETE ON venues
    FOR EACH ROW EXECUTE FUNCTION record_change('2');
CREATE TRIGGER organizers_changes AFTER INSERT OR UPDATE OR DELETE ON organizers
    FOR EACH ROW EXECUTE FUNCTION record_change('3');
CREATE TRIGGER categories_changes AFTER INSERT OR UPDATE OR DELETE ON categories
    FOR EACH ROW EXECUTE FUNCTION record_change('4');
CREATE TRIGGER tags_changes AFTER INSERT OR UPDATE OR DELETE ON tags
    FOR EACH ROW EXECUTE FUNCTION record_change('5');

CREATE TRIGGER event_venues_insert_changes AFTER INSERT ON event_venues
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('venue');
CREATE TRIGGER event_venues_update_changes AFTER UPDATE ON event_venues
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('venue');
CREATE TRIGGER event_venues_delete_changes AFTER DELETE ON event_venues
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('venue');
CREATE TRIGGER event_organizers_insert_changes AFTER INSERT ON event_organizers
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('organizer');
CREATE TRIGGER event_organizers_update_changes AFTER UPDATE ON event_organizers
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('organizer');
CREATE TRIGGER event_organizers_delete_changes AFTER DELETE ON event_organizers
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('organizer');
CREATE TRIGGER event_categories_insert_changes AFTER INSERT ON event_categories
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('');
CREATE TRIGGER event_categories_delete_changes AFTER DELETE ON event_categories
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('');
CREATE TRIGGER event_tags_insert_changes AFTER INSERT ON event_tags
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('');
CREATE TRIGGER event_tags_delete_changes AFTER DELETE ON event_tags
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION link_change('');
CREATE TRIGGER term_count_deltas_changes AFTER INSERT ON term_count_deltas
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION term_count_change();

-- +goose Down
DROP TRIGGER term_count_deltas_changes ON term_count_deltas;
DROP TRIGGER event_tags_delete_changes ON event_tags;
DROP TRIGGER event_tags_insert_changes ON event_tags;
DROP TRIGGER event_categories_delete_changes ON event_categories;
DROP TRIGGER event_categories_insert_changes ON event_categories;
DROP TRIGGER event_organizers_delete_changes ON event_organizers;
DROP TRIGGER event_organizers_update_changes ON event_organizers;
DROP TRIGGER event_organizers_insert_changes ON event_organizers;
DROP TRIGGER event_venues_delete_changes ON event_venues;
DROP TRIGGER event_venues_update_changes ON event_venues;
DROP TRIGGER event_venues_insert_changes ON event_venues;
DROP TRIGGER tags_changes ON tags;
DROP TRIGGER categories_changes ON categories;
DROP TRIGGER organizers_changes ON organizers;
DROP TRIGGER venues_changes ON venues;
DROP TRIGGER events_changes ON events;
DROP FUNCTION term_count_change();
DROP FUNCTION link_change();
DROP FUNCTION record_change();
DROP TABLE service_keys;
DROP TABLE changes;
