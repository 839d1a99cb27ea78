package tests

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"calendar/models"
)

func TestNamespaceIndexListsItsRoutes(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	for _, path := range []string{"/", ""} {
		body := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)
		if body["namespace"] != "calendar/events/v1" {
			t.Fatalf("namespace = %v", body["namespace"])
		}
		routes, _ := body["routes"].(map[string]any)
		root, _ := routes["/calendar/events/v1"].(map[string]any)
		if root == nil {
			t.Fatalf("the index does not list its own route: %v", routes)
		}
		endpoints := root["endpoints"].([]any)
		args := endpoints[0].(map[string]any)["args"].(map[string]any)
		if ctx := args["context"].(map[string]any); ctx["default"] != "view" || ctx["required"] != false {
			t.Fatalf("context argument = %v", ctx)
		}
	}
}

func TestNamespaceIndexRejectsAnUnknownNamespace(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/?namespace=tribe/events/v1").ExpectError(t, http.StatusNotFound, "rest_invalid_namespace")
}

func TestUnknownRoutesAndMethodsAnswerNoRoute(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	for _, r := range []Request{
		{Path: "/nope"},
		{Path: "/events/abc/def"},
		{Method: http.MethodDelete, Path: "/"},
		{Method: http.MethodPut, Path: "/"},
		{Path: "//not-the-api"},
	} {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			app.Do(r).ExpectError(t, http.StatusNotFound, "rest_no_route")
		})
	}
}

func TestThePlainRestRouteParameterReachesTheNamespace(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	body := app.Get("//?rest_route=/calendar/events/v1/").ExpectStatus(t, http.StatusOK).JSON(t)
	if body["namespace"] != "calendar/events/v1" {
		t.Fatalf("namespace = %v", body["namespace"])
	}
}

func TestProbesAnswerAtTheServerRoot(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_PREFIX", "/wp-json"))
	app.Get("//healthz").ExpectStatus(t, http.StatusOK)
	app.Get("//readyz").ExpectStatus(t, http.StatusOK)
	metrics := app.Get("//metrics").ExpectStatus(t, http.StatusOK)
	for _, want := range []string{"calendar_http_requests_total", `go_sql_max_open_connections{db_name="calendar"}`} {
		if !strings.Contains(string(metrics.Body), want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
	app.Get("/").ExpectStatus(t, http.StatusOK)
	if app.Config.APIRoot() != "/wp-json/calendar/events/v1" {
		t.Fatalf("API root = %s", app.Config.APIRoot())
	}
}

func TestMetricsCountRequestsByRoutePattern(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/")
	app.Get("/nope")
	metrics := string(app.Get("//metrics").Body)
	for _, want := range []string{
		`calendar_http_requests_total{method="GET",route="/calendar/events/v1",status="200"} 1`,
		`calendar_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
}

func TestMetricsCountResponseCacheHitsAndMisses(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/").ExpectStatus(t, http.StatusOK) // the suite's response validation reads /doc once, first
	counts := func() (hits, misses int) {
		return cacheMetric(t, app, "hits_total"), cacheMetric(t, app, "misses_total")
	}
	hits, misses := counts()
	var answers []*Response
	for i := 0; i < 3; i++ {
		answers = append(answers, app.Get("/categories").ExpectStatus(t, http.StatusOK))
	}
	// The first answer is built and not stored (its request had not been seen); the second is built and stored.
	if h, m := counts(); h-hits != 1 || m-misses != 2 {
		t.Fatalf("three reads of one list: %d hits and %d misses, want 1 and 2", h-hits, m-misses)
	}
	// A cached answer is the built one: the same body and the same headers.
	for _, name := range []string{"Content-Type", "X-TEC-Total", "X-TEC-TotalPages", "Link", "ETag", "Content-Length"} {
		if built, cached := answers[0].Header.Values(name), answers[2].Header.Values(name); len(built) == 0 ||
			strings.Join(built, "\n") != strings.Join(cached, "\n") {
			t.Errorf("%s: built %q, cached %q", name, built, cached)
		}
	}
	if string(answers[0].Body) != string(answers[2].Body) {
		t.Errorf("the cached body differs from the built one")
	}
}

func TestCachedAnswersAreTheBuiltOnesBeforeAndAfterTheCacheLearnsItsDictionary(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/").ExpectStatus(t, http.StatusOK) // the suite's response validation reads /doc once, first
	editor := app.Token(models.RoleEditor)
	var paths []string
	for i := range 24 {
		description := strings.Repeat(fmt.Sprintf("<p>Rehearsal %d of the season's programme, open to all. </p>", i), 30)
		event := app.createEvent(t, editor, eventBody(fmt.Sprintf("Concert %d", i), i+1, "description", description))
		paths = append(paths, eventPath(event))
	}
	if n := cacheMetric(t, app, "dictionary_bytes"); n != 0 {
		t.Fatalf("the cache has a %d-byte dictionary before it stored any answer", n)
	}
	// Pages of ten such events are over 16 KB: four of them teach the cache its dictionary, and answers stored
	// before it exists stay readable without it.
	for page := 1; page <= 2; page++ {
		for _, size := range []int{5, 10} {
			paths = append(paths, fmt.Sprintf("/events?per_page=%d&page=%d", size, page))
		}
	}
	built := map[string]*Response{}
	for _, path := range paths[24:] {
		built[path] = app.Get(path).ExpectStatus(t, http.StatusOK)
	}
	if n := cacheMetric(t, app, "dictionary_bytes"); n != 0 {
		t.Fatalf("answers asked for once taught the cache a %d-byte dictionary: they are not stored", n)
	}
	for _, path := range paths[24:] { // asked for again: stored
		app.Get(path).ExpectStatus(t, http.StatusOK)
	}
	if n := cacheMetric(t, app, "dictionary_bytes"); n != 64<<10 {
		t.Fatalf("after four large answers the cache's dictionary has %d bytes, want 65536", n)
	}
	for _, path := range paths[:24] { // the second answer is stored, with the dictionary
		built[path] = app.Get(path).ExpectStatus(t, http.StatusOK)
		app.Get(path).ExpectStatus(t, http.StatusOK)
	}
	hits := cacheMetric(t, app, "hits_total")
	for _, path := range paths {
		cached := app.Get(path).ExpectStatus(t, http.StatusOK)
		if string(cached.Body) != string(built[path].Body) {
			t.Errorf("%s: the cached body differs from the built one", path)
		}
		for _, name := range []string{"Content-Type", "X-TEC-Total", "X-TEC-TotalPages", "Link", "ETag", "Content-Length"} {
			if want, got := built[path].Header.Values(name), cached.Header.Values(name); strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("%s: %s built %q, cached %q", path, name, want, got)
			}
		}
	}
	if n := cacheMetric(t, app, "hits_total") - hits; n != len(paths) {
		t.Fatalf("reading %d answers again made %d cache hits", len(paths), n)
	}
}

// cacheMetric reads the response cache's metric calendar_response_cache_<name> from /metrics.
func cacheMetric(t *testing.T, app *App, name string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^calendar_response_cache_` + name + ` (\d+)$`).FindStringSubmatch(string(app.Get("//metrics").Body))
	if m == nil {
		t.Fatalf("/metrics lacks calendar_response_cache_%s", name)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// cachedAnswers reads how many answers the response cache holds.
func cachedAnswers(t *testing.T, app *App) int { return cacheMetric(t, app, "answers") }

func TestAWriteEmptiesTheResponseCacheOnEveryInstance(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	for _, path := range []string{"/categories", "/tags?hide_empty=false", "/events"} {
		app.Get(path).ExpectStatus(t, http.StatusOK)
		app.Get(path).ExpectStatus(t, http.StatusOK) // asked for again: stored
	}
	if n := cachedAnswers(t, app); n < 3 {
		t.Fatalf("three anonymous reads, each asked twice, left %d answers in the cache", n)
	}
	app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: admin, Body: map[string]any{"name": "Jazz"}}).
		ExpectStatus(t, http.StatusCreated)
	if n := cachedAnswers(t, app); n != 0 {
		t.Fatalf("the cache holds %d answers after a write; none can be asked for again", n)
	}
	if got := len(app.Get("/categories?hide_empty=false").ExpectStatus(t, http.StatusOK).JSON(t)["categories"].([]any)); got != 1 {
		t.Fatalf("the list after the write holds %d categories, want 1", got)
	}
	twin := app.Twin()
	twin.Do(Request{Method: http.MethodPost, Path: "/tags", Token: admin, Body: map[string]any{"name": "Outdoor"}}).
		ExpectStatus(t, http.StatusCreated)
	if got := len(app.Get("/tags?hide_empty=false").ExpectStatus(t, http.StatusOK).JSON(t)["tags"].([]any)); got != 1 {
		t.Fatalf("the first instance lists %d tags after the second one's write, want 1", got)
	}
	// That request had been answered before the writes, so its first answer at the new data version is stored.
	if n := cachedAnswers(t, app); n != 1 {
		t.Fatalf("after another instance's write and one read the cache holds %d answers, want that read's alone", n)
	}
}

// TestAnAnswerIsStoredOnlyWhenItsRequestComesAgain reads /metrics' count of cached answers: a request asked for
// once is built and not stored, however many distinct ones come; asked for again it is stored; and after a write
// a request seen before is stored at its first build, without waiting to be asked twice at the new data version.
func TestAnAnswerIsStoredOnlyWhenItsRequestComesAgain(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	admin := app.Token(models.RoleAdministrator)
	for i := range 20 {
		app.Get(fmt.Sprintf("/categories?hide_empty=false&visit=%d", i)).ExpectStatus(t, http.StatusOK)
	}
	if n := cachedAnswers(t, app); n != 0 {
		t.Fatalf("twenty requests asked for once each left %d answers in the cache, want none", n)
	}
	const path = "/categories?hide_empty=false&visit=3"
	app.Get(path).ExpectStatus(t, http.StatusOK)
	if n := cachedAnswers(t, app); n != 1 {
		t.Fatalf("a request asked for a second time left %d answers in the cache, want 1", n)
	}
	hits := cacheMetric(t, app, "hits_total")
	app.Get(path).ExpectStatus(t, http.StatusOK)
	if n := cacheMetric(t, app, "hits_total") - hits; n != 1 {
		t.Fatalf("a third read of a stored answer made %d cache hits, want 1", n)
	}
	app.Do(Request{Method: http.MethodPost, Path: "/categories", Token: admin, Body: map[string]any{"name": "Jazz"}}).
		ExpectStatus(t, http.StatusCreated)
	categories := app.Get(path).ExpectStatus(t, http.StatusOK).JSON(t)["categories"].([]any)
	if len(categories) != 1 {
		t.Fatalf("the list after the write holds %d categories, want 1", len(categories))
	}
	if n := cachedAnswers(t, app); n != 1 {
		t.Fatalf("the first read after a write of a request seen before left %d answers in the cache, want 1", n)
	}
	app.Get("/categories?hide_empty=false&visit=new").ExpectStatus(t, http.StatusOK)
	if n := cachedAnswers(t, app); n != 1 {
		t.Fatalf("a new request's answer was stored: the cache holds %d answers, want 1", n)
	}
}

func TestReadinessFailsWhenTheDatabaseIsGone(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("//readyz").ExpectStatus(t, http.StatusOK)
	if err := app.Store.Close(); err != nil {
		t.Fatal(err)
	}
	res := app.Get("//readyz")
	res.ExpectError(t, http.StatusServiceUnavailable, "rest_database_unavailable")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	app.Get("//healthz").ExpectStatus(t, http.StatusOK)
}

func TestBodiesOverOneMebibyteAreRefused(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	token := app.Token(models.RoleEditor) // anonymous writes are refused before their body is read
	big := `{"title":"` + strings.Repeat("x", 1<<20) + `"}`
	app.Do(Request{Method: http.MethodPost, Path: "/events", Body: big, Token: token}).
		ExpectError(t, http.StatusRequestEntityTooLarge, "rest_request_too_large")
	// Without a Content-Length (chunked), the limit still holds.
	req := Request{Method: http.MethodPost, Path: "/events", Token: token, Body: io.MultiReader(strings.NewReader(big))}
	app.Do(req).ExpectError(t, http.StatusRequestEntityTooLarge, "rest_request_too_large")
}

func TestEveryAnswerCarriesARequestIDAndNosniff(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	res := app.Get("/")
	if len(res.Header.Get("X-Request-ID")) < 16 {
		t.Fatalf("generated request ID %q", res.Header.Get("X-Request-ID"))
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatal("no X-Content-Type-Options: nosniff")
	}
	mine := app.Do(Request{Path: "/", Header: http.Header{"X-Request-Id": {"abc-123"}}})
	if mine.Header.Get("X-Request-ID") != "abc-123" {
		t.Fatalf("the caller's request ID was not kept: %q", mine.Header.Get("X-Request-ID"))
	}
	odd := app.Do(Request{Path: "/", Header: http.Header{"X-Request-Id": {"<script>"}}})
	if odd.Header.Get("X-Request-ID") == "<script>" {
		t.Fatal("an unsafe request ID was echoed")
	}
	if exposed := res.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(exposed, "X-TEC-Total") ||
		!strings.Contains(exposed, "X-TEC-TotalPages") || !strings.Contains(exposed, "Link") {
		t.Fatalf("Access-Control-Expose-Headers = %q", exposed)
	}
}

func TestCORSAllowsOnlyConfiguredOrigins(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_CORS_ORIGINS", "https://allowed.example"))
	allowed := app.Do(Request{Path: "/", Header: http.Header{"Origin": {"https://allowed.example"}}})
	if allowed.Header.Get("Access-Control-Allow-Origin") != "https://allowed.example" {
		t.Fatalf("allowed origin not answered: %v", allowed.Header)
	}
	other := app.Do(Request{Path: "/", Header: http.Header{"Origin": {"https://evil.example"}}})
	if other.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("an unlisted origin was allowed")
	}
	preflight := app.Do(Request{Method: http.MethodOptions, Path: "/events", Header: http.Header{
		"Origin": {"https://allowed.example"}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"Authorization, Content-Type"}}})
	if preflight.Status/100 != 2 || !strings.Contains(preflight.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight: %d %v", preflight.Status, preflight.Header)
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	login, token := app.User(models.RoleEditor)
	basic := func(user, secret string) http.Header {
		return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+secret))}}
	}
	cases := []struct {
		name   string
		header http.Header
		status int
	}{
		{"no header is anonymous", nil, http.StatusOK},
		{"a bearer token authenticates", http.Header{"Authorization": {"Bearer " + token}}, http.StatusOK},
		{"basic login:token authenticates", basic(login, token), http.StatusOK},
		{"basic with the token in spaced groups authenticates", basic(login, token[:10]+" "+token[10:]), http.StatusOK},
		{"a made-up bearer token is refused", http.Header{"Authorization": {"Bearer not-a-token"}}, http.StatusUnauthorized},
		{"a token with another login is refused", basic("someone-else", token), http.StatusUnauthorized},
		{"basic without a colon is refused", http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(token))}}, http.StatusUnauthorized},
		{"basic that is not base64 is refused", http.Header{"Authorization": {"Basic %%%"}}, http.StatusUnauthorized},
		{"an unknown scheme is refused", http.Header{"Authorization": {"Digest " + token}}, http.StatusUnauthorized},
		{"an empty bearer is refused", http.Header{"Authorization": {"Bearer "}}, http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := app.Do(Request{Path: "/", Header: c.header})
			if c.status == http.StatusOK {
				res.ExpectStatus(t, http.StatusOK)
				return
			}
			res.ExpectError(t, http.StatusUnauthorized, "rest_invalid_credentials")
			if res.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}

	t.Run("a revoked token is refused", func(t *testing.T) {
		// As the users revoke command does: tokens have no API.
		if _, err := app.Store.RevokeTokens(context.Background(), login); err != nil {
			t.Fatal(err)
		}
		app.Do(Request{Path: "/", Token: token}).ExpectError(t, http.StatusUnauthorized, "rest_invalid_credentials")
		app.Do(Request{Path: "/", Header: basic(login, token)}).ExpectError(t, http.StatusUnauthorized, "rest_invalid_credentials")
	})
}

func TestTokensAreStoredOnlyAsHashes(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	_, token := app.User(models.RoleAuthor)
	var stored []string // how a token is stored is the fact, and no API shows it
	if err := app.Store.DB().Model(&models.Token{}).Pluck("hash", &stored).Error; err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0] == token || stored[0] != models.HashToken(token) {
		t.Fatalf("stored %v for token %s", stored, token)
	}
	if len(token) < 43 {
		t.Fatalf("token %q is shorter than 256 bits of base64", token)
	}
}

func TestEnumeratedParametersAreChecked(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	app.Get("/?context=edit").ExpectStatus(t, http.StatusOK)
	body := app.Get("/?context=bogus").ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
	if params := body["data"].(map[string]any)["params"].(map[string]any); params["context"] == nil {
		t.Fatalf("the error does not name context: %v", body)
	}
}

func TestPagingRejectsZeroAndNegativeValues(t *testing.T) {
	t.Parallel()
	app := NewApp(t)
	for _, list := range []string{"/venues", "/organizers", "/categories", "/tags"} {
		for _, q := range []string{"page=0", "per_page=0", "page=-1", "per_page=abc"} {
			app.Get(list+"?"+q).ExpectError(t, http.StatusBadRequest, "rest_invalid_param")
		}
	}
}
