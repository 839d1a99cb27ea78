package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveEnv, set, makes this test binary serve as the program does (TestServeForKilling), so that a test can kill
// it with SIGKILL.
const serveEnv = "CALENDAR_TEST_SERVE_SUBPROCESS"

// TestServeForKilling is not a test: run as a subprocess with serveEnv set, it serves until it is killed.
func TestServeForKilling(t *testing.T) {
	if os.Getenv(serveEnv) == "" {
		t.Skip("runs only as the subprocess of a test that kills it")
	}
	if err := run(context.Background(), nil, os.Getenv, io.Discard, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startKillable runs the program as a subprocess with env and returns its address and the process.
func startKillable(t *testing.T, env ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeForKilling$")
	cmd.Env = append(os.Environ(), append(env, serveEnv+"=1", "CALENDAR_ADDR=127.0.0.1:0", "CALENDAR_LOG_FORMAT=json")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := listeningAddress(stderr)
	select {
	case addr := <-listening:
		return addr, cmd
	case <-time.After(60 * time.Second):
		t.Fatal("the subprocess did not start listening")
	}
	return "", nil
}

// TestPendingDeliveriesSurviveSIGKILL: the service is killed with SIGKILL while deliveries are pending (the
// receiver is down) and some are being sent; after a restart every change reaches the receiver.
func TestPendingDeliveriesSurviveSIGKILL(t *testing.T) {
	db := testDatabaseURL(t)
	token, err := cli(t, db, "users", "create", "--login", "admin", "--role", "administrator")
	if err != nil {
		t.Fatal(err)
	}
	token = strings.TrimSpace(token)
	var mu sync.Mutex
	down, accepted, calls := true, map[string]int{}, 0
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		if down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var msg struct {
			Data struct {
				Title string `json:"title"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &msg)
		accepted[msg.Data.Title]++
	}))
	defer receiver.Close()
	env := []string{"CALENDAR_DATABASE_URL=" + db, "CALENDAR_WEBHOOK_ALLOW_PRIVATE=true",
		"CALENDAR_WEBHOOK_RETRY_DELAYS=100ms", "CALENDAR_WEBHOOK_POLL=20ms", "CALENDAR_WEBHOOK_TIMEOUT=1s"}
	addr, first := startKillable(t, env...)
	post := func(addr, path string, body any) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/calendar/events/v1"+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d", path, res.StatusCode)
		}
	}
	post(addr, "/webhooks", map[string]any{"url": receiver.URL})
	const n = 20
	for i := range n {
		post(addr, "/events", map[string]any{"title": fmt.Sprint("Event ", i), "start_date": "2030-01-01 10:00",
			"end_date": "2030-01-01 11:00"})
	}
	waitUntil(t, "every delivery attempted once", func() bool { mu.Lock(); defer mu.Unlock(); return calls >= n })
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	mu.Lock()
	down = false
	mu.Unlock()
	startKillable(t, env...)
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		got := len(accepted)
		mu.Unlock()
		if got == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart the receiver accepted %d of %d changes", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for title, times := range accepted {
		if times != 1 {
			t.Errorf("%s arrived %d times", title, times)
		}
	}
}
