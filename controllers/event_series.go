package controllers

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/models"
)

// RecurrenceParam is the recurrence parameter: RFC 5545 content lines (RRULE, RDATE, EXDATE), as a JSON array of
// strings, repeated parameters, or one string with a line per line. Commas belong to the lines (BYDAY=TU,TH), so
// a string is never split at them. Sent, an empty list or null ends a series.
type RecurrenceParam struct{ Lines []string }

// maxRecurrenceLines bounds the lines one request may send.
const maxRecurrenceLines = 100

// DecodeParam reads the lines.
func (p *RecurrenceParam) DecodeParam(raw any) error {
	p.Lines = nil
	var items []any
	switch v := raw.(type) {
	case nil:
		return nil
	case string:
		items = []any{v}
	case []any:
		items = v
	default:
		return errors.New("must be a list of RFC 5545 lines, e.g. [\"RRULE:FREQ=WEEKLY;COUNT=10\"]")
	}
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return errors.New("must be a list of RFC 5545 lines (strings), e.g. [\"RRULE:FREQ=WEEKLY;COUNT=10\"]")
		}
		for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				p.Lines = append(p.Lines, line)
			}
		}
	}
	if len(p.Lines) > maxRecurrenceLines {
		return errors.New("must have at most " + strconv.Itoa(maxRecurrenceLines) + " lines")
	}
	return nil
}

// ParamSchema describes the lines.
func (RecurrenceParam) ParamSchema() endpoint.Schema {
	item := endpoint.Schema{Type: "string"}
	return endpoint.Schema{OneOf: []endpoint.Schema{{Type: "array", Items: &item}, {Type: "string"}}}
}

// seriesFields are the series members of an event record, after parent.
type seriesFields struct {
	SeriesID        uint64          `json:"series_id" doc:"The series this occurrence belongs to; 0 for a single event and for a series record."`
	Recurrence      []string        `json:"recurrence" doc:"The series' RFC 5545 lines, normalised, on the series record and on each occurrence; [] otherwise."`
	RecurrenceText  string          `json:"recurrence_text" doc:"An English summary of the series, e.g. \"Every week on Tuesday and Thursday at 18:00, 10 times\"; \"\" when not recurring."`
	RecurrenceID    *string         `json:"recurrence_id" schema:"date" doc:"An occurrence's original start (RFC 5545 RECURRENCE-ID), formatted like start_date; null otherwise."`
	IsException     bool            `json:"is_exception" doc:"Whether this occurrence was edited on its own."`
	NextOccurrences []OccurrenceRef `json:"next_occurrences,omitempty" doc:"On a series record only: up to 5 upcoming occurrences that the caller may read, cancelled ones (in the trash) left out."`
}

// OccurrenceRef is one of a series' next occurrences, as its record lists them.
type OccurrenceRef struct {
	ID        uint64 `json:"id" schema:"min=1"`
	StartDate string `json:"start_date" schema:"date"`
	EndDate   string `json:"end_date" schema:"date"`
}

// maxNextOccurrences is how many upcoming occurrences a series record lists.
const maxNextOccurrences = 5

// seriesShape fills the series members of r from e's series facts (read with the event).
func seriesShape(e *models.Event, r *EventRecord) {
	r.Recurrence = []string{}
	loc := eventLocation(e.Timezone)
	switch {
	case e.Series != nil:
		r.SeriesID = 0
		r.Recurrence = e.Series.Lines()
		r.RecurrenceText = e.Series.RecurrenceText
		hidden := e.Series.HideFromListings
		r.HideFromListings = &hidden
		r.NextOccurrences = []OccurrenceRef{}
	case e.Occurrence != nil:
		r.SeriesID = e.Occurrence.SeriesID
		rid := FormatDate(e.Occurrence.RecurrenceID, loc)
		r.RecurrenceID = &rid
		r.IsException = e.Occurrence.IsException()
		if e.OccurrenceSeries != nil {
			r.Recurrence = e.OccurrenceSeries.Lines()
			r.RecurrenceText = e.OccurrenceSeries.RecurrenceText
		}
	}
}

// loadNextOccurrences lists the next occurrences of a series record on r: those that start at or after now, are
// not cancelled (in the trash) and the caller may read. When there are any, the list changes once the clock passes
// the first one's start, a second after it (now is read in whole seconds), which c's answer declares
// (AnswerExpires).
func (ec *EventController) loadNextOccurrences(c *gin.Context, e *models.Event, r *EventRecord) error {
	if e.Series == nil {
		return nil
	}
	next, err := ec.Store.WithContext(c.Request.Context()).OccurrenceEvents(e.ID, RequestTime(c), maxNextOccurrences,
		models.EventsVisibleTo(models.UserFrom(c.Request.Context())), models.EventsNotTrashed())
	if err != nil {
		return err
	}
	loc := eventLocation(e.Timezone)
	r.NextOccurrences = make([]OccurrenceRef, len(next))
	for i, o := range next {
		r.NextOccurrences[i] = OccurrenceRef{ID: o.ID, StartDate: FormatDate(o.StartUTC, loc), EndDate: FormatDate(o.EndUTC, loc)}
	}
	if len(next) > 0 {
		AnswerExpires(c, next[0].StartUTC.Add(time.Second))
	}
	return nil
}

// addSeriesFilter adds series=ID: the occurrences of one series, which must be a series the caller may read.
func addSeriesFilter(q *eventQuery, store *models.Store, in *EventFilters, user *models.User, invalid map[string]string) error {
	if !in.Series.Set {
		return nil
	}
	id := in.Series.V
	owned, isSeries, err := store.SeriesRecord(uint64(max(id, 0)))
	switch {
	case errors.Is(err, models.ErrNotFound) || err == nil && !user.CanRead(owned):
		invalid["series"] = "no series with this ID exists"
		return nil
	case err != nil:
		return err
	case !isSeries:
		invalid["series"] = "event " + strconv.FormatInt(id, 10) + " is not a series"
		return nil
	}
	q.add(models.EventsInSeries(uint64(id)))
	q.args = q.args.Add("series", strconv.FormatInt(id, 10))
	return nil
}

// addCollapseSeries adds collapse_series=true: each series once, as its first occurrence that passes every other
// filter. It must come after every other filter; w is the list as a window before it (nil if none).
func addCollapseSeries(q *eventQuery, w *models.Window) {
	q.collapsed = &collapsedList{filters: slices.Clone(q.scopes), window: w}
	q.add(models.CollapseSeries(q.collapsed.filters))
	q.args = q.args.Add("collapse_series", "1")
}

// collapsedList is what a list with collapse_series=true is without it: its filters, and the window they make
// (nil if none), which models.Store.ListCollapsed pages and totals.
type collapsedList struct {
	filters []models.Scope
	window  *models.Window
}

// scheduleJSONLD is a series' rule as a schema.org Schedule.
type scheduleJSONLD struct {
	Type             string   `json:"@type"`
	RepeatFrequency  string   `json:"repeatFrequency"`
	ByDay            []string `json:"byDay,omitempty"`
	ByMonthDay       []int    `json:"byMonthDay,omitempty"`
	ByMonth          []int    `json:"byMonth,omitempty"`
	RepeatCount      int      `json:"repeatCount,omitempty"`
	StartDate        string   `json:"startDate"`
	EndDate          string   `json:"endDate,omitempty"`
	StartTime        string   `json:"startTime,omitempty"`
	EndTime          string   `json:"endTime,omitempty"`
	Duration         string   `json:"duration"`
	ExceptDate       []string `json:"exceptDate,omitempty"`
	ScheduleTimezone string   `json:"scheduleTimezone"`
}

// scheduleLD is the eventSchedule of series record e (nil for any other event). Only the first rule is
// described; the occurrences themselves are the series' events.
func scheduleLD(e *models.Event) *scheduleJSONLD {
	if e.Series == nil {
		return nil
	}
	set, err := e.Series.Rule(e)
	if err != nil {
		return nil
	}
	sch := set.Schedule()
	loc := eventLocation(e.Timezone)
	start, end := e.StartUTC.In(loc), e.EndUTC.In(loc)
	unit := map[string]string{"YEARLY": "Y", "MONTHLY": "M", "WEEKLY": "W", "DAILY": "D", "HOURLY": "H"}[sch.Frequency]
	freq := "P" + strconv.Itoa(sch.Interval) + unit
	if unit == "H" {
		freq = "PT" + strconv.Itoa(sch.Interval) + "H"
	}
	ld := &scheduleJSONLD{Type: "Schedule", RepeatFrequency: freq, ByMonthDay: sch.MonthDays, ByMonth: sch.Months,
		RepeatCount: sch.Count, StartDate: start.Format("2006-01-02"), ScheduleTimezone: e.Timezone,
		Duration: isoDuration(e.EndUTC.Sub(e.StartUTC))}
	for _, d := range sch.Days {
		ld.ByDay = append(ld.ByDay, "https://schema.org/"+d.String())
	}
	if !e.AllDay {
		ld.StartTime, ld.EndTime = start.Format("15:04:05"), end.Format("15:04:05")
	}
	if !sch.Until.IsZero() {
		ld.EndDate = sch.Until.In(loc).Format("2006-01-02")
	}
	for _, x := range sch.Except {
		ld.ExceptDate = append(ld.ExceptDate, x.In(loc).Format("2006-01-02"))
	}
	return ld
}

// isoDuration writes a duration in ISO 8601 (PT1H30M, P1DT2H, PT0S).
func isoDuration(d time.Duration) string {
	if d <= 0 {
		return "PT0S"
	}
	secs := int64(d / time.Second)
	days, secs := secs/86400, secs%86400
	out := "P"
	if days > 0 {
		out += strconv.FormatInt(days, 10) + "D"
	}
	if secs == 0 {
		return out
	}
	out += "T"
	for _, u := range []struct {
		n      int64
		suffix string
	}{{3600, "H"}, {60, "M"}, {1, "S"}} {
		if secs >= u.n {
			out += strconv.FormatInt(secs/u.n, 10) + u.suffix
			secs %= u.n
		}
	}
	return out
}
