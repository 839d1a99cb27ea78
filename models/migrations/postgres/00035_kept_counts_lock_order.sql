-- An event write locks the kept count rows of its days (event_day_counts, search_day_counts, series_gap_days,
-- linked_published_days, category_day_counts) as its statements and their triggers update them, and two writes
-- that lock shared rows in opposite orders deadlock: PostgreSQL then aborts one after deadlock_timeout (1 s) and
-- the service runs it again. A create inserts the event first (day counts, kept searches, series gaps) and its links
-- after (the latest starts of its venues and organizers, then its categories' day counts). An update fired the
-- events table's triggers in name order, category_listed_events_events_update first: the opposite order. Fifteen
-- creates among thirty updates, trashes and deletes of events of one day, four times over, met 46 deadlocks, and in
-- CI one create lost all five of its attempts. PostgreSQL fires the triggers of one table and event in name order,
-- so the two that update the links' kept rows are renamed to fire after the others, in the order a create reaches
-- them. (A permanent delete, whose links go first by ON DELETE CASCADE, locks its day counts before it instead:
-- Store.DeleteEvent.)

-- +goose Up
ALTER TRIGGER linked_last_starts_events_update ON events RENAME TO z1_linked_last_starts_events_update;
ALTER TRIGGER category_listed_events_events_update ON events RENAME TO z2_category_listed_events_events_update;

-- +goose Down
ALTER TRIGGER z1_linked_last_starts_events_update ON events RENAME TO linked_last_starts_events_update;
ALTER TRIGGER z2_category_listed_events_events_update ON events RENAME TO category_listed_events_events_update;
