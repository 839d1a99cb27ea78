package middleware

import (
	"fmt"
	"testing"
)

// TestTheAnswerCacheKeepsEveryNewAnswerAndEvictsTheLeastRecentlyUsed checks the cache's bound and order: a new
// answer is kept even when every answer already held has been asked for many times (the cache it replaced turned
// such answers away, so requests waiting for one built it again and again), the least recently used answers go
// first, and the weight it reports is what it holds.
func TestTheAnswerCacheKeepsEveryNewAnswerAndEvictsTheLeastRecentlyUsed(t *testing.T) {
	answer := func() *cachedAnswer { return &cachedAnswer{body: make([]byte, 680), etag: `"e"`} }
	one := weigh("key 00", answer())
	c := newAnswerCache(10 * one)
	for i := range 10 {
		c.set("key "+pad(i), answer())
	}
	for range 50 {
		for i := 1; i < 10; i++ { // every answer but key 00, many times
			if _, ok := c.get("key " + pad(i)); !ok {
				t.Fatalf("key %s is missing from a cache that holds exactly ten answers", pad(i))
			}
		}
	}
	c.set("key 10", answer())
	if _, ok := c.get("key 10"); !ok {
		t.Fatal("a new answer was not kept")
	}
	if _, ok := c.get("key 00"); ok {
		t.Fatal("the least recently used answer was kept beyond the bound")
	}
	for i := 1; i <= 10; i++ {
		if _, ok := c.get("key " + pad(i)); !ok {
			t.Fatalf("key %s was evicted instead of the least recently used", pad(i))
		}
	}
	if n, w := c.size(); n != 10 || w != 10*one {
		t.Fatalf("the cache reports %d answers of %d bytes, want 10 of %d", n, w, 10*one)
	}
	c.set("key 10", answer()) // stored again: replaced, not counted twice
	if n, w := c.size(); n != 10 || w != 10*one {
		t.Fatalf("after storing an answer again the cache reports %d answers of %d bytes, want 10 of %d", n, w, 10*one)
	}
	c.set("too heavy", &cachedAnswer{body: make([]byte, 11*one)})
	if _, ok := c.get("too heavy"); ok {
		t.Fatal("an answer heavier than the whole cache was kept")
	}
	c.clear()
	if n, w := c.size(); n != 0 || w != 0 {
		t.Fatalf("a cleared cache reports %d answers of %d bytes", n, w)
	}
}

func pad(i int) string { return fmt.Sprintf("%02d", i) }
