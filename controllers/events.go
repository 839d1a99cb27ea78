package controllers

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// EventController serves /events, /events/{id} and /events/by-slug/{slug}.
type EventController struct{ *App }

// EventIDPath is the {id} of /events/{id}.
type EventIDPath struct {
	ID endpoint.Opt[int64] `param:"id" in:"path" doc:"The event ID."`
}

// EventSlugPath is the {slug} of /events/by-slug/{slug}.
type EventSlugPath struct {
	Slug endpoint.Opt[string] `param:"slug" in:"path" doc:"The event slug."`
}

// EventPassword is the password parameter of reads and deletes: it unlocks a protected event.
type EventPassword struct {
	Password endpoint.Opt[string] `param:"password" validate:"omitempty,max=255" doc:"The event's password, for a password-protected event (editors of the event do not need it); not empty."`
}

// check refuses an empty password: it must be a non-empty string.
func (p EventPassword) check() error {
	if p.Password.Set && p.Password.V == "" {
		return models.InvalidParam("password", "must not be empty")
	}
	return nil
}

// EventReadByID holds the parameters of GET /events/{id}.
type EventReadByID struct {
	EventIDPath
	EventPassword
}

// EventReadBySlug holds the parameters of GET /events/by-slug/{slug}.
type EventReadBySlug struct {
	EventSlugPath
	EventPassword
}

// EventDeleteParams are the parameters of DELETE beside the path.
type EventDeleteParams struct {
	EventPassword
	Force endpoint.Opt[bool]   `param:"force" default:"false" doc:"Delete permanently instead of moving to the trash."`
	Scope endpoint.Opt[string] `param:"scope" enum:"following" doc:"On an occurrence of a series only. Left out, the occurrence alone is cancelled (trashed, and the series' rule gains an EXDATE so it is not produced again). following: the series ends before this occurrence; it and the later occurrences are trashed (deleted with force=true)."`
}

// EventDeleteByID holds the parameters of DELETE /events/{id}.
type EventDeleteByID struct {
	EventIDPath
	EventDeleteParams
}

// EventDeleteBySlug holds the parameters of DELETE /events/by-slug/{slug}.
type EventDeleteBySlug struct {
	EventSlugPath
	EventDeleteParams
}

// EventCreate holds the parameters of POST /events.
type EventCreate struct {
	EventFields
	Password endpoint.Opt[string] `param:"password" doc:"A password that protects the event (\"\" for none)."`
}

// EventUpdateParams are the parameters of an update beside the path.
type EventUpdateParams struct {
	EventFields
	Password endpoint.Opt[string] `param:"password" doc:"Sets the event's password; \"\" removes it. Only users who can edit the event may change it."`
	Scope    endpoint.Opt[string] `param:"scope" enum:"following" doc:"On an occurrence of a series only. Left out, the update changes this occurrence alone (it becomes an exception: later updates of the series leave the fields it changed alone). following: the series is split at this occurrence into a new series whose first occurrence it is, the update applies to that new series, and the original series ends just before it."`
}

// EventUpdateByID holds the parameters of POST, PUT and PATCH /events/{id}.
type EventUpdateByID struct {
	EventIDPath
	EventUpdateParams
}

// EventUpdateBySlug holds the parameters of POST, PUT and PATCH /events/by-slug/{slug}.
type EventUpdateBySlug struct {
	EventSlugPath
	EventUpdateParams
}

// eventRef names the event of a request: by ID or by slug.
type eventRef struct {
	id   uint64
	slug string
}

func (p EventIDPath) ref(c *gin.Context) (eventRef, error) {
	if !input.IsDigits(c.Param("id")) {
		return eventRef{}, models.NoRoute()
	}
	return eventRef{id: uint64(p.ID.V)}, nil
}

func (p EventSlugPath) ref(*gin.Context) (eventRef, error) { return eventRef{slug: p.Slug.V}, nil }

// find looks the event up with its links; an unknown ID or slug is 404 rest-event-not-found.
func (r eventRef) find(s *models.Store) (*models.Event, error) {
	var e *models.Event
	var err error
	if r.slug != "" {
		e, err = s.EventBySlug(r.slug)
	} else {
		e, err = s.EventByID(r.id)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, models.EventNotFound(r.id, r.slug)
	}
	if err != nil {
		return nil, err
	}
	return s.WithEventLinks(e)
}

// change addresses the event of r as user, with the request's precondition (If-Match) as its check.
func (ec *EventController) change(c *gin.Context, r eventRef, user *models.User) models.EventChange {
	return models.EventChange{Caller: user, ID: r.id, Slug: r.slug,
		Check: func(tx *models.Store, e *models.Event) error { return ec.requireCurrent(c, tx, e.ID, user) }}
}

// ReadByID handles GET /events/{id}.
func (ec *EventController) ReadByID(c *gin.Context, in *EventReadByID) error {
	return in.readWith(c, ec.read)
}

// readWith checks the parameters of a read by ID and answers it with read.
func (in *EventReadByID) readWith(c *gin.Context, read func(*gin.Context, eventRef, endpoint.Opt[string]) error) error {
	ref, err := in.ref(c)
	if err != nil {
		return err
	}
	if err := in.check(); err != nil {
		return err
	}
	return read(c, ref, in.Password)
}

// ReadBySlug handles GET /events/by-slug/{slug}.
func (ec *EventController) ReadBySlug(c *gin.Context, in *EventReadBySlug) error {
	ref, _ := in.ref(c)
	if err := in.check(); err != nil {
		return err
	}
	return ec.read(c, ref, in.Password)
}

// read answers a single read (GET /events/{id}, /events/by-slug/{slug}) with the event and its Last-Modified.
func (ec *EventController) read(c *gin.Context, ref eventRef, password endpoint.Opt[string]) error {
	e, shaper, err := ec.readable(c, ref, password)
	if err != nil {
		return err
	}
	record := shaper.record(e, true)
	if err := shaper.viewer.tooMany(c); err != nil {
		return err
	}
	setLastModified(c, eventDates(e)...)
	if err := ec.loadNextOccurrences(c, e, &record); err != nil {
		return err
	}
	if e.Series == nil {
		// A series record lists its upcoming occurrences, which change with the clock: its answer is built from
		// more than its records. An occurrence also shows its series' rule, but a change of the rule is recorded
		// as a change of every occurrence.
		BuiltFrom(c, e.Refs())
	}
	return writeEvent(c, http.StatusOK, record)
}

// readable finds the event of a single read after the read checks, in this order: the
// event exists (404), is not in the trash unless the caller edits it (403 event-no-longer-available), may be read
// (403 event-not-accessible), and is unlocked (403 event-password-protected). It returns the event with its links
// and the shaper for the caller.
func (ec *EventController) readable(c *gin.Context, ref eventRef, password endpoint.Opt[string]) (*models.Event, eventShaper, error) {
	store := ec.Store.WithContext(c.Request.Context())
	e, err := ref.find(store)
	if err != nil {
		return nil, eventShaper{}, err
	}
	viewer := ec.newViewer(c, password.V)
	owned := e.Owned()
	switch {
	case e.Status == models.StatusTrash && !viewer.User.CanEdit(owned):
		return nil, eventShaper{}, models.Errorf(models.KindForbidden, "event-no-longer-available",
			"This event is no longer available")
	case !viewer.User.CanRead(owned):
		return nil, eventShaper{}, models.Errorf(models.KindForbidden, "event-not-accessible",
			"The requested event is not accessible")
	}
	shaper := ec.shaper(ec.Site(c), viewer)
	if !shaper.mayBypassPassword(e) {
		if err := viewer.tooMany(c); err != nil {
			return nil, eventShaper{}, err
		}
		return nil, eventShaper{}, models.Errorf(models.KindForbidden, "event-password-protected",
			"The requested event is not accessible without a password")
	}
	return e, shaper, nil
}

// eventDates are the modification dates a read of e shows: its own and its venues' and organizers' (not its
// categories' and tags', whose counts move with every event of theirs). The latest is the event's Last-Modified.
func eventDates(e *models.Event) []time.Time {
	dates := []time.Time{e.UpdatedAt}
	for i := range e.Venues {
		dates = append(dates, e.Venues[i].UpdatedAt)
	}
	for i := range e.Organizers {
		dates = append(dates, e.Organizers[i].UpdatedAt)
	}
	return dates
}

// requireCurrent enforces If-Match on a write of event id in tx: the caller's ETag must be that of the answer GET
// /events/{id} would give it now (see requireMatch).
func (ec *EventController) requireCurrent(c *gin.Context, tx *models.Store, id uint64, user *models.User) error {
	return requireMatch(c, func() (any, time.Time, error) {
		e, err := tx.EventWithLinks(id)
		if err != nil {
			return nil, time.Time{}, err
		}
		return ec.shaper(ec.Site(c), Viewer{User: user}).record(e, true), latest(eventDates(e)...), nil
	})
}

// Create handles POST /events.
func (ec *EventController) Create(c *gin.Context, in *EventCreate) error {
	user := models.UserFrom(c.Request.Context())
	w := &eventWrite{in: &in.EventFields, password: in.Password, user: user,
		now: time.Now(), creating: true}
	if err := ec.checkEventFields(w); err != nil {
		return err
	}
	e, err := ec.Store.CreateEvent(c.Request.Context(), ec.creation(w))
	if err != nil {
		return err
	}
	shaper := ec.shaper(ec.Site(c), Viewer{User: user})
	c.Header("Location", shaper.RestURL(e))
	r := shaper.record(e, false)
	if err := ec.loadNextOccurrences(c, e, &r); err != nil {
		return err
	}
	return writeEvent(c, http.StatusCreated, r)
}

// creation is the create w asks for: its fields applied to the new event (each attempt from the validated write
// afresh), and the recurrence that makes it a series.
func (ec *EventController) creation(w *eventWrite) models.EventCreation {
	cr := models.EventCreation{Caller: w.user, Clock: ec.seriesClock(w.now),
		Apply: func(s *models.Store, e *models.Event) (*models.EventPlan, error) {
			attempt := *w
			if err := ec.applyEventWrite(s, e, &attempt); err != nil {
				return nil, err
			}
			return &models.EventPlan{Slug: attempt.slug, EventLinkIDs: attempt.links, Found: attempt.found}, nil
		}}
	if w.in.Recurrence.Set {
		cr.Recurrence = w.in.Recurrence.V.Lines
	}
	return cr
}

// seriesClock is the clock of a write at now: how far open-ended series reach is configured.
func (ec *EventController) seriesClock(now time.Time) models.SeriesClock {
	return models.SeriesClock{Now: now, Span: ec.Config.RecurrenceHorizon}
}

// UpdateByID handles POST, PUT and PATCH /events/{id}.
func (ec *EventController) UpdateByID(c *gin.Context, in *EventUpdateByID) error {
	ref, err := in.ref(c)
	if err != nil {
		return err
	}
	return ec.update(c, ref, &in.EventUpdateParams)
}

// UpdateBySlug handles POST, PUT and PATCH /events/by-slug/{slug}.
func (ec *EventController) UpdateBySlug(c *gin.Context, in *EventUpdateBySlug) error {
	ref, _ := in.ref(c)
	return ec.update(c, ref, &in.EventUpdateParams)
}

// update changes the fields sent and keeps the others. The caller needs edit rights on the event
// (on the by-slug routes too), and delete rights to send status trash.
func (ec *EventController) update(c *gin.Context, ref eventRef, in *EventUpdateParams) error {
	user := models.UserFrom(c.Request.Context())
	w := &eventWrite{in: &in.EventFields, password: in.Password, user: user, now: time.Now()}
	if err := ec.checkEventFields(w); err != nil {
		return err
	}
	e, err := ec.Store.UpdateEvent(c.Request.Context(), models.EventUpdate{EventChange: ec.change(c, ref, user),
		Trash: in.Status.V == models.StatusTrash, Edit: seriesEdit(in), Clock: ec.seriesClock(w.now),
		Refs: eventRefs(&in.EventFields),
		Apply: func(tx *models.Store, e *models.Event, found *models.FoundRefs) (models.EventLinkIDs, error) {
			w.found = found
			err := ec.applyEventWrite(tx, e, w)
			return w.links, err
		}})
	if err != nil {
		return err
	}
	r := ec.shaper(ec.Site(c), Viewer{User: user}).record(e, false)
	if err := ec.loadNextOccurrences(c, e, &r); err != nil {
		return err
	}
	return writeEvent(c, http.StatusOK, r)
}

// DeleteByID handles DELETE /events/{id}.
func (ec *EventController) DeleteByID(c *gin.Context, in *EventDeleteByID) error {
	ref, err := in.ref(c)
	if err != nil {
		return err
	}
	return ec.delete(c, ref, &in.EventDeleteParams)
}

// DeleteBySlug handles DELETE /events/by-slug/{slug}.
func (ec *EventController) DeleteBySlug(c *gin.Context, in *EventDeleteBySlug) error {
	ref, _ := in.ref(c)
	return ec.delete(c, ref, &in.EventDeleteParams)
}

// delete moves the event to the trash (200 with status trash), refuses a second trashing (410
// event-is-in-trash), and with force=true deletes it permanently (200 with the record as it was). Callers who may
// delete an event may edit it, so they never need its password.
func (ec *EventController) delete(c *gin.Context, ref eventRef, in *EventDeleteParams) error {
	if err := in.check(); err != nil {
		return err
	}
	user := models.UserFrom(c.Request.Context())
	e, err := ec.Store.RemoveEvent(c.Request.Context(), models.EventRemoval{EventChange: ec.change(c, ref, user),
		Force: in.Force.V, Scope: in.Scope.Ptr()})
	if err != nil {
		return err
	}
	return writeEvent(c, http.StatusOK, ec.shaper(ec.Site(c), Viewer{User: user}).record(e, false))
}
