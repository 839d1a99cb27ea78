package models

import (
	"time"

	"gorm.io/gorm"
)

// Category is a hierarchical event category (taxonomy "tribe_events_cat" in the API).
type Category struct {
	ID   uint64 `gorm:"primaryKey"`
	Name string `gorm:"not null"`
	// NameKey is the case-folded name (FoldName), kept by BeforeSave; names are unique per parent by it.
	NameKey     string `gorm:"not null;default:''"`
	Slug        string `gorm:"size:200;not null;uniqueIndex"`
	Description string `gorm:"not null;default:''"`
	ParentID    *uint64
	// Count is the number of published events with this category, kept current by every event write.
	Count int64 `gorm:"not null;default:0"`
	// UpdatedAt is when the category or its URL last changed (its count's changes are dated by their deltas:
	// Term.LastModified).
	UpdatedAt time.Time `gorm:"not null"`

	Parent *Category `gorm:"foreignKey:ParentID"`
}

// BeforeSave keeps NameKey in step with Name for categories written through GORM.
func (c *Category) BeforeSave(*gorm.DB) error {
	c.NameKey = FoldName(c.Name)
	return nil
}

// ResolveCategories turns the `categories` parameter of an event write into category IDs, in the given order,
// without duplicates: a numeric ref must be an existing category ID (else InvalidParam("categories", reason));
// any other ref is matched by name (case-insensitive) or slug; an unknown name creates a top-level category (with
// a unique slug; the name is reduced to plain text by input.PlainText). Safe when several transactions create the
// same new name at once (one category results). Call it in the event write's transaction.
func (s *Store) ResolveCategories(refs []string) ([]uint64, error) {
	return s.resolveTerms(CategoryTaxonomy, refs)
}

// CategoryFilterIDs resolves the `categories` list filter of GET /events: IDs, slugs or names; any unknown ref is
// InvalidParam("categories", …). The result includes every descendant of each category (child categories match,
// as WordPress tax queries do).
func (s *Store) CategoryFilterIDs(refs []string) ([]uint64, error) {
	ids, err := s.ResolveListRefs(ListRefs{Categories: refs})
	return ids.Categories, err
}
