package models

// Tag is a flat event tag (taxonomy "post_tag" in the API).
type Tag struct {
	ID          uint64 `gorm:"primaryKey"`
	Name        string `gorm:"not null"`
	Slug        string `gorm:"size:200;not null;uniqueIndex"`
	Description string `gorm:"not null;default:''"`
	// Count is the number of published events with this tag, kept current by every event write.
	Count int64 `gorm:"not null;default:0"`
}
