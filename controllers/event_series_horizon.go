package controllers

import (
	"cmp"
	"context"
	"time"

	"calendar/models"
	"calendar/models/recurrence"
)

// storedSet reads the rule a series has stored. Its limit on occurrences up to the horizon held when it was
// written; as the days pass, a series may grow past it, which is no reason to stop extending or editing it.
func storedSet(e *models.Event, ser *models.EventSeries) (*recurrence.Set, error) {
	return recurrence.Parse(recurrence.Input{Lines: ser.Lines(), Start: e.StartUTC.In(eventLocation(e.Timezone)),
		AllDay: e.AllDay})
}

// horizonBatch is how many series one pass of the horizon job reads at a time.
const horizonBatch = 100

// ExtendSeries is the horizon job: it gives every open-ended series its occurrences up to the horizon as it
// stands at now, each series in a transaction of its own, and returns how many series it extended. Several
// instances may run it at once on one database: each series is claimed (models.Store.ClaimSeries) and extended by
// one of them only.
func (a *App) ExtendSeries(ctx context.Context, now time.Time) (int, error) {
	ec := &EventController{App: a}
	store := a.Store.WithContext(ctx)
	// The latest horizon of any zone: a series' own horizon is the end of that day in its zone.
	until := now.Add(a.Config.RecurrenceHorizon + 48*time.Hour)
	extended := 0
	skipped := map[uint64]bool{}
	var firstErr error
	for {
		ids, err := store.SeriesToExtend(until, horizonBatch+len(skipped))
		if err != nil {
			return extended, err
		}
		progress := false
		for _, id := range ids {
			if skipped[id] || ctx.Err() != nil {
				continue
			}
			done, err := ec.extendSeries(ctx, id, now)
			switch {
			case err != nil:
				// One series that fails must not hold the others back: it is tried again on the next run.
				firstErr = cmp.Or(firstErr, err)
				skipped[id] = true
			case done:
				extended++
				progress = true
			default:
				skipped[id] = true
			}
		}
		if !progress {
			return extended, cmp.Or(firstErr, ctx.Err())
		}
	}
}

// extendSeries adds the occurrences of series id between its last expansion and its horizon at now, and reports
// whether it did (false: the series is already there, trashed, or another instance holds it).
func (ec *EventController) extendSeries(ctx context.Context, id uint64, now time.Time) (bool, error) {
	extended := false
	err := ec.Store.Tx(ctx, func(tx *models.Store) error {
		// The series record's lock is what every write of the series holds: the job waits for one under way.
		e, err := tx.LockEvent(id)
		if err != nil {
			return err
		}
		horizon := ec.horizon(now, eventLocation(e.Timezone))
		ser, err := tx.ClaimSeries(id, horizon)
		if err != nil || ser == nil || e.Status == models.StatusTrash {
			return err
		}
		set, err := storedSet(e, ser)
		if err != nil {
			return err
		}
		starts := set.Between(ser.ExpandedUntil.Add(time.Second), horizon.Add(time.Second), recurrence.MaxOccurrences)
		e.VenueLinks, e.OrganizerLinks, e.CategoryLinks, e.TagLinks = ser.VenueLinks, ser.OrganizerLinks,
			ser.CategoryLinks, ser.TagLinks
		l, err := seriesLinks(e, eventLinks{})
		if err != nil {
			return err
		}
		if err := ec.addOccurrences(tx, e, ser, starts, l); err != nil {
			return err
		}
		ser.ExpandedUntil = &horizon
		extended = true
		return tx.SaveSeries(ser)
	})
	return extended, err
}
