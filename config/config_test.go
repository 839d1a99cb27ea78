package config

import (
	"io"
	"strings"
	"testing"
)

func load(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	c, _, err := Load(args, func(k string) string { return env[k] }, io.Discard)
	return c, err
}

func TestDefaults(t *testing.T) {
	c, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.Database != (Database{Driver: "sqlite", DSN: "calendar.db"}) || c.BaseURL != nil ||
		c.Prefix != "" || c.TimezoneName != "UTC" || c.MaxPerPage != 50 || !c.Geolocation || c.GeoRadius != 25 ||
		c.GeoUnit != "miles" || len(c.CORSOrigins) != 0 || c.LogFormat != "json" || c.ICalMaxEvents != 10000 || c.DBMaxConns != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	if c.APIRoot() != "/calendar/events/v1" {
		t.Fatalf("API root %s", c.APIRoot())
	}
}

func TestDatabaseURLForms(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Database
	}{
		{map[string]string{"CALENDAR_DATABASE_URL": "sqlite:/tmp/x.db"}, Database{"sqlite", "/tmp/x.db"}},
		{map[string]string{"CALENDAR_DATABASE_URL": "data/cal.db"}, Database{"sqlite", "data/cal.db"}},
		{map[string]string{"CALENDAR_DATABASE_URL": "postgres://u@h:5432/db"}, Database{"postgres", "postgres://u@h:5432/db"}},
		{map[string]string{"CALENDAR_DATABASE_URL": "postgresql://u@h/db"}, Database{"postgres", "postgresql://u@h/db"}},
		{map[string]string{"DATABASE_URL": "postgres://fallback@h/db"}, Database{"postgres", "postgres://fallback@h/db"}},
		{map[string]string{"DATABASE_URL": "postgres://fallback@h/db", "CALENDAR_DATABASE_URL": "sqlite:a.db"}, Database{"sqlite", "a.db"}},
	}
	for _, c := range cases {
		got, err := load(t, c.env)
		if err != nil || got.Database != c.want {
			t.Errorf("%v: got %+v, %v; want %+v", c.env, got.Database, err, c.want)
		}
	}
}

func TestFlagsOverrideTheEnvironment(t *testing.T) {
	c, err := load(t, map[string]string{"CALENDAR_ADDR": ":1"}, "-addr", "127.0.0.1:9999", "-prefix", "/wp-json/")
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.Prefix != "/wp-json" {
		t.Fatalf("%+v", c)
	}
}

func TestInvalidValuesNameTheirVariable(t *testing.T) {
	cases := map[string]string{
		"CALENDAR_ADDR":              "8080",
		"CALENDAR_DATABASE_URL":      "mysql://x",
		"CALENDAR_BASE_URL":          "example.com",
		"CALENDAR_PREFIX":            "wp-json",
		"CALENDAR_TIMEZONE":          "Mars/Olympus",
		"CALENDAR_MAX_PER_PAGE":      "0",
		"CALENDAR_GEOLOCATION":       "maybe",
		"CALENDAR_GEO_RADIUS":        "-3",
		"CALENDAR_GEO_UNIT":          "parsecs",
		"CALENDAR_CORS_ORIGINS":      "not an origin",
		"CALENDAR_LOG_FORMAT":        "xml",
		"CALENDAR_CURRENCY_POSITION": "middle",
		"CALENDAR_SHUTDOWN_TIMEOUT":  "soon",
		"CALENDAR_ICAL_MAX_EVENTS":   "0",
		"CALENDAR_DB_MAX_CONNS":      "0",
	}
	for name, value := range cases {
		_, err := load(t, map[string]string{name: value})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: error %v does not name the variable", name, value, err)
		}
	}
	for _, v := range []string{"-1", "ten", "1000001", "2.5"} {
		if _, err := load(t, map[string]string{"CALENDAR_ICAL_MAX_EVENTS": v}); err == nil {
			t.Errorf("CALENDAR_ICAL_MAX_EVENTS=%s was accepted", v)
		}
	}
	for _, v := range []string{"-1", "many", "1001", "2.5"} {
		if _, err := load(t, map[string]string{"CALENDAR_DB_MAX_CONNS": v}); err == nil {
			t.Errorf("CALENDAR_DB_MAX_CONNS=%s was accepted", v)
		}
	}
	if c, err := load(t, map[string]string{"CALENDAR_DB_MAX_CONNS": "12"}); err != nil || c.DBMaxConns != 12 {
		t.Errorf("CALENDAR_DB_MAX_CONNS=12: %d, %v", c.DBMaxConns, err)
	}
	if c, err := load(t, nil, "-ical-max-events", "25"); err != nil || c.ICalMaxEvents != 25 {
		t.Errorf("-ical-max-events 25: %d, %v", c.ICalMaxEvents, err)
	}
	if _, err := load(t, nil, "-geo-unit", "furlongs"); err == nil || !strings.Contains(err.Error(), "-geo-unit") {
		t.Errorf("a bad flag is not named: %v", err)
	}
}

func TestListsAndURLsAreNormalised(t *testing.T) {
	c, err := load(t, map[string]string{
		"CALENDAR_CORS_ORIGINS": " https://a.example/ , http://b.example:8080,,",
		"CALENDAR_BASE_URL":     "https://example.com/site/",
		"CALENDAR_GEOLOCATION":  "off",
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.CORSOrigins, " ") != "https://a.example http://b.example:8080" {
		t.Fatalf("origins %q", c.CORSOrigins)
	}
	if c.BaseURL.String() != "https://example.com/site" || c.Geolocation {
		t.Fatalf("%+v", c)
	}
}
