package models

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/mattn/go-sqlite3"
	"gorm.io/gorm"
)

// The change history keeps, for a record deleted for good, its row as it was (Change.Old): JSON keyed by column,
// without the password, as the database's trigger wrote it. The functions below read such rows back into records,
// so that whoever tells of the deletion can show the record as a read showed it.

// DeletedRow is one deleted record of the change history: its ID and its row as it was (Change.Old).
type DeletedRow struct {
	ID  uint64
	Old string
}

// decodeRow sets the fields of dst, a pointer to a model, from the columns of row that it has. A value it cannot
// read leaves its field at its zero value: a deletion is told with what can be read of it.
func (s *Store) decodeRow(row string, dst any) {
	var columns map[string]json.RawMessage
	if json.Unmarshal([]byte(row), &columns) != nil {
		return
	}
	stmt := &gorm.Statement{DB: s.db}
	if stmt.Parse(dst) != nil {
		return
	}
	v := reflect.ValueOf(dst).Elem()
	for _, f := range stmt.Schema.Fields {
		if raw, ok := columns[f.DBName]; ok && f.DBName != "" {
			setColumn(f.ReflectValueOf(context.Background(), v), raw)
		}
	}
}

// setColumn sets field to a column's JSON value in either database's form: PostgreSQL writes booleans as JSON
// booleans and times in RFC 3339; SQLite writes booleans as 0 and 1 and times in its driver's text forms.
func setColumn(field reflect.Value, raw json.RawMessage) {
	switch field.Interface().(type) {
	case bool:
		var n float64
		if json.Unmarshal(raw, &n) == nil {
			field.SetBool(n != 0)
			return
		}
	case time.Time:
		var text string
		if json.Unmarshal(raw, &text) == nil {
			if t, ok := storedTime(text); ok {
				field.Set(reflect.ValueOf(t))
			}
			return
		}
	}
	_ = json.Unmarshal(raw, field.Addr().Interface())
}

// storedTime reads a time as either database writes it into JSON.
func storedTime(text string) (time.Time, bool) {
	for _, layout := range append([]string{time.RFC3339Nano}, sqlite3.SQLiteTimestampFormats...) {
		if t, err := time.Parse(layout, text); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// DeletedEvents reads the rows of deleted events back into events, with what a list reads with them: their
// images, and the venues, organizers and terms they linked to that still exist.
func (s *Store) DeletedEvents(rows []DeletedRow) ([]Event, error) {
	events := make([]Event, len(rows))
	var imageIDs []uint64
	for i, row := range rows {
		s.decodeRow(row.Old, &events[i])
		events[i].ID = row.ID
		if id := events[i].ImageID; id != nil {
			imageIDs = append(imageIDs, *id)
		}
	}
	images, err := s.imagesByID(imageIDs)
	if err != nil {
		return nil, err
	}
	for i := range events {
		if id := events[i].ImageID; id != nil {
			events[i].Image = images[*id]
		}
	}
	if err := s.fillModified(ChangeEvent, len(events), func(i int) (uint64, *time.Time) {
		return events[i].ID, &events[i].UpdatedAt
	}); err != nil {
		return nil, err
	}
	return events, s.LoadEventLinks(events)
}

// fillModified sets the modification dates that n deleted rows lack (SQLite's triggers keep none) to the time of
// each record's latest create or update in the change history, to the second, as the API shows dates. record
// gives the ID of the i-th row and where its date goes.
func (s *Store) fillModified(kind ChangeKind, n int, record func(i int) (uint64, *time.Time)) error {
	var ids []uint64
	for i := range n {
		if id, at := record(i); at.IsZero() {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var rows []struct {
		RecordID uint64
		At       int64
	}
	if err := s.db.Table("changes").Select("record_id, MAX(at) AS at").
		Where("kind = ? AND op IN ('c', 'u') AND record_id IN ?", int(kind), ids).Group("record_id").
		Scan(&rows).Error; err != nil {
		return err
	}
	last := make(map[uint64]time.Time, len(rows))
	for _, r := range rows {
		last[r.RecordID] = time.Unix(r.At, 0).UTC()
	}
	for i := range n {
		if id, at := record(i); at.IsZero() {
			*at = last[id]
		}
	}
	return nil
}

// DeletedLinked reads the rows of deleted venues or organizers (kind) back into records, with their images.
func DeletedLinked[T any, P LinkedRecord[T]](s *Store, kind ChangeKind, rows []DeletedRow) ([]T, error) {
	recs := make([]T, len(rows))
	var imageIDs []uint64
	for i, row := range rows {
		s.decodeRow(row.Old, &recs[i])
		f := P(&recs[i]).Linked()
		*f.ID = row.ID
		if id := *f.ImageID; id != nil {
			imageIDs = append(imageIDs, *id)
		}
	}
	images, err := s.imagesByID(imageIDs)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		f := P(&recs[i]).Linked()
		if id := *f.ImageID; id != nil {
			*f.Image = images[*id]
		}
	}
	return recs, s.fillModified(kind, len(recs), func(i int) (uint64, *time.Time) {
		f := P(&recs[i]).Linked()
		return *f.ID, f.UpdatedAt
	})
}

// DeletedTerms reads the rows of deleted categories or tags back into terms.
func (s *Store) DeletedTerms(rows []DeletedRow) []Term {
	terms := make([]Term, len(rows))
	for i, row := range rows {
		s.decodeRow(row.Old, &terms[i])
		terms[i].ID = row.ID
	}
	return terms
}

// imagesByID reads the images with ids, keyed by ID.
func (s *Store) imagesByID(ids []uint64) (map[uint64]*Image, error) {
	out := map[uint64]*Image{}
	if len(ids) == 0 {
		return out, nil
	}
	var images []Image
	if err := s.db.Where("id IN ?", ids).Find(&images).Error; err != nil {
		return nil, err
	}
	for i := range images {
		out[images[i].ID] = &images[i]
	}
	return out, nil
}
