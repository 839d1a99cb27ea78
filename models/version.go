package models

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	"gorm.io/gorm"
)

// versionShards spreads the data version over several rows so that concurrent writers do not queue on one lock.
const versionShards = 64

// DataVersion is one shard of the data version: the sum over all shards grows by one with every committed write
// transaction, so two equal sums mean no write committed in between (on any instance sharing the database).
type DataVersion struct {
	Shard   int   `gorm:"primaryKey;autoIncrement:false"`
	Version int64 `gorm:"not null;default:0"`
}

// Version returns the current data version: cached answers and ETags derived from it are never stale.
func (s *Store) Version(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.WithContext(ctx).Model(&DataVersion{}).Select("COALESCE(SUM(version), 0)").Scan(&v).Error
	return v, err
}

// bumpVersion records a write; it runs inside the writing transaction, so readers see the new version exactly
// when they can see the write. On PostgreSQL it takes a shard no other transaction holds (SKIP LOCKED), so writers
// never wait for each other's commits here; only when every shard is taken does it wait for a random one.
func bumpVersion(db *gorm.DB) error {
	if db.Dialector.Name() == Postgres {
		res := db.Exec(`UPDATE data_versions SET version = version + 1 WHERE shard =
			(SELECT shard FROM data_versions WHERE shard >= ? ORDER BY shard LIMIT 1 FOR UPDATE SKIP LOCKED)`,
			rand.IntN(versionShards))
		if res.Error != nil || res.RowsAffected == 1 {
			return res.Error
		}
	}
	return db.Exec("UPDATE data_versions SET version = version + 1 WHERE shard = ?", rand.IntN(versionShards)).Error
}

// registerVersionCallbacks bumps the version after a create, update, delete or raw write statement that runs
// outside Store.Tx, so that even a single-statement write can never leave a cached answer stale. Writes inside Tx
// bump once, at the end.
func registerVersionCallbacks(db *gorm.DB) error {
	bump := func(tx *gorm.DB) {
		if tx.Error != nil || tx.Statement.Table == "data_versions" || tx.RowsAffected == 0 {
			return
		}
		if sql := strings.ToUpper(strings.TrimSpace(tx.Statement.SQL.String())); tx.Statement.Table == "" &&
			(strings.Contains(sql, "DATA_VERSIONS") || !(strings.HasPrefix(sql, "INSERT") ||
				strings.HasPrefix(sql, "UPDATE") || strings.HasPrefix(sql, "DELETE"))) {
			return // a raw statement that reads, or that is the bump itself
		}
		if _, inTx := tx.Statement.ConnPool.(gorm.TxCommitter); inTx {
			return
		}
		if err := bumpVersion(tx.Session(&gorm.Session{NewDB: true})); err != nil {
			_ = tx.AddError(err)
		}
	}
	if err := db.Callback().Create().After("gorm:create").Register("calendar:version", bump); err != nil {
		return err
	}
	if err := db.Callback().Update().After("gorm:update").Register("calendar:version", bump); err != nil {
		return err
	}
	if err := db.Callback().Raw().After("gorm:raw").Register("calendar:version", bump); err != nil {
		return err
	}
	return db.Callback().Delete().After("gorm:delete").Register("calendar:version", bump)
}

// VersionReader reads the data version for many concurrent requests with few queries, without weakening
// freshness: a caller waits for the next read that *starts after* it asked (a coalescer). That read's snapshot
// includes every write committed before the caller arrived, exactly as a read of its own would, so sharing it is
// safe.
type VersionReader struct {
	reads *coalescer[struct{}, versionResult]
}

type versionResult struct {
	version  int64
	position SyncPosition
	err      error
}

// NewVersionReader returns a reader of s's data version.
func (s *Store) NewVersionReader() *VersionReader {
	return &VersionReader{reads: &coalescer[struct{}, versionResult]{run: func(callers []struct{}) []versionResult {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		v, pos, err := s.versionAndPosition(ctx)
		out := make([]versionResult, len(callers))
		for i := range out {
			out[i] = versionResult{v, pos, err}
		}
		return out
	}}}
}

// Version returns a data version at least as new as every write committed before the call.
func (r *VersionReader) Version(ctx context.Context) (int64, error) {
	v, _, err := r.VersionAndPosition(ctx)
	return v, err
}

// VersionAndPosition returns, read together, a data version at least as new as every write committed before the
// call and the change history's position at that version (see Store.SyncPosition).
func (r *VersionReader) VersionAndPosition(ctx context.Context) (int64, SyncPosition, error) {
	res, err := r.reads.do(ctx, struct{}{})
	if err != nil {
		return 0, SyncPosition{}, err
	}
	return res.version, res.position, res.err
}

// versionAndPosition reads the data version and the change history's position in one statement.
func (s *Store) versionAndPosition(ctx context.Context) (int64, SyncPosition, error) {
	var row struct {
		Version int64
		Seq     int64
		Snap    string
	}
	db := s.db.WithContext(ctx)
	var err error
	if s.dialect == Postgres {
		err = db.Raw(`SELECT COALESCE(SUM(version), 0) AS version, 0 AS seq,
			CAST(pg_current_snapshot() AS TEXT) AS snap FROM data_versions`).Scan(&row).Error
	} else {
		err = db.Raw(`SELECT COALESCE(SUM(version), 0) AS version, (SELECT COALESCE(MAX(id), 0) FROM changes) AS seq,
			'' AS snap FROM data_versions`).Scan(&row).Error
	}
	return row.Version, SyncPosition{Seq: row.Seq, Snap: row.Snap}, err
}

// versionKey is the context key of the data version a request is answered at.
type versionKey struct{}

// ContextWithVersion records in ctx that the request it belongs to is answered at data version v: it read v
// before any of its queries, so what it finds is at least as new as v.
func ContextWithVersion(ctx context.Context, v int64) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// positionKey is the context key of the change history position read with the data version a request is answered at.
type positionKey struct{}

// ContextWithVersionAndPosition records in ctx the data version a request is answered at (ContextWithVersion) and
// the change history's position read with it, which its lists then report (SyncPositionIn).
func ContextWithVersionAndPosition(ctx context.Context, v int64, p SyncPosition) context.Context {
	return context.WithValue(ContextWithVersion(ctx, v), positionKey{}, p)
}

// SyncPositionIn returns the change history position ctx records, if any.
func SyncPositionIn(ctx context.Context) (SyncPosition, bool) {
	if ctx == nil {
		return SyncPosition{}, false
	}
	p, ok := ctx.Value(positionKey{}).(SyncPosition)
	return p, ok
}

// VersionIn returns the data version ctx records, if any.
func VersionIn(ctx context.Context) (int64, bool) {
	if ctx == nil {
		return 0, false
	}
	v, ok := ctx.Value(versionKey{}).(int64)
	return v, ok
}
