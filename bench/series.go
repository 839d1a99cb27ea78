package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"calendar/models"
)

// seriesWriters is how many clients write series at once in the series write scenarios.
const seriesWriters = 8

// createdSeriesCount is how many weekly occurrences the series create scenario asks for: two years of them.
const createdSeriesCount = 105

// seriesFixtures are the seeded series the series scenarios address.
type seriesFixtures struct {
	// listed are published series records without a password: a series=ID list anyone may read.
	listed []uint64
	// movable are published weekly series with a time of day and no EXDATE, whose start can move an hour later on
	// the same day: every occurrence moves with it, none is added or removed.
	movable []seriesStart
}

// seriesStart is a series record's dates as seeded.
type seriesStart struct {
	id         uint64
	start, end time.Time
}

// loadSeriesFixtures samples the seeded series.
func loadSeriesFixtures(ctx context.Context, store *models.Store) (seriesFixtures, error) {
	var f seriesFixtures
	db := store.DB().WithContext(ctx)
	err := db.Model(&models.Event{}).Where("series_id = id AND status = ? AND password = ''", models.StatusPublish).
		Order("id").Limit(5000).Pluck("id", &f.listed).Error
	if err != nil {
		return f, err
	}
	var rows []struct {
		ID               uint64
		StartUTC, EndUTC time.Time
	}
	err = db.Raw(`SELECT e.id, e.start_utc, e.end_utc FROM events e JOIN event_series s ON s.event_id = e.id
		WHERE e.status = ? AND e.password = '' AND NOT e.all_day AND s.recurrence LIKE 'RRULE:FREQ=WEEKLY%'
			AND s.recurrence NOT LIKE '%EXDATE%' AND s.recurrence NOT LIKE '%UNTIL%' ORDER BY e.id LIMIT 5000`,
		models.StatusPublish).Scan(&rows).Error
	for _, r := range rows {
		// Seeded series are in UTC: an hour later stays on the same day up to 22:59.
		if r.StartUTC.Hour() <= 22 {
			f.movable = append(f.movable, seriesStart{id: r.ID, start: r.StartUTC, end: r.EndUTC})
		}
	}
	return f, err
}

// seriesCreate is POST /events of a weekly series over two years (createdSeriesCount occurrences) with a venue,
// two organizers, two categories and two tags, from seriesWriters clients.
func seriesCreate(f fixtures, token, run string, pick func(w, n int) int) scenario {
	var created int64
	return scenario{name: "series create", wantStatus: http.StatusCreated, write: true, connections: seriesWriters,
		next: func(w, _ int) request {
			n := addInt64(&created, 1)
			day := time.Now().UTC().AddDate(0, 0, 10+int(n%300)).Format("2006-01-02")
			org, cat := pick(w, len(f.organizerIDs)), pick(w, len(f.categorySlugs))
			body, _ := json.Marshal(map[string]any{
				"title":      fmt.Sprintf("Benchmark series %s %d", run, n),
				"start_date": day + " 18:00:00",
				"end_date":   day + " 20:00:00",
				"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=" + strconv.Itoa(createdSeriesCount)},
				"venue":      f.venueIDs[pick(w, len(f.venueIDs))],
				"organizer":  []uint64{f.organizerIDs[org], f.organizerIDs[(org+1)%len(f.organizerIDs)]},
				"categories": []string{f.categorySlugs[cat], f.categorySlugs[(cat+1)%len(f.categorySlugs)]},
				"tags":       []string{"music", "outdoor"},
				"cost":       "$15",
			})
			return request{method: "POST", path: "/events", body: body, token: token}
		}}
}

// seriesTitleUpdate is PATCH of a series record's title: the series and every occurrence that kept the series'
// title change.
func seriesTitleUpdate(f fixtures, token, run string) scenario {
	sc := scenario{name: "series title update", write: true, connections: seriesWriters}
	if len(f.series.movable) == 0 {
		sc.unavailable = "the database has no seeded weekly series (-series-share 0?)"
		return sc
	}
	sc.next = func(w, i int) request {
		s := f.series.movable[seriesSlot(w, i, len(f.series.movable))]
		body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Retitled series %s %d-%d", run, w, i)})
		return request{method: "PATCH", path: "/events/" + strconv.FormatUint(s.id, 10), body: body, token: token}
	}
	return sc
}

// seriesStartMove is PATCH of a series record's start and end: each request moves the series to its seeded time or
// an hour later, alternately, and every occurrence moves with it.
func seriesStartMove(f fixtures, token string) scenario {
	sc := scenario{name: "series start move", write: true, connections: seriesWriters}
	if len(f.series.movable) == 0 {
		sc.unavailable = "the database has no seeded weekly series (-series-share 0?)"
		return sc
	}
	moves := make([]atomic.Int64, len(f.series.movable))
	sc.next = func(w, i int) request {
		k := seriesSlot(w, i, len(f.series.movable))
		s := f.series.movable[k]
		shift := time.Duration(moves[k].Add(1)%2) * time.Hour
		body, _ := json.Marshal(map[string]any{"start_date": s.start.Add(shift).Format(time.DateTime),
			"end_date": s.end.Add(shift).Format(time.DateTime)})
		return request{method: "PATCH", path: "/events/" + strconv.FormatUint(s.id, 10), body: body, token: token}
	}
	return sc
}

// seriesSlot is the series worker w writes in its i-th request: the workers take turns over the series, and at the
// same step no two of them write the same series unless there are fewer series than workers.
func seriesSlot(w, i, n int) int { return (i*seriesWriters + w) % n }

// collapsedList is GET /events with each series listed once.
func collapsedList() scenario {
	return scenario{name: "collapse_series uncached", next: func(int, int) request {
		return request{method: "GET", path: "/events?collapse_series=true"}
	}}.uncached()
}

// seriesList is GET /events?series=ID of the seeded series in turn.
func seriesList(f fixtures, pick func(w, n int) int) scenario {
	sc := scenario{name: "series=ID uncached"}
	if len(f.series.listed) == 0 {
		sc.unavailable = "the database has no seeded published series (-series-share 0?)"
		return sc
	}
	sc.next = func(w, _ int) request {
		id := f.series.listed[pick(w, len(f.series.listed))]
		return request{method: "GET", path: "/events?series=" + strconv.FormatUint(id, 10)}
	}
	return sc.uncached()
}
