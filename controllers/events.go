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

// find looks the event up; an unknown ID or slug is 404 rest-event-not-found.
func (r eventRef) find(s *models.Store) (*models.Event, error) {
	var e *models.Event
	var err error
	if r.slug != "" {
		e, err = s.EventBySlug(r.slug)
	} else {
		e, err = s.EventByID(r.id)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, r.notFound()
	}
	if err != nil {
		return nil, err
	}
	return withLinks(s, e)
}

// withLinks returns e with its venues, organizers, categories and tags loaded.
func withLinks(s *models.Store, e *models.Event) (*models.Event, error) {
	events := []models.Event{*e}
	if err := s.LoadSeriesFacts(events); err != nil {
		return nil, err
	}
	if err := s.LoadEventLinks(events); err != nil {
		return nil, err
	}
	return &events[0], nil
}

// reload reads the event back after a write, with its links.
func reload(tx *models.Store, id uint64) (*models.Event, error) {
	e, err := tx.EventByID(id)
	if err != nil {
		return nil, err
	}
	return withLinks(tx, e)
}

// lockFor looks the event up for changing it in a transaction, and refuses callers that may not change it
// (403) once it is known to exist (404 first).
func (r eventRef) lockFor(tx *models.Store, may func(models.Owned) bool) (*models.Event, error) {
	e, err := r.lock(tx)
	if err == nil && !may(e.Owned()) {
		return nil, models.Forbidden()
	}
	return e, err
}

// lock looks the event up for changing it in a transaction.
func (r eventRef) lock(tx *models.Store) (*models.Event, error) {
	id := r.id
	if r.slug != "" {
		var err error
		if id, err = tx.EventIDBySlug(r.slug); errors.Is(err, models.ErrNotFound) {
			return nil, r.notFound()
		} else if err != nil {
			return nil, err
		}
	}
	e, err := tx.LockEvent(id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, r.notFound()
	}
	return e, err
}

func (r eventRef) notFound() error {
	if r.slug != "" {
		return models.Errorf(models.KindNotFound, "rest-event-not-found", "Event with slug %.200s does not exist.", r.slug) // capped: the path may be long
	}
	return models.Errorf(models.KindNotFound, "rest-event-not-found", "Event with ID %d does not exist.", r.id)
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
	if err := loadNextOccurrences(ec.Store.WithContext(c.Request.Context()), e, &record, RequestTime(c)); err != nil {
		return err
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
		e, err := reload(tx, id)
		if err != nil {
			return nil, time.Time{}, err
		}
		return ec.shaper(ec.Site(c), Viewer{User: user}).record(e, true), latest(eventDates(e)...), nil
	})
}

// Create handles POST /events.
func (ec *EventController) Create(c *gin.Context, in *EventCreate) error {
	user := models.UserFrom(c.Request.Context())
	w := &eventWrite{ctx: c.Request.Context(), in: &in.EventFields, password: in.Password, user: user,
		now: time.Now(), creating: true}
	if err := ec.checkEventFields(w); err != nil {
		return err
	}
	if !user.CanCreate() {
		return models.Forbidden()
	}
	retry := *w // the transactional path starts afresh when the one-statement path cannot take the write
	var e *models.Event
	err := models.ErrNeedsTransaction
	if !in.wantsSeries() {
		e, err = ec.createInOneStatement(w)
	}
	if errors.Is(err, models.ErrNeedsTransaction) || errors.Is(err, models.ErrSlugTaken) {
		e, err = ec.createInTransaction(&retry)
	}
	if err != nil {
		return err
	}
	shaper := ec.shaper(ec.Site(c), Viewer{User: user})
	c.Header("Location", shaper.RestURL(e))
	r := shaper.record(e, false)
	if err := loadNextOccurrences(ec.Store.WithContext(c.Request.Context()), e, &r, RequestTime(c)); err != nil {
		return err
	}
	return writeEvent(c, http.StatusCreated, r)
}

// createInOneStatement creates the event w describes with its reads outside any transaction and its writes in
// one statement (Store.InsertEvent). It answers ErrNeedsTransaction when the database has no such statement or
// the write needs more than it (a term, an inline venue or organizer, or an image to create), and ErrSlugTaken
// when the slug asked for is taken (the transaction finds the next free one).
func (ec *EventController) createInOneStatement(w *eventWrite) (*models.Event, error) {
	if !ec.Store.InsertsEventsInOneStatement() {
		return nil, models.ErrNeedsTransaction
	}
	e := &models.Event{AuthorID: w.user.ID}
	if err := ec.applyEventWrite(ec.Store.WithContext(w.ctx).ReadOnly(), e, w); err != nil {
		return nil, err
	}
	l := w.links
	if !w.found.NewEventLinks(e, l.venues, l.organizers, l.categories, l.tags) {
		return nil, models.ErrNeedsTransaction
	}
	e.Slug = w.slug
	err := ec.Store.InsertEvent(&models.NewEvent{Event: e, Venues: l.venues, Organizers: l.organizers,
		Categories: l.categories, Tags: l.tags})
	return e, err
}

// createInTransaction creates the event w describes in one transaction, creating the terms, venues, organizers
// and image it names by name or inline.
func (ec *EventController) createInTransaction(w *eventWrite) (*models.Event, error) {
	var e *models.Event
	err := ec.Store.Tx(w.ctx, func(tx *models.Store) error {
		e = &models.Event{AuthorID: w.user.ID}
		if err := ec.applyEventWrite(tx, e, w); err != nil {
			return err
		}
		if w.in.wantsSeries() {
			set, err := ec.parseSeries(e, w.in.Recurrence.V.Lines, w.now)
			if err != nil {
				return err
			}
			if err := ec.createSeries(tx, e, set, w); err != nil {
				return err
			}
			e, err = reload(tx, e.ID)
			return err
		}
		if err := tx.CreateEventWithSlug(e, w.slug); err != nil {
			return err
		}
		if err := storeEventLinks(tx, e, w.links, models.TermLinks{}, true); err != nil {
			return err
		}
		// The answer is what a read would show (a test holds it to GET's): the row as inserted, and its links as
		// resolved, unless the write created some of them, which are read back.
		l := w.links
		if w.found.NewEventLinks(e, l.venues, l.organizers, l.categories, l.tags) {
			return nil
		}
		var err error
		e, err = withLinks(tx, e)
		return err
	})
	return e, err
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
	w := &eventWrite{ctx: c.Request.Context(), in: &in.EventFields, password: in.Password, user: user, now: time.Now()}
	if err := ec.checkEventFields(w); err != nil {
		return err
	}
	if !user.CanCreate() {
		return models.Forbidden()
	}
	var e *models.Event
	err := ec.Store.Tx(c.Request.Context(), func(tx *models.Store) error {
		var err error
		if e, err = ref.lockFor(tx, user.CanEdit); err != nil {
			return err
		}
		if in.Status.V == models.StatusTrash && !user.CanDelete(e.Owned()) {
			return models.Forbidden()
		}
		if err := ec.requireCurrent(c, tx, e.ID, user); err != nil {
			return err
		}
		if err := seriesFactsOf(tx, e); err != nil {
			return err
		}
		if handled, err := ec.updateInSeries(tx, e, w, in.Scope); handled {
			if err != nil {
				return err
			}
			e, err = reload(tx, e.ID)
			return err
		}
		if err := ec.updateEvent(tx, e, w); err != nil {
			return err
		}
		e, err = reload(tx, e.ID)
		return err
	})
	if err != nil {
		return err
	}
	r := ec.shaper(ec.Site(c), Viewer{User: user}).record(e, false)
	if err := loadNextOccurrences(ec.Store.WithContext(c.Request.Context()), e, &r, RequestTime(c)); err != nil {
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
	if !user.CanCreate() {
		return models.Forbidden()
	}
	var e *models.Event
	err := ec.Store.Tx(c.Request.Context(), func(tx *models.Store) error {
		var err error
		if e, err = ref.lockFor(tx, user.CanDelete); err != nil {
			return err
		}
		if !in.Force.V && e.Status == models.StatusTrash {
			return models.Errorf(models.KindGone, "event-is-in-trash", "The event is already trashed")
		}
		if err := ec.requireCurrent(c, tx, e.ID, user); err != nil {
			return err
		}
		if e, err = reload(tx, e.ID); err != nil {
			return err
		}
		if handled, err := ec.deleteInSeries(tx, e, in.Force.V, in.Scope, time.Now()); handled {
			if err != nil || in.Force.V {
				return err
			}
			e, err = reload(tx, e.ID)
			return err
		}
		before, err := e.TermLinks()
		if err != nil {
			return err
		}
		if in.Force.V {
			err = tx.DeleteEvent(e.ID)
		} else {
			e.TrashedStatus, e.Status = e.Status, models.StatusTrash
			err = tx.SaveEvent(e)
		}
		if err != nil {
			return err
		}
		return tx.AdjustTermCounts(before, models.TermLinks{}) // a trashed or deleted event counts for no term
	})
	if err != nil {
		return err
	}
	return writeEvent(c, http.StatusOK, ec.shaper(ec.Site(c), Viewer{User: user}).record(e, false))
}
