package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// testDatabaseURL is a fresh database for one test: a SQLite file, or a new PostgreSQL schema when
// CALENDAR_TEST_DATABASE_URL is set.
func testDatabaseURL(t *testing.T) string {
	t.Helper()
	pg := os.Getenv("CALENDAR_TEST_DATABASE_URL")
	if pg == "" {
		return "sqlite:" + filepath.Join(t.TempDir(), "cli.db")
	}
	admin, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "test_main_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + schema + " CASCADE") })
	u, _ := url.Parse(pg)
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
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
func startServer(t *testing.T, db string) (addr string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	env := map[string]string{"CALENDAR_DATABASE_URL": db, "CALENDAR_ADDR": "127.0.0.1:0", "CALENDAR_SHUTDOWN_TIMEOUT": "20s"}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, logWriter)
		_ = logWriter.Close()
	}()
	listening := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(scanner.Bytes(), &line) == nil && line.Msg == "listening" {
				listening <- line.Addr
			}
		}
	}()
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
	// request is certainly in flight.
	fmt.Fprintf(conn, "POST /calendar/events/v1/ HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
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
	if res.StatusCode != http.StatusNotFound || !strings.Contains(string(answer), "rest_no_route") {
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
