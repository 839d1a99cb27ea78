package controllers

import (
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/gin-gonic/gin"

	"calendar/controllers/ical"
	"calendar/models"
)

// An iCalendar object holds a series as RFC 5545 does: one VEVENT, the series record's, with its RRULE, RDATE
// and EXDATE lines (DTSTART is the first occurrence), plus one VEVENT with RECURRENCE-ID for each occurrence
// edited on its own, all under the series' UID. Occurrences that follow the series are not written: a calendar
// application expands the rule to them.

// seriesUID is the UID of the series with record id.
func (s eventShaper) seriesUID(id uint64) string {
	return "event-" + strconv.FormatUint(id, 10) + "@" + uidHost(s.site)
}

// seriesVEvent is the VEVENT of series record e: the series' own VEVENT with its rule, and one more EXDATE line
// for hidden, the original starts of the occurrences the feed's reader may not see.
func (s eventShaper) seriesVEvent(w *ical.Writer, e *models.Event, hidden []time.Time) *ics.VEvent {
	ev := s.vevent(w, e)
	for _, line := range e.Series.Lines() {
		name, value, _ := strings.Cut(line, ":")
		if name == "RRULE" {
			ev.AddProperty(ics.ComponentPropertyRrule, value)
			continue
		}
		// RDATE and EXDATE values are naive in the series' zone (or dates): they take the zone DTSTART takes.
		prop, text, params := icalDateList(w, e, name, value)
		ev.SetProperty(prop, text, params...)
	}
	if len(hidden) > 0 {
		name, value := hiddenExdates(e, hidden)
		prop, text, params := icalDateList(w, e, name, value)
		ev.AddProperty(prop, text, params...)
	}
	return ev
}

// hiddenExdates is the name and value of an EXDATE line of series record e for the original starts hidden, in the
// form of the series' own lines: dates for an all-day series, naive date-times in its zone otherwise.
func hiddenExdates(e *models.Event, hidden []time.Time) (string, string) {
	name, layout := "EXDATE", "20060102T150405"
	if e.AllDay {
		name, layout = "EXDATE;VALUE=DATE", "20060102"
	}
	loc := eventLocation(e.Timezone)
	values := make([]string, len(hidden))
	for i, t := range hidden {
		values[i] = t.In(loc).Format(layout)
	}
	return name, strings.Join(values, ",")
}

// icalDateList writes an RDATE or EXDATE line (name possibly with ;VALUE=DATE) as DTSTART is written for e: dates
// as they are, date-times with the event's TZID, or in UTC when DTSTART is. The parameters go apart from the
// name, so that the writer knows the property and leaves the commas between its values unescaped (escaped, as
// in text, they would make the list one value that parsers misread).
func icalDateList(w *ical.Writer, e *models.Event, name, value string) (ics.ComponentProperty, string,
	[]ics.PropertyParameter) {
	base, params, _ := strings.Cut(name, ";")
	prop := ics.ComponentProperty(base)
	if params == "VALUE=DATE" {
		return prop, value, []ics.PropertyParameter{ics.WithValue(string(ics.ValueDataTypeDate))}
	}
	if tzid, ok := zoneOfDTStart(w, e); ok {
		return prop, value, []ics.PropertyParameter{ics.WithTZID(tzid)}
	}
	loc := eventLocation(e.Timezone)
	values := strings.Split(value, ",")
	for i, v := range values {
		if t, err := time.ParseInLocation("20060102T150405", v, loc); err == nil {
			values[i] = t.UTC().Format("20060102T150405Z")
		}
	}
	return prop, strings.Join(values, ","), nil
}

// zoneOfDTStart tells the TZID e's DTSTART was written with, if any.
func zoneOfDTStart(w *ical.Writer, e *models.Event) (string, bool) {
	ev := ics.NewEvent("probe")
	w.SetTimes(ev, e.Timezone, eventLocation(e.Timezone), e.StartUTC, e.EndUTC, e.AllDay)
	for _, p := range ev.Properties {
		if strings.HasPrefix(p.IANAToken, string(ics.ComponentPropertyDtStart)+";TZID=") {
			return e.Timezone, true
		}
	}
	return "", false
}

// exceptionVEvent is the VEVENT of occurrence e edited on its own: its fields, under its series' UID, with
// RECURRENCE-ID its original start, written as its series writes DTSTART.
func (s eventShaper) exceptionVEvent(w *ical.Writer, e *models.Event) *ics.VEvent {
	ev := s.vevent(w, e)
	ev.SetProperty(ics.ComponentPropertyUniqueId, s.seriesUID(e.Occurrence.SeriesID))
	rid := e.Occurrence.RecurrenceID
	loc := eventLocation(e.Timezone)
	switch tzid, zoned := zoneOfDTStart(w, e); {
	case e.AllDay:
		ev.SetProperty(ical.WithParams(ics.ComponentPropertyRecurrenceId, "VALUE", "DATE"), rid.In(loc).Format("20060102"))
	case zoned:
		ev.SetProperty(ical.WithParams(ics.ComponentPropertyRecurrenceId, "TZID", tzid), rid.In(loc).Format("20060102T150405"))
	default:
		ev.SetProperty(ics.ComponentPropertyRecurrenceId, rid.UTC().Format("20060102T150405Z"))
	}
	return ev
}

// seriesWriter writes the occurrences of a feed as their series: each series once, before its first occurrence
// in the feed, and the occurrences edited on their own.
type seriesWriter struct {
	store   *models.Store
	reader  *models.User
	written map[uint64]bool
}

// events are the VEVENTs of a batch of a feed (events with their series facts), in order.
func (sw *seriesWriter) events(w *ical.Writer, shaper eventShaper, batch []models.Event) ([]*ics.VEvent, error) {
	var missing []uint64
	for i := range batch {
		if o := batch[i].Occurrence; o != nil && !sw.written[o.SeriesID] && !containsID(missing, o.SeriesID) {
			missing = append(missing, o.SeriesID)
		}
	}
	records, err := sw.store.EventsByIDs(missing)
	if err == nil {
		err = sw.store.LoadEventLinks(records)
	}
	var hidden map[uint64][]time.Time
	if err == nil {
		hidden, err = sw.store.HiddenOccurrenceStarts(missing, sw.reader)
	}
	if err != nil {
		return nil, err
	}
	byID := make(map[uint64]*models.Event, len(records))
	for i := range records {
		byID[records[i].ID] = &records[i]
	}
	var out []*ics.VEvent
	for i := range batch {
		e := &batch[i]
		if e.Occurrence == nil {
			out = append(out, shaper.vevent(w, e))
			continue
		}
		if r := byID[e.Occurrence.SeriesID]; r != nil && r.Series != nil && !sw.written[r.ID] {
			sw.written[r.ID] = true
			out = append(out, shaper.seriesVEvent(w, r, hidden[r.ID]))
		}
		if e.Occurrence.IsException() {
			out = append(out, shaper.exceptionVEvent(w, e))
		}
	}
	return out, nil
}

// containsID reports whether ids holds id.
func containsID(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// writeSeriesICal answers GET /events/{id}.ics of series record e: its VEVENT with the rule and its exceptions'.
// The answer has begun (status and headers are set).
func (ec *EventController) writeSeriesICal(c *gin.Context, shaper eventShaper, e *models.Event) error {
	store := ec.Store.WithContext(c.Request.Context())
	occurrences, err := store.SeriesOccurrenceEvents(e.ID)
	var exceptions []models.Event
	last := e.EndUTC
	for i := range occurrences {
		if occurrences[i].Occurrence != nil && occurrences[i].Occurrence.IsException() && occurrences[i].Status != models.StatusTrash {
			exceptions = append(exceptions, occurrences[i])
		}
		last = maxTime(last, occurrences[i].EndUTC)
	}
	if err == nil {
		err = store.LoadEventLinks(exceptions)
	}
	var hidden map[uint64][]time.Time
	if err == nil {
		hidden, err = store.HiddenOccurrenceStarts([]uint64{e.ID}, shaper.viewer.User)
	}
	if err != nil {
		return err
	}
	w := ical.NewWriter(c.Writer)
	w.Begin(ical.Calendar().CalendarProperties,
		icalZones([]models.FeedZone{{Timezone: e.Timezone, First: e.StartUTC, Last: last, Events: 1}}))
	w.Event(shaper.seriesVEvent(w, e, hidden[e.ID]))
	for i := range exceptions {
		w.Event(shaper.exceptionVEvent(w, &exceptions[i]))
	}
	w.End()
	return w.Err()
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
