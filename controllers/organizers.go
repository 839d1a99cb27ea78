package controllers

import (
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/controllers/input"
	"calendar/models"
)

// OrganizerFields are the parameters of an organizer on create and update.
type OrganizerFields struct {
	Name endpoint.Opt[string] `param:"organizer" doc:"Name of the organizer (plain text)."`
	LinkedInput
	Phone   endpoint.Opt[string] `param:"phone" doc:"Phone number; \"\" clears it."`
	Website endpoint.Opt[string] `param:"website" validate:"omitempty,http_url,max=2048" doc:"Website: an http(s) URL; \"\" clears it."`
	Email   endpoint.Opt[string] `param:"email" validate:"omitempty,email,max=254" doc:"E-mail address; \"\" clears it."`
}

// OrganizerUpdate is POST, PUT and PATCH /organizers/{id}.
type OrganizerUpdate struct {
	LinkedByID
	OrganizerFields
}

// OrganizerUpdateBySlug is POST, PUT and PATCH /organizers/by-slug/{slug}.
type OrganizerUpdateBySlug struct {
	LinkedBySlug
	OrganizerFields
}

// OrganizerController serves /organizers.
type OrganizerController struct{ *App }

var organizerKind = &linkedKind[models.Organizer, *models.Organizer, OrganizerFields]{
	name:    "organizer",
	plural:  "organizers",
	change:  models.ChangeOrganizer,
	parts:   func(in *OrganizerFields) (*endpoint.Opt[string], *LinkedInput) { return &in.Name, &in.LinkedInput },
	prepare: func(*models.Organizer) {},
	apply:   applyOrganizerFields,
	shape: func(a *App, site Site, o *models.Organizer, viewer Viewer, single bool) any {
		return a.OrganizerShape(site, o, viewer, single)
	},
}

// List handles GET /organizers.
func (oc OrganizerController) List(c *gin.Context, in *LinkedList) error {
	return organizerKind.list(oc.App, c, in)
}

// Create handles POST /organizers.
func (oc OrganizerController) Create(c *gin.Context, in *OrganizerFields) error {
	return organizerKind.create(oc.App, c, in)
}

// Read handles GET /organizers/{id}.
func (oc OrganizerController) Read(c *gin.Context, in *LinkedRead) error {
	return organizerKind.read(oc.App, c, in.ref(), in.Password.V)
}

// ReadBySlug handles GET /organizers/by-slug/{slug}.
func (oc OrganizerController) ReadBySlug(c *gin.Context, in *LinkedReadBySlug) error {
	return organizerKind.read(oc.App, c, in.ref(), in.Password.V)
}

// Update handles POST, PUT and PATCH /organizers/{id}.
func (oc OrganizerController) Update(c *gin.Context, in *OrganizerUpdate) error {
	return organizerKind.update(oc.App, c, in.ref(), &in.OrganizerFields)
}

// UpdateBySlug handles POST, PUT and PATCH /organizers/by-slug/{slug}.
func (oc OrganizerController) UpdateBySlug(c *gin.Context, in *OrganizerUpdateBySlug) error {
	return organizerKind.update(oc.App, c, in.ref(), &in.OrganizerFields)
}

// Delete handles DELETE /organizers/{id}.
func (oc OrganizerController) Delete(c *gin.Context, in *LinkedDelete) error {
	return organizerKind.remove(oc.App, c, in.ref(), in.Force.V)
}

// DeleteBySlug handles DELETE /organizers/by-slug/{slug}.
func (oc OrganizerController) DeleteBySlug(c *gin.Context, in *LinkedDeleteBySlug) error {
	return organizerKind.remove(oc.App, c, in.ref(), in.Force.V)
}

// ResolveOrganizers is ResolveVenues for the `organizer` parameter: organizer IDs in the order given (the
// order is kept), inline data objects {"organizer": "Name", …}, errors naming "organizer".
func (a *App) ResolveOrganizers(tx *models.Store, user *models.User, raw any) ([]uint64, error) {
	return organizerKind.resolve(a, tx, user, raw, nil)
}

// applyOrganizerFields writes the organizer's own parameters.
func applyOrganizerFields(_ *App, in *OrganizerFields, o *models.Organizer, _ bool, _ map[string]string) {
	if in.Phone.Set {
		o.Phone = input.PlainText(in.Phone.V)
	}
	if in.Website.Set {
		o.Website = strings.TrimSpace(in.Website.V)
	}
	if in.Email.Set {
		o.Email = strings.TrimSpace(in.Email.V)
	}
}

// OrganizerRecord is an organizer as the API shows it, in The Events Calendar's order: empty texts omitted,
// author as a string, json_ld on single reads only.
type OrganizerRecord struct {
	LinkedOpening
	Organizer string `json:"organizer" doc:"The organizer's name (plain text)."`
	LinkedBody
	Phone   *string       `json:"phone,omitempty"`
	Website *string       `json:"website,omitempty"`
	Email   *string       `json:"email,omitempty"`
	JSONLD  *LinkedJSONLD `json:"json_ld,omitempty" schema:"ref=JSONLD"`
	GlobalIDs
}

// OrganizerShape converts an organizer into its API shape for viewer: a password-protected organizer is redacted
// as lists redact it when the viewer neither gave its password nor can edit it; its name stays visible. single
// adds json_ld. It reads o.Image as loaded and never queries.
func (a *App) OrganizerShape(site Site, o *models.Organizer, viewer Viewer, single bool) *OrganizerRecord {
	open, body, ids, redact := a.linkedParts(site, o.Linked(), "organizer", viewer)
	r := &OrganizerRecord{LinkedOpening: open, Organizer: o.Name, LinkedBody: body, GlobalIDs: ids,
		Phone: linkedText(o.Phone, redact), Website: linkedText(o.Website, redact), Email: linkedText(o.Email, redact)}
	if single {
		r.JSONLD = a.OrganizerJSONLD(site, o, redact)
	}
	return r
}

// OrganizerJSONLD is the organizer as a schema.org Person, also usable as an event's
// organizer: url is the organizer's website when it has one, else its page. redacted keeps only the type, name and
// page.
func (a *App) OrganizerJSONLD(site Site, o *models.Organizer, redacted bool) *LinkedJSONLD {
	url := linkedURL(site, "organizer", o.Slug)
	if o.Website != "" && !redacted {
		url = o.Website // as the captures show: a person's own site
	}
	ld := linkedJSONLD("Person", o.Linked(), url, redacted)
	if redacted {
		return ld
	}
	ld.Telephone, ld.Email, ld.SameAs = o.Phone, o.Email, o.Website
	return ld
}
