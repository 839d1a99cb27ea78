package models

import "sync"

// VersionMemo remembers values computed at one data version (see Store.Version). Any committed write advances the
// version, so an entry is only used while nothing has changed since it was computed: it is exactly what computing
// it again would give, which is what lets a request answered at a version (ContextWithVersion) reuse it. Entries of
// an older version are dropped as soon as a value of a newer one is stored; values of an older version than the
// memo's are neither served nor stored. It holds at most max entries: storing past that starts over.
type VersionMemo[K comparable, V any] struct {
	mu      sync.RWMutex
	version int64
	entries map[K]V
	max     int
}

// NewVersionMemo returns an empty memo of at most max entries.
func NewVersionMemo[K comparable, V any](max int) *VersionMemo[K, V] {
	return &VersionMemo[K, V]{max: max}
}

// Get returns the value remembered for key at this version.
func (m *VersionMemo[K, V]) Get(version int64, key K) (V, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if version != m.version {
		var zero V
		return zero, false
	}
	v, ok := m.entries[key]
	return v, ok
}

// Put remembers value for key at this version, unless a newer version is remembered already.
func (m *VersionMemo[K, V]) Put(version int64, key K, value V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case version < m.version:
		return
	case version > m.version || m.entries == nil || len(m.entries) >= m.max:
		m.version, m.entries = version, make(map[K]V)
	}
	m.entries[key] = value
}
