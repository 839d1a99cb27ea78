package models

import (
	"database/sql"

	"gorm.io/gorm"
)

// The store's hot reads (events, their links, credentials) scan their rows straight into fields: GORM's reflective
// Find and Scan took a sixth to a third of the service's CPU on them.

// scanAll runs query and reads every row into a new T with scan, in order, into a slice with room for
// expected rows (events are large: growing their slice row by row allocated twice what the page needed).
func scanAll[T any](query *gorm.DB, expected int, scan func(rows *sql.Rows, dest *T) error) ([]T, error) {
	rows, err := query.Rows()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	out := make([]T, 0, expected)
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanOne scans the first row of query into dest and tells whether there was one.
func scanOne(query *gorm.DB, dest ...any) (bool, error) {
	rows, err := query.Rows()
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	if err := rows.Scan(dest...); err != nil {
		return false, err
	}
	return true, rows.Close()
}
