package models

import (
	"context"
	"strings"
)

// LinkedRemoval is the delete of one venue or organizer (T) by a caller: found by ID, or by Slug when it is set;
// Force deletes it for good, else it goes to the trash.
type LinkedRemoval[T any] struct {
	Caller *User
	ID     uint64
	Slug   string
	Force  bool
	// Check, when set, runs once the record is found, locked and the delete allowed, before anything changes: the
	// caller's precondition (If-Match). Its error aborts the delete.
	Check func(tx *Store, rec *T) error
	// Done, when set, runs in the same transaction with the record as the answer shows it: as it was, before a
	// permanent delete; trashed, after a trashing.
	Done func(tx *Store, rec *T) error
}

// RemoveLinked trashes or deletes a venue or organizer in one transaction of its own, and unlinks it from every
// event. In this order: an unknown record is ErrNotFound; a caller who may not delete it is Forbidden; a record
// already in the trash is Gone (*-is-in-trash) unless Force; then r.Check, r.Done and the change.
func RemoveLinked[T any, P LinkedRecord[T]](ctx context.Context, s *Store, r LinkedRemoval[T]) (*T, error) {
	var out *T
	err := s.Tx(ctx, func(tx *Store) error {
		var rec *T
		var err error
		if r.Slug != "" {
			rec, err = FindLinkedBySlug[T, P](tx, r.Slug, true)
		} else {
			rec, err = FindLinked[T, P](tx, r.ID, true)
		}
		if err != nil {
			return err
		}
		f := P(rec).Linked()
		if !r.Caller.CanDelete(f.Owned()) {
			return Forbidden()
		}
		if !r.Force && *f.Status == StatusTrash {
			name := strings.TrimSuffix(kindOf[T]().table, "s")
			return Errorf(KindGone, name+"-is-in-trash", "The %s is already trashed", name)
		}
		if r.Check != nil {
			if err := r.Check(tx, rec); err != nil {
				return err
			}
		}
		out = rec
		if r.Force {
			if err := r.done(tx, rec); err != nil {
				return err
			}
			return DeleteLinked[T, P](tx, rec)
		}
		if err := TrashLinked[T, P](tx, rec); err != nil {
			return err
		}
		return r.done(tx, rec)
	})
	return out, err
}

// done runs r.Done when it is set.
func (r LinkedRemoval[T]) done(tx *Store, rec *T) error {
	if r.Done == nil {
		return nil
	}
	return r.Done(tx, rec)
}
