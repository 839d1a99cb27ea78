package models

import (
	"strconv"

	"gorm.io/gorm"
)

// Page is one page of a list: Number counts from 1.
type Page struct {
	Number int
	Size   int
}

// Offset is how many rows come before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// literalLimit is the page as a LIMIT clause for a raw statement, its size a literal number and its offset the
// placeholder offset, hidden (@offset, or ? in a statement with positional arguments; left out for a first page), as
// literalLimit writes GORM's: a prepared statement whose limit PostgreSQL cannot see is costed at a tenth of its
// rows in its generic plan, and planned again at every run.
func (p Page) literalLimit(offset string) string {
	if p.Offset() == 0 {
		return "LIMIT " + strconv.Itoa(p.Size)
	}
	return "LIMIT " + strconv.Itoa(p.Size) + " OFFSET " + hiddenParam(offset, "bigint")
}

// Paginate is the scope that selects one page.
func Paginate(p Page) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return db.Offset(p.Offset()).Limit(p.Size) }
}
