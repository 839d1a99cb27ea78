package tests

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"calendar/config"
	"calendar/models"
)

// tcpProxy forwards connections to a target until it is cut; restoring it listens on the same address again.
type tcpProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, upstream)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(upstream, client); _ = upstream.Close() }()
			go func() { _, _ = io.Copy(client, upstream); _ = client.Close() }()
		}
	}()
}

// cut closes the listener and every forwarded connection: the database is unreachable.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// restore listens again on the same address: the database is back.
func (p *tcpProxy) restore() {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("relistening on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

// TestDatabaseOutage cuts the connection to PostgreSQL while the service runs: requests that need the database
// get 503 with Retry-After and the error body, /readyz is 503, requests that do not need it still work, and once
// the database is reachable again the same process answers normally.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	if postgresURL == "" {
		t.Skip("the outage test needs PostgreSQL: set CALENDAR_TEST_DATABASE_URL")
	}
	var proxy *tcpProxy
	app := NewApp(t, func(c *config.Config) {
		u, err := url.Parse(c.Database.DSN)
		if err != nil {
			t.Fatal(err)
		}
		proxy = newTCPProxy(t, u.Host)
		u.Host = proxy.addr
		c.Database.DSN = u.String()
	})
	token := app.Token(models.RoleEditor)
	needsDatabase := []Request{{Path: "//readyz"}, {Path: "/", Token: token}}
	for _, r := range needsDatabase {
		app.Do(r).ExpectStatus(t, http.StatusOK)
	}

	proxy.cut()
	for round := 0; round < 3; round++ { // the pool's broken connections are found and replaced, still 503
		for _, r := range needsDatabase {
			res := app.Do(r)
			res.ExpectError(t, http.StatusServiceUnavailable, "rest_database_unavailable")
			if res.Header.Get("Retry-After") == "" {
				t.Fatalf("%s: 503 without Retry-After", r.Path)
			}
		}
	}
	app.Get("//healthz").ExpectStatus(t, http.StatusOK)
	app.Get("/").ExpectStatus(t, http.StatusOK) // the namespace index does not touch the database

	proxy.restore()
	waitFor(t, "the service to answer again", func() bool { return app.Get("//readyz").Status == http.StatusOK })
	for _, r := range needsDatabase {
		app.Do(r).ExpectStatus(t, http.StatusOK)
	}
}

// waitFor polls ok until it is true, failing the test after ten seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
