package main

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestConnectionsAreCapped holds CALENDAR_MAX_CONNECTIONS connections open: a further client is not served until
// one of them closes.
func TestConnectionsAreCapped(t *testing.T) {
	addr, _ := startServer(t, testDatabaseURL(t), "CALENDAR_MAX_CONNECTIONS", "2")
	request := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	ask := func(conn net.Conn, within time.Duration) (string, error) {
		_ = conn.SetDeadline(time.Now().Add(within))
		if _, err := io.WriteString(conn, request); err != nil {
			return "", err
		}
		return bufio.NewReader(conn).ReadString('\n')
	}
	var held []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if line, err := ask(conn, 5*time.Second); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Fatalf("a connection within the cap: %q, %v", line, err)
		}
		held = append(held, conn)
	}
	extra, err := net.Dial("tcp", addr) // the kernel queues it; the server does not accept it
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if line, err := ask(extra, 300*time.Millisecond); err == nil {
		t.Fatalf("a connection over the cap was served: %q", line)
	}
	_ = held[0].Close()
	if line, err := ask(extra, 5*time.Second); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("once a connection closed, the waiting one: %q, %v", line, err)
	}
}
