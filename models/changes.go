package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// ChangeKind is the kind of record a change history row is about (the changes table's kind column, which the
// triggers of the record tables fill).
type ChangeKind int

// The kinds of record the change history follows.
const (
	ChangeEvent     ChangeKind = 1
	ChangeVenue     ChangeKind = 2
	ChangeOrganizer ChangeKind = 3
	ChangeCategory  ChangeKind = 4
	ChangeTag       ChangeKind = 5
)

// Name is the kind's singular name as webhook types spell it: event, venue, organizer, category, tag.
func (k ChangeKind) Name() string {
	switch k {
	case ChangeEvent:
		return "event"
	case ChangeVenue:
		return "venue"
	case ChangeOrganizer:
		return "organizer"
	case ChangeCategory:
		return "category"
	case ChangeTag:
		return "tag"
	}
	return ""
}

// SyncPosition is a point in the change history: exactly the changes a reader had seen. On SQLite, which commits
// one writer at a time in change order, it is the last change ID committed. On PostgreSQL, where change IDs are
// taken before their transactions commit, in any order, it is the reader's snapshot (pg_snapshot text): a change
// belongs to it when its transaction is visible in that snapshot, so a change that commits after a later ID was
// read is never skipped.
type SyncPosition struct {
	Seq  int64
	Snap string
}

// snapshotText is the shape of pg_snapshot's text form: xmin:xmax:xip,xip,…
var snapshotText = regexp.MustCompile(`^[0-9]{1,20}:[0-9]{1,20}:([0-9]{1,20}(,[0-9]{1,20})*)?$`)

// ErrUnknownPosition is what the change history answers for a position it never handed out.
var ErrUnknownPosition = errors.New("models: unknown change history position")

// SyncPosition returns the change history's current position. Read before a list's own queries, it is no later
// than the data the list then shows. A position ctx records (read with the request's data version) is taken as is.
func (s *Store) SyncPosition(ctx context.Context) (SyncPosition, error) {
	if p, ok := SyncPositionIn(ctx); ok {
		return p, nil
	}
	var p SyncPosition
	if s.dialect == Postgres {
		err := s.db.WithContext(ctx).Raw("SELECT CAST(pg_current_snapshot() AS TEXT)").Scan(&p.Snap).Error
		return p, err
	}
	err := s.db.WithContext(ctx).Raw("SELECT COALESCE(MAX(id), 0) FROM changes").Scan(&p.Seq).Error
	return p, err
}

// checkPosition refuses a position this dialect cannot have handed out.
func (s *Store) checkPosition(p SyncPosition) error {
	if s.dialect == Postgres {
		if !snapshotText.MatchString(p.Snap) || p.Seq != 0 {
			return ErrUnknownPosition
		}
		return nil
	}
	if p.Snap != "" || p.Seq < 0 {
		return ErrUnknownPosition
	}
	return nil
}

// changeWindow scopes the changes made after from and seen by until (of every kind; callers narrow it).
func (s *Store) changeWindow(from, until SyncPosition) (func(*gorm.DB) *gorm.DB, error) {
	if err := s.checkPosition(from); err != nil {
		return nil, err
	}
	if err := s.checkPosition(until); err != nil {
		return nil, err
	}
	if s.dialect == Postgres {
		return func(db *gorm.DB) *gorm.DB {
			return db.Where(`xid >= pg_snapshot_xmin(CAST(? AS pg_snapshot))
				AND xid < pg_snapshot_xmax(CAST(? AS pg_snapshot))
				AND NOT pg_visible_in_snapshot(xid, CAST(? AS pg_snapshot))
				AND pg_visible_in_snapshot(xid, CAST(? AS pg_snapshot))`, from.Snap, until.Snap, from.Snap, until.Snap)
		}, nil
	}
	return func(db *gorm.DB) *gorm.DB { return db.Where("id > ? AND id <= ?", from.Seq, until.Seq) }, nil
}

// ChangedIDs returns one page of the IDs of the records of kind that changed after from and up to until, in ID
// order, and how many such records there are. It reads the changes index alone.
func (s *Store) ChangedIDs(kind ChangeKind, from, until SyncPosition, page Page) ([]uint64, int64, error) {
	window, err := s.changeWindow(from, until)
	if err != nil {
		return nil, 0, err
	}
	ofKind := func(db *gorm.DB) *gorm.DB { return db.Where("kind = ?", int(kind)) }
	var total int64
	if err := s.db.Table("changes").Scopes(ofKind, window).Select("COUNT(DISTINCT record_id)").Scan(&total).Error; err != nil {
		return nil, 0, err
	}
	ids := []uint64{}
	if total == 0 || int64(page.Offset()) >= total {
		return ids, total, nil
	}
	err = s.db.Table("changes").Scopes(ofKind, window).Distinct("record_id").Order("record_id").
		Offset(page.Offset()).Limit(page.Size).Pluck("record_id", &ids).Error
	return ids, total, err
}

// pruneBatch bounds how many changes one statement of PruneChanges deletes.
const pruneBatch = 10000

// PruneChanges deletes the changes recorded before cutoff and returns how many. It walks the history from its
// oldest change up to the first one young enough to keep, so it costs nothing when there is nothing to prune.
func (s *Store) PruneChanges(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.deleteInBatches(ctx, `DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE id <
		COALESCE((SELECT id FROM changes WHERE at >= ? ORDER BY id LIMIT 1), (SELECT MAX(id) + 1 FROM changes))
		ORDER BY id LIMIT ?)`, cutoff.Unix())
}

// deleteInBatches runs statement, a DELETE of at most the number its last parameter binds (pruneBatch), with
// args before that, until it deletes fewer, and returns how many rows it deleted in all.
func (s *Store) deleteInBatches(ctx context.Context, statement string, args ...any) (int64, error) {
	var deleted int64
	for {
		res := s.db.WithContext(ctx).Exec(statement, append(args, pruneBatch)...)
		if res.Error != nil {
			return deleted, res.Error
		}
		deleted += res.RowsAffected
		if res.RowsAffected < pruneBatch {
			return deleted, nil
		}
	}
}

// ServiceKey returns the secret named name that every instance sharing the database uses (to sign sync tokens,
// for one): the first instance to ask creates it, 32 random bytes in hex, and the others read that one.
func (s *Store) ServiceKey(ctx context.Context, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	db := s.db.WithContext(ctx)
	if err := db.Exec("INSERT INTO service_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
		name, hex.EncodeToString(fresh)).Error; err != nil {
		return nil, err
	}
	var value string
	if err := db.Raw("SELECT value FROM service_keys WHERE name = ?", name).Scan(&value).Error; err != nil {
		return nil, err
	}
	return hex.DecodeString(value)
}

// RecordRef names a record the change history follows: its kind and ID.
type RecordRef struct {
	Kind ChangeKind
	ID   uint64
}

// ChangedRecords returns the records of every kind that changed after from and up to until, each once, at most
// limit+1 of them (more than limit tells the caller the window is too large to follow record by record). It reads
// the changes index alone.
func (s *Store) ChangedRecords(from, until SyncPosition, limit int) ([]RecordRef, error) {
	window, err := s.changeWindow(from, until)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Kind     int
		RecordID uint64
	}
	err = s.db.Table("changes").Scopes(window).Where("kind IN (1, 2, 3, 4, 5)").
		Distinct("kind", "record_id").Limit(limit + 1).Scan(&rows).Error
	refs := make([]RecordRef, len(rows))
	for i, r := range rows {
		refs[i] = RecordRef{Kind: ChangeKind(r.Kind), ID: r.RecordID}
	}
	return refs, err
}
