package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// arrival is one delivery as the harness's receiver got it.
type arrival struct {
	at       time.Time
	delivery uint64 // X-Calendar-Delivery
	typ      string // event.created, event.updated, ...
	record   uint64 // data.id
	title    string // data.title (events)
	status   string // data.status
	// badSignature says the X-Calendar-Signature did not verify with the subscription's secret, or the body was
	// not a delivery.
	badSignature bool
}

// sink collects the deliveries of one subscription, in the order they arrived. It keeps each as received and
// reads and verifies it only when asked for what arrived (snapshot): the receiver shares the machine with the
// service, and reading and verifying every delivery as it arrives took CPU from the writes it measures.
type sink struct {
	secret   string
	mu       sync.Mutex
	received []received // not read yet
	arrivals []arrival  // read, in arrival order, before those received
}

// received is one delivery as the receiver got it, before it is read.
type received struct {
	at                    time.Time
	body                  []byte
	err                   error  // reading the body
	deliveryID, signature string // X-Calendar-Delivery, X-Calendar-Signature
}

func (s *sink) add(r received) {
	s.mu.Lock()
	s.received = append(s.received, r)
	s.mu.Unlock()
}

// snapshot is a copy of what arrived so far.
func (s *sink) snapshot() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.received {
		s.arrivals = append(s.arrivals, s.read(r))
	}
	s.received = nil
	return append([]arrival(nil), s.arrivals...)
}

// count is how many deliveries arrived so far, repeats included.
func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrivals) + len(s.received)
}

// read is what a delivery says, and whether its signature and delivery ID verify.
func (s *sink) read(r received) arrival {
	a := arrival{at: r.at, badSignature: r.err != nil}
	var d struct {
		ID   uint64 `json:"id"`
		Type string `json:"type"`
		Data struct {
			ID     uint64 `json:"id"`
			Title  string `json:"title"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if json.Unmarshal(r.body, &d) != nil {
		a.badSignature = true
	}
	a.delivery, a.typ, a.record, a.title, a.status = d.ID, d.Type, d.Data.ID, d.Data.Title, d.Data.Status
	header, _ := strconv.ParseUint(r.deliveryID, 10, 64)
	if header != d.ID || verifySignature(s.secret, r.signature, r.body) != nil {
		a.badSignature = true
	}
	return a
}

// receiver is the webhook receiver inside the harness: an HTTP server on loopback that answers every delivery at
// once (204) and records it in the sink of its subscription (the last path segment of /hook/<label>). It can be
// taken down, refusing connections, and brought back on the same address.
type receiver struct {
	addr   string
	mu     sync.Mutex
	sinks  map[string]*sink
	server *http.Server
}

func startReceiver() (*receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{addr: l.Addr().String(), sinks: map[string]*sink{}}
	r.serve(l)
	return r, nil
}

func (r *receiver) serve(l net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 5 * time.Second}
	r.mu.Lock()
	r.server = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
}

// url is where a subscription's deliveries go to reach the sink named label.
func (r *receiver) url(label string) string { return "http://" + r.addr + "/hook/" + label }

// newSink makes the sink of label, whose deliveries are signed with secret.
func (r *receiver) newSink(label, secret string) *sink {
	s := &sink{secret: secret}
	r.mu.Lock()
	r.sinks[label] = s
	r.mu.Unlock()
	return s
}

// down stops the receiver: the listener closes (connections are refused from then on), and the requests being
// answered finish first, so that no delivery is recorded without its answer reaching the service.
func (r *receiver) down(ctx context.Context) error {
	r.mu.Lock()
	srv := r.server
	r.mu.Unlock()
	return srv.Shutdown(ctx)
}

// up serves again on the same address.
func (r *receiver) up() error {
	l, err := net.Listen("tcp", r.addr)
	if err != nil {
		return err
	}
	r.serve(l)
	return nil
}

func (r *receiver) close() {
	r.mu.Lock()
	srv := r.server
	r.mu.Unlock()
	_ = srv.Close()
}

// handle records one delivery and answers 204; deliveries to a sink that no longer exists (a subscription of an
// earlier scenario, sent while it was being deleted) are answered and ignored.
func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	r.mu.Lock()
	s := r.sinks[strings.TrimPrefix(req.URL.Path, "/hook/")]
	r.mu.Unlock()
	if s != nil {
		s.add(received{at: at, body: body, err: err, deliveryID: req.Header.Get("X-Calendar-Delivery"),
			signature: req.Header.Get("X-Calendar-Signature")})
	}
	w.WriteHeader(http.StatusNoContent)
}

// verifySignature checks an X-Calendar-Signature ("t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">"), as
// docs/sync-and-webhooks.md tells receivers to (the age of t is not checked: deliveries retried after an outage
// are signed when sent).
func verifySignature(secret, header string, body []byte) error {
	var ts, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	if ts == "" || !hmac.Equal([]byte(v1), []byte(hex.EncodeToString(mac.Sum(nil)))) {
		return errors.New("bad signature")
	}
	return nil
}
