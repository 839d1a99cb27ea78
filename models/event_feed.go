package models

import (
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The queries of iCalendar feeds: a feed is the event list of the same scopes, read whole in batches
// rather than one page, and first summarised by time zone so that its VTIMEZONE components can precede its events.

// EventCursor is an event's place in list order (start, then ID): a feed reads the events after it.
type EventCursor struct {
	StartUTC time.Time
	ID       uint64
}

// EventsAfter returns, in list order, up to limit events that pass every scope and come after the cursor (nil:
// from the first), with their images. It reads by keyset rather than by offset, so every batch of a long feed
// costs the same; like ListEvents, it picks the IDs from the covering listing indexes first.
func (s *Store) EventsAfter(scopes []Scope, after *EventCursor, limit int) ([]Event, error) {
	ids := s.orderedEventIDs(scopes)
	if after != nil {
		ids = ids.Where("(events.start_utc, events.id) > (?, ?)", after.StartUTC.UTC(), after.ID)
	}
	return s.eventsIn(ids.Limit(limit), limit)
}

// FeedZone summarises the events of a feed that share a time zone.
type FeedZone struct {
	Timezone string
	// First is the earliest start and Last the latest end among them.
	First, Last time.Time
	Events      int64
}

// EventFeedZones summarises, by time zone, the first limit events in list order that pass every scope: one
// query, whose counts also tell whether the feed holds more events than a cap (ask for cap+1).
func (s *Store) EventFeedZones(scopes []Scope, limit int) ([]FeedZone, error) {
	ids := s.orderedEventIDs(scopes).Limit(limit)
	var rows []struct {
		Timezone    string
		First, Last dbTime
		Events      int64
	}
	err := s.db.Model(&Event{}).
		Select("events.timezone, MIN(events.start_utc) AS first, MAX(events.end_utc) AS last, COUNT(*) AS events").
		Where("events.id IN (?)", ids).Group("events.timezone").Order("events.timezone").Scan(&rows).Error
	zones := make([]FeedZone, len(rows))
	for i, r := range rows {
		zones[i] = FeedZone{Timezone: r.Timezone, First: r.First.Time, Last: r.Last.Time, Events: r.Events}
	}
	return zones, err
}

// dbTime scans an instant that an aggregate returns: PostgreSQL gives a time, SQLite the text it stored (the
// driver converts only columns declared as times, and MIN/MAX have no declared type).
type dbTime struct{ time.Time }

// Value implements driver.Valuer (GORM maps only types that read and write).
func (t dbTime) Value() (driver.Value, error) { return t.Time, nil }

// Scan implements sql.Scanner.
func (t *dbTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		t.Time = x.UTC()
		return nil
	case []byte:
		return t.parse(string(x))
	case string:
		return t.parse(x)
	}
	return fmt.Errorf("an instant of type %T", v)
}

func (t *dbTime) parse(s string) error {
	for _, layout := range sqlite3.SQLiteTimestampFormats {
		if parsed, err := time.Parse(layout, s); err == nil {
			t.Time = parsed.UTC()
			return nil
		}
	}
	return fmt.Errorf("an instant %q in no known layout", s)
}
