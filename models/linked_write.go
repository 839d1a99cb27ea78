package models

import (
	"context"
	"strings"
)

// LinkedChange addresses a change of one venue or organizer (T) by a caller: the record with ID, or with Slug when
// it is set.
type LinkedChange[T any] struct {
	Caller *User
	ID     uint64
	Slug   string
	// Check, when set, runs once the record is found, locked and the change allowed, before anything changes: the
	// caller's precondition (If-Match). Its error aborts the change.
	Check func(tx *Store, rec *T) error
}

// LinkedUpdate is an update of a venue or organizer: Apply writes what the request sent into the record (and
// reports bad values as the error naming them); the unit of work saves it.
type LinkedUpdate[T any] struct {
	LinkedChange[T]
	Apply func(tx *Store, rec *T) error
}

// LinkedRemoval is the delete of a venue or organizer: Force deletes it for good, else it goes to the trash.
type LinkedRemoval[T any] struct {
	LinkedChange[T]
	Force bool
	// Done, when set, runs in the same transaction with the record as the answer shows it: as it was, before a
	// permanent delete; trashed, after a trashing.
	Done func(tx *Store, rec *T) error
}

// check runs c.Check when it is set.
func (c LinkedChange[T]) check(tx *Store, rec *T) error {
	if c.Check == nil {
		return nil
	}
	return c.Check(tx, rec)
}

// findLinkedChange reads and locks the record c addresses and checks that c.Caller may change it (allowed is
// CanEdit or CanDelete). An unknown record is ErrNotFound, a caller without the right Forbidden.
func findLinkedChange[T any, P LinkedRecord[T]](tx *Store, c LinkedChange[T], allowed func(*User, Owned) bool) (*T, error) {
	var rec *T
	var err error
	if c.Slug != "" {
		rec, err = FindLinkedBySlug[T, P](tx, c.Slug, true)
	} else {
		rec, err = FindLinked[T, P](tx, c.ID, true)
	}
	if err != nil {
		return nil, err
	}
	if !allowed(c.Caller, P(rec).Linked().Owned()) {
		return nil, Forbidden()
	}
	return rec, nil
}

// UpdateLinked changes a venue or organizer in one transaction of its own and returns it as saved. In this order:
// an unknown record is ErrNotFound; a caller who may not edit it is Forbidden; then u.Check, u.Apply (whose error,
// such as the bad values it found, aborts the update) and the save.
func UpdateLinked[T any, P LinkedRecord[T]](ctx context.Context, s *Store, u LinkedUpdate[T]) (*T, error) {
	var out *T
	err := s.Tx(ctx, func(tx *Store) error {
		rec, err := findLinkedChange[T, P](tx, u.LinkedChange, (*User).CanEdit)
		if err != nil {
			return err
		}
		if err := u.check(tx, rec); err != nil {
			return err
		}
		if err := u.Apply(tx, rec); err != nil {
			return err
		}
		out = rec
		return SaveLinked[T, P](tx, rec)
	})
	return out, err
}

// RemoveLinked trashes or deletes a venue or organizer in one transaction of its own, and unlinks it from every
// event. In this order: an unknown record is ErrNotFound; a caller who may not delete it is Forbidden; a record
// already in the trash is Gone (*-is-in-trash) unless Force; then r.Check, r.Done and the change.
func RemoveLinked[T any, P LinkedRecord[T]](ctx context.Context, s *Store, r LinkedRemoval[T]) (*T, error) {
	var out *T
	err := s.Tx(ctx, func(tx *Store) error {
		rec, err := findLinkedChange[T, P](tx, r.LinkedChange, (*User).CanDelete)
		if err != nil {
			return err
		}
		if !r.Force && *P(rec).Linked().Status == StatusTrash {
			name := strings.TrimSuffix(kindOf[T]().table, "s")
			return Errorf(KindGone, name+"-is-in-trash", "The %s is already trashed", name)
		}
		if err := r.check(tx, rec); err != nil {
			return err
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

// LinkedCreation is the create of a venue or organizer by a caller.
type LinkedCreation[T any] struct {
	Caller *User
	// Assign fills the new record, whose author is the caller and publication date now, from the request (the
	// kind's defaults included); its error, such as the bad values it found, aborts the create.
	Assign func(tx *Store, rec *T) error
	// Sent are the names of the parameters the request sent, and Password the password sent in plain text: an
	// existing record of the same name ignoring case that has the new record's value for each of them (and this
	// password, when sent) is the answer instead of a new record.
	Sent     map[string]bool
	Password string
}

// same tells whether existing has the values of rec for every parameter c sent, its password included.
func (c LinkedCreation[T]) same(existing map[string]any, existingPassword string, rec map[string]any) bool {
	for name := range c.Sent {
		if v, known := rec[name]; known && v != existing[name] {
			return false
		}
	}
	switch {
	case !c.Sent["password"]:
		return true
	case c.Password == "":
		return existingPassword == ""
	}
	return RecordPasswordMatches(existingPassword, c.Password)
}

// AddLinked creates a venue or organizer in one transaction of its own, or finds the identical one that exists
// (created false): a caller who may not create records is Forbidden; the rest is InsertLinked's.
func AddLinked[T any, P LinkedRecord[T]](ctx context.Context, s *Store, c LinkedCreation[T]) (rec *T, created bool, err error) {
	if !c.Caller.CanCreate() {
		return nil, false, Forbidden()
	}
	err = s.Tx(ctx, func(tx *Store) error {
		rec, created, err = InsertLinked[T, P](tx, c)
		return err
	})
	return rec, created, err
}

// InsertLinked creates a venue or organizer in tx, the transaction of the write that asks for it, or returns an
// identical existing one (created false). In this order: c.Assign, whose error aborts; then the duplicate rule,
// under a lock on the name that concurrent creates of the same name wait for: among the records of the same name
// ignoring case that are not in the trash and the caller may read, the oldest with the values c sent is the answer;
// else the record is inserted with a slug of its own.
func InsertLinked[T any, P LinkedRecord[T]](tx *Store, c LinkedCreation[T]) (*T, bool, error) {
	rec := new(T)
	f := P(rec).Linked()
	*f.AuthorID = c.Caller.ID
	*f.PublishedAt = now()
	if err := c.Assign(tx, rec); err != nil {
		return nil, false, err
	}
	if err := LockLinkedNames[T, P](tx, *f.Name); err != nil {
		return nil, false, err
	}
	candidates, err := LinkedDuplicates[T, P](tx, *f.Name)
	if err != nil {
		return nil, false, err
	}
	values := paramValues[T, P](rec)
	for i := range candidates {
		existing := &candidates[i]
		f := P(existing).Linked()
		if c.Caller.CanRead(f.Owned()) && c.same(paramValues[T, P](existing), *f.Password, values) {
			return existing, false, nil
		}
	}
	return rec, true, CreateLinked[T, P](tx, rec)
}
