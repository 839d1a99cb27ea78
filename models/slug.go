package models

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/gosimple/slug"
)

// maxSlugLen leaves room for a "-NNN" suffix within the 200-character column.
const maxSlugLen = 190

// Slugify turns a title or name (or a slug the user sent) into a slug: lower-case ASCII letters, digits and
// hyphens. Text with nothing to keep (emoji only, punctuation only) gives fallback.
func Slugify(text, fallback string) string {
	s := slug.Make(text)
	if len(s) > maxSlugLen {
		s = strings.TrimRight(s[:maxSlugLen], "-")
	}
	if s == "" {
		return fallback
	}
	return s
}

// UniqueSlug returns base, or base-2, base-3, …, whichever no other row of table (except the row
// exceptID) uses. Call it inside the transaction that writes the row: on PostgreSQL it first takes a
// transaction-scoped advisory lock on (table, base), so concurrent writers of the same base queue instead of
// colliding; SQLite already serialises write transactions.
func (s *Store) UniqueSlug(table, base string, exceptID uint64) (string, error) {
	if err := s.lockSlug(slugLockKey(table, base)); err != nil {
		return "", err
	}
	// Candidates are checked by exact match, a batch at a time, so every lookup uses the unique index (a LIKE
	// 'base-%' cannot, under PostgreSQL's default collation).
	for first := 1; ; first += slugBatch {
		candidates := make([]string, 0, slugBatch)
		for n := first; n < first+slugBatch; n++ {
			candidates = append(candidates, slugCandidate(base, n))
		}
		var taken []string
		if err := s.db.Table(table).Where("slug IN ? AND id <> ?", candidates, exceptID).Pluck("slug", &taken).Error; err != nil {
			return "", err
		}
		used := make(map[string]bool, len(taken))
		for _, t := range taken {
			used[t] = true
		}
		for _, c := range candidates {
			if !used[c] {
				return c, nil
			}
		}
		if first > 100*slugBatch {
			return "", fmt.Errorf("no free slug for %q", base)
		}
	}
}

// slugBatch is how many candidate slugs one lookup checks.
const slugBatch = 20

// slugCandidate is base for n = 1, and base-n after (the first duplicate is base-2).
func slugCandidate(base string, n int) string {
	if n == 1 {
		return base
	}
	return base + "-" + strconv.Itoa(n)
}

// slugLockKey is the advisory-lock key of a slug base within a table.
func slugLockKey(table, base string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(table + "\x00" + base))
	return int64(h.Sum64())
}

// lockSlug takes the transaction-scoped advisory lock with this key on PostgreSQL (a no-op on SQLite, which
// serialises write transactions). PostgreSQL advisory locks are re-entrant within a session, so taking one twice
// in a transaction is harmless.
func (s *Store) lockSlug(key int64) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.Exec("SELECT pg_advisory_xact_lock(?)", key).Error
}
