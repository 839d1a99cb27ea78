package tests

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium to drive: CALENDAR_TEST_CHROMIUM (set by .ci/run after installing Debian's
// chromium, so that a broken install fails instead of skipping), else the usual binary names on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CALENDAR_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium binary found: install Debian's chromium (apt-get install -y chromium) to run the browser " +
		"test of /docs; .ci/run installs it")
	return ""
}

func TestDocsPageRendersEveryPathOfTheDocument(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	app := NewApp(t)
	srv := httptest.NewServer(app.Handler) // a real listener on 127.0.0.1
	defer srv.Close()

	var doc struct {
		Info  struct{ Title string }
		Paths map[string]map[string]any
	}
	res, err := http.Get(srv.URL + app.Config.APIRoot() + "/doc")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(res.Body).Decode(&doc)
	_ = res.Body.Close()
	if err != nil || len(doc.Paths) == 0 {
		t.Fatalf("GET /doc: %v, %d paths", err, len(doc.Paths))
	}

	allocator, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1600),
	)
	defer cancel()
	ctx, cancel := chromedp.NewContext(allocator)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser, on a context without a deadline
		t.Fatalf("starting Chromium (%s): %v", chromium, err)
	}

	// Record every request the page makes and every error it reports, from before the navigation on.
	watch, stopWatching := context.WithCancel(ctx)
	var mu sync.Mutex
	var requested, problems []string
	var watchers sync.WaitGroup
	requests, messages := chromedp.Events(watch, network.RequestWillBeSent), chromedp.Console(watch)
	watchers.Add(2)
	go func() {
		defer watchers.Done()
		for ev, err := range requests {
			if err != nil {
				return
			}
			mu.Lock()
			requested = append(requested, ev.Request.URL)
			mu.Unlock()
		}
	}()
	go func() {
		defer watchers.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				problems = append(problems, m.String()+" "+m.URL)
				mu.Unlock()
			}
		}
	}()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}

	// A bound for a hung browser, not a speed assertion.
	page, cancelPage := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelPage()
	err = chromedp.Do(page,
		chromedp.Navigate(srv.URL+"/docs"),
		chromedp.WaitVisible(chromedp.CSS(".opblock-summary-path")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".opblock-summary-path").length >= `+
			itoa(operationCount(doc.Paths)), chromedp.WithPollingTimeout(2*time.Minute)),
	)
	if err != nil {
		t.Fatalf("loading /docs in Chromium: %v", err)
	}
	rendered, err := chromedp.Run(page, chromedp.Evaluate[[]string](`Array.from(
		document.querySelectorAll(".opblock-summary-path"),
		e => e.getAttribute("data-path") + "|" + e.textContent.replace(/\u200b/g, ""))`))
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(page, chromedp.Text(chromedp.CSS(".info .title")))
	if err != nil {
		t.Fatal(err)
	}
	// "Try it out" on GET /doc calls the service from the page, under the page's Content-Security-Policy.
	op := "#operations-discovery-getDoc "
	err = chromedp.Do(page,
		chromedp.Click(chromedp.CSS(op+".opblock-summary-control")),
		chromedp.Click(chromedp.CSS(op+".try-out__btn")),
		chromedp.Click(chromedp.CSS(op+".execute")),
		chromedp.WaitVisible(chromedp.CSS(op+".live-responses-table tbody .response-col_status")),
	)
	if err != nil {
		t.Fatalf("trying GET /doc out on the page: %v", err)
	}
	tried, err := chromedp.Run(page, chromedp.Text(chromedp.CSS(op+".live-responses-table tbody .response-col_status")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tried, "200") {
		t.Errorf("Try it out on GET /doc shows status %q", tried)
	}
	screenshot, err := chromedp.Run(page, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	stopWatching()
	watchers.Wait()

	dir, err := os.MkdirTemp("", "calendar-docs-")
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "docs.png")
	if err := os.WriteFile(shot, screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of /docs: %s", shot)

	if !strings.Contains(title, doc.Info.Title) {
		t.Errorf("the page's title is %q, want the document's %q", title, doc.Info.Title)
	}
	for path := range doc.Paths {
		if !slices.Contains(rendered, path+"|"+path) {
			t.Errorf("the page does not show the path %s; it shows %v", path, rendered)
		}
	}
	for _, u := range requested {
		if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "data" && !strings.HasPrefix(u, srv.URL+"/")) {
			t.Errorf("the page loaded %s, which the service does not serve", u)
		}
	}
	if len(problems) > 0 {
		t.Errorf("the page reported errors: %v", problems)
	}
}

// operationCount is how many operations Swagger UI lists: one per method of every path.
func operationCount(paths map[string]map[string]any) int {
	n := 0
	for _, item := range paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				n++
			}
		}
	}
	return n
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// assetURLs are the page's script, style and icon URLs.
var assetURLs = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

func TestDocsPageServesItsOwnAssetsOnly(t *testing.T) {
	t.Parallel()
	app := NewApp(t, WithEnv("CALENDAR_BASE_URL", "https://cal.example.org/site", "CALENDAR_PREFIX", "/wp-json"))
	page := app.Get("//docs").ExpectStatus(t, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Fatalf("Content-Type = %q", ct)
	}
	csp := page.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self' https://cal.example.org"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if !strings.Contains(string(page.Body), `data-spec="/site/wp-json/calendar/events/v1/doc"`) {
		t.Errorf("the page does not point at the document under the base URL's path:\n%s", page.Body)
	}
	var assets []string
	for _, m := range assetURLs.FindAllStringSubmatch(string(page.Body), -1) {
		u := m[1]
		if strings.HasSuffix(u, "/doc") {
			continue // the <noscript> link to the document
		}
		if !strings.HasPrefix(u, "/site/docs/") {
			t.Errorf("the page loads %s, outside /docs", u)
			continue
		}
		assets = append(assets, strings.TrimPrefix(u, "/site")) // the proxy in front strips the base path
	}
	if len(assets) < 4 {
		t.Fatalf("the page loads %v", assets)
	}
	for _, u := range assets {
		t.Run(u, func(t *testing.T) {
			res := app.Get("/"+u).ExpectStatus(t, http.StatusOK)
			ext := filepath.Ext(strings.Split(u, "?")[0])
			want := map[string]string{".js": "text/javascript", ".css": "text/css", ".png": "image/png"}[ext]
			if !strings.HasPrefix(res.Header.Get("Content-Type"), want) || len(res.Body) == 0 {
				t.Errorf("Content-Type %q, %d bytes", res.Header.Get("Content-Type"), len(res.Body))
			}
			etag := res.Header.Get("ETag")
			if etag == "" || res.Header.Get("Cache-Control") == "" {
				t.Fatalf("no ETag or Cache-Control: %v", res.Header)
			}
			again := app.Do(Request{Path: "/" + u, Header: http.Header{"If-None-Match": {etag}}})
			again.ExpectStatus(t, http.StatusNotModified)
			zipped := app.Do(Request{Path: "/" + u, Header: http.Header{"Accept-Encoding": {"gzip, deflate"}}})
			if zipped.Header.Get("Content-Encoding") != "gzip" {
				t.Fatal("not gzip-encoded for a client that accepts it")
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(plain, res.Body) {
				t.Fatalf("the gzip encoding does not decode to the file: %v", err)
			}
		})
	}
	app.Get("//docs/secrets.txt").ExpectError(t, http.StatusNotFound, "rest_no_route")
	app.Get("//docs/index.html").ExpectError(t, http.StatusNotFound, "rest_no_route")
}
