// Package testdb gives a test a database of its own: a SQLite file in the test's temporary directory, or, when
// CALENDAR_TEST_DATABASE_URL names a PostgreSQL database, a new schema in it that is dropped when the test ends.
// The tests of models, of main and the black-box tests all take their databases from it. It imports nothing of the
// project, so that the tests of models may use it too.
package testdb

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver of the connection that creates and drops the schemas
)

// Variable is the environment variable that names the PostgreSQL database of the tests; unset, they use SQLite.
const Variable = "CALENDAR_TEST_DATABASE_URL"

// The drivers, named as models.SQLite and models.Postgres name them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// PostgresURL is the PostgreSQL database of the tests, "" when they use SQLite.
func PostgresURL() string { return os.Getenv(Variable) }

// Fresh returns the driver and DSN of an empty database for t alone. Its PostgreSQL schema is on the search path
// of every session of the DSN, and commits do not wait for the disk (the database is thrown away).
func Fresh(t testing.TB) (driver, dsn string) {
	t.Helper()
	pg := PostgresURL()
	if pg == "" {
		return SQLite, filepath.Join(t.TempDir(), "calendar.db")
	}
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatalf("%s: %v", Variable, err)
	}
	admin := adminConnection(t, pg)
	schema := "test_" + randomHex(8)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating schema %s: %v", schema, err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE") })
	q := u.Query()
	q.Set("search_path", schema+",public")
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return Postgres, u.String()
}

var (
	adminOnce sync.Once
	adminDB   *sql.DB
	adminErr  error
)

// adminConnection is the pool that creates and drops the schemas of every test of the process.
func adminConnection(t testing.TB, pg string) *sql.DB {
	t.Helper()
	adminOnce.Do(func() {
		adminDB, adminErr = sql.Open("pgx", pg)
		if adminErr == nil {
			adminErr = adminDB.Ping()
		}
	})
	if adminErr != nil {
		t.Fatalf("%s is set but PostgreSQL does not answer: %v", Variable, adminErr)
	}
	return adminDB
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
