package models

import (
	"context"
	"testing"
)

func TestWhoMayBeAnEventsAuthor(t *testing.T) {
	s := testStore(t).WithContext(context.Background())
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	editor := testUser(t, s, "editor", RoleEditor)

	for _, c := range []struct {
		name     string
		caller   *User
		current  uint64
		id       uint64
		creating bool
		want     string // the author parameter's reason, "" when the author is assigned
	}{
		{"an author names themself", author, 0, author.ID, true, ""},
		{"an author names another user", author, 0, editor.ID, true, "only editors and administrators may assign events to other users"},
		{"an editor names another user", editor, 0, author.ID, true, ""},
		{"an editor names an unknown user", editor, 0, 999999, true, "must be the ID of an existing user"},
		{"a contributor's update names the event's current author", contributor, editor.ID, editor.ID, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Event{AuthorID: c.current, Status: StatusDraft}
			err := s.AssignEventAuthor(c.caller, e, c.id, c.creating)
			if got := invalidParams(err)["author"]; got != c.want || (c.want == "" && err != nil) {
				t.Fatalf("author %q, err %v; want %q", got, err, c.want)
			}
			if c.want == "" && e.AuthorID != c.id {
				t.Fatalf("the author is %d, want %d", e.AuthorID, c.id)
			}
		})
	}
}

func TestWhoMayBeAVenuesOrOrganizersAuthor(t *testing.T) {
	s := testStore(t).WithContext(context.Background())
	author := testUser(t, s, "author", RoleAuthor)
	editor := testUser(t, s, "editor", RoleEditor)

	if err := s.CheckLinkedAuthor(author, author.ID); err != nil {
		t.Fatalf("an author naming themself: %v", err)
	}
	if err := s.CheckLinkedAuthor(editor, author.ID); err != nil {
		t.Fatalf("an editor naming another user: %v", err)
	}
	if err := s.CheckLinkedAuthor(author, editor.ID); errorCode(err) != "rest_cannot_edit_others" {
		t.Fatalf("an author naming another user: %v", err)
	}
	if err := s.CheckLinkedAuthor(editor, 999999); invalidParams(err)["author"] != "no user has the ID 999999" {
		t.Fatalf("an unknown user: %v", err)
	}
}

func TestWhichEventMayBeAnEventsParent(t *testing.T) {
	s := testStore(t).WithContext(context.Background())
	author := testUser(t, s, "author", RoleAuthor)
	contributor := testUser(t, s, "contributor", RoleContributor)
	festival := createEvent(t, s, author, "Festival")
	concert := createEvent(t, s, author, "Concert")
	draft := createEvent(t, s, contributor, "Idea") // a contributor's event is pending: others' contributors cannot read it
	if err := s.AssignEventParent(author, concert, festival.ID); err != nil || concert.ParentID == nil || *concert.ParentID != festival.ID {
		t.Fatalf("a readable parent: %v, %v", concert.ParentID, err)
	}
	if err := s.SaveEvent(concert); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		caller *User
		child  *Event
		parent uint64
		want   string
	}{
		{"the event itself", author, festival, festival.ID, "must not be the event itself or one of its descendants"},
		{"one of its descendants", author, festival, concert.ID, "must not be the event itself or one of its descendants"},
		{"an unknown event", author, concert, 999999, "no event with this ID exists"},
		{"an event the caller may not read", testUser(t, s, "other", RoleContributor), concert, draft.ID, "no event with this ID exists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := c.child.ParentID
			err := s.AssignEventParent(c.caller, c.child, c.parent)
			if invalidParams(err)["parent"] != c.want || c.child.ParentID != before {
				t.Fatalf("%v, parent %v; want %q and no change", err, c.child.ParentID, c.want)
			}
		})
	}

	if err := s.AssignEventParent(author, concert, 0); err != nil || concert.ParentID != nil {
		t.Fatalf("0 removes the parent: %v, %v", concert.ParentID, err)
	}
}
