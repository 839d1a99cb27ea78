package models

import (
	"database/sql"
	"strings"

	"github.com/mattn/go-sqlite3"
	"gorm.io/gorm/clause"
)

// sqliteDriverName is the SQLite driver the store opens: go-sqlite3 with calendar_fold and calendar_distance
// registered on every connection. SQLite's own lower() and LIKE fold ASCII letters only, so "MÜNCHEN" would not
// find "München"; PostgreSQL's lower() folds every letter. calendar_distance is GreatCircleKm (geo.go): this
// driver has no trigonometric functions without build tags.
const sqliteDriverName = "sqlite3_calendar"

func init() {
	sql.Register(sqliteDriverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if err := c.RegisterFunc("calendar_fold", strings.ToLower, true); err != nil {
			return err
		}
		return c.RegisterFunc("calendar_distance", sqliteDistance, true)
	}})
}

// foldSQL wraps a SQL expression in the dialect's Unicode lower-casing function.
func (s *Store) foldSQL(expr string) string {
	if s.dialect == SQLite {
		return "calendar_fold(" + expr + ")"
	}
	return "lower(" + expr + ")"
}

// ContainsFold is the condition "column contains text, ignoring case" on either dialect. column must be a trusted
// column name, never user input; text is bound and its LIKE wildcards are escaped.
func (s *Store) ContainsFold(column, text string) clause.Expr {
	return clause.Expr{
		SQL:  s.foldSQL(column) + " LIKE " + s.foldSQL("?") + ` ESCAPE '\'`,
		Vars: []any{"%" + likeEscaper.Replace(text) + "%"},
	}
}

// EqualFold is the condition "column equals text, ignoring case" on either dialect (column trusted, text bound).
// On PostgreSQL an index on lower(column) serves it.
func (s *Store) EqualFold(column, text string) clause.Expr {
	return clause.Expr{SQL: s.foldSQL(column) + " = " + s.foldSQL("?"), Vars: []any{text}}
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
