package models

import "time"

// Image is a featured image known to the service: a URL recorded on first use (nothing is downloaded).
type Image struct {
	ID        uint64    `gorm:"primaryKey"`
	URL       string    `gorm:"size:2048;not null;uniqueIndex"`
	Extension string    `gorm:"size:16;not null;default:''"`
	CreatedAt time.Time `gorm:"not null"`
}
