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
	return "LIMIT " + strconv.Itoa(p.Size) + " OFFSET " + hiddenOffsetOpen + offset + hiddenOffsetClose
}

// An offset is written as a sub-select of its parameter, OFFSET (SELECT CAST($n AS bigint)): PostgreSQL then costs
// every plan of the statement for an offset it cannot see (a tenth of the rows), as it does the generic plan, and
// keeps the generic plan after five runs instead of planning a deep page at every run for its offset. A deep page
// of the default list spent 1.0 ms of its statement's 1.5 ms in that planning at 100,000 events; with the offset
// hidden the statement took 0.4 ms (docs/benchmarks.md, "Deep pages from generic plans").
const (
	hiddenOffsetOpen  = "(SELECT CAST("
	hiddenOffsetClose = " AS bigint))"
)

// Paginate is the scope that selects one page.
func Paginate(p Page) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return db.Offset(p.Offset()).Limit(p.Size) }
}
