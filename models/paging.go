package models

import "gorm.io/gorm"

// Page is one page of a list: Number counts from 1.
type Page struct {
	Number int
	Size   int
}

// Offset is how many rows come before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// Paginate is the scope that selects one page.
func Paginate(p Page) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return db.Offset(p.Offset()).Limit(p.Size) }
}
