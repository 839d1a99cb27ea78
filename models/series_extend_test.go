package models

import (
	"context"
	"sync"
	"testing"
	"time"

	"calendar/models/recurrence"
)

// TestExtendSeriesExtendsEachSeriesOnce: the horizon job's unit of work adds the occurrences between a series'
// last expansion and its horizon, once, whoever else runs it at the same time; a trashed series stays as it is.
func TestExtendSeriesExtendsEachSeriesOnce(t *testing.T) {
	ctx := context.Background()
	s := testStore(t)
	author := testUser(t, s, "author", RoleAuthor)
	now := time.Now().UTC().Truncate(time.Second)
	span := 3 * 24 * time.Hour
	series := func(slug string) *Event {
		t.Helper()
		start := time.Date(now.Year(), now.Month(), now.Day(), 10, 0, 0, 0, time.UTC)
		e := &Event{AuthorID: author.ID, Status: StatusPublish, Title: "Daily", Slug: slug, Timezone: "UTC",
			StartUTC: start, EndUTC: start.Add(time.Hour), PublishedAt: now, HideFromListings: true}
		horizon := SeriesHorizon(now, span, time.UTC)
		ser := &EventSeries{EventID: 0, Recurrence: "RRULE:FREQ=DAILY", ExpandedUntil: &horizon}
		err := s.Tx(ctx, func(tx *Store) error {
			if err := tx.DB().Omit("Venues", "Organizers", "Categories", "Tags").Create(e).Error; err != nil {
				return err
			}
			ser.EventID = e.ID
			if err := tx.SaveSeries(ser); err != nil {
				return err
			}
			if err := tx.MarkSeriesRecord(e, true); err != nil {
				return err
			}
			set, err := ser.Rule(e)
			if err != nil {
				return err
			}
			return tx.AddSeriesOccurrences(e, ser, set.Until(horizon, recurrence.MaxOccurrences), nil, nil, nil, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	occurrences := func(e *Event) int64 {
		t.Helper()
		var n int64
		if err := s.DB().Model(&EventOccurrence{}).Where("series_id = ?", e.ID).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	daily, trashed := series("daily"), series("trashed")
	if err := s.DB().Model(&Event{}).Where("id = ?", trashed.ID).Update("status", StatusTrash).Error; err != nil {
		t.Fatal(err)
	}
	if n := occurrences(daily); n != 4 {
		t.Fatalf("the series starts with %d occurrences, want today and the three days up to its horizon", n)
	}

	later := now.AddDate(0, 0, 2)
	if done, err := s.ExtendSeries(ctx, daily.ID, later, span); err != nil || !done {
		t.Fatalf("extending two days later: %v, %v", done, err)
	}
	if n := occurrences(daily); n != 6 {
		t.Errorf("%d occurrences two days later, want 6", n)
	}
	if done, err := s.ExtendSeries(ctx, daily.ID, later, span); err != nil || done {
		t.Errorf("a second run at the same time: %v, %v; want nothing done", done, err)
	}
	if done, err := s.ExtendSeries(ctx, trashed.ID, later, span); err != nil || done || occurrences(trashed) != 4 {
		t.Errorf("a trashed series: %v, %v, %d occurrences; want it left as it is", done, err, occurrences(trashed))
	}

	evenLater := now.AddDate(0, 0, 4)
	var wg sync.WaitGroup
	results := make(chan bool, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, err := s.ExtendSeries(ctx, daily.ID, evenLater, span)
			if err != nil {
				t.Error(err)
			}
			results <- done
		}()
	}
	wg.Wait()
	close(results)
	extended := 0
	for done := range results {
		if done {
			extended++
		}
	}
	if extended != 1 || occurrences(daily) != 8 {
		t.Errorf("three runs at once extended %d times to %d occurrences, want once to 8", extended, occurrences(daily))
	}
}
