package controllers

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/controllers/endpoint"
	"calendar/models"
)

// SyncInput is the sync_token parameter of the five lists.
type SyncInput struct {
	SyncToken endpoint.Opt[string] `param:"sync_token" doc:"A position in the change history, from the X-Sync-Token header of an earlier list answer (or the links between the pages of a sync). The list then holds the records that changed since that position and pass the filters now, and deleted the IDs of those that changed and do not (deleted, trashed, no longer visible to the caller, or no longer matching), ordered by ID and paged as usual; the default date window of the event list does not apply. Follow the answer's next links to page through one sync: they carry a token that fixes what the sync covers. Keep the X-Sync-Token of the last page for the next sync. A token older than the change history's retention, or one this service did not hand out, is 410 sync_token_expired."`
}

// SyncTokenHeader is the header of every list answer that holds its position in the change history.
const SyncTokenHeader = "X-Sync-Token"

// defaultSyncRetention is how long changes are kept when the configuration does not say.
const defaultSyncRetention = 720 * time.Hour

// SyncRetention is how long the change history is kept.
func (a *App) SyncRetention() time.Duration {
	if a.Config.SyncRetention > 0 {
		return a.Config.SyncRetention
	}
	return defaultSyncRetention
}

// syncKeys holds the key that signs sync tokens, read once from the database, which every instance shares.
type syncKeys struct {
	mu  sync.Mutex
	key []byte
}

var tokenKeys sync.Map // *models.Store → *syncKeys: one key per database the process serves

// loadSyncKey reads (or creates) the key that signs sync tokens when the service starts, so that lists do not
// wait for it; when the database does not answer yet, the first list reads it.
func (a *App) loadSyncKey() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := a.syncKey(ctx, a.Store); err != nil {
		a.Log.Warn("reading the sync token key", "error", err)
	}
}

// syncKey returns the key that signs sync tokens, creating it in the database on first use.
func (a *App) syncKey(ctx context.Context, store *models.Store) ([]byte, error) {
	v, _ := tokenKeys.LoadOrStore(a.Store, &syncKeys{})
	k := v.(*syncKeys)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key == nil {
		key, err := store.ServiceKey(ctx, "sync_token")
		if err != nil {
			return nil, err
		}
		k.key = key
	}
	return k.key, nil
}

// syncPage is the part of one list answer that sync decides: which records the page covers.
type syncPage struct {
	// active says that the request sent a sync_token: the list then holds only ids, and deleted the others.
	active bool
	// ids are the IDs of the page's changed records, in ID order; total counts the changed records of every page.
	ids   []uint64
	total int64
	// linkToken is the sync_token the answer's links carry: the request's start and the position it answers up to.
	linkToken string
}

// SyncTokenExpiredDoc describes the 410 answer of the lists to a sync_token they refuse.
const SyncTokenExpiredDoc = "A sync_token older than the change history's retention, or not handed out by this " +
	"service (sync_token_expired): list again without it"

// errSyncTokenExpired is the answer to an expired, unknown or forged sync token.
var errSyncTokenExpired = models.Errorf(models.KindGone, "sync_token_expired",
	"The sync token has expired or is not valid; list again without it to start a new sync")

// beginSync reads the change history for a list request: it sets X-Sync-Token to the current position (read
// before the list's own queries, so it is no later than the data the answer shows) and, when the request sent a
// sync_token, returns the page of changed records of kind the answer covers.
func (a *App) beginSync(c *gin.Context, store *models.Store, kind models.ChangeKind, in SyncInput,
	page models.Page) (syncPage, error) {
	key, err := a.syncKey(c.Request.Context(), store)
	if err != nil {
		return syncPage{}, err
	}
	now := time.Now()
	if !in.SyncToken.Set {
		pos, err := store.SyncPosition(c.Request.Context())
		if err != nil {
			return syncPage{}, err
		}
		c.Header(SyncTokenHeader, models.EncodeSyncToken(key, models.SyncToken{From: pos, Minted: now}))
		return syncPage{}, nil
	}
	if in.SyncToken.V == "" {
		return syncPage{}, models.InvalidParam("sync_token", "must not be empty")
	}
	tok, err := models.DecodeSyncToken(key, in.SyncToken.V)
	if err != nil || tok.Minted.Before(now.Add(-a.SyncRetention())) || tok.Minted.After(now.Add(time.Minute)) {
		return syncPage{}, errSyncTokenExpired
	}
	until, untilMinted := tok.Until, tok.UntilMinted
	if until == nil {
		pos, err := store.SyncPosition(c.Request.Context())
		if err != nil {
			return syncPage{}, err
		}
		until, untilMinted = &pos, now
	}
	ids, total, err := store.ChangedIDs(kind, tok.From, *until, page)
	if errors.Is(err, models.ErrUnknownPosition) {
		return syncPage{}, errSyncTokenExpired
	}
	if err != nil {
		return syncPage{}, err
	}
	c.Header(SyncTokenHeader, models.EncodeSyncToken(key, models.SyncToken{From: *until, Minted: untilMinted}))
	link := models.EncodeSyncToken(key, models.SyncToken{From: tok.From, Until: until, Minted: tok.Minted,
		UntilMinted: untilMinted})
	return syncPage{active: true, ids: ids, total: total, linkToken: link}, nil
}

// deleted returns the page's IDs that the list did not show, in ID order: never nil, so it is written as [].
func (p syncPage) deleted(shown []uint64) []uint64 {
	out := []uint64{}
	for _, id := range p.ids {
		if !slices.Contains(shown, id) {
			out = append(out, id)
		}
	}
	return out
}
