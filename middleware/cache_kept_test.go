package middleware

import (
	"testing"
	"time"

	"calendar/models"
)

// TestAKeptAnswerLastsUntilARecordItIsBuiltFromChanges checks the marks: an answer built at a version is served
// while the records it names are unchanged, and no longer once one of them is marked at a later version; changes
// marked at or before its version are ones it shows already.
func TestAKeptAnswerLastsUntilARecordItIsBuiltFromChanges(t *testing.T) {
	k := newKeptAnswers(nil, 1<<20, time.Hour)
	event := func(id uint64) models.RecordRef { return models.RecordRef{Kind: models.ChangeEvent, ID: id} }
	venue := models.RecordRef{Kind: models.ChangeVenue, ID: 1}
	k.mark([]models.RecordRef{event(1)}, 10)
	k.keep("one", &cachedAnswer{version: 10, builtFrom: []models.RecordRef{event(1), venue}}, models.SyncPosition{})
	k.keep("two", &cachedAnswer{version: 10, builtFrom: []models.RecordRef{event(2), venue}}, models.SyncPosition{})
	if k.get("one", 0, models.SyncPosition{}) == nil || k.get("two", 0, models.SyncPosition{}) == nil {
		t.Fatal("answers built after their records' last change are not served")
	}
	k.mark([]models.RecordRef{event(2), {Kind: models.ChangeVenue, ID: 2}}, 11)
	if k.get("one", 0, models.SyncPosition{}) == nil {
		t.Fatal("an answer is dropped by changes to records it is not built from")
	}
	if k.get("two", 0, models.SyncPosition{}) != nil {
		t.Fatal("an answer is served after a record it is built from changed")
	}
	k.mark([]models.RecordRef{venue}, 12)
	if k.get("one", 0, models.SyncPosition{}) != nil {
		t.Fatal("an answer is served after a linked record it is built from changed")
	}
}

// TestStartingOverDropsEveryKeptAnswerAndRefusesOlderOnes checks the floor: after a window that could not be
// followed record by record, nothing built before it is served or kept, and answers built since are.
func TestStartingOverDropsEveryKeptAnswerAndRefusesOlderOnes(t *testing.T) {
	k := newKeptAnswers(nil, 1<<20, time.Hour)
	refs := []models.RecordRef{{Kind: models.ChangeEvent, ID: 1}}
	k.keep("old", &cachedAnswer{version: 5, builtFrom: refs}, models.SyncPosition{})
	k.startOver(7)
	if k.get("old", 0, models.SyncPosition{}) != nil {
		t.Fatal("an answer kept before starting over is still served")
	}
	k.keep("late", &cachedAnswer{version: 6, builtFrom: refs}, models.SyncPosition{}) // built before, stored after
	if n, _ := k.answers.size(); n != 0 {
		t.Fatalf("an answer built before starting over was kept (%d answers)", n)
	}
	k.keep("new", &cachedAnswer{version: 7, builtFrom: refs}, models.SyncPosition{})
	if k.get("new", 0, models.SyncPosition{}) == nil {
		t.Fatal("an answer built at the version started over at is not served")
	}
}

// TestTooManyMarksStartOver checks that the marks stay bounded: past maxMarks records they start over.
func TestTooManyMarksStartOver(t *testing.T) {
	k := newKeptAnswers(nil, 1<<20, time.Hour)
	refs := make([]models.RecordRef, maxMarks+1)
	for i := range refs {
		refs[i] = models.RecordRef{Kind: models.ChangeEvent, ID: uint64(i + 1)}
	}
	k.mark(refs, 3)
	if len(k.marks) != 0 || k.floor != 3 {
		t.Fatalf("after %d marks: %d remembered, floor %d; want none and 3", len(refs), len(k.marks), k.floor)
	}
}
