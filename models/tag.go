package models

import (
	"time"

	"gorm.io/gorm"
)

// Tag is a flat event tag (taxonomy "post_tag" in the API).
type Tag struct {
	ID   uint64 `gorm:"primaryKey"`
	Name string `gorm:"not null"`
	// NameKey is the case-folded name (FoldName), kept by BeforeSave; tag names are unique by it.
	NameKey     string `gorm:"not null;default:''"`
	Slug        string `gorm:"size:200;not null;uniqueIndex"`
	Description string `gorm:"not null;default:''"`
	// Count is the number of published events with this tag, kept current by every event write.
	Count int64 `gorm:"not null;default:0"`
	// UpdatedAt is when the tag last changed (its count's changes are dated by their deltas: Term.LastModified).
	UpdatedAt time.Time `gorm:"not null"`
}

// BeforeSave keeps NameKey in step with Name for tags written through GORM.
func (t *Tag) BeforeSave(*gorm.DB) error {
	t.NameKey = FoldName(t.Name)
	return nil
}

// ResolveTags is ResolveCategories for the `tags` parameter of an event write.
func (s *Store) ResolveTags(refs []string) ([]uint64, error) {
	return s.resolveTerms(TagTaxonomy, refs)
}

// TagFilterIDs resolves the `tags` list filter of GET /events: IDs, slugs or names; any unknown ref is
// InvalidParam("tags", …).
func (s *Store) TagFilterIDs(refs []string) ([]uint64, error) {
	ids, err := s.ResolveListRefs(ListRefs{Tags: refs})
	return ids.Tags, err
}
