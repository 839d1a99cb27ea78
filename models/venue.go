package models

import "time"

// Venue is a place events happen at.
type Venue struct {
	ID            uint64 `gorm:"primaryKey"`
	AuthorID      uint64 `gorm:"not null"`
	Status        string `gorm:"size:20;not null"`
	TrashedStatus string `gorm:"size:20;not null;default:''"`
	Password      string `gorm:"size:255;not null;default:''"`
	// Name is the venue's title ("venue" in the API).
	Name          string `gorm:"not null"`
	Description   string `gorm:"not null;default:''"`
	Excerpt       string `gorm:"not null;default:''"`
	Slug          string `gorm:"size:200;not null;uniqueIndex"`
	ImageID       *uint64
	Address       string `gorm:"not null;default:''"`
	City          string `gorm:"not null;default:''"`
	Country       string `gorm:"not null;default:''"`
	Province      string `gorm:"not null;default:''"`
	State         string `gorm:"not null;default:''"`
	Zip           string `gorm:"not null;default:''"`
	Phone         string `gorm:"not null;default:''"`
	Website       string `gorm:"not null;default:''"`
	StateProvince string `gorm:"column:stateprovince;not null;default:''"`
	// ShowMap and ShowMapLink default to true in the schema; the model carries no default so that GORM writes a
	// false value instead of leaving the column to its default.
	ShowMap     bool `gorm:"not null"`
	ShowMapLink bool `gorm:"not null"`
	// GeoLat and GeoLng are the venue's coordinates; both or neither are set.
	GeoLat      *float64
	GeoLng      *float64
	PublishedAt time.Time `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null"`
	UpdatedAt   time.Time `gorm:"not null"`

	Author *User  `gorm:"foreignKey:AuthorID"`
	Image  *Image `gorm:"foreignKey:ImageID"`
}
