package models

import "time"

// Organizer is a person or organisation that runs events.
type Organizer struct {
	ID            uint64 `gorm:"primaryKey"`
	AuthorID      uint64 `gorm:"not null"`
	Status        string `gorm:"size:20;not null"`
	TrashedStatus string `gorm:"size:20;not null;default:''"`
	Password      string `gorm:"size:255;not null;default:''"`
	// Name is the organizer's title ("organizer" in the API).
	Name        string `gorm:"not null"`
	Description string `gorm:"not null;default:''"`
	Excerpt     string `gorm:"not null;default:''"`
	Slug        string `gorm:"size:200;not null;uniqueIndex"`
	ImageID     *uint64
	Phone       string    `gorm:"not null;default:''"`
	Website     string    `gorm:"not null;default:''"`
	Email       string    `gorm:"not null;default:''"`
	PublishedAt time.Time `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null"`
	UpdatedAt   time.Time `gorm:"not null"`

	Author *User  `gorm:"foreignKey:AuthorID"`
	Image  *Image `gorm:"foreignKey:ImageID"`
}
