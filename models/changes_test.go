package models

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEventChangesNameEveryColumn holds the change history's event trigger to the table: an update's change row
// names the columns it changed, and the trigger compares each column of events by name (updated_at aside, and on
// PostgreSQL id, on which it joins the old rows to the new), so a column added to events without it would change
// records unseen by sync and webhooks.
func TestEventChangesNameEveryColumn(t *testing.T) {
	s := testStore(t)
	columns, err := s.DB().Migrator().ColumnTypes(&Event{})
	if err != nil {
		t.Fatal(err)
	}
	var definition string
	query, compared := "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'events_changes_update'", "OLD.%s IS NOT NEW.%s "
	if s.Dialect() == Postgres {
		query, compared = "SELECT pg_get_functiondef('record_event_changes'::regproc)", "n.%s IS DISTINCT FROM o.%s "
	}
	if err := s.DB().Raw(query).Scan(&definition).Error; err != nil || definition == "" {
		t.Fatalf("the trigger's definition: %q, %v", definition, err)
	}
	for _, c := range columns {
		name := c.Name()
		if name == "updated_at" || name == "id" && s.Dialect() == Postgres {
			continue
		}
		if !strings.Contains(definition, strings.ReplaceAll(compared, "%s", name)) {
			t.Errorf("the change trigger does not compare events.%s", name)
		}
	}

	author := testUser(t, s, "author", RoleAuthor)
	e := createEvent(t, s, author, "Talk")
	e.Title, e.StartUTC, e.EndUTC = "Keynote", e.StartUTC.Add(time.Minute), e.EndUTC.Add(time.Minute)
	if err := s.WithContext(context.Background()).SaveEvent(e); err != nil {
		t.Fatal(err)
	}
	var fields []string
	if err := s.DB().Table("changes").Where("kind = 1 AND record_id = ? AND op = 'u'", e.ID).Pluck("fields", &fields).Error; err != nil {
		t.Fatal(err)
	}
	if len(fields) != 1 || fields[0] != "end_utc,start_utc,title" {
		t.Fatalf("the update's change rows name %q, want end_utc,start_utc,title", fields)
	}
}

// TestIdleDispatchLeavesThePosition holds the webhook dispatcher to writing nothing while nothing changes: a poll
// that finds no new change leaves its position row as it was (on PostgreSQL, rewriting it would also move the
// snapshot it holds), and the next change is still dispatched.
func TestIdleDispatchLeavesThePosition(t *testing.T) {
	s := testStore(t)
	ctx := context.Background()
	built := 0
	build := func(*Store, []Webhook, []Change) ([]WebhookDelivery, error) {
		built++
		return nil, nil
	}
	dispatch := func() {
		t.Helper()
		if _, err := s.DispatchChanges(ctx, 100, DispatchLease{}, build); err != nil {
			t.Fatal(err)
		}
	}
	position := func() webhookCursor {
		t.Helper()
		var cur webhookCursor
		if err := s.DB().Where("id = 1").Take(&cur).Error; err != nil {
			t.Fatal(err)
		}
		return cur
	}
	if err := s.CreateWebhook(ctx, &Webhook{URL: "http://receiver.test/hook", Events: "*", Secret: "s"}); err != nil {
		t.Fatal(err)
	}
	author := testUser(t, s, "author", RoleAuthor)
	createEvent(t, s, author, "Talk")
	dispatch()
	if built != 1 {
		t.Fatalf("the create was built into deliveries %d times, want 1", built)
	}
	idle := position()
	dispatch()
	dispatch()
	if now := position(); now != idle {
		t.Fatalf("idle polls moved the position from %+v to %+v", idle, now)
	}
	createEvent(t, s, author, "Keynote")
	dispatch()
	if built != 2 || position() == idle {
		t.Fatalf("after an idle spell, changes were built %d times in all (want 2), position %+v", built, position())
	}
}
