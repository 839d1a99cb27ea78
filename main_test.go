package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"calendar/models/testdb"
)

// testDatabaseURL is a fresh database for one test (testdb.Fresh), as CALENDAR_DATABASE_URL names it.
func testDatabaseURL(t *testing.T) string {
	t.Helper()
	driver, dsn := testdb.Fresh(t)
	if driver == testdb.SQLite {
		return "sqlite:" + dsn
	}
	return dsn
}

// cli runs the program once with args against dbURL and returns its standard output and error.
func cli(t *testing.T, dbURL string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := map[string]string{"CALENDAR_DATABASE_URL": dbURL, "CALENDAR_LOG_FORMAT": "text"}
	err := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr)
	return stdout.String(), err
}

func TestUsersCommands(t *testing.T) {
	db := testDatabaseURL(t)

	token, err := cli(t, db, "users", "create", "--login", "alice", "--role", "editor", "--name", "Alice")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(token), "\n"); len(lines) != 1 || len(lines[0]) != 43 {
		t.Fatalf("users create printed %q, want one 43-character token", token)
	}
	second, err := cli(t, db, "users", "token", "--login", "alice")
	if err != nil || strings.TrimSpace(second) == strings.TrimSpace(token) || len(strings.TrimSpace(second)) != 43 {
		t.Fatalf("users token printed %q, %v", second, err)
	}
	if _, err := cli(t, db, "users", "create", "--login", "bob", "--role", "subscriber"); err != nil {
		t.Fatal(err)
	}

	list, err := cli(t, db, "users", "list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list, "alice") || !strings.Contains(list, "editor") || !strings.Contains(list, "bob") {
		t.Fatalf("users list:\n%s", list)
	}
	if strings.Contains(list, strings.TrimSpace(token)) || strings.Contains(list, strings.TrimSpace(second)) {
		t.Fatal("users list shows a token")
	}
	if !strings.Contains(lineOf(list, "alice"), "2") {
		t.Fatalf("alice should have 2 active tokens:\n%s", list)
	}

	out, err := cli(t, db, "users", "revoke", "--login", "alice")
	if err != nil || !strings.Contains(out, "revoked 2") {
		t.Fatalf("users revoke: %q, %v", out, err)
	}
	list, _ = cli(t, db, "users", "list")
	if fields := strings.Fields(lineOf(list, "alice")); fields[len(fields)-1] != "0" {
		t.Fatalf("alice still has tokens after revoke:\n%s", list)
	}
}

func TestUsersCommandsRefuseBadArguments(t *testing.T) {
	db := testDatabaseURL(t)
	if _, err := cli(t, db, "users", "create", "--login", "carol", "--role", "author"); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"an unknown role":          {"users", "create", "--login", "dave", "--role", "king"},
		"a duplicate login":        {"users", "create", "--login", "carol", "--role", "editor"},
		"a login with spaces":      {"users", "create", "--login", "c d", "--role", "editor"},
		"create without --login":   {"users", "create", "--role", "editor"},
		"a token for nobody":       {"users", "token", "--login", "nobody"},
		"revoking nobody":          {"users", "revoke", "--login", "nobody"},
		"an unknown subcommand":    {"users", "promote", "--login", "carol"},
		"no subcommand":            {"users"},
		"an unknown command":       {"frobnicate"},
		"an unknown flag":          {"users", "create", "--login", "e", "--role", "editor", "--admin"},
		"a stray argument":         {"users", "list", "extra"},
		"a bad configuration flag": {"-geo-unit", "parsecs", "users", "list"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := cli(t, db, args...)
			if err == nil {
				t.Fatalf("%v succeeded: %q", args, out)
			}
			if out != "" {
				t.Fatalf("%v printed %q on standard output", args, out)
			}
		})
	}
}

func TestInvalidConfigurationStopsTheProgram(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := map[string]string{"CALENDAR_MAX_PER_PAGE": "lots"}
	err := run(context.Background(), nil, func(k string) string { return env[k] }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "CALENDAR_MAX_PER_PAGE") {
		t.Fatalf("error %v does not name CALENDAR_MAX_PER_PAGE", err)
	}
}

func TestMigrateCommand(t *testing.T) {
	db := testDatabaseURL(t)
	out, err := cli(t, db, "migrate")
	if err != nil || !strings.Contains(out, "up to date") || strings.Contains(out, "(0 migration") {
		t.Fatalf("first migrate: %q, %v", out, err)
	}
	out, err = cli(t, db, "migrate")
	if err != nil || !strings.Contains(out, "(0 migration") {
		t.Fatalf("second migrate: %q, %v", out, err)
	}
}

// startServer runs the program's serve command on a free port and returns its address and a function that
// stops it (like SIGTERM) and waits for run to return.
func startServer(t *testing.T, db string, extraEnv ...string) (addr string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	env := map[string]string{"CALENDAR_DATABASE_URL": db, "CALENDAR_ADDR": "127.0.0.1:0", "CALENDAR_SHUTDOWN_TIMEOUT": "20s"}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = extraEnv[i+1]
	}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, logWriter)
		_ = logWriter.Close()
	}()
	listening := listeningAddress(logs)
	select {
	case addr = <-listening:
	case err := <-done:
		t.Fatalf("the server stopped before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start listening")
	}
	var stopped bool
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { _ = stop() })
	return addr, stop
}

func TestServeAnswersOnTheConfiguredDatabase(t *testing.T) {
	addr, stop := startServer(t, testDatabaseURL(t))
	for _, path := range []string{"/calendar/events/v1/", "/healthz", "/readyz"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// TestShutdownFinishesInFlightRequests sends half a request body, asks the server to stop, checks that it no
// longer accepts connections, then sends the rest and gets a complete answer before run returns.
func TestShutdownFinishesInFlightRequests(t *testing.T) {
	addr, stop := startServer(t, testDatabaseURL(t))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"namespace":"calendar/events/v1"}`
	// "Expect: 100-continue" makes the server say when a handler starts reading the body: from then on the
	// request is certainly in flight. (The namespace index reads its parameters, body included, anonymously.)
	fmt.Fprintf(conn, "GET /calendar/events/v1/ HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		addr, len(body))
	reader := bufio.NewReader(conn)
	if status, err := reader.ReadString('\n'); err != nil || !strings.Contains(status, "100 Continue") {
		t.Fatalf("expected 100 Continue, got %q, %v", status, err)
	}
	if blank, err := reader.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("expected the end of the 100 response, got %q, %v", blank, err)
	}
	if _, err := io.WriteString(conn, body[:10]); err != nil {
		t.Fatal(err)
	}

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitUntil(t, "the listener closes", func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	})
	select {
	case err := <-stopped:
		t.Fatalf("run returned (%v) while a request was in flight", err)
	default:
	}

	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(reader, nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v", err)
	}
	answer, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"namespace":"calendar/events/v1"`) {
		t.Fatalf("in-flight answer %d %s", res.StatusCode, answer)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after the last request finished")
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func lineOf(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// loadWrite is one write of TestNothingAcknowledgedIsLostAcrossAGracefulRestart: what it asked for, and what the
// server answered.
type loadWrite struct {
	worker, seq int
	eventID     uint64 // the event an update targets; for a create, the ID it was given when acknowledged
	update      bool
	body        map[string]any
	acked       bool // a 2xx answer arrived
	afterStop   bool // the answer arrived after the shutdown began
}

// title, organizer and categories are what the write sets; a create also sets the tag and the venue.
func (w *loadWrite) title() string { return w.body["title"].(string) }
func (w *loadWrite) organizer() string {
	return w.body["organizer"].([]any)[0].(map[string]any)["organizer"].(string)
}
func (w *loadWrite) category() string { return w.body["categories"].([]any)[0].(string) }

// loadClient talks to a server of the test over loopback.
type loadClient struct {
	t     *testing.T
	http  *http.Client
	addr  string
	token string
}

func (c *loadClient) send(method, path string, body any) (int, map[string]any, error) {
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, "http://"+c.addr+"/calendar/events/v1"+path, reader)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, nil, err
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out, nil
}

// pages collects every record of a list, page by page.
func (c *loadClient) pages(path, key string) []map[string]any {
	c.t.Helper()
	var all []map[string]any
	for page := 1; ; page++ {
		status, body, err := c.send(http.MethodGet, fmt.Sprintf("%s&per_page=50&page=%d", path, page), nil)
		if err != nil || status != http.StatusOK {
			c.t.Fatalf("GET %s page %d: %d %v %v", path, page, status, err, body)
		}
		for _, item := range body[key].([]any) {
			all = append(all, item.(map[string]any))
		}
		if float64(page) >= body["total_pages"].(float64) {
			return all
		}
	}
}

// TestNothingAcknowledgedIsLostAcrossAGracefulRestart runs the real server, has eight clients write events with
// links (creates with categories, a tag, a venue and an inline organizer; updates of their own events with new
// categories and a new inline organizer) as fast as they can, asks the server to stop (as SIGTERM does) in the middle
// of it, restarts it on the same database, and checks that every write that got a 2xx is there with what it wrote.
// Writes that got no answer may or may not have happened, but each is all or nothing: no event lacks a link, no
// inline organizer exists without its write, no event comes from nowhere. (TestShutdownFinishesInFlightRequests
// proves, deterministically, that a request in flight when the shutdown begins gets its whole answer.)
func TestNothingAcknowledgedIsLostAcrossAGracefulRestart(t *testing.T) {
	db := testDatabaseURL(t)
	out, err := cli(t, db, "users", "create", "--login", "loader", "--role", "editor")
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := startServer(t, db)
	const workers, stopAfter, maxPerWorker = 8, 60, 200
	client := &loadClient{t: t, addr: addr, token: strings.TrimSpace(out),
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}}
	status, venue, err := client.send(http.MethodPost, "/venues", map[string]any{"venue": "Load Hall"})
	if err != nil || status != http.StatusCreated {
		t.Fatalf("creating the venue: %d %v", status, err)
	}
	venueID := uint64(venue["id"].(float64))

	var acked atomic.Int64
	var stopping atomic.Bool
	var stopOnce sync.Once
	stopped := make(chan error, 1)
	writes := make([][]*loadWrite, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []uint64 // this worker's acknowledged events
			for seq := 0; seq < maxPerWorker; seq++ {
				lw := &loadWrite{worker: w, seq: seq}
				if seq%3 == 2 && len(mine) > 0 {
					lw.update, lw.eventID = true, mine[len(mine)-1]
					lw.body = map[string]any{"title": fmt.Sprintf("Updated %d-%d", w, seq),
						"categories": []any{fmt.Sprintf("Upd %d-%d", w, seq)},
						"organizer":  []any{map[string]any{"organizer": fmt.Sprintf("Upd org %d-%d", w, seq)}}}
				} else {
					start := time.Now().UTC().AddDate(0, 0, 3).Format("2006-01-02") + " 10:00:00"
					lw.body = map[string]any{"title": fmt.Sprintf("Load %d-%d", w, seq), "start_date": start,
						"end_date":   strings.Replace(start, "10:00", "12:00", 1),
						"categories": []any{fmt.Sprintf("Load %d-%d", w, seq), "Load"},
						"tags":       []any{fmt.Sprintf("load-%d-%d", w, seq)}, "venue": venueID,
						"organizer": []any{map[string]any{"organizer": fmt.Sprintf("Load org %d-%d", w, seq)}}}
				}
				writes[w] = append(writes[w], lw)
				method, path := http.MethodPost, "/events"
				if lw.update {
					method, path = http.MethodPatch, fmt.Sprintf("/events/%d", lw.eventID)
				}
				status, body, err := client.send(method, path, lw.body)
				lw.afterStop = stopping.Load()
				if err != nil {
					return // the server is going away: this write's fate is unknown, and the worker stops
				}
				if status >= 300 {
					t.Errorf("%s %s by worker %d: %d %v", method, path, w, status, body)
					return
				}
				lw.acked = true
				if !lw.update {
					lw.eventID = uint64(body["id"].(float64))
					mine = append(mine, lw.eventID)
				}
				if acked.Add(1) == stopAfter {
					stopOnce.Do(func() {
						stopping.Store(true)
						go func() { stopped <- stop() }()
					})
				}
			}
		}(w)
	}
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Fatalf("the graceful shutdown failed: %v", err)
	}

	addr, _ = startServer(t, db)
	client.addr = addr
	client.http = &http.Client{Timeout: 30 * time.Second}
	events := map[string]map[string]any{} // by title
	for _, e := range client.pages("/events?status=any", "events") {
		if _, dup := events[e["title"].(string)]; dup {
			t.Errorf("two events titled %q", e["title"])
		}
		events[e["title"].(string)] = e
	}
	organizers := map[string]bool{}
	for _, o := range client.pages("/organizers?status=any", "organizers") {
		organizers[o["organizer"].(string)] = true
	}

	var total, acknowledged, late, unknown, unknownApplied int
	applied := map[string]bool{} // titles some write set
	for _, list := range writes {
		var lastAcked = map[uint64]*loadWrite{}
		for _, lw := range list {
			total++
			switch {
			case lw.acked && lw.afterStop:
				late++
				fallthrough
			case lw.acked:
				acknowledged++
			default:
				unknown++
			}
			e, exists := events[lw.title()]
			switch {
			case lw.acked && !lw.update && !exists && !titledLater(list, lw, events):
				t.Errorf("acknowledged create %q (event %d) is gone after the restart", lw.title(), lw.eventID)
			case lw.acked && !organizers[lw.organizer()]:
				t.Errorf("acknowledged write %q lost its inline organizer %q", lw.title(), lw.organizer())
			case !lw.acked && exists != organizers[lw.organizer()]:
				t.Errorf("unanswered write %q is half-written: event present %v, its organizer present %v", lw.title(),
					exists, organizers[lw.organizer()])
			}
			if exists {
				if !lw.acked {
					unknownApplied++
				}
				applied[lw.title()] = true
				expectLoadContent(t, lw, e, venueID)
			}
			if lw.acked {
				lastAcked[lw.eventID] = lw
			}
		}
		// The last acknowledged write of each event is its content, unless a later unanswered write applied.
		for id, lw := range lastAcked {
			if _, ok := events[lw.title()]; !ok && !titledLater(list, lw, events) {
				t.Errorf("event %d: its last acknowledged write %q is not its content after the restart", id, lw.title())
			}
		}
	}
	for title, e := range events {
		if !applied[title] && title != "" {
			t.Errorf("event %v %q comes from no write", e["id"], title)
		}
		if len(e["categories"].([]any)) == 0 || len(e["tags"].([]any)) == 0 || len(e["organizer"].([]any)) != 1 ||
			e["venue"] == nil || fmt.Sprint(e["venue"]) == "[]" {
			t.Errorf("event %v %q is missing links: %v", e["id"], title, e)
		}
	}
	if acknowledged < stopAfter {
		t.Fatalf("only %d writes were acknowledged", acknowledged)
	}
	t.Logf("%d writes sent by %d clients; %d acknowledged (%d of them answered after the shutdown began), all "+
		"present after the restart; %d unanswered (%d of them applied), each all or nothing; %d events stored",
		total, workers, acknowledged, late, unknown, unknownApplied, len(events))
}

// titledLater tells whether a later write of the same worker to lw's event set the event's current title: then lw
// was overwritten, not lost.
func titledLater(list []*loadWrite, lw *loadWrite, events map[string]map[string]any) bool {
	for _, later := range list {
		if later.seq > lw.seq && later.update && later.eventID == lw.eventID {
			if e, ok := events[later.title()]; ok && uint64(e["id"].(float64)) == lw.eventID {
				return true
			}
		}
	}
	return false
}

// expectLoadContent checks that an event has everything the write that titled it set: its categories and inline
// organizer, and (from its create) its tag and venue.
func expectLoadContent(t *testing.T, lw *loadWrite, e map[string]any, venueID uint64) {
	t.Helper()
	if lw.eventID != 0 && uint64(e["id"].(float64)) != lw.eventID {
		t.Errorf("%q is event %v, want %d", lw.title(), e["id"], lw.eventID)
	}
	var categories []string
	for _, c := range e["categories"].([]any) {
		categories = append(categories, c.(map[string]any)["name"].(string))
	}
	organizers := e["organizer"].([]any)
	venue, _ := e["venue"].(map[string]any)
	if !slices.Contains(categories, lw.category()) || len(organizers) != 1 ||
		organizers[0].(map[string]any)["organizer"] != lw.organizer() || venue == nil || uint64(venue["id"].(float64)) != venueID {
		t.Errorf("%q is half-written: categories %v, organizers %v, venue %v", lw.title(), categories, organizers, e["venue"])
	}
}

// listeningAddress reads the service's JSON log lines from logs, to their end, and sends the address of the first
// "listening" line.
func listeningAddress(logs io.Reader) <-chan string {
	listening := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(logs)
		sent := false
		for scanner.Scan() {
			var line struct{ Msg, Addr string }
			if !sent && json.Unmarshal(scanner.Bytes(), &line) == nil && line.Msg == "listening" {
				listening <- line.Addr
				sent = true
			}
		}
	}()
	return listening
}
