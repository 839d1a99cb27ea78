package models

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"

	"gorm.io/gorm"

	"calendar/models/testdb"
)

// migratedSQLite returns a store on a new, migrated SQLite file that is closed when the test ends.
func migratedSQLite(t *testing.T) *Store {
	t.Helper()
	return openMigrated(t, SQLite, filepath.Join(t.TempDir(), "test.db"))
}

// openMigrated opens a store on dsn, migrates it and closes it when the test ends.
func openMigrated(t *testing.T, driver, dsn string) *Store {
	t.Helper()
	s, err := Open(driver, dsn, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRefreshStatisticsGivesSQLitesPlannerItsStatistics(t *testing.T) {
	ctx := context.Background()
	s := migratedSQLite(t)
	if err := s.DB().Create(&Tag{Name: "outdoor", Slug: "outdoor"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshStatistics(ctx); err != nil {
		t.Fatal(err)
	}
	var analysed int64
	if err := s.DB().Raw("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'tags'").Scan(&analysed).Error; err != nil || analysed == 0 {
		t.Fatalf("no planner statistics for tags after RefreshStatistics (%d rows, %v)", analysed, err)
	}
}

func TestAReadOnlyStoreRefusesWritesAndLeavesItsStoreWritable(t *testing.T) {
	s := migratedSQLite(t)
	ro := s.ReadOnly()
	if err := ro.DB().Create(&Tag{Name: "refused", Slug: "refused"}).Error; !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a create through the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := ro.DB().Exec("DELETE FROM tags").Error; !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a raw write through the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := ro.Tx(context.Background(), func(*Store) error { return nil }); !errors.Is(err, ErrNeedsTransaction) {
		t.Fatalf("a transaction on the read-only store: %v, want ErrNeedsTransaction", err)
	}
	if err := s.DB().Create(&Tag{Name: "kept", Slug: "kept"}).Error; err != nil {
		t.Fatalf("a create through the store itself after ReadOnly: %v", err)
	}
	var names []string
	if err := ro.DB().Model(&Tag{}).Order("name").Pluck("name", &names).Error; err != nil || len(names) != 1 || names[0] != "kept" {
		t.Fatalf("the read-only store reads %v (%v), want [kept]", names, err)
	}
}

// TestPostgreSQLSessionsPlanWithoutParallelWorkers proves that the service's PostgreSQL sessions run without
// parallel workers and with a connect timeout unless the URL sets either, and, with a test database, that
// PostgreSQL applies the setting.
func TestPostgreSQLSessionsPlanWithoutParallelWorkers(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://h/db": "postgres://h/db?connect_timeout=5&max_parallel_workers_per_gather=0",
		"postgres://h/db?max_parallel_workers_per_gather=2&connect_timeout=9": "postgres://h/db?connect_timeout=9&max_parallel_workers_per_gather=2",
		"host=h dbname=db": "host=h dbname=db",
	} {
		if got := postgresDSN(dsn); got != want {
			t.Errorf("postgresDSN(%q) = %q, want %q", dsn, got, want)
		}
	}
	url := os.Getenv("CALENDAR_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("CALENDAR_TEST_DATABASE_URL is not set")
	}
	s, err := Open(Postgres, url, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var workers string
	if err := s.DB().Raw("SHOW max_parallel_workers_per_gather").Scan(&workers).Error; err != nil || workers != "0" {
		t.Fatalf("max_parallel_workers_per_gather is %q (%v), want 0", workers, err)
	}
}

// TestSelectEventsReadsEveryColumnOfEvents keeps the hand-written column list of selectEvents (and so scanEvents)
// in step with the Event model: a column added to events must be read too.
func TestSelectEventsReadsEveryColumnOfEvents(t *testing.T) {
	s := migratedSQLite(t)
	stmt := &gorm.Statement{DB: s.db}
	if err := stmt.Parse(&Event{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range stmt.Schema.Fields {
		if f.DBName == "" {
			continue
		}
		if !regexp.MustCompile(`\bevents\.` + f.DBName + `\b`).MatchString(selectEvents) {
			t.Errorf("selectEvents does not read events.%s", f.DBName)
		}
	}
}

// TestAStorePlannedForValuesPreparesNoStatement proves, with a PostgreSQL test database, that the queries of
// PlannedForValues run as unnamed statements, which PostgreSQL plans at every run with the values bound, while the
// store's own are prepared once and kept (so that, after five runs, PostgreSQL may give them a generic plan).
func TestAStorePlannedForValuesPreparesNoStatement(t *testing.T) {
	url := os.Getenv("CALENDAR_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("CALENDAR_TEST_DATABASE_URL is not set")
	}
	s, err := Open(Postgres, url, 1) // one connection: every query below runs in the same session
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	probe := func(store *Store) {
		for i := range 6 {
			var n int
			if err := store.DB().Raw("SELECT ? + 1 AS planned_for_values_probe", i).Scan(&n).Error; err != nil || n != i+1 {
				t.Fatalf("the probe answered %d (%v), want %d", n, err, i+1)
			}
		}
	}
	prepared := func() int {
		var n int
		if err := s.DB().Raw(`SELECT count(*) FROM pg_prepared_statements
			WHERE statement LIKE '%planned\_for\_values\_probe' ESCAPE '\'`).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	probe(s.PlannedForValues())
	if n := prepared(); n != 0 {
		t.Fatalf("%d prepared statements after six queries planned for their values, want 0", n)
	}
	probe(s)
	if n := prepared(); n != 1 {
		t.Fatalf("%d prepared statements after six queries of the store itself, want 1", n)
	}
}

// TestSchemasOfANewDatabaseMigrateAtOnce migrates eight schemas of a new PostgreSQL database at the same time, as
// services in schemas of their own, or the tests, do: each migration creates the extensions it needs, which belong
// to the database, and without a lock of the database's one of them failed on the catalog's unique index.
func TestSchemasOfANewDatabaseMigrateAtOnce(t *testing.T) {
	pg := testdb.PostgresURL()
	if pg == "" {
		t.Skip("CALENDAR_TEST_DATABASE_URL is not set")
	}
	admin, err := Open(Postgres, pg, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("calendar_extensions_%d", rand.Uint32())
	if err := admin.DB().Exec("CREATE DATABASE " + name).Error; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before admin.Close: cleanups run last registered first
		if err := admin.DB().Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error; err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	stores := make([]*Store, 8)
	for i := range stores {
		q := u.Query()
		q.Set("search_path", fmt.Sprintf("s%d,public", i))
		schemaURL := *u
		schemaURL.RawQuery = q.Encode()
		if stores[i], err = Open(Postgres, schemaURL.String(), 2); err != nil {
			t.Fatal(err)
		}
		defer stores[i].Close()
		if err := stores[i].DB().Exec(fmt.Sprintf("CREATE SCHEMA s%d", i)).Error; err != nil {
			t.Fatal(err)
		}
	}
	var migrating sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, len(stores))
	for i, s := range stores {
		migrating.Go(func() {
			<-start
			_, errs[i] = s.Migrate(context.Background())
		})
	}
	close(start)
	migrating.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("schema s%d: %v", i, err)
		}
	}
}

// TestListTablesAreVacuumedSooner holds the tables that lists read by index-only scans (events, their links and
// the kept counts and links) to the autovacuum thresholds the migrations give them: a hundredth of their rows
// changed, not PostgreSQL's default fifth, so that the visibility map keeps up with the writes.
func TestListTablesAreVacuumedSooner(t *testing.T) {
	s := testStore(t)
	if s.Dialect() != Postgres {
		t.Skip("autovacuum is PostgreSQL's")
	}
	tables := []string{"events", "event_venues", "event_organizers", "event_categories", "event_tags",
		"event_venue_categories", "venue_listed_events", "category_listed_events", "search_listed_events",
		"event_day_counts", "category_day_counts", "search_day_counts", "series_gap_days", "linked_last_starts",
		"linked_published_days", "event_block_counts", "series_gap_blocks"}
	// Tables that grow by inserts (events and their links, and what keeping a search inserts) are vacuumed after
	// a hundredth of their rows is inserted too.
	insertHeavy := map[string]bool{"events": true, "event_venues": true, "event_organizers": true,
		"event_categories": true, "event_tags": true, "event_venue_categories": true, "search_listed_events": true,
		"search_day_counts": true}
	for _, table := range tables {
		var options []string
		err := s.DB().Raw("SELECT unnest(reloptions) FROM pg_class WHERE oid = CAST(? AS regclass)", table).
			Scan(&options).Error
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(options, "autovacuum_vacuum_scale_factor=0.01") {
			t.Errorf("%s is vacuumed with %v, want autovacuum_vacuum_scale_factor=0.01", table, options)
		}
		if insertHeavy[table] && !slices.Contains(options, "autovacuum_vacuum_insert_scale_factor=0.01") {
			t.Errorf("%s is vacuumed with %v, want autovacuum_vacuum_insert_scale_factor=0.01 too", table, options)
		}
	}
}
