-- An occurrence shows its series' rule (recurrence, recurrence_text) and whether it is an exception (its overrides),
-- and neither is a column of its events row: a cancelled occurrence adds an EXDATE to the rule of every occurrence
-- of its series, and an edit that sends an occurrence's own values makes it an exception, without any events row
-- changing. These triggers record such changes in the history like a link change ('l'): for the series record and
-- each of its occurrences when a series row changes (except expanded_until, which the horizon job moves and no
-- answer shows), and for the occurrence when its occurrence row changes. Sync then reports them, and the response
-- cache, which follows the history, drops what they changed. Once per transaction and record, like link_change.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION series_rule_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, record_id, op)
    SELECT DISTINCT 1, r.id, 'l' FROM new_series n JOIN old_series o ON o.event_id = n.event_id
        CROSS JOIN LATERAL (SELECT n.event_id AS id
            UNION ALL SELECT eo.event_id FROM event_occurrences eo WHERE eo.series_id = n.event_id) AS r
    WHERE (n.recurrence, n.recurrence_text, n.hide_from_listings, n.venue_links, n.organizer_links,
            n.category_links, n.tag_links)
        IS DISTINCT FROM (o.recurrence, o.recurrence_text, o.hide_from_listings, o.venue_links, o.organizer_links,
            o.category_links, o.tag_links)
        AND NOT EXISTS (SELECT 1 FROM changes c
            WHERE c.kind = 1 AND c.xid = pg_current_xact_id() AND c.record_id = r.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION occurrence_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, record_id, op)
    SELECT DISTINCT 1, n.event_id, 'l' FROM new_occurrences n JOIN old_occurrences o ON o.event_id = n.event_id
    WHERE (n.series_id, n.recurrence_id, n.overrides) IS DISTINCT FROM (o.series_id, o.recurrence_id, o.overrides)
        AND NOT EXISTS (SELECT 1 FROM changes c
            WHERE c.kind = 1 AND c.xid = pg_current_xact_id() AND c.record_id = n.event_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER event_series_changes_update AFTER UPDATE ON event_series
    REFERENCING OLD TABLE AS old_series NEW TABLE AS new_series FOR EACH STATEMENT EXECUTE FUNCTION series_rule_changes();
CREATE TRIGGER event_occurrences_changes_update AFTER UPDATE ON event_occurrences
    REFERENCING OLD TABLE AS old_occurrences NEW TABLE AS new_occurrences
    FOR EACH STATEMENT EXECUTE FUNCTION occurrence_changes();

-- +goose Down
DROP TRIGGER event_occurrences_changes_update ON event_occurrences;
DROP TRIGGER event_series_changes_update ON event_series;
DROP FUNCTION occurrence_changes();
DROP FUNCTION series_rule_changes();
