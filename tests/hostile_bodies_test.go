package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"calendar/middleware"
	"calendar/models"
)

// watchedBody is a request body that records whether anyone read it.
type watchedBody struct {
	r    io.Reader
	read atomic.Bool
}

func (w *watchedBody) Read(p []byte) (int, error) {
	w.read.Store(true)
	return w.r.Read(p)
}

func TestAnonymousWritesAreRefusedBeforeTheirBodyIsRead(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	event := app.createEvent(t, editor, eventBody("Kept", 2))
	venue := app.create(t, editor, "/venues", map[string]any{"venue": "Hall"})
	for _, target := range []struct{ method, path string }{
		{http.MethodPost, "/events"}, {http.MethodPut, eventPath(event)}, {http.MethodPatch, eventPath(event)},
		{http.MethodDelete, eventPath(event)}, {http.MethodPost, "/venues"},
		{http.MethodPost, fmt.Sprintf("/venues/%v", venue["id"])}, {http.MethodPost, "/categories"},
		{http.MethodPost, "/tags"}, {http.MethodPost, "/organizers"},
	} {
		body := &watchedBody{r: strings.NewReader(`{"title":"` + strings.Repeat("x", 900_000) + `"}`)}
		app.Do(Request{Method: target.method, Path: target.path, Body: body}).
			ExpectError(t, http.StatusUnauthorized, "rest_forbidden")
		if body.read.Load() {
			t.Fatalf("anonymous %s %s: the body was read before the 401", target.method, target.path)
		}
	}
}

func TestBodyLimitsPerRoute(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	editor := app.Token(models.RoleEditor)
	// A declared length over the limit is refused unread; an undeclared one is cut at the limit.
	big := &watchedBody{r: strings.NewReader(strings.Repeat(" ", middleware.MaxWriteBody+1))}
	req := Request{Method: http.MethodPost, Path: "/events", Token: editor, Body: big,
		Header: http.Header{"Content-Length": {strconv.Itoa(middleware.MaxWriteBody + 1)}}}
	res := app.Do(req)
	res.ExpectError(t, http.StatusRequestEntityTooLarge, "rest_request_too_large")
	streamed := io.MultiReader(strings.NewReader(`{"title":"`), strings.NewReader(strings.Repeat("y", middleware.MaxWriteBody)),
		strings.NewReader(`"}`))
	app.Do(Request{Method: http.MethodPost, Path: "/events", Token: editor, Body: streamed}).
		ExpectError(t, http.StatusRequestEntityTooLarge, "rest_request_too_large")
	// Reads take a few parameters: their limit is smaller.
	query := `{"per_page":1,"x":"` + strings.Repeat("z", middleware.MaxReadBody) + `"}`
	app.Do(Request{Path: "/events", Body: io.MultiReader(strings.NewReader(query))}).
		ExpectError(t, http.StatusRequestEntityTooLarge, "rest_request_too_large")
	app.Do(Request{Path: "/events", Body: map[string]any{"per_page": 1}}).ExpectStatus(t, http.StatusOK)
	// A write within the limit is read whole.
	body := eventBody("Long", 3)
	body["description"] = strings.Repeat("word ", 19_000)
	app.createEvent(t, editor, body)
}

// rssBytes reads the resident set size of this process (which runs the service under test) from /proc.
func rssBytes(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// Not parallel: the process's memory is the measure, so nothing else may run meanwhile.
func TestHeldAnonymousBodiesDoNotGrowMemory(t *testing.T) {
	app := NewApp(t)
	srv := httptest.NewServer(app.Handler)
	t.Cleanup(srv.Close)
	const clients, length = 200, 1 << 20
	payload := bytes.Repeat([]byte("a"), length-1024) // all but the last KiB: the body is never finished
	head := fmt.Sprintf("POST %s/events HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\n\r\n{\"title\":\"", app.Config.APIRoot(), length)

	runtime.GC()
	debug.FreeOSMemory()
	idle := rssBytes(t)
	var peak atomic.Int64
	peak.Store(idle)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if rss := rssBytes(t); rss > peak.Load() {
				peak.Store(rss)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	var wg sync.WaitGroup
	conns := make([]net.Conn, clients)
	statuses := make([]string, clients)
	for i := range clients {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = conn.SetDeadline(time.Now().Add(20 * time.Second)) // generous: a loaded machine
			go func() { _, _ = io.WriteString(conn, head); _, _ = conn.Write(payload) }()
			line, _ := bufio.NewReader(conn).ReadString('\n')
			statuses[i] = strings.TrimSpace(line)
		}()
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // every body held (or refused) for a while
	close(stop)
	<-sampled
	for _, c := range conns {
		_ = c.Close()
	}
	if grown := peak.Load() - idle; grown > 64<<20 {
		t.Fatalf("%d held anonymous bodies of nearly 1 MiB took the resident set from %d MB to %d MB (+%d MB)",
			clients, idle>>20, peak.Load()>>20, grown>>20)
	}
	for i, s := range statuses {
		if !strings.HasPrefix(s, "HTTP/1.1 401") {
			t.Fatalf("held anonymous write %d answered %q, want 401 at once", i, s)
		}
	}
	t.Logf("resident set: idle %d MB, peak %d MB", idle>>20, peak.Load()>>20)
}
