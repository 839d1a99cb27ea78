package controllers

import (
	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
)

// CategoryController serves /categories: hierarchical event categories (taxonomy tribe_events_cat).
type CategoryController struct{ *App }

func (cc CategoryController) terms() termController {
	return termController{App: cc.App, kind: categoryKind}
}

// CategoryParent is the parent parameter of category writes.
type CategoryParent struct {
	Parent endpoint.Opt[int64] `param:"parent" validate:"omitempty,min=0" doc:"The parent category's ID; 0 for a top-level category. It must exist and must not be the category itself or one of its descendants."`
}

// CategoryListInput holds the parameters of GET /categories.
type CategoryListInput struct {
	TermListParams
	Parent endpoint.Opt[int64] `param:"parent" doc:"Keep the direct children of this category; it must exist."`
}

// CategoryCreateInput holds the parameters of POST /categories.
type CategoryCreateInput struct {
	TermFields
	CategoryParent
}

// CategoryUpdateInput holds the parameters of POST, PUT and PATCH /categories/:id.
type CategoryUpdateInput struct {
	TermIDPath
	TermFields
	CategoryParent
}

// List handles GET /categories.
func (cc CategoryController) List(c *gin.Context, in *CategoryListInput) error {
	return cc.terms().list(c, &in.TermListParams, in.Parent)
}

// Get handles GET /categories/:id.
func (cc CategoryController) Get(c *gin.Context, in *TermIDPath) error {
	return cc.terms().get(c, in.ID)
}

// Create handles POST /categories.
func (cc CategoryController) Create(c *gin.Context, in *CategoryCreateInput) error {
	return cc.terms().create(c, in.TermFields, in.Parent)
}

// Update handles POST, PUT and PATCH /categories/:id.
func (cc CategoryController) Update(c *gin.Context, in *CategoryUpdateInput) error {
	return cc.terms().update(c, in.ID, in.TermFields, in.Parent)
}

// Delete handles DELETE /categories/:id.
func (cc CategoryController) Delete(c *gin.Context, in *TermIDPath) error {
	return cc.terms().remove(c, in.ID)
}
