package main

import (
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module path; every project import starts with it.
const module = "calendar"

// importRule says which project packages the packages matching pkg may import, and which other imports (of the
// standard library or of modules) they must not use. Patterns are import paths, or a path ending in "/..." for it
// and every package beneath it. docs/architecture.md draws these arrows.
type importRule struct {
	pkg       string
	may       []string
	forbidden []string
}

// httpFree are the imports of HTTP: nothing below the controllers knows about it.
var httpFree = []string{"net/http", "github.com/gin-gonic/gin"}

// importRules are matched in order; the first whose pkg matches a package applies. Data flows one way: routes →
// middleware → controllers → models → database. Inside controllers, the handlers use the packages beneath them,
// which use nothing of the handlers; input is a leaf that models may use too.
var importRules = []importRule{
	{pkg: "calendar/config", forbidden: httpFree},
	{pkg: "calendar/controllers/input", forbidden: httpFree},
	{pkg: "calendar/controllers/ical", may: []string{"calendar/controllers/input"}, forbidden: httpFree},
	{pkg: "calendar/controllers/openapi", may: []string{"calendar/controllers/endpoint", "calendar/controllers/input",
		"calendar/models/...", "calendar/config"}},
	// The background jobs run units of work of models; the handlers pass in how deliveries are shaped, so the jobs
	// know no handler (and no gin), only the HTTP client that sends webhooks.
	{pkg: "calendar/controllers/jobs", may: []string{"calendar/models/...", "calendar/config"},
		forbidden: []string{"github.com/gin-gonic/gin"}},
	{pkg: "calendar/controllers", may: []string{"calendar/controllers/...", "calendar/models/...",
		"calendar/config"}},
	// Any other package beneath the handlers (endpoint, and those to come) is a helper of theirs.
	{pkg: "calendar/controllers/...", may: []string{"calendar/controllers/input", "calendar/models/...",
		"calendar/config"}},
	{pkg: "calendar/models/...", may: []string{"calendar/models/...", "calendar/controllers/input",
		"calendar/config"}, forbidden: httpFree},
	{pkg: "calendar/middleware/...", may: []string{"calendar/controllers/...", "calendar/models/...",
		"calendar/config"}},
	{pkg: "calendar/routes/...", may: []string{"calendar/middleware/...", "calendar/controllers/...",
		"calendar/models/...", "calendar/config"}},
	// main wires everything; the harness and the black-box tests drive it from outside.
	{pkg: "calendar", may: []string{"calendar/..."}},
	{pkg: "calendar/bench/...", may: []string{"calendar/..."}},
	{pkg: "calendar/tests/...", may: []string{"calendar/..."}},
}

// matches tells whether the import path p matches the pattern.
func matches(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// ruleFor is the first rule that matches the package.
func ruleFor(pkg string) (importRule, bool) {
	for _, r := range importRules {
		if matches(r.pkg, pkg) {
			return r, true
		}
	}
	return importRule{}, false
}

// projectPackages maps the import path of every package of the module to its non-test imports.
func projectPackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" ||
			name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		pkgs[path.Join(module, filepath.ToSlash(dir))] = p.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestImportDirections fails on an import that goes against the direction of the layers, on a package no rule
// covers, and on an import a package must not know about (HTTP below the controllers, gin in the jobs).
func TestImportDirections(t *testing.T) {
	pkgs := projectPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: %v", len(pkgs), pkgs)
	}
	for pkg, imports := range pkgs {
		rule, ok := ruleFor(pkg)
		if !ok {
			t.Errorf("%s: no import rule covers it; add one to importRules and docs/architecture.md", pkg)
			continue
		}
		for _, imp := range imports {
			if slices.Contains(rule.forbidden, imp) {
				t.Errorf("%s imports %s, which its layer must not know about (docs/architecture.md)", pkg, imp)
			}
			if !matches(module+"/...", imp) || imp == pkg {
				continue
			}
			if !slices.ContainsFunc(rule.may, func(pattern string) bool { return matches(pattern, imp) }) {
				t.Errorf("%s imports %s, against the direction of the layers (docs/architecture.md)", pkg, imp)
			}
		}
	}
}

// TestImportRulesCatchAWrongArrow checks the checker: arrows that point the wrong way are refused.
func TestImportRulesCatchAWrongArrow(t *testing.T) {
	for _, c := range []struct {
		from, to string
		allowed  bool
	}{
		{"calendar/models", "calendar/controllers", false},
		{"calendar/models", "calendar/controllers/endpoint", false},
		{"calendar/models", "calendar/controllers/input", true},
		{"calendar/models/recurrence", "calendar/models", true},
		{"calendar/controllers/input", "calendar/models", false},
		{"calendar/controllers/endpoint", "calendar/controllers", false},
		{"calendar/controllers/openapi", "calendar/controllers", false},
		{"calendar/controllers", "calendar/middleware", false},
		{"calendar/controllers", "calendar/controllers/openapi", true},
		{"calendar/controllers", "calendar/controllers/jobs", true},
		{"calendar/controllers/jobs", "calendar/controllers", false},
		{"calendar/controllers/jobs", "calendar/controllers/endpoint", false},
		{"calendar/controllers/jobs", "calendar/models", true},
		{"calendar/middleware", "calendar/routes", false},
		{"calendar/routes", "calendar/middleware", true},
		{"calendar/config", "calendar/models", false},
	} {
		rule, ok := ruleFor(c.from)
		got := ok && slices.ContainsFunc(rule.may, func(pattern string) bool { return matches(pattern, c.to) })
		if got != c.allowed {
			t.Errorf("%s → %s: allowed %v, want %v", c.from, c.to, got, c.allowed)
		}
	}
}
