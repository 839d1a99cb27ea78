package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"calendar/config"
	"calendar/models"
)

// docsUI holds Swagger UI (swagger-ui-dist from the npm registry, pinned in docsui/package-lock.json and copied by
// docsui/update.sh) and the page around it, so /docs works offline and loads nothing from elsewhere.
//
//go:embed docsui/index.html docsui/docs.js docsui/docs.css docsui/swagger-ui-bundle.js docsui/swagger-ui.css
//go:embed docsui/favicon-32x32.png docsui/favicon-16x16.png
var docsUI embed.FS

// DocsPath is where the documentation page lives, at the server root; its assets are below it.
const DocsPath = "/docs"

// DocsPage serves GET /docs, a page that renders the OpenAPI document of GET {api_root}/doc with Swagger UI, and
// GET /docs/:file, the page's assets.
type DocsPage struct {
	cfg config.Config
	// home is the site's home URL as a request reaches it.
	home    func(*gin.Context) string
	page    *template.Template
	assets  map[string]*docsAsset
	version string
}

// docsAsset is one embedded file, with its strong ETag and (made on first use) its gzip encoding.
type docsAsset struct {
	name        string
	contentType string
	body        []byte
	etag        string

	gzipOnce sync.Once
	gzipped  []byte
}

var docsContentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".png": "image/png",
}

// NewDocsPage loads the embedded page and assets; home gives the site's home URL for a request.
func NewDocsPage(cfg config.Config, home func(*gin.Context) string) *DocsPage {
	dc := &DocsPage{cfg: cfg, home: home, assets: map[string]*docsAsset{}}
	dc.page = template.Must(template.ParseFS(docsUI, "docsui/index.html"))
	entries, err := docsUI.ReadDir("docsui")
	if err != nil {
		panic(err) // the directory is embedded; failing to read it is a build defect
	}
	versions := sha256.New()
	for _, e := range entries {
		contentType, served := docsContentTypes[path.Ext(e.Name())]
		if !served {
			continue
		}
		body, err := docsUI.ReadFile("docsui/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		versions.Write(sum[:])
		dc.assets[e.Name()] = &docsAsset{name: e.Name(), contentType: contentType, body: body,
			etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	}
	dc.version = hex.EncodeToString(versions.Sum(nil)[:6])
	return dc
}

// Page handles GET /docs.
func (dc *DocsPage) Page(c *gin.Context) {
	base := ""
	if u, err := url.Parse(dc.home(c)); err == nil {
		base = strings.TrimSuffix(u.Path, "/")
	}
	var buf bytes.Buffer
	err := dc.page.Execute(&buf, struct{ Assets, Spec, Version string }{
		Assets:  base + DocsPath,
		Spec:    base + dc.cfg.APIRoot() + "/doc",
		Version: dc.version,
	})
	if err != nil {
		_ = c.Error(err)
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", dc.contentSecurityPolicy())
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}

// contentSecurityPolicy lets the page load only the service's own files, and lets "Try it out" call the API at
// its public base URL when one is configured (it may differ from the host the page was opened on).
func (dc *DocsPage) contentSecurityPolicy() string {
	connect := "'self'"
	if b := dc.cfg.BaseURL; b != nil {
		connect += " " + b.Scheme + "://" + b.Host
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"font-src 'self' data:; connect-src " + connect + "; base-uri 'none'; form-action 'none'; " +
		"frame-ancestors 'none'"
}

// Asset handles GET /docs/:file: the embedded files only, cached for a day (the page asks for them with a
// version query that changes with their content), gzip-encoded when the client accepts it.
func (dc *DocsPage) Asset(c *gin.Context) {
	a, ok := dc.assets[c.Param("file")]
	if !ok {
		_ = c.Error(models.NoRoute())
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Vary", "Accept-Encoding")
	body, etag := a.body, a.etag
	if acceptsGzip(c.Request) {
		body, etag = a.gzip(), strings.TrimSuffix(a.etag, `"`)+`-gzip"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(c.Writer, c.Request, a.name, time.Time{}, bytes.NewReader(body))
}

func (a *docsAsset) gzip() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		a.gzipped = buf.Bytes()
	})
	return a.gzipped
}

// acceptsGzip reads Accept-Encoding well enough for browsers: gzip listed without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
