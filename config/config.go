// Package config loads the service configuration once, from CALENDAR_* environment variables and the flags that
// mirror them, and validates it so that a bad value stops the program before anything starts.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // site and event time zones must resolve without system zoneinfo (minimal containers)
)

// Config is the validated configuration of one process.
type Config struct {
	// Addr is the listen address of the HTTP server.
	Addr string
	// Database says which database to use.
	Database Database
	// DBMaxConns bounds the database connections the service opens; 0 lets the store choose (models.Open).
	DBMaxConns int
	// BaseURL is the public base URL used for absolute links; nil means "from the request".
	BaseURL *url.URL
	// Prefix is the route prefix in front of the namespace, e.g. "/wp-json"; empty by default.
	Prefix string
	// Timezone is the site time zone; TimezoneName is how it was configured.
	Timezone     *time.Location
	TimezoneName string
	// MaxPerPage is the largest page size; larger requests are clamped silently.
	MaxPerPage int
	// Geolocation switches the geolocation extension (venue coordinates and geoloc filters).
	Geolocation bool
	// GeoRadius and GeoUnit are the default radius of a geolocation query.
	GeoRadius float64
	GeoUnit   string
	// CORSOrigins are the origins allowed to call the API from a browser; empty means no CORS headers.
	CORSOrigins []string
	// LogFormat is "json" or "text".
	LogFormat string
	// CurrencySymbol and CurrencyPosition format costs given without a symbol.
	CurrencySymbol   string
	CurrencyPosition string
	// AuthFailuresPerMinute limits failed authentication attempts per client address.
	AuthFailuresPerMinute int
	// PasswordFailuresPerMinute limits wrong passwords of protected records per client address (and three times
	// as many per record).
	PasswordFailuresPerMinute int
	// RateLimit is an optional general limit of requests per second per token or address (0 = off).
	RateLimit float64
	// TrustedProxies are the addresses or CIDR ranges whose X-Forwarded-For names the client; none by default.
	TrustedProxies []string
	// ShutdownTimeout bounds how long in-flight requests may take to finish on shutdown.
	ShutdownTimeout time.Duration
	// PprofAddr, when set, serves Go's profiler (net/http/pprof) on this loopback address.
	PprofAddr string
	// MaxConnections caps the client connections the server holds at once; further ones wait in the listen queue.
	MaxConnections int
	// ICalMaxEvents caps the events of one iCalendar feed (GET /events.ics); a feed that reaches it says so.
	ICalMaxEvents int
	// RecurrenceHorizon is how far past today the occurrences of a series without COUNT or UNTIL exist.
	RecurrenceHorizon time.Duration
	// SyncRetention is how long the change history is kept: sync tokens older than it have expired (0: 720h).
	SyncRetention time.Duration
	// Webhooks configures the webhook sender.
	Webhooks Webhooks
}

// Webhooks configures the webhook sender.
type Webhooks struct {
	// AllowPrivate lets subscriptions point at loopback, private and link-local addresses.
	AllowPrivate bool
	// RetryDelays are the waits after each failed attempt; the last repeats. RetryFor is how long a delivery is
	// retried before it is marked failed.
	RetryDelays []time.Duration
	RetryFor    time.Duration
	// Timeout bounds one attempt; Concurrency the attempts under way at once in one instance; Poll how often the
	// sender looks for new changes and due deliveries.
	Timeout     time.Duration
	Concurrency int
	Poll        time.Duration
}

// Database names a database driver and its connection string.
type Database struct {
	// Driver is "sqlite" or "postgres".
	Driver string
	// DSN is what the driver opens: a file path for SQLite, a URL for PostgreSQL.
	DSN string
}

// Namespace is the API namespace every route lives under.
const Namespace = "calendar/events/v1"

// APIRoot is the path of the namespace root, with the prefix: "/wp-json/calendar/events/v1".
func (c Config) APIRoot() string { return c.Prefix + "/" + Namespace }

// setting describes one configuration value: its variable, its flag and how it is parsed into Config.
type setting struct {
	env, flag, def, usage string
	apply                 func(c *Config, v string) error
}

var settings = []setting{
	{"CALENDAR_ADDR", "addr", ":8080", "listen address", func(c *Config, v string) error {
		if !strings.Contains(v, ":") {
			return errors.New("must be host:port or :port")
		}
		c.Addr = v
		return nil
	}},
	{"CALENDAR_DATABASE_URL", "database-url", "", "sqlite:PATH, a file path, or postgres://… (default: DATABASE_URL, else calendar.db)", func(c *Config, v string) error {
		db, err := ParseDatabaseURL(v)
		c.Database = db
		return err
	}},
	{"CALENDAR_DB_MAX_CONNS", "db-max-conns", "auto", "most database connections open at once (auto: twice the CPUs the service may use, at least 4)", func(c *Config, v string) error {
		if v == "auto" {
			c.DBMaxConns = 0
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return errors.New("must be auto or an integer between 1 and 1000")
		}
		c.DBMaxConns = n
		return nil
	}},
	{"CALENDAR_BASE_URL", "base-url", "", "public base URL for absolute links (default: from the request)", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return errors.New("must be an absolute http(s) URL without query or fragment")
		}
		u.Path = strings.TrimRight(u.Path, "/")
		c.BaseURL = u
		return nil
	}},
	{"CALENDAR_PREFIX", "prefix", "", "route prefix in front of /calendar/events/v1, e.g. /wp-json", func(c *Config, v string) error {
		v = strings.TrimRight(v, "/")
		if v != "" && (!strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?#:* ")) {
			return errors.New("must be empty or a path starting with /")
		}
		c.Prefix = v
		return nil
	}},
	{"CALENDAR_TIMEZONE", "timezone", "UTC", "site time zone (IANA name)", func(c *Config, v string) error {
		if v == "" || v == "Local" {
			return errors.New("must be an IANA time zone name such as UTC or Europe/Paris")
		}
		loc, err := time.LoadLocation(v)
		if err != nil {
			return errors.New("must be an IANA time zone name such as UTC or Europe/Paris")
		}
		c.Timezone, c.TimezoneName = loc, v
		return nil
	}},
	{"CALENDAR_MAX_PER_PAGE", "max-per-page", "50", "largest page size", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return errors.New("must be an integer between 1 and 1000")
		}
		c.MaxPerPage = n
		return nil
	}},
	{"CALENDAR_GEOLOCATION", "geolocation", "on", "geolocation extension: on or off", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.Geolocation = b
		return err
	}},
	{"CALENDAR_GEO_RADIUS", "geo-radius", "25", "default geolocation radius", func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || f > 20038 {
			return errors.New("must be a number greater than 0 (and at most half the Earth's circumference)")
		}
		c.GeoRadius = f
		return nil
	}},
	{"CALENDAR_GEO_UNIT", "geo-unit", "miles", "unit of the geolocation radius: miles or km", func(c *Config, v string) error {
		if v != "miles" && v != "km" {
			return errors.New("must be miles or km")
		}
		c.GeoUnit = v
		return nil
	}},
	{"CALENDAR_CORS_ORIGINS", "cors-origins", "", "comma-separated origins allowed by CORS (* for any)", func(c *Config, v string) error {
		c.CORSOrigins = nil
		for _, o := range strings.Split(v, ",") {
			o = strings.TrimSpace(o)
			if o == "" {
				continue
			}
			if o != "*" {
				u, err := url.Parse(o)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
					return fmt.Errorf("%q is not an origin such as https://example.com", o)
				}
				o = strings.TrimRight(o, "/")
			}
			c.CORSOrigins = append(c.CORSOrigins, o)
		}
		return nil
	}},
	{"CALENDAR_LOG_FORMAT", "log-format", "json", "log format: json or text", func(c *Config, v string) error {
		if v != "json" && v != "text" {
			return errors.New("must be json or text")
		}
		c.LogFormat = v
		return nil
	}},
	{"CALENDAR_CURRENCY_SYMBOL", "currency-symbol", "$", "currency symbol for costs given without one", func(c *Config, v string) error {
		if v == "" || len(v) > 8 {
			return errors.New("must be 1 to 8 bytes")
		}
		c.CurrencySymbol = v
		return nil
	}},
	{"CALENDAR_CURRENCY_POSITION", "currency-position", "prefix", "position of the default currency symbol: prefix or postfix", func(c *Config, v string) error {
		if v != "prefix" && v != "postfix" {
			return errors.New("must be prefix or postfix")
		}
		c.CurrencyPosition = v
		return nil
	}},
	{"CALENDAR_AUTH_FAILURES_PER_MINUTE", "auth-failures-per-minute", "10", "failed authentication attempts allowed per client address and minute", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("must be a positive integer")
		}
		c.AuthFailuresPerMinute = n
		return nil
	}},
	{"CALENDAR_PASSWORD_FAILURES_PER_MINUTE", "password-failures-per-minute", "10", "wrong passwords of protected events, venues and organizers allowed per client address and minute (three times as many per record)", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("must be a positive integer")
		}
		c.PasswordFailuresPerMinute = n
		return nil
	}},
	{"CALENDAR_RATE_LIMIT", "rate-limit", "0", "requests per second allowed per token or client address (0 = no limit)", func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return errors.New("must be a number, 0 or more")
		}
		c.RateLimit = f
		return nil
	}},
	{"CALENDAR_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated proxy addresses or CIDRs whose X-Forwarded-For is believed", func(c *Config, v string) error {
		c.TrustedProxies = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
				return fmt.Errorf("%q is not an IP address or CIDR range", p)
			}
			c.TrustedProxies = append(c.TrustedProxies, p)
		}
		return nil
	}},
	{"CALENDAR_PPROF_ADDR", "pprof-addr", "", "serve the Go profiler on this loopback address, e.g. 127.0.0.1:6060 (off by default)", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		host, _, err := net.SplitHostPort(v)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return errors.New("must be a loopback address such as 127.0.0.1:6060 (the profiler must not be public)")
		}
		c.PprofAddr = v
		return nil
	}},
	{"CALENDAR_MAX_CONNECTIONS", "max-connections", "1000", "most client connections held at once, idle keep-alive ones included; further ones wait to be accepted", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000000 {
			return errors.New("must be an integer between 1 and 1000000")
		}
		c.MaxConnections = n
		return nil
	}},
	{"CALENDAR_ICAL_MAX_EVENTS", "ical-max-events", "10000", "most events one iCalendar feed holds", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000000 {
			return errors.New("must be an integer between 1 and 1000000")
		}
		c.ICalMaxEvents = n
		return nil
	}},
	{"CALENDAR_RECURRENCE_HORIZON", "recurrence-horizon", "730d", "how far past today a series without COUNT or UNTIL has occurrences: days (730d) or a duration (8760h)", func(c *Config, v string) error {
		d, err := parseDays(v)
		if err != nil || d < 24*time.Hour || d > 20*365*24*time.Hour {
			return errors.New("must be a number of days (730d) or a duration (8760h) from 1 day to 20 years")
		}
		c.RecurrenceHorizon = d
		return nil
	}},
	{"CALENDAR_SHUTDOWN_TIMEOUT", "shutdown-timeout", "30s", "how long in-flight requests may take to finish on shutdown", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return errors.New("must be a positive duration such as 30s")
		}
		c.ShutdownTimeout = d
		return nil
	}},
	{"CALENDAR_SYNC_RETENTION", "sync-retention", "720h", "how long changes are kept for sync tokens and webhooks", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute {
			return errors.New("must be a duration of at least 1m, such as 720h")
		}
		c.SyncRetention = d
		return nil
	}},
	{"CALENDAR_WEBHOOK_ALLOW_PRIVATE", "webhook-allow-private", "false", "let webhooks point at loopback, private or link-local addresses", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.Webhooks.AllowPrivate = b
		return err
	}},
	{"CALENDAR_WEBHOOK_RETRY_DELAYS", "webhook-retry-delays", "1m,5m,30m,2h,6h,12h", "waits after each failed webhook attempt (the last repeats)", func(c *Config, v string) error {
		c.Webhooks.RetryDelays = nil
		for _, part := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d <= 0 {
				return errors.New("must be a comma-separated list of positive durations such as 1m,5m,30m")
			}
			c.Webhooks.RetryDelays = append(c.Webhooks.RetryDelays, d)
		}
		return nil
	}},
	{"CALENDAR_WEBHOOK_RETRY_FOR", "webhook-retry-for", "72h", "how long a webhook delivery is retried before it is marked failed", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return errors.New("must be a positive duration such as 72h")
		}
		c.Webhooks.RetryFor = d
		return nil
	}},
	{"CALENDAR_WEBHOOK_TIMEOUT", "webhook-timeout", "10s", "how long a webhook receiver has to answer", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Minute {
			return errors.New("must be a positive duration of at most 1m such as 10s")
		}
		c.Webhooks.Timeout = d
		return nil
	}},
	{"CALENDAR_WEBHOOK_CONCURRENCY", "webhook-concurrency", "16", "webhook deliveries sent at once by one instance", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 256 {
			return errors.New("must be an integer between 1 and 256")
		}
		c.Webhooks.Concurrency = n
		return nil
	}},
	{"CALENDAR_WEBHOOK_POLL", "webhook-poll", "200ms", "how often the webhook sender looks for changes and due deliveries", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Millisecond || d > time.Minute {
			return errors.New("must be a duration between 10ms and 1m such as 200ms")
		}
		c.Webhooks.Poll = d
		return nil
	}},
}

// Load reads the configuration from getenv and from flags in args (flags win), and validates every value.
// The error names the variable (or flag) that is wrong. Arguments that are not flags are returned for the caller.
func Load(args []string, getenv func(string) string, stderr io.Writer) (Config, []string, error) {
	fs := flag.NewFlagSet("calendar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := make([]*string, len(settings))
	for i, s := range settings {
		flags[i] = fs.String(s.flag, "", s.usage+" (env "+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	var c Config
	for i, s := range settings {
		value, source := getenv(s.env), s.env
		if given[s.flag] {
			value, source = *flags[i], "-"+s.flag
		}
		if value == "" && s.env == "CALENDAR_DATABASE_URL" && getenv("DATABASE_URL") != "" {
			value, source = getenv("DATABASE_URL"), "DATABASE_URL"
		}
		if value == "" {
			value = s.def
		}
		if err := s.apply(&c, strings.TrimSpace(value)); err != nil {
			return Config{}, nil, fmt.Errorf("invalid %s=%q: %w", source, value, err)
		}
	}
	return c, fs.Args(), nil
}

// ParseDatabaseURL reads "sqlite:PATH", a plain file path, or a postgres:// / postgresql:// URL. Empty means the
// SQLite file calendar.db in the working directory.
func ParseDatabaseURL(v string) (Database, error) {
	switch {
	case v == "":
		return Database{Driver: "sqlite", DSN: "calendar.db"}, nil
	case strings.HasPrefix(v, "postgres://"), strings.HasPrefix(v, "postgresql://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return Database{}, errors.New("must be a PostgreSQL URL such as postgres://user@host:5432/db")
		}
		return Database{Driver: "postgres", DSN: v}, nil
	case strings.HasPrefix(v, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(v, "sqlite:"), "//")
		if path == "" {
			return Database{}, errors.New("sqlite: needs a file path, e.g. sqlite:calendar.db")
		}
		return Database{Driver: "sqlite", DSN: path}, nil
	case strings.Contains(v, "://"):
		return Database{}, errors.New("must be sqlite:PATH, a file path, or a postgres:// URL")
	default:
		return Database{Driver: "sqlite", DSN: v}, nil
	}
}

func parseSwitch(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, errors.New("must be on or off")
}

// parseDays reads a number of days ("730d") or a Go duration ("8760h").
func parseDays(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, err
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(v)
}
