// Package models holds the domain types, their GORM mapping, the embedded migrations and the Store that owns every
// query and transaction. Nothing here knows about HTTP.
package models

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// Dialects the store speaks.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

//go:embed migrations
var migrations embed.FS

// Store owns the database: every query and every transaction of the service goes through it.
type Store struct {
	db *gorm.DB
	// root is the database as opened, without the context or the pool wrapping of db (ReadOnly,
	// PlannedForValues): the kept searches' own bookkeeping (search_kept.go) runs on it.
	root    *gorm.DB
	dialect string
	memos   *memos // shared by every copy of the store
	// inserts batches InsertEvent's statements (PostgreSQL; nil on SQLite), shared by every copy of the store.
	inserts *coalescer[*NewEvent, error]
}

// Open connects to the database. driver is SQLite or Postgres; dsn is a file path or a PostgreSQL URL; maxConns
// bounds the connections open at once (0: DefaultMaxConns). It does not migrate; call Migrate.
func Open(driver, dsn string, maxConns int) (*Store, error) {
	cfg := &gorm.Config{
		TranslateError:         true,
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true, // every write that needs a transaction opens one explicitly
		NowFunc:                now,
	}
	var dialector gorm.Dialector
	switch driver {
	case SQLite:
		dialector = sqlite.New(sqlite.Config{DriverName: sqliteDriverName, DSN: sqliteDSN(dsn)})
	case Postgres:
		dialector = postgres.New(postgres.Config{DSN: postgresDSN(dsn)})
	default:
		return nil, fmt.Errorf("unknown database driver %q", driver)
	}
	db, err := gorm.Open(dialector, cfg)
	if err != nil {
		return nil, err
	}
	if driver == Postgres {
		db.ClauseBuilders["LIMIT"] = literalLimit // the SQLite driver writes literal numbers already
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	configurePool(sqlDB, maxConns)
	s := &Store{db: db, root: db, dialect: driver, memos: newMemos()}
	if driver == Postgres {
		s.inserts = &coalescer[*NewEvent, error]{run: s.writeEvents, max: maxInsertBatch}
	}
	if err := s.setupJoinTables(); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	if err := registerVersionCallbacks(db); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN turns a file path into a go-sqlite3 DSN with foreign keys on, WAL, a busy timeout, and write
// transactions that take the write lock at BEGIN (so two writers wait instead of failing to upgrade a read lock).
func sqliteDSN(path string) string {
	params := "_foreign_keys=on&_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate&_synchronous=NORMAL"
	if strings.HasPrefix(path, "file:") {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return path + sep + params
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + params
}

// postgresDSN sets two defaults of the service's sessions, unless the URL sets them itself:
//   - connect_timeout 5 s, so that an unreachable database turns into a prompt 503 instead of requests hanging on
//     the kernel's connect timeout;
//   - max_parallel_workers_per_gather 0 (a setting the URL passes to PostgreSQL for the session): every query of
//     the service is a short lookup, and dozens run at once on a few cores, where starting parallel workers only
//     costs, many times over for the link rows of a page (docs/benchmarks.md, "Measurements behind the code").
func postgresDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return dsn
	}
	q := u.Query()
	for key, value := range map[string]string{"connect_timeout": "5", "max_parallel_workers_per_gather": "0"} {
		if q.Get(key) == "" {
			q.Set(key, value)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// DefaultMaxConns is the pool's size unless configured: twice the CPUs the service may use, at least 4.
//
// Requests wait for a connection in the service, where waiting costs nothing, rather than as more database
// backends competing for the same cores: fewer connections measured both more throughput and lower tail latency
// (docs/benchmarks.md, "Measurements behind the code"). It is the classic
// "cores × 2" rule for a database's connection count, with the service's cores standing in for the database's:
// in the default deployment they are the same machine. Every request holds at most one connection at a time (a
// test serves every kind of request through a pool of one), so a small pool cannot deadlock.
func DefaultMaxConns() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// configurePool bounds the pool at maxConns connections (0: DefaultMaxConns) and keeps them all open while busy.
// SQLite serves concurrent readers from several connections under WAL, and takes its writers one at a time.
func configurePool(db *sql.DB, maxConns int) {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns()
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
}

func (s *Store) setupJoinTables() error {
	for field, join := range map[string]any{
		"Venues": &EventVenue{}, "Organizers": &EventOrganizer{}, "Categories": &EventCategory{}, "Tags": &EventTag{},
	} {
		if err := s.db.SetupJoinTable(&Event{}, field, join); err != nil {
			return fmt.Errorf("join table for %s: %w", field, err)
		}
	}
	return nil
}

// Dialect is SQLite or Postgres.
func (s *Store) Dialect() string { return s.dialect }

// DB exposes the GORM handle for tools that work below the API (the benchmark seeder, schema tests).
func (s *Store) DB() *gorm.DB { return s.db }

// SQLDB is the underlying pool, for health checks and pool metrics.
func (s *Store) SQLDB() *sql.DB {
	db, _ := s.db.DB()
	return db
}

// WithContext returns a store whose queries carry ctx.
func (s *Store) WithContext(ctx context.Context) *Store { return s.on(s.db.WithContext(ctx)) }

// on returns the store working through db (a session or a transaction of s's database), sharing s's memos.
func (s *Store) on(db *gorm.DB) *Store {
	return &Store{db: db, root: s.root, dialect: s.dialect, memos: s.memos, inserts: s.inserts}
}

// memos are what a store remembers at the data version a request is answered at (see VersionMemo).
type memos struct {
	refs    *VersionMemo[string, []uint64]      // what each list filter ref resolved to (ResolveListRefs)
	records *VersionMemo[recordKey, *eventLink] // the venues, organizers and terms lists embed (LoadEventLinks)
	// searches is what the instance remembers of the searches asked (see listSearched); it holds no data.
	searches *searchAsks
}

// The memos' sizes: at most refMemoSize resolved refs, and recordMemoSize records of about a kilobyte each.
const (
	refMemoSize    = 20000
	recordMemoSize = 10000
)

func newMemos() *memos {
	return &memos{refs: NewVersionMemo[string, []uint64](refMemoSize),
		records: NewVersionMemo[recordKey, *eventLink](recordMemoSize), searches: newSearchAsks()}
}

// ErrNeedsTransaction is what a store made by ReadOnly answers to a write.
var ErrNeedsTransaction = errors.New("models: this write needs a transaction")

// ReadOnly returns a store that reads as s does, outside any transaction, and refuses every write and every
// transaction with ErrNeedsTransaction: a write that reads first and writes in one statement (InsertEvent) can
// run its reads through it, and take the transactional path when they turn out to need a write of their own
// (creating a term, an inline venue, an image).
func (s *Store) ReadOnly() *Store {
	return s.through(func(p gorm.ConnPool) gorm.ConnPool { return readOnlyPool{p} })
}

// through returns a store that works as s does, but through the pool wrap makes of s's pool.
func (s *Store) through(wrap func(gorm.ConnPool) gorm.ConnPool) *Store {
	db := s.db.Session(&gorm.Session{Context: s.db.Statement.Context}) // a copy of the statement, not s's
	db.Statement.ConnPool = wrap(db.Statement.ConnPool)
	return s.on(db)
}

// readOnlyPool lets only SELECT statements through to its pool.
type readOnlyPool struct{ gorm.ConnPool }

func isSelect(query string) bool {
	q := strings.TrimSpace(query)
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

func (p readOnlyPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if !isSelect(query) {
		return nil, ErrNeedsTransaction
	}
	return p.ConnPool.PrepareContext(ctx, query)
}

func (p readOnlyPool) ExecContext(context.Context, string, ...any) (sql.Result, error) {
	return nil, ErrNeedsTransaction
}

func (p readOnlyPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !isSelect(query) {
		return nil, ErrNeedsTransaction
	}
	return p.ConnPool.QueryContext(ctx, query, args...)
}

// QueryRowContext serves GORM's Row(), which the store does not use: a *sql.Row cannot carry an error of ours, so
// a write through it is a programming error.
func (p readOnlyPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !isSelect(query) {
		panic("models: a write through a read-only store: " + query)
	}
	return p.ConnPool.QueryRowContext(ctx, query, args...)
}

// BeginTx refuses: a read-only store reads outside any transaction.
func (p readOnlyPool) BeginTx(context.Context, *sql.TxOptions) (gorm.ConnPool, error) {
	return nil, ErrNeedsTransaction
}

// hiddenParam is placeholder as a value of sqlType that PostgreSQL does not plan for: a scalar sub-select of it,
// which the plan computes once before it runs. Every plan of the statement is then costed alike, as its generic
// plan is, and PostgreSQL keeps the generic plan after five runs instead of planning again for each value. Hidden
// so are an offset (a deep page of the default list spent 1.0 ms of its statement's 1.5 ms in planning for its
// offset at 100,000 events, 0.4 ms in all once hidden: docs/benchmarks.md, "Deep pages from generic plans"), an
// instant (hiddenInstant) and a list of IDs (hiddenIDs).
func hiddenParam(placeholder, sqlType string) string {
	before, after := hiddenAround(sqlType)
	return before + placeholder + after
}

// hiddenAround is hiddenParam's text before and after its placeholder, for a builder that writes the placeholder.
func hiddenAround(sqlType string) (before, after string) {
	return "(SELECT CAST(", " AS " + sqlType + "))"
}

// literalLimit writes a PostgreSQL query's LIMIT as a literal number (GORM binds it as a parameter) and its OFFSET
// as a hidden parameter (hiddenParam). PostgreSQL estimates a LIMIT it cannot see at a tenth of the rows, so a
// prepared list query's generic plan looked forty times costlier than the plan for its values, and PostgreSQL
// planned the query again at every run: at 100,000 events that planning was 0.6 ms of the default list's 1.3 ms in
// the database. With the limit in the text the generic plan of a first page is costed right and kept, and there is
// one statement per page size; the offset stays a parameter, so that deep pages do not each become a statement of
// their own in every connection's cache.
func literalLimit(c clause.Clause, builder clause.Builder) {
	l, ok := c.Expression.(clause.Limit)
	if !ok {
		c.Build(builder)
		return
	}
	hasLimit := l.Limit != nil && *l.Limit >= 0
	if hasLimit {
		builder.WriteString("LIMIT " + strconv.Itoa(*l.Limit))
	}
	if l.Offset > 0 {
		if hasLimit {
			builder.WriteByte(' ')
		}
		before, after := hiddenAround("bigint")
		builder.WriteString("OFFSET " + before)
		builder.AddVar(builder, l.Offset)
		builder.WriteString(after)
	}
}

// PlannedForValues returns a store whose queries PostgreSQL plans for the values each is sent with, every time
// (SQLite plans every statement anew anyway). Otherwise a prepared statement (pgx prepares and caches every one)
// gets, after five runs, a generic plan made for any values whenever PostgreSQL estimates it no costlier, and
// without its values a bound on each side of one column reads as a range holding a two-hundredth of the rows.
// Lists whose date bounds state what they imply (a range on start and one on end) then looked a few rows long, and
// the generic plan of a list by venue walked the whole window probing each event's venue, many times slower than a
// plan for its values; planning a query costs far less (docs/benchmarks.md, "Measurements behind the code").
func (s *Store) PlannedForValues() *Store {
	if s.dialect != Postgres {
		return s
	}
	return s.through(func(p gorm.ConnPool) gorm.ConnPool { return valuePlannedPool{p} })
}

// withGenericPlans runs fn on a store whose statements PostgreSQL runs from their generic plans, made once per
// statement and connection: a read transaction that sets plan_cache_mode for itself alone. A store planned for its
// values (PlannedForValues) and SQLite run fn on s.
func (s *Store) withGenericPlans(fn func(*Store) error) error {
	if _, planned := s.db.Statement.ConnPool.(valuePlannedPool); planned || s.dialect != Postgres {
		return fn(s)
	}
	return s.db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SET LOCAL plan_cache_mode = force_generic_plan").Error; err != nil {
			return err
		}
		return fn(s.on(tx))
	})
}

// valuePlannedPool runs its queries as pgx's unnamed statements, which PostgreSQL plans at every run with the
// values bound (the statement's description, which pgx needs to send them, stays cached). The mode reaches pgx as
// the queries' first argument, which its database/sql driver passes through.
type valuePlannedPool struct{ gorm.ConnPool }

func (p valuePlannedPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.ConnPool.QueryContext(ctx, query, append([]any{pgx.QueryExecModeCacheDescribe}, args...)...)
}

// Tx runs fn in one transaction: everything fn writes is committed together, or nothing is. Every write of the
// service goes through Tx, which also advances the data version (see Version) in the same transaction; only the
// kept searches' bookkeeping (search_kept.go), which changes nothing an answer shows, commits on its own.
//
// A transaction that PostgreSQL aborts to break a deadlock, or as a serialization failure, wrote nothing, and run
// again it would succeed: Tx then runs fn again in a new transaction, up to maxTxAttempts times in all, so that
// such a collision of two writers costs the one PostgreSQL picked a retry rather than a 500. fn must therefore
// set everything it hands out afresh on every run. (Such deadlocks still happen around series writes: a series'
// rows written while the deletion of a record it names rewrites the series' link lists, or one series'
// occurrences inserted while another series' start moves.)
func (s *Store) Tx(ctx context.Context, fn func(tx *Store) error) error {
	return runAgainIfAborted(ctx, func() error {
		return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := fn(s.on(tx)); err != nil {
				return err
			}
			return bumpVersion(tx)
		})
	})
}

// runAgainIfAborted runs fn, and runs it again, up to maxTxAttempts times in all, while PostgreSQL aborts it to
// break a deadlock or as a serialization failure (isRetryable): an aborted transaction or statement wrote nothing.
// Each retry waits a random while first, growing with the attempts: run again at once, it met the same writers in
// the same order, and twelve writers relinking and deleting the same few records had one request deadlock on all
// three of its attempts.
func runAgainIfAborted(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == maxTxAttempts || !isRetryable(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(rand.N(time.Duration(attempt) * retryBackoff)):
		}
	}
}

// maxTxAttempts bounds how often runAgainIfAborted runs what PostgreSQL keeps aborting; retryBackoff is the
// longest wait before the second attempt (the n-th waits up to n-1 times it).
const (
	maxTxAttempts = 5
	retryBackoff  = 20 * time.Millisecond
)

// RefreshStatistics brings the query planner's statistics up to date on SQLite, which, unlike PostgreSQL's
// autovacuum, never gathers them by itself: without them it may, for example, walk every upcoming event in start
// order for a list filtered by venue and category instead of the venue's few events. The analysis reads every
// index whole: a sampled one (analysis_limit) saw only the first rows of the status index, took a status for a
// thousand events, and led the planner into that very walk. Its cost grows with the number of events.
func (s *Store) RefreshStatistics(ctx context.Context) error {
	if s.dialect != SQLite {
		return nil
	}
	return s.db.WithContext(ctx).Exec("ANALYZE").Error
}

// Ping checks that the database answers within the context's deadline.
func (s *Store) Ping(ctx context.Context) error {
	return s.SQLDB().PingContext(ctx)
}

// Close closes the connection pool.
func (s *Store) Close() error { return s.SQLDB().Close() }

// createExtensions creates the PostgreSQL extensions the migrations use (pg_trgm, in public), under a lock of the
// whole database. Extensions belong to the database, not to a schema, and CREATE EXTENSION IF NOT EXISTS is not
// safe against itself: two schemas of one database migrating at once (two services, or the tests) both created
// pg_trgm and one failed on the catalog's unique index; the schemas' own migration locks do not serialize them.
// An extension that exists is left as it is, whoever made it.
func (s *Store) createExtensions(ctx context.Context) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", advisoryKey("extensions")).Error; err != nil {
			return err
		}
		return tx.Exec("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public").Error
	})
}

// Migrate applies every pending migration of the store's dialect and returns the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int64, error) {
	dir, dialect := "migrations/sqlite", goose.DialectSQLite3
	// Out of order: a migration numbered below the database's version but never applied to it is applied, not
	// refused. Each migration changes tables of its own, so the order in which two of them ran does not matter,
	// and a database made by a build that had a later migration but not an earlier one still migrates.
	opts := []goose.ProviderOption{goose.WithGoMigrations(saltRecordPasswords(s.dialect)), goose.WithAllowOutofOrder(true)}
	if s.dialect == Postgres {
		dir, dialect = "migrations/postgres", goose.DialectPostgres
		// Two instances starting at once must not both apply the same migration. The lock is the schema's (the
		// migrations write it alone), so that services, or tests, in other schemas of the database do not wait
		// for it; a waiter tries again every second.
		var schema string
		if err := s.db.WithContext(ctx).Raw("SELECT current_schema()").Scan(&schema).Error; err != nil {
			return nil, err
		}
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(advisoryKey("migrations\x00"+schema)),
			lock.WithLockTimeout(1, 300))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
		if err := s.createExtensions(ctx); err != nil {
			return nil, err
		}
	}
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return nil, err
	}
	provider, err := goose.NewProvider(dialect, s.SQLDB(), fsys, opts...)
	if err != nil {
		return nil, err
	}
	results, err := provider.Up(ctx)
	var applied []int64
	for _, r := range results {
		if r.Error == nil {
			applied = append(applied, r.Source.Version)
		}
	}
	if err != nil {
		var partial *goose.PartialError
		if errors.As(err, &partial) && partial.Failed != nil {
			return applied, fmt.Errorf("migration %d: %w", partial.Failed.Source.Version, partial.Err)
		}
		return applied, err
	}
	return applied, nil
}

// Models lists every model with a table, for schema checks.
func Models() []any {
	return []any{&User{}, &Token{}, &Image{}, &Venue{}, &Organizer{}, &Category{}, &Tag{}, &Event{},
		&EventVenue{}, &EventOrganizer{}, &EventCategory{}, &EventTag{}, &EventVenueCategory{}, &DataVersion{},
		&TermCountDelta{}, &EventSeries{}, &EventOccurrence{}}
}
