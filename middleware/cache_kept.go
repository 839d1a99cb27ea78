package middleware

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"calendar/models"
)

// keptAnswers are the answers kept across writes: answers whose handler declared the records they are built from
// (controllers.BuiltFrom), kept under a key without the data version, each with the version it was built at. Such
// an answer is served as long as no record it names has changed since: the answers follow the change history,
// which every write fills in its own transaction, on any instance sharing the database. A write then drops only
// the answers it can have changed: a new event leaves every other event's answer in place, unless it changes the
// count of a category or tag that answer shows.
//
// Following works in versions. When a request that finds a kept answer has read a newer data version than the
// answers have followed, the changes committed between the position followed and the one read with that version
// are read once (one query per version at most, whatever the number of requests), and each changed record is
// marked with the version read. An answer built at version v is good while every record it names was last marked
// at v or before: a change marked later was either committed after the answer's build read its version, or (marked
// late, having been committed before) is one the answer may already show, which costs a build and is never stale.
type keptAnswers struct {
	store     *models.Store
	answers   *answerCache
	retention time.Duration // of the change history: a position older than half of it is not followed

	mu         sync.Mutex   // taken to follow
	followed   atomic.Int64 // the data version followed up to
	position   models.SyncPosition
	followedAt time.Time   // when position was read
	started    atomic.Bool // whether following has started (at the first answer kept)

	marksMu sync.RWMutex
	marks   map[models.RecordRef]int64 // each changed record, with the version it was marked at
	floor   int64                      // answers built before this version are never served
}

const (
	// maxFollowedChanges bounds the records one follow reads: a larger window (a bulk import, a long idle spell)
	// drops every kept answer instead.
	maxFollowedChanges = 10000
	// maxMarks bounds the records remembered as changed; past it every kept answer is dropped and marks start
	// over.
	maxMarks = 200000
)

func newKeptAnswers(store *models.Store, maxBytes uint64, retention time.Duration) *keptAnswers {
	return &keptAnswers{store: store, answers: newAnswerCache(maxBytes), retention: retention,
		marks: map[models.RecordRef]int64{}}
}

// follow brings the marks up to version, read with pos, and tells whether they are there: after it every change
// that version includes is marked. One request follows each new version; requests that come meanwhile do not wait
// for its query (which waits for a database connection like any other) and are answered without the kept answers.
// Only a request that finds a kept answer follows, so requests for other answers never pay for it.
func (k *keptAnswers) follow(version int64, pos models.SyncPosition) bool {
	if version <= k.followed.Load() {
		return true
	}
	if !k.started.Load() || !k.mu.TryLock() {
		return false
	}
	defer k.mu.Unlock()
	if version <= k.followed.Load() {
		return true
	}
	if refs, ok := k.changedSince(pos); ok {
		k.mark(refs, version)
	} else {
		k.startOver(version)
	}
	k.followedTo(version, pos)
	return true
}

// startFollowing makes version, read with pos, the first one followed, unless another was.
func (k *keptAnswers) startFollowing(version int64, pos models.SyncPosition) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started.Load() {
		return
	}
	k.startOver(version)
	k.followedTo(version, pos)
	k.started.Store(true)
}

// followedTo records that every change up to version, read with pos, is marked (mu held).
func (k *keptAnswers) followedTo(version int64, pos models.SyncPosition) {
	k.position, k.followedAt = pos, time.Now()
	k.followed.Store(version)
}

// changedSince reads the records changed after the position followed and up to pos; false when they cannot be
// known record by record: the history may have been pruned since, the window is too large, or the read failed.
func (k *keptAnswers) changedSince(pos models.SyncPosition) ([]models.RecordRef, bool) {
	if time.Since(k.followedAt) > k.retention/2 {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	refs, err := k.store.WithContext(ctx).ChangedRecords(k.position, pos, maxFollowedChanges)
	if err != nil || len(refs) > maxFollowedChanges {
		return nil, false
	}
	return refs, true
}

// mark records refs as changed at version.
func (k *keptAnswers) mark(refs []models.RecordRef, version int64) {
	k.marksMu.Lock()
	defer k.marksMu.Unlock()
	for _, ref := range refs {
		k.marks[ref] = version
	}
	if len(k.marks) > maxMarks {
		k.dropAll(version)
	}
}

// startOver drops every kept answer: only answers built at version or later are served from now on.
func (k *keptAnswers) startOver(version int64) {
	k.marksMu.Lock()
	defer k.marksMu.Unlock()
	k.dropAll(version)
}

// dropAll empties the answers and marks and raises the floor to version (marksMu held).
func (k *keptAnswers) dropAll(version int64) {
	k.marks = map[models.RecordRef]int64{}
	k.floor = version
	k.answers.clear()
}

// get returns the answer kept for key if no record it names changed since it was built, for a request that read
// version and pos.
func (k *keptAnswers) get(key string, version int64, pos models.SyncPosition) *cachedAnswer {
	a, ok := k.answers.get(key)
	if !ok || !k.follow(version, pos) || !k.current(a) {
		return nil
	}
	return a
}

// current tells whether no record a names was marked after the version a was built at.
func (k *keptAnswers) current(a *cachedAnswer) bool {
	k.marksMu.RLock()
	defer k.marksMu.RUnlock()
	if a.version < k.floor {
		return false
	}
	for _, ref := range a.builtFrom {
		if k.marks[ref] > a.version {
			return false
		}
	}
	return true
}

// keep stores a, built at a.version (read with pos) from a.builtFrom, under key, unless it is older than every
// answer served. The first answer kept starts the following at its version.
func (k *keptAnswers) keep(key string, a *cachedAnswer, pos models.SyncPosition) {
	if !k.started.Load() {
		k.startFollowing(a.version, pos)
	}
	k.marksMu.RLock()
	older := a.version < k.floor
	k.marksMu.RUnlock()
	if !older {
		k.answers.set(key, a)
	}
}
