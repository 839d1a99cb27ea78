package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
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

// TestRepeatsTellARequestSeenBefore checks the memory of built requests: a shape is new once, then seen again.
func TestRepeatsTellARequestSeenBefore(t *testing.T) {
	r := newRepeats()
	for _, step := range []struct {
		shape string
		again bool
	}{{"a", false}, {"a", true}, {"b", false}, {"a", true}, {"b", true}, {"c", false}} {
		if got := r.again(step.shape); got != step.again {
			t.Fatalf("again(%q) = %v, want %v", step.shape, got, step.again)
		}
	}
}

// TestARequestThatWaitsForABuildMakesItsAnswerWorthStoring checks the building side of the cache: the first
// request of a key leads its build, a second one waits for it and marks it waited for (so the leader stores the
// answer even when its request is new), and the waiting request gets the answer the leader stored.
func TestARequestThatWaitsForABuildMakesItsAnswerWorthStoring(t *testing.T) {
	r := &Responses{cache: newAnswerCache(1 << 20), kept: newKeptAnswers(nil, 1<<20, time.Hour),
		inflight: map[string]*build{}, repeats: newRepeats()}
	request := func() *gin.Context {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodGet, "/events", nil)
		return c
	}
	if a, lead := r.cached(request(), "key", "kept key"); a != nil || !lead {
		t.Fatalf("the first request of a key: answer %v, leads %v; want none and leading", a, lead)
	}
	if r.waitedFor("key") {
		t.Fatal("a build nobody waits for is reported waited for")
	}
	got := make(chan *cachedAnswer)
	go func() {
		a, _ := r.cached(request(), "key", "kept key")
		got <- a
	}()
	for deadline := time.Now().Add(5 * time.Second); !r.waitedFor("key"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a second request of a key being built does not wait for it")
		}
	}
	r.cache.set("key", &cachedAnswer{etag: `"built"`})
	r.done("key")
	if a := <-got; a == nil || a.etag != `"built"` {
		t.Fatalf("the waiting request got %v, want the answer its leader stored", a)
	}
}

// TestRepeatsRememberManyShapesAtOnce builds twenty thousand distinct requests twice: the second time each is seen
// (a slot per shape had let shapes that share one displace each other, so that neither was ever stored), and
// only a few of another twenty thousand new ones are taken for seen.
func TestRepeatsRememberManyShapesAtOnce(t *testing.T) {
	r := newRepeats()
	const n = 20_000
	for i := range n {
		if r.again(fmt.Sprint("/events?page=", i)) {
			t.Logf("shape %d taken for seen before it was", i)
		}
	}
	for i := range n {
		if !r.again(fmt.Sprint("/events?page=", i)) {
			t.Fatalf("shape %d of %d was forgotten", i, n)
		}
	}
	mistaken := 0
	for i := range n {
		if r.again(fmt.Sprint("/venues?page=", i)) {
			mistaken++
		}
	}
	if mistaken > n/100 {
		t.Fatalf("%d of %d new shapes were taken for seen", mistaken, n)
	}
}

// TestRepeatsForgetOnceFull adds more new shapes than the filter takes: it starts again, so a shape seen before
// is new once more.
func TestRepeatsForgetOnceFull(t *testing.T) {
	r := newRepeats()
	r.again("/events")
	cleared := false
	for i := 0; i < 2*repeatShapes && !cleared; i++ {
		r.again(fmt.Sprint("/events?visit=", i))
		cleared = r.added.Load() == 0
	}
	if !cleared {
		t.Fatalf("%d new shapes did not clear the filter", 2*repeatShapes)
	}
	if r.again("/events") {
		t.Fatal("a full filter was not cleared")
	}
}
