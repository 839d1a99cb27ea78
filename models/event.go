package models

import "time"

// Event is a calendar event. Start and end are stored as UTC instants; the wall clock is derived from Timezone.
type Event struct {
	ID       uint64 `gorm:"primaryKey"`
	AuthorID uint64 `gorm:"not null"`
	Status   string `gorm:"size:20;not null"`
	// TrashedStatus is the status the event had before it was trashed; permissions on trashed records depend on it.
	TrashedStatus string `gorm:"size:20;not null;default:''"`
	// Password protects the event; empty means none. Never returned to clients.
	Password     string    `gorm:"size:255;not null;default:''"`
	Title        string    `gorm:"not null"`
	Description  string    `gorm:"not null;default:''"`
	Excerpt      string    `gorm:"not null;default:''"`
	Slug         string    `gorm:"size:200;not null;uniqueIndex"`
	Timezone     string    `gorm:"size:64;not null"`
	TimezoneAbbr string    `gorm:"size:64;not null;default:''"`
	StartUTC     time.Time `gorm:"not null"`
	EndUTC       time.Time `gorm:"not null"`
	AllDay       bool      `gorm:"not null;default:false"`
	// Cost holds the raw cost values as a JSON array of strings; empty means no cost.
	Cost             string `gorm:"not null;default:''"`
	Website          string `gorm:"not null;default:''"`
	ShowMap          bool   `gorm:"not null;default:false"`
	ShowMapLink      bool   `gorm:"not null;default:false"`
	HideFromListings bool   `gorm:"not null;default:false"`
	Sticky           bool   `gorm:"not null;default:false"`
	Featured         bool   `gorm:"not null;default:false"`
	Ticketed         bool   `gorm:"not null;default:false"`
	ImageID          *uint64
	ParentID         *uint64
	// PublishedAt is the publication date ("date" in the API).
	PublishedAt time.Time `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null"`
	// UpdatedAt is the modification date ("modified" in the API).
	UpdatedAt time.Time `gorm:"not null"`

	Author     *User       `gorm:"foreignKey:AuthorID"`
	Image      *Image      `gorm:"foreignKey:ImageID"`
	Parent     *Event      `gorm:"foreignKey:ParentID"`
	Venues     []Venue     `gorm:"many2many:event_venues"`
	Organizers []Organizer `gorm:"many2many:event_organizers"`
	Categories []Category  `gorm:"many2many:event_categories"`
	Tags       []Tag       `gorm:"many2many:event_tags"`
}

// EventVenue links an event to a venue; Position keeps the order the venues were given in.
type EventVenue struct {
	EventID  uint64 `gorm:"primaryKey"`
	VenueID  uint64 `gorm:"primaryKey"`
	Position int    `gorm:"not null;default:0"`
}

// EventOrganizer links an event to an organizer; Position keeps the order the organizers were given in.
type EventOrganizer struct {
	EventID     uint64 `gorm:"primaryKey"`
	OrganizerID uint64 `gorm:"primaryKey"`
	Position    int    `gorm:"not null;default:0"`
}

// EventCategory links an event to a category.
type EventCategory struct {
	EventID    uint64 `gorm:"primaryKey"`
	CategoryID uint64 `gorm:"primaryKey"`
}

// EventTag links an event to a tag.
type EventTag struct {
	EventID uint64 `gorm:"primaryKey"`
	TagID   uint64 `gorm:"primaryKey"`
}
