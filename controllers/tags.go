package controllers

import (
	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
)

// TagController serves /tags: flat event tags (taxonomy post_tag).
type TagController struct{ *App }

func (tc TagController) terms() termController { return termController{App: tc.App, kind: tagKind} }

// TagListInput holds the parameters of GET /tags.
type TagListInput struct {
	TermListParams
}

// TagCreateInput holds the parameters of POST /tags.
type TagCreateInput struct {
	TermFields
}

// TagUpdateInput holds the parameters of POST, PUT and PATCH /tags/:id.
type TagUpdateInput struct {
	TermIDPath
	TermFields
}

// List handles GET /tags.
func (tc TagController) List(c *gin.Context, in *TagListInput) error {
	return tc.terms().list(c, &in.TermListParams, endpoint.Opt[int64]{})
}

// Get handles GET /tags/:id.
func (tc TagController) Get(c *gin.Context, in *TermIDPath) error { return tc.terms().get(c, in.ID) }

// Create handles POST /tags.
func (tc TagController) Create(c *gin.Context, in *TagCreateInput) error {
	return tc.terms().create(c, in.TermFields, endpoint.Opt[int64]{})
}

// Update handles POST, PUT and PATCH /tags/:id.
func (tc TagController) Update(c *gin.Context, in *TagUpdateInput) error {
	return tc.terms().update(c, in.ID, in.TermFields, endpoint.Opt[int64]{})
}

// Delete handles DELETE /tags/:id.
func (tc TagController) Delete(c *gin.Context, in *TermIDPath) error {
	return tc.terms().remove(c, in.ID)
}
