package controllers

import (
	"time"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// listBounds are the date bounds of an event list, as instants.
type listBounds struct {
	strict                    bool
	chosen                    bool // the request sent a bound (see addImplied)
	start, end                *time.Time
	startsBefore, startsAfter *time.Time
	endsBefore, endsAfter     *time.Time
}

// listDateBounds computes the bounds. Naive dates are read in the site timezone. In inclusive mode (the default)
// start_date moves to 00:00:00 of its day and every other bound to 23:59:59 of its day; strict_dates=true uses
// them as given. Without any starts_* or ends_* parameter, start_date defaults to 00:00 today and end_date to
// 23:59:59 of the day two years ahead (not for a sync: a sync_token drops the default window); with include, no
// bound applies at all.
func (ec *EventController) listDateBounds(in *EventFilters, now time.Time, invalid map[string]string) listBounds {
	site := ec.Config.Timezone
	b := listBounds{strict: in.StrictDates.V}
	parse := func(name string, p endpoint.Opt[DateParam], atStart bool) *time.Time {
		if !p.Set {
			return nil
		}
		t, err := input.ParseDate(p.V.Text, now, site)
		if err != nil {
			invalid[name] = err.Error()
			return nil
		}
		switch {
		case b.strict:
			t = t.Truncate(time.Second)
		case atStart:
			t = startOfDay(t, site)
		default:
			t = input.EndOfDay(t, site)
		}
		return &t
	}
	b.chosen = in.StartDate.Set || in.EndDate.Set || in.StartsBefore.Set || in.StartsAfter.Set || in.EndsBefore.Set ||
		in.EndsAfter.Set
	b.start = parse("start_date", in.StartDate, true)
	b.end = parse("end_date", in.EndDate, false)
	b.startsBefore = parse("starts_before", in.StartsBefore, false)
	b.startsAfter = parse("starts_after", in.StartsAfter, false)
	b.endsBefore = parse("ends_before", in.EndsBefore, false)
	b.endsAfter = parse("ends_after", in.EndsAfter, false)
	if in.Include.Set {
		return listBounds{strict: b.strict}
	}
	if !in.syncing && b.startsBefore == nil && b.startsAfter == nil && b.endsBefore == nil && b.endsAfter == nil {
		from, until := models.DefaultWindow(now, site)
		if b.start == nil {
			b.start = &from
		}
		if b.end == nil {
			b.end = &until
		}
	}
	return b
}

// addWindow applies start_date and end_date and echoes them, in site time.
func (b listBounds) addWindow(q *eventQuery, site *time.Location) {
	b.apply(q, site, "start_date", b.start, models.EventsStartingAtOrAfter)
	b.apply(q, site, "end_date", b.end, models.EventsEndingAtOrBefore)
}

// addRelative applies starts_* and ends_*, which make the list a filtered one, and echoes them, in site time.
func (b listBounds) addRelative(q *eventQuery, site *time.Location) {
	b.apply(q, site, "starts_before", b.startsBefore, models.EventsStartingBefore)
	b.apply(q, site, "starts_after", b.startsAfter, models.EventsStartingAfter)
	b.apply(q, site, "ends_before", b.endsBefore, models.EventsEndingBefore)
	b.apply(q, site, "ends_after", b.endsAfter, models.EventsEndingAfter)
	if b.startsBefore != nil || b.startsAfter != nil || b.endsBefore != nil || b.endsAfter != nil {
		q.filtered = true
	}
}

// addImplied adds, to a list whose request sent a bound, the bounds that its bounds imply: an event never ends
// before it starts (the writes refuse it and migration 00010 checks it), so a lower bound on the start is one on
// the end, and an upper bound on the end one on the start. With both, PostgreSQL reads a window as a range of
// either index, start or end, instead of reading every index entry of events ending before the window's end. Such
// a list is planned for its values (models.Store.PlannedForValues), whose generic plans would take each range for
// a few rows. The default window adds nothing: it is the same for every list of the day, whose prepared plans are
// made once and stay right.
//
// A window that the kept day counts total (keptWindow: a models.Window without Near) is counted from them, so only
// its page reads events: it takes the upper bound on its start alone, which ends its range of the listing index on
// start even when the page is not full, and is not planned for its values. Its generic plan reads that range, and
// planning it for its values had cost more than reading it (0.43 ms against 0.14 ms a call).
func (b listBounds) addImplied(q *eventQuery, keptWindow bool) {
	if !b.chosen {
		return
	}
	if keptWindow {
		q.addBound(models.EventsStartingAtOrBefore(*b.end))
		return
	}
	q.plannedForValues = true
	for _, implied := range []struct {
		t     *time.Time
		scope func(time.Time) models.Scope
	}{
		{b.start, models.EventsEndingAtOrAfter}, {b.startsAfter, models.EventsEndingAfter},
		{b.end, models.EventsStartingAtOrBefore}, {b.endsBefore, models.EventsStartingBefore},
	} {
		if implied.t != nil {
			q.addBound(implied.scope(*implied.t))
		}
	}
}

func (b listBounds) apply(q *eventQuery, site *time.Location, name string, t *time.Time, scope func(time.Time) models.Scope) {
	if t == nil {
		return
	}
	q.addBound(scope(*t))
	q.args = q.args.Add(name, FormatDate(*t, site))
}
