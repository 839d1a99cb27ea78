package models

import "context"

// CanManage tells whether u may create, update and delete terms of the taxonomy: authors and above for
// categories, editors and above for tags.
func (tax *Taxonomy) CanManage(u *User) bool {
	if tax.hierarchical {
		return u.CanManageCategories()
	}
	return u.CanManageTags()
}

// TermWrite is one write of a term by a caller: a create (ID 0), an update or a delete of the term ID of Tax.
type TermWrite struct {
	Tax    *Taxonomy
	Caller *User
	ID     uint64
	Input  TermInput
	// Lock locks the term's row before it is read, so that what Check looks at still holds at the commit.
	Lock bool
	// Check, when set, runs once the term is found, the input valid and the write allowed, before anything
	// changes: the caller's precondition (If-Match). Its error aborts the write.
	Check func(tx *Store, cur *Term) error
	// Done, when set, runs in the same transaction with the term written, or for a delete with the term as it was
	// while it and its ancestors still exist: where the caller builds its answer.
	Done func(tx *Store, t *Term) error
}

// SaveTerm creates (w.ID 0) or updates a term in one transaction of its own. In this order: an unknown term is
// ErrNotFound; bad input (a parent that does not exist, or that would make a cycle) is the error naming it; a
// caller who may not manage the taxonomy is Forbidden; then w.Check; then the write, whose name and slug rules
// answer term_exists or duplicate_term_slug.
func (s *Store) SaveTerm(ctx context.Context, w TermWrite) (*Term, error) {
	var out *Term
	err := s.Tx(ctx, func(tx *Store) error {
		var cur *Term
		if w.ID != 0 {
			var err error
			if cur, err = tx.findTermForWrite(w); err != nil {
				return err
			}
		}
		if err := tx.CheckTermInput(w.Tax, w.ID, w.Input); err != nil {
			return err
		}
		if err := w.allowed(tx, cur); err != nil {
			return err
		}
		var t *Term
		var err error
		if cur == nil {
			t, err = tx.CreateTerm(w.Tax, w.Input)
		} else {
			t, err = tx.UpdateTerm(w.Tax, cur.ID, w.Input)
		}
		if err != nil {
			return err
		}
		out = t
		return w.done(tx, t)
	})
	return out, err
}

// RemoveTerm deletes the term w.ID for good, in one transaction of its own, and returns it as it was: an unknown
// term is ErrNotFound, a caller who may not manage the taxonomy Forbidden; then w.Check and w.Done run, and the
// delete (whose rules may refuse it with rest_cannot_delete).
func (s *Store) RemoveTerm(ctx context.Context, w TermWrite) (*Term, error) {
	var out *Term
	err := s.Tx(ctx, func(tx *Store) error {
		cur, err := tx.findTermForWrite(w)
		if err != nil {
			return err
		}
		if err := w.allowed(tx, cur); err != nil {
			return err
		}
		if err := w.done(tx, cur); err != nil {
			return err
		}
		out, err = tx.DeleteTerm(w.Tax, cur.ID)
		return err
	})
	return out, err
}

// findTermForWrite reads the term a write addresses, locking its row first when w asks for it.
func (s *Store) findTermForWrite(w TermWrite) (*Term, error) {
	if w.Lock {
		if err := s.LockTerm(w.Tax, w.ID); err != nil {
			return nil, err
		}
	}
	return s.Term(w.Tax, w.ID)
}

// allowed refuses a caller who may not manage the taxonomy, then runs the caller's precondition on cur (nil for a
// create, which has none).
func (w TermWrite) allowed(tx *Store, cur *Term) error {
	if !w.Tax.CanManage(w.Caller) {
		return Forbidden()
	}
	if w.Check == nil || cur == nil {
		return nil
	}
	return w.Check(tx, cur)
}

// done runs w.Done when it is set.
func (w TermWrite) done(tx *Store, t *Term) error {
	if w.Done == nil {
		return nil
	}
	return w.Done(tx, t)
}
