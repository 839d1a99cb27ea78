package tests

import (
	"net/http"
	"strconv"
	"testing"

	"calendar/models"
)

func TestFailedAuthenticationIsLimitedPerClientAddress(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_AUTH_FAILURES_PER_MINUTE", "3"))
	token := app.Token(models.RoleEditor)
	bad := Request{Path: "/", Token: "guess"}
	for i := 0; i < 3; i++ {
		app.Do(bad).ExpectError(t, http.StatusUnauthorized, "rest_invalid_credentials")
	}
	res := app.Do(bad)
	res.ExpectError(t, http.StatusTooManyRequests, "rest_too_many_requests")
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Fatalf("Retry-After = %q", res.Header.Get("Retry-After"))
	}
	// Even the right token waits: the address is blocked, not the guess.
	app.Do(Request{Path: "/", Token: token}).ExpectError(t, http.StatusTooManyRequests, "rest_too_many_requests")
	// Anonymous reads from that address are not affected.
	app.Get("/").ExpectStatus(t, http.StatusOK)
	// Another address is not affected.
	other := Request{Path: "/", Token: token, RemoteAddr: "192.0.2.7:4000"}
	app.Do(other).ExpectStatus(t, http.StatusOK)
}

func TestForwardedForIsIgnoredUnlessTheProxyIsTrusted(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_AUTH_FAILURES_PER_MINUTE", "1"))
	spoof := func(ip string) Request {
		return Request{Path: "/", Token: "guess", Header: http.Header{"X-Forwarded-For": {ip}}}
	}
	app.Do(spoof("198.51.100.1")).ExpectStatus(t, http.StatusUnauthorized)
	// A different claimed address does not reset the limit: the header is not believed.
	app.Do(spoof("198.51.100.2")).ExpectStatus(t, http.StatusTooManyRequests)

	trusting := NewApp(t, WithEnv("CALENDAR_AUTH_FAILURES_PER_MINUTE", "1", "CALENDAR_TRUSTED_PROXIES", "192.0.2.1"))
	trusting.Do(spoof("198.51.100.1")).ExpectStatus(t, http.StatusUnauthorized)
	trusting.Do(spoof("198.51.100.2")).ExpectStatus(t, http.StatusUnauthorized)
	trusting.Do(spoof("198.51.100.1")).ExpectStatus(t, http.StatusTooManyRequests)
}

func TestTheGeneralRateLimitIsOffByDefaultAndPerCredential(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	for i := 0; i < 50; i++ {
		app.Get("/").ExpectStatus(t, http.StatusOK)
	}

	// One request per 100 s, so the burst is one request and no token comes back while the test runs, however
	// slow the machine: at one per second, a loaded machine refilled a token between the requests.
	limited := NewApp(t, WithEnv("CALENDAR_RATE_LIMIT", "0.01"))
	alice, bob := limited.Token(models.RoleAuthor), limited.Token(models.RoleAuthor)
	limited.Get("/", alice).ExpectStatus(t, http.StatusOK)
	res := limited.Get("/", alice)
	res.ExpectError(t, http.StatusTooManyRequests, "rest_too_many_requests")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	limited.Get("/", bob).ExpectStatus(t, http.StatusOK)
	limited.Get("/").ExpectStatus(t, http.StatusOK) // anonymous callers are counted by address
}
