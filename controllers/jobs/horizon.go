// Package jobs holds the work the service does in the background, beside the requests: the horizon job that gives
// open-ended recurring series their occurrences as the days pass, and the webhook sender that turns the change
// history into signed deliveries. Each unit of work is a function of models that owns its transaction; a job only
// decides what to do next and when. What deliveries carry is shaped by the handlers' package, which passes its
// shaping in (Shapes): the jobs know no handler.
package jobs

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"calendar/models"
)

// horizonBatch is how many series one pass of the horizon job reads at a time.
const horizonBatch = 100

// HorizonInterval is how often RunHorizon runs the job: the horizon moves a day a day, so an hour keeps every
// series within an hour of it.
const HorizonInterval = time.Hour

// ExtendSeries is the horizon job: it gives every open-ended series its occurrences up to its horizon at now (span
// past the end of today in its zone), each series in a transaction of its own (models.Store.ExtendSeries), and
// returns how many series it extended. Several instances may run it at once on one database: each series is
// claimed and extended by one of them only.
func ExtendSeries(ctx context.Context, store *models.Store, span time.Duration, now time.Time) (int, error) {
	// The latest horizon of any zone: a series' own horizon is the end of that day in its zone.
	until := now.Add(span + 48*time.Hour)
	extended := 0
	skipped := map[uint64]bool{}
	var firstErr error
	for {
		ids, err := store.WithContext(ctx).SeriesToExtend(until, horizonBatch+len(skipped))
		if err != nil {
			return extended, err
		}
		progress := false
		for _, id := range ids {
			if skipped[id] || ctx.Err() != nil {
				continue
			}
			done, err := store.ExtendSeries(ctx, id, now, span)
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

// RunHorizon runs the horizon job at start and then every HorizonInterval until ctx ends.
func RunHorizon(ctx context.Context, store *models.Store, span time.Duration, log *slog.Logger) {
	ticker := time.NewTicker(HorizonInterval)
	defer ticker.Stop()
	for {
		n, err := ExtendSeries(ctx, store, span, time.Now())
		if err != nil && ctx.Err() == nil {
			log.Warn("extending series to the horizon", "error", err)
		}
		if n > 0 {
			log.Info("extended series to the horizon", "series", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
