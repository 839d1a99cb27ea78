package middleware

import (
	"bytes"
	"hash/maphash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gin-gonic/gin"
	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/klauspost/compress/s2"

	"calendar/controllers"
	"calendar/models"
)

// cachedHeaders are the response headers a cached answer keeps, in canonical form.
var cachedHeaders = func() []string {
	names := []string{"Content-Type", "X-TEC-Total", "X-TEC-TotalPages", "Link", "Last-Modified", "X-Sync-Token"}
	for i, name := range names {
		names[i] = http.CanonicalHeaderKey(name)
	}
	return names
}()

// Responses gives every GET answer of the API an ETag and answers If-None-Match / If-Modified-Since with 304, and
// serves anonymous answers from caches that can never be stale. An answer is keyed by the data version read before
// it was built (see models.Store.Version), so any committed write — on this instance or another sharing the
// database — makes every older entry unreachable; except an answer whose handler declared the records it is built
// from, which is kept across the writes that change none of them (see keptAnswers). An answer is stored only when
// its request is likely to come again (see repeats). Memory is bounded by the total weight of the entries (what
// each takes in memory: see cachedAnswer.weight).
type Responses struct {
	versions   *models.VersionReader
	cache      *answerCache // keyed by data version
	kept       *keptAnswers
	dictionary answerDictionary

	mu       sync.Mutex
	inflight map[string]*build // answers being built, so that concurrent misses build each only once
	repeats  *repeats          // the requests built before, whose answers are worth storing
	hits     atomic.Uint64     // anonymous answers served from the cache
	misses   atomic.Uint64     // anonymous answers built by their handler
	newest   atomic.Int64      // the newest data version a request was answered at
}

// cachedAnswer is one stored 200 answer.
type cachedAnswer struct {
	header []cachedHeader
	// body is S2-compressed, with dict unless the answer was stored before the dictionary was learned: JSON
	// shrinks several times, so the same memory holds several times the answers.
	body []byte
	dict *s2.Dict
	etag string
	// version and builtFrom are set on kept answers (see keptAnswers): the data version the answer was built at
	// and the records it is built from.
	version   int64
	builtFrom []models.RecordRef
	// expires, when set, is when the clock alone makes the answer untrue (controllers.AnswerExpires).
	expires time.Time
}

// servable tells whether the answer may be served now: it has no expiry, or its expiry is still ahead.
func (a *cachedAnswer) servable() bool { return a.expires.IsZero() || time.Now().Before(a.expires) }

// cachedHeader is one of the cachedHeaders an answer had, its values shared with the answer that was sent (a
// map of them had been a fifth of a single event's entry).
type cachedHeader struct {
	name   string
	values []string
}

// weight is what the answer takes in memory: its body, ETag, header values and records, and entryOverhead.
func (a *cachedAnswer) weight() int {
	n := entryOverhead + len(a.body) + len(a.etag) + len(a.builtFrom)*int(unsafe.Sizeof(models.RecordRef{}))
	for _, h := range a.header {
		for _, v := range h.values {
			n += len(v)
		}
	}
	return n
}

// entryOverhead is the memory of an entry besides its key, body, ETag and header values: the cache's node, the
// cachedAnswer and its header list (311 bytes for an answer with three headers, measured on the heap).
const entryOverhead = 320

// decode returns the answer's body decompressed into dst (or a new slice when it is too small).
func (a *cachedAnswer) decode(dst []byte) ([]byte, error) {
	if a.dict != nil {
		return a.dict.Decode(dst, a.body)
	}
	return s2.Decode(dst, a.body)
}

// maxCachedBody keeps very large answers (long iCalendar feeds, big pages) out of the cache.
const maxCachedBody = 512 << 10

// NewResponses builds the response layer with caches of at most maxBytes of answers keyed by data version and
// keptBytes of kept answers; retention is how long the change history is kept, which kept answers follow.
func NewResponses(store *models.Store, maxBytes, keptBytes uint64, retention time.Duration) *Responses {
	return &Responses{versions: store.NewVersionReader(), cache: newAnswerCache(maxBytes),
		kept: newKeptAnswers(store, keptBytes, retention), inflight: map[string]*build{}, repeats: newRepeats()}
}

// build is an answer being built by one request, the leader, while others may wait for it.
type build struct {
	done   chan struct{} // closed when the leader is done
	waited bool          // another request waited for the answer (guarded by Responses.mu)
}

// repeats remembers which requests were built recently, by their shape (the request without the data version
// and clock period its answer was built at), so that the cache stores an answer only when it is likely to be
// asked for again: when a request of its shape was built before, or another request waited for it. An answer
// asked for once is never stored. Compressing and storing it would cost the build a fifth of its time (measured
// on list pages built at every request), and evict answers that are asked for. A request seen again after a
// write is stored at its first build under the new data version, since its shape is what repeats remember.
//
// The shapes are kept in a Bloom filter of repeatBits bits, repeatHashes of them per shape, which forgets
// everything once it has taken repeatShapes new shapes, so that it never fills up: memory stays bounded (128 KB),
// and when the filter is fullest fewer than 2% of new shapes are taken for seen by mistake. (A table with one
// slot per hash would let two shapes that share a slot displace each other at every build, so that neither answer
// was ever stored.)
type repeats struct {
	seed  maphash.Seed
	bits  []atomic.Uint64
	added atomic.Int64 // shapes added since the filter was last cleared
}

const (
	repeatBits   = 1 << 20
	repeatHashes = 3
	repeatShapes = 100_000
)

func newRepeats() *repeats {
	return &repeats{seed: maphash.MakeSeed(), bits: make([]atomic.Uint64, repeatBits/64)}
}

// again records that a request of this shape is being built, and tells whether one was before.
func (r *repeats) again(shape string) bool {
	h := maphash.String(r.seed, shape)
	seen := true
	for i := range repeatHashes {
		bit := (h >> (i * 21)) % repeatBits
		mask := uint64(1) << (bit % 64)
		if r.bits[bit/64].Or(mask)&mask == 0 {
			seen = false
		}
	}
	if !seen && r.added.Add(1) > repeatShapes {
		r.forget()
	}
	return seen
}

// forget clears the filter. A concurrent again may keep a bit it set meanwhile: at worst one more answer stored.
func (r *repeats) forget() {
	r.added.Store(0)
	for i := range r.bits {
		r.bits[i].Store(0)
	}
}

// answerCache holds answers up to a total weight (key and cachedAnswer.weight), and evicts the least recently used
// first. It keeps every answer it is given. A cache that admits an answer only when it is asked for more often than
// the one it would evict (W-TinyLFU, which this cache had been) counts only the requests that find an answer, not
// those that wait while it is built: at a million events it turned away, six times running, a geolocation page
// that took 0.6 s to build while 31 requests waited for it, and they waited 4.5 s; and it kept the single events of
// the scenario before in place of the category + venue pages being asked for.
type answerCache struct {
	mu      sync.Mutex
	entries *simplelru.LRU[string, *cachedAnswer]
	weight  uint64 // of the entries held
	max     uint64
}

func newAnswerCache(maxBytes uint64) *answerCache {
	c := &answerCache{max: maxBytes}
	c.entries = c.newEntries()
	return c
}

// newEntries returns an empty LRU list whose evictions give their weight back. Its count bound is never the one
// reached: every entry weighs at least entryOverhead.
func (c *answerCache) newEntries() *simplelru.LRU[string, *cachedAnswer] {
	entries, err := simplelru.NewLRU(int(c.max/entryOverhead)+1, func(key string, a *cachedAnswer) {
		c.weight -= weigh(key, a)
	})
	if err != nil {
		panic(err) // only for a size below 1, which the +1 rules out
	}
	return entries
}

func weigh(key string, a *cachedAnswer) uint64 { return uint64(len(key) + a.weight()) }

// get returns the answer for key and marks it the most recently used.
func (c *answerCache) get(key string) (*cachedAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Get(key)
}

// set stores the answer for key, then evicts the least recently used answers until the weight is within bounds
// (an answer heavier than the bound alone is not kept).
func (c *answerCache) set(key string, a *cachedAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.Remove(key) // its weight is given back; Add would replace it silently
	c.entries.Add(key, a)
	c.weight += weigh(key, a)
	for c.weight > c.max {
		c.entries.RemoveOldest()
	}
}

// clear drops every answer at once.
func (c *answerCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries.Len() > 0 {
		c.entries, c.weight = c.newEntries(), 0
	}
}

// size returns how many answers the cache holds and their weight.
func (c *answerCache) size() (int, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Len(), c.weight
}

// For returns the handler for one GET endpoint. clock (nil for endpoints whose answers never depend on the
// time) names the period this request's answer holds for — the site's day for a default date window, the second
// for "now"-relative dates and upcoming filters; the cache key includes it, and the handler reads the same clock
// through controllers.RequestTime, so a cached answer is exactly what the handler would compute in that period.
// streams (nil for never) says that this request's answer is an iCalendar feed: see stream.
func (r *Responses) For(clock func(*gin.Context) string, streams func(*gin.Context) bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		anonymous := models.UserFrom(c.Request.Context()) == nil
		c.Header("Vary", "Authorization, Accept, Origin")
		if anonymous {
			c.Header("Cache-Control", "public, no-cache")
		} else {
			c.Header("Cache-Control", "private, no-cache")
		}
		if streams != nil && streams(c) {
			r.stream(c, clock)
			return
		}
		key, keptKey, repeated := "", "", false
		if anonymous {
			// Without a version the answer is built uncached: a handler that needs the database reports the
			// outage itself, and one that does not (the namespace index, /doc) still answers.
			if version, pos, err := r.versions.VersionAndPosition(c.Request.Context()); err == nil {
				r.forgetOlderThan(version)
				c.Request = c.Request.WithContext(models.ContextWithVersionAndPosition(c.Request.Context(), version, pos))
				shape, at := requestShape(c), period(c, clock)
				key, keptKey = cacheKey(version, shape, at), keptCacheKey(shape, at)
				a, lead := r.cached(c, key, keptKey)
				if a != nil {
					r.hits.Add(1)
					r.serveCached(c, a)
					return
				}
				r.misses.Add(1)
				repeated = r.repeats.again(shape)
				if lead {
					defer r.done(key)
				}
			}
		}
		w := &bufferedWriter{ResponseWriter: c.Writer, buf: heldAnswers.Get().(*bytes.Buffer)}
		c.Writer = w
		defer func() {
			if c.Writer != w { // not while a panic unwinds past the handler, whose writer is still w
				w.release()
			}
		}()
		c.Next()
		c.Writer = w.ResponseWriter
		if !w.wroteHeader {
			return // an error, rendered by the Errors middleware
		}
		if w.status != http.StatusOK {
			w.flush()
			return
		}
		etag := c.Writer.Header().Get("ETag")
		if etag == "" {
			etag = controllers.ETagOf(w.buf.Bytes())
			c.Header("ETag", etag)
		}
		if key != "" && (repeated || r.waitedFor(key)) && w.buf.Len() <= maxCachedBody {
			r.store(c, key, keptKey, w.buf.Bytes(), etag)
		}
		if notModified(c, etag) {
			c.Status(http.StatusNotModified)
			c.Writer.WriteHeaderNow()
			return
		}
		w.flush()
	}
}

// forgetOlderThan empties the cache when a request is answered at a newer data version than any before: no answer
// of an older version can be asked for again (their keys name the version), so keeping them until the size bound
// evicts them only gives the garbage collector more to walk. Writes on another instance sharing the database are
// seen this way, at the next read.
func (r *Responses) forgetOlderThan(version int64) {
	for {
		newest := r.newest.Load()
		if version <= newest {
			return
		}
		if r.newest.CompareAndSwap(newest, version) {
			break
		}
	}
	r.forget()
}

// Writes is the handler in front of every write endpoint: once a write succeeds, every answer keyed by data
// version is of an older version than the next read's, so the cache lets them go at once: during the benchmark's
// creates the unreachable answers had been most of the live heap. Kept answers stay for the next read to judge.
func (r *Responses) Writes() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if status := c.Writer.Status(); status >= 200 && status < 300 {
			r.forget()
		}
	}
}

// forget drops every answer keyed by data version.
func (r *Responses) forget() { r.cache.clear() }

// outdated tells whether the request's answer is of an older data version than one already answered at: storing
// it would only add an answer nobody can ask for again.
func (r *Responses) outdated(c *gin.Context) bool {
	v, ok := models.VersionIn(c.Request.Context())
	return !ok || v < r.newest.Load()
}

// store caches the request's answer: its body compressed (with the dictionary once there is one, which the body
// then helps to learn until there is) and its cachedHeaders; among the kept answers under keptKey when its handler
// declared what it is built from, else under key unless a newer data version was answered at already.
func (r *Responses) store(c *gin.Context, key, keptKey string, body []byte, etag string) {
	builtFrom, kept := controllers.AnswerBuiltFrom(c)
	if !kept && r.outdated(c) {
		return
	}
	header := c.Writer.Header()
	dict := r.dictionary.current()
	if dict == nil {
		r.dictionary.learn(body)
	}
	a := &cachedAnswer{body: compress(body, dict), dict: dict, etag: etag, expires: controllers.AnswerExpiry(c)}
	for _, name := range cachedHeaders {
		if v := header[name]; len(v) > 0 {
			a.header = append(a.header, cachedHeader{name: name, values: v})
		}
	}
	if kept {
		a.version, _ = models.VersionIn(c.Request.Context())
		a.builtFrom = builtFrom
		pos, _ := models.SyncPositionIn(c.Request.Context())
		r.kept.keep(keptKey, a, pos)
		return
	}
	r.cache.set(key, a)
}

// encodeBuffers are scratch space for compressing answers: S2 needs room for the worst case, several times what
// the compressed answer keeps.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// compress returns body S2-compressed, with dict unless it is nil, in a slice of exactly its length (the cache
// weighs answers by length).
func compress(body []byte, dict *s2.Dict) []byte {
	scratch := encodeBuffers.Get().(*[]byte)
	if n := s2.MaxEncodedLen(len(body)); cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	var out []byte
	if dict != nil {
		out = dict.Encode((*scratch)[:cap(*scratch)], body)
	} else {
		out = s2.Encode((*scratch)[:cap(*scratch)], body)
	}
	out = bytes.Clone(out)
	encodeBuffers.Put(scratch)
	return out
}

// answerDictionary is the S2 dictionary the cache compresses answers with, learned from the first answers it
// stores: their beginnings (at most dictionaryShare of each) hold the field names, URLs, dates and linked records
// that later answers repeat, so a later answer compresses against them as well as against itself. On a million
// events single events took 1.4 KB compressed instead of 2.4 KB, and category + venue pages 3.0 KB instead of
// 4.3 KB. It is learned once per process: what answers repeat is their shape, which the data does not change.
type answerDictionary struct {
	dict    atomic.Pointer[s2.Dict]
	mu      sync.Mutex
	learned []byte
}

const (
	dictionarySize  = s2.MaxDictSize // 64 KB: S2's largest, still within reach of its two-byte offsets
	dictionaryShare = 16 << 10       // so that at least four answers teach the dictionary
)

// current returns the dictionary, nil until it is learned.
func (d *answerDictionary) current() *s2.Dict { return d.dict.Load() }

// learn adds the beginning of an answer to what the dictionary learns from, and makes the dictionary once that is
// dictionarySize bytes.
func (d *answerDictionary) learn(body []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dict.Load() != nil {
		return
	}
	if d.learned == nil {
		d.learned = make([]byte, 0, dictionarySize+16) // MakeDict copies a dictionary without 16 bytes of room
	}
	d.learned = append(d.learned, body[:min(len(body), dictionaryShare, dictionarySize-len(d.learned))]...)
	if len(d.learned) == dictionarySize {
		d.dict.Store(s2.MakeDict(d.learned, nil))
		d.learned = nil
	}
}

// DictionarySize returns the size of the dictionary the cache compresses answers with, 0 until it is learned.
func (r *Responses) DictionarySize() int {
	if r.dictionary.current() != nil {
		return dictionarySize
	}
	return 0
}

// Stats returns how many anonymous answers were served from the cache and how many were built by their handler.
func (r *Responses) Stats() (hits, misses uint64) { return r.hits.Load(), r.misses.Load() }

// Size returns how many answers the caches hold and their weight in bytes (keys, compressed bodies, ETags,
// headers, records and entryOverhead each).
func (r *Responses) Size() (answers int, bytes uint64) {
	n, b := r.cache.size()
	kn, kb := r.kept.answers.size()
	return n + kn, b + kb
}

// Kept returns how many of the answers held are kept answers (see keptAnswers).
func (r *Responses) Kept() int {
	n, _ := r.kept.answers.size()
	return n
}

// stream serves an answer that is too large to hold (an iCalendar feed of up to CALENDAR_ICAL_MAX_EVENTS events):
// it is neither buffered nor cached, and is written as the handler produces it. Its ETag is weak and computed
// before the handler runs, from everything the answer depends on — the data version, the path and query, the
// Accept header, the clock period, the host (absolute URLs and UIDs name it) and the caller — so a client polling
// with If-None-Match gets 304 for the price of one data-version read, before any event is queried. Once any
// committed write moves the version the tag changes, whether or not the write touched this feed's events.
func (r *Responses) stream(c *gin.Context, clock func(*gin.Context) string) {
	version, err := r.versions.Version(c.Request.Context())
	if err != nil {
		c.Next() // untagged; the handler reports the outage
		return
	}
	c.Request = c.Request.WithContext(models.ContextWithVersion(c.Request.Context(), version))
	caller := "anonymous"
	if u := models.UserFrom(c.Request.Context()); u != nil {
		caller = "user " + strconv.FormatUint(u.ID, 10)
	}
	etag := controllers.WeakETagOf(cacheKey(version, requestShape(c), period(c, clock)) + " caller=" + caller)
	if inm := c.GetHeader("If-None-Match"); inm != "" && controllers.ETagMatches(inm, etag, true) {
		c.Header("ETag", etag)
		c.AbortWithStatus(http.StatusNotModified)
		return
	}
	c.Header("ETag", etag)
	c.Next()
	if len(c.Errors) > 0 && !c.Writer.Written() {
		c.Writer.Header().Del("ETag") // the error body is not the tagged feed
	}
}

// period is the clock period of this request's answer, "" for answers that do not depend on the time.
func period(c *gin.Context, clock func(*gin.Context) string) string {
	if clock == nil {
		return ""
	}
	return clock(c)
}

// cached returns the answer kept under keptKey or cached under key for a request answered at the data version
// and position its context records, waiting for it while another request builds it. Without an answer the caller
// builds it; lead says it has taken the key and must call done(key) afterwards.
func (r *Responses) cached(c *gin.Context, key, keptKey string) (a *cachedAnswer, lead bool) {
	version, _ := models.VersionIn(c.Request.Context())
	pos, _ := models.SyncPositionIn(c.Request.Context())
	for {
		if a := r.kept.get(keptKey, version, pos); a != nil && a.servable() {
			return a, false
		}
		if a, ok := r.cache.get(key); ok && a.servable() {
			return a, false
		}
		r.mu.Lock()
		b, building := r.inflight[key]
		if !building {
			r.inflight[key] = &build{done: make(chan struct{})}
			r.mu.Unlock()
			return nil, true
		}
		b.waited = true
		r.mu.Unlock()
		select {
		case <-b.done:
		case <-c.Request.Context().Done():
			return nil, false
		}
		// Either the answer is cached now, or it was not cacheable (an error, too large) and the loop takes
		// the key to build it once more.
	}
}

// waitedFor tells whether another request waits for the answer this one builds for key.
func (r *Responses) waitedFor(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.inflight[key]
	return ok && b.waited
}

// done wakes the requests waiting for key.
func (r *Responses) done(key string) {
	r.mu.Lock()
	if b, ok := r.inflight[key]; ok {
		close(b.done)
		delete(r.inflight, key)
	}
	r.mu.Unlock()
}

func (r *Responses) serveCached(c *gin.Context, a *cachedAnswer) {
	for _, h := range a.header {
		c.Writer.Header()[h.name] = h.values
	}
	c.Header("ETag", a.etag)
	c.Abort()
	if notModified(c, a.etag) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return
	}
	scratch := decodeBuffers.Get().(*[]byte)
	body, err := a.decode((*scratch)[:cap(*scratch)])
	if err != nil {
		panic(err) // the cache only holds what compress wrote
	}
	setContentLength(c.Writer, len(body))
	c.Status(http.StatusOK)
	_, _ = c.Writer.Write(body) // the writer copies or sends body before it returns, so the buffer is free again
	if cap(body) <= maxPooledAnswer {
		*scratch = body
		decodeBuffers.Put(scratch)
	}
}

// decodeBuffers hold answers decompressed for sending. A cache hit allocated its answer anew before, which was a
// third of all the bytes the service allocated while serving single events, and so a third of its collections.
var decodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer keeps the rare large answer (a long list page) from pinning its buffer in a pool (decodeBuffers,
// heldAnswers).
const maxPooledAnswer = 256 << 10

// cacheKey identifies an anonymous answer: the data version, the request's shape and the period of time the
// answer holds for.
func cacheKey(version int64, shape, period string) string {
	return strconv.FormatInt(version, 10) + " " + shape + " t=" + period
}

// keptCacheKey identifies a kept answer: the request's shape and the period of time the answer holds for.
func keptCacheKey(shape, period string) string { return shape + " t=" + period }

// requestShape is what an answer depends on in its request: host (absolute URLs name it unless CALENDAR_BASE_URL
// is set), path, the query in a canonical order and the Accept header (content negotiation).
func requestShape(c *gin.Context) string {
	var b strings.Builder
	if c.Request.TLS != nil {
		b.WriteString("https://")
	}
	b.WriteString(c.Request.Host)
	b.WriteString(c.Request.URL.Path)
	b.WriteByte('?')
	b.WriteString(c.Request.URL.Query().Encode()) // sorted by key and escaped, so distinct queries never collide
	b.WriteString(" accept=")
	b.WriteString(strconv.Quote(c.GetHeader("Accept")))
	return b.String()
}

// notModified evaluates If-None-Match (which wins when present) and If-Modified-Since against the answer.
func notModified(c *gin.Context, etag string) bool {
	if inm := c.GetHeader("If-None-Match"); inm != "" {
		return controllers.ETagMatches(inm, etag, true)
	}
	ims, err := http.ParseTime(c.GetHeader("If-Modified-Since"))
	if err != nil {
		return false
	}
	lm, err := http.ParseTime(c.Writer.Header().Get("Last-Modified"))
	return err == nil && !lm.After(ims)
}

// bufferedWriter holds a handler's answer so that its ETag can be computed before anything is sent.
type bufferedWriter struct {
	gin.ResponseWriter
	status      int
	wroteHeader bool
	buf         *bytes.Buffer // from heldAnswers, until release
}

// heldAnswers are the buffers of bufferedWriters: growing a new one to each answer's size was a seventh of the
// bytes the service allocated for lists that were not cached.
var heldAnswers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// release gives the buffer back once the answer is sent and stored (the cache keeps a compressed copy).
func (w *bufferedWriter) release() {
	if w.buf.Cap() <= maxPooledAnswer {
		w.buf.Reset()
		heldAnswers.Put(w.buf)
	}
	w.buf = nil
}

func (w *bufferedWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
}

func (w *bufferedWriter) WriteHeaderNow() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.WriteHeaderNow()
	return w.buf.Write(b)
}

func (w *bufferedWriter) WriteString(s string) (int, error) {
	w.WriteHeaderNow()
	return w.buf.WriteString(s)
}

func (w *bufferedWriter) Status() int {
	if !w.wroteHeader {
		return http.StatusOK
	}
	return w.status
}

func (w *bufferedWriter) Size() int           { return w.buf.Len() }
func (w *bufferedWriter) Written() bool       { return w.wroteHeader }
func (w *bufferedWriter) Flush()              {}
func (w *bufferedWriter) Pusher() http.Pusher { return nil }

// flush sends the held answer.
func (w *bufferedWriter) flush() {
	setContentLength(w.ResponseWriter, w.buf.Len())
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(w.buf.Bytes())
}

// setContentLength declares the length of a body that is sent whole. Without it net/http sends an answer over
// its 2 KB buffer chunked, with chunk framing and one more write to the socket for the closing chunk (writes to
// the socket were a quarter of the service's CPU serving single events from the cache).
func setContentLength(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Length", strconv.Itoa(n))
}
