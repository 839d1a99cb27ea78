package models

import (
	"errors"
	"fmt"
)

// The rules of a write that the values sent must pass, for the Apply and Assign steps of the units of work: who
// may be a record's author, and which event may be an event's parent. A value that breaks one is the parameter's
// error (InvalidParam), or Forbidden where the reference answers so.

// AssignEventAuthor makes user id the author of e, for caller: caller itself, or another user for callers who may
// edit that user's events (editors and administrators). Another user for anyone else, or an unknown user, is the
// author parameter's error. An update that names the current author changes nothing.
func (s *Store) AssignEventAuthor(caller *User, e *Event, id uint64, creating bool) error {
	if id == e.AuthorID && !creating {
		return nil
	}
	if id != caller.ID && !caller.CanEdit(Owned{AuthorID: id, Status: e.Status}) {
		return InvalidParam("author", "only editors and administrators may assign events to other users")
	}
	if err := s.userExists(id); errors.Is(err, ErrNotFound) {
		return InvalidParam("author", "must be the ID of an existing user")
	} else if err != nil {
		return err
	}
	e.AuthorID = id
	return nil
}

// CheckLinkedAuthor tells whether caller may make user id the author of a venue or organizer: an unknown user is
// the author parameter's error; another user than the caller needs the right to edit that user's records, else
// the write is Forbidden (rest_cannot_edit_others).
func (s *Store) CheckLinkedAuthor(caller *User, id uint64) error {
	if err := s.userExists(id); errors.Is(err, ErrNotFound) {
		return InvalidParam("author", fmt.Sprintf("no user has the ID %d", id))
	} else if err != nil {
		return err
	}
	if id != caller.ID && !caller.CanEdit(Owned{AuthorID: id, Status: StatusDraft}) {
		return Errorf(KindForbidden, "rest_cannot_edit_others",
			"Sorry, you are not allowed to create or edit records as this user.")
	}
	return nil
}

// userExists answers ErrNotFound for an unknown user ID.
func (s *Store) userExists(id uint64) error {
	_, err := s.UserByID(s.db.Statement.Context, id)
	return err
}

// AssignEventParent makes event id the parent of e, for caller; 0 removes the parent. The parent must be an event
// the caller may read, and neither e itself nor one of its descendants; else it is the parent parameter's error.
func (s *Store) AssignEventParent(caller *User, e *Event, id uint64) error {
	if id == 0 {
		e.ParentID = nil
		return nil
	}
	parent, err := s.EventByID(id)
	if errors.Is(err, ErrNotFound) || (err == nil && !caller.CanRead(parent.Owned())) {
		return InvalidParam("parent", "no event with this ID exists")
	}
	if err == nil {
		err = s.CheckEventParent(e.ID, id)
	}
	if errors.Is(err, ErrParentCycle) {
		return InvalidParam("parent", "must not be the event itself or one of its descendants")
	}
	if err != nil {
		return err
	}
	e.ParentID = &id
	return nil
}
