package models

// Category is a hierarchical event category (taxonomy "tribe_events_cat" in the API).
type Category struct {
	ID          uint64 `gorm:"primaryKey"`
	Name        string `gorm:"not null"`
	Slug        string `gorm:"size:200;not null;uniqueIndex"`
	Description string `gorm:"not null;default:''"`
	ParentID    *uint64
	// Count is the number of published events with this category, kept current by every event write.
	Count int64 `gorm:"not null;default:0"`

	Parent *Category `gorm:"foreignKey:ParentID"`
}
