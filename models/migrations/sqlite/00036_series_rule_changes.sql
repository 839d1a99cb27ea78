-- An occurrence shows its series' rule (recurrence, recurrence_text) and whether it is an exception (its overrides),
-- and neither is a column of its events row: a cancelled occurrence adds an EXDATE to the rule of every occurrence
-- of its series, and an edit that sends an occurrence's own values makes it an exception, without any events row
-- changing. These triggers record such changes in the history like a link change ('l'): for the series record and
-- each of its occurrences when a series row changes (except expanded_until, which the horizon job moves and no
-- answer shows), and for the occurrence when its occurrence row changes. Sync then reports them, and the response
-- cache, which follows the history, drops what they changed.

-- +goose Up
-- +goose StatementBegin
CREATE TRIGGER event_series_changes_update AFTER UPDATE ON event_series
WHEN OLD.recurrence IS NOT NEW.recurrence OR OLD.recurrence_text IS NOT NEW.recurrence_text
    OR OLD.hide_from_listings IS NOT NEW.hide_from_listings OR OLD.venue_links IS NOT NEW.venue_links
    OR OLD.organizer_links IS NOT NEW.organizer_links OR OLD.category_links IS NOT NEW.category_links
    OR OLD.tag_links IS NOT NEW.tag_links
BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
    INSERT INTO changes (kind, record_id, op) SELECT 1, event_id, 'l' FROM event_occurrences WHERE series_id = NEW.event_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER event_occurrences_changes_update AFTER UPDATE ON event_occurrences
WHEN OLD.series_id IS NOT NEW.series_id OR OLD.recurrence_id IS NOT NEW.recurrence_id OR OLD.overrides IS NOT NEW.overrides
BEGIN
    INSERT INTO changes (kind, record_id, op) VALUES (1, NEW.event_id, 'l');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER event_occurrences_changes_update;
DROP TRIGGER event_series_changes_update;
