// Command calendar serves the calendar REST API (calendar/events/v1) on SQLite or PostgreSQL.
//
//	calendar [flags] [serve]                               serve the API (default)
//	calendar [flags] migrate                               apply pending migrations and exit
//	calendar [flags] demo [--force]                        load a sample calendar (refused when events exist)
//	calendar [flags] users create --login L --role R [--name N]   create a user; prints its first token
//	calendar [flags] users token --login L                 print a further token for a user
//	calendar [flags] users list                            list users, roles and active token counts
//	calendar [flags] users revoke --login L                revoke every token of a user
//
// Configuration comes from CALENDAR_* environment variables; see README.md or `calendar -h`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/net/netutil"

	"calendar/config"
	"calendar/controllers"
	"calendar/controllers/jobs"
	"calendar/models"
	"calendar/routes"
)

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT does not set one: the collector works
// harder as the heap nears it, so the process stays small (the response cache holds at most 32 MB of it) instead
// of letting garbage grow to twice the live heap.
const defaultMemoryLimit = 100 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "calendar:", err)
		os.Exit(1)
	}
}

// run is the whole program: configuration, database, migrations, then the chosen command. It returns when the
// command is done or, for serve, when ctx is cancelled and in-flight requests have finished.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, rest, err := config.Load(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogFormat, stderr)
	command := "serve"
	if len(rest) > 0 {
		command, rest = rest[0], rest[1:]
	}
	switch command {
	case "serve", "migrate", "users", "demo":
	default:
		return fmt.Errorf("unknown command %q (serve, migrate, demo or users)", command)
	}

	store, err := models.Open(cfg.Database.Driver, cfg.Database.DSN, cfg.DBMaxConns)
	if err != nil {
		return fmt.Errorf("opening the %s database: %w", cfg.Database.Driver, err)
	}
	defer store.Close()
	applied, err := store.Migrate(ctx)
	if err != nil {
		return fmt.Errorf("migrating the %s database: %w", cfg.Database.Driver, err)
	}
	if len(applied) > 0 {
		log.Info("migrations applied", "versions", applied, "driver", cfg.Database.Driver)
	}

	switch command {
	case "migrate":
		fmt.Fprintf(stdout, "database is up to date (%d migration(s) applied now)\n", len(applied))
		return nil
	case "users":
		return usersCommand(ctx, store, rest, stdout, stderr)
	case "demo":
		return demoCommand(ctx, cfg, store, rest, stdout, stderr)
	}
	return serve(ctx, cfg, store, log)
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// serve runs the HTTP server until ctx is cancelled, then stops accepting connections, lets in-flight requests
// finish (bounded by the shutdown timeout), and returns so the caller closes the database last.
func serve(ctx context.Context, cfg config.Config, store *models.Store, log *slog.Logger) error {
	app := controllers.NewApp(cfg, store, log)
	srv := &http.Server{
		Handler:           routes.New(app),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	// Every connection holds buffers and a goroutine, and may hold a request body: the cap bounds them all.
	ln = netutil.LimitListener(ln, cfg.MaxConnections)
	log.Info("listening", "addr", ln.Addr().String(), "driver", cfg.Database.Driver, "api_root", cfg.APIRoot())

	if cfg.PprofAddr != "" {
		go servePprof(cfg.PprofAddr, log)
	}
	sending := make(chan struct{})
	go func() { defer close(sending); app.Webhooks.Run(ctx) }()
	maintaining := make(chan struct{})
	go func() { defer close(maintaining); maintain(ctx, store, cfg.SyncRetention, cfg.Timezone, log) }()
	extending := make(chan struct{})
	go func() { defer close(extending); jobs.RunHorizon(ctx, store, cfg.RecurrenceHorizon, log) }()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	app.ShutDown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-maintaining
	<-extending
	<-sending
	log.Info("stopped")
	return nil
}

// servePprof serves Go's profiler on a loopback address, for operators measuring the service in place.
func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	log.Info("profiler listening", "addr", addr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		log.Warn("profiler stopped", "error", err)
	}
}

// compactionInterval is how often pending term-count deltas are folded into the counts, queueVacuumInterval how
// often the webhook queue is vacuumed and the radius window's deltas folded, statisticsInterval how often the
// planner statistics are refreshed (SQLite; PostgreSQL's autovacuum does it there), venueWindowInterval how often
// the radius window is moved to today if the day changed.
const (
	compactionInterval  = time.Second
	queueVacuumInterval = 10 * time.Second
	statisticsInterval  = time.Hour
	pruneInterval       = 10 * time.Minute
	venueWindowInterval = time.Minute
)

// maintain runs the database's housekeeping until ctx ends: it refreshes the planner statistics at start and then
// hourly, folds term-count deltas into the counts, vacuums the webhook queue, prunes the change history and the
// webhook delivery log of what is older than retention, and keeps the radius totals' window on today in the site's
// zone (site). Counts are exact without it (readers add pending deltas, and radius totals in a window not kept count
// their links); it keeps the readers' work small.
func maintain(ctx context.Context, store *models.Store, retention time.Duration, site *time.Location,
	log *slog.Logger) {
	refresh := func() {
		if err := store.RefreshStatistics(ctx); err != nil && ctx.Err() == nil {
			log.Warn("refreshing planner statistics", "error", err)
		}
	}
	refresh()
	prune := func() {
		cutoff := time.Now().Add(-retention)
		if _, err := store.PruneChanges(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Warn("pruning the change history", "error", err)
		}
		if _, err := store.PruneDeliveries(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Warn("pruning the webhook delivery log", "error", err)
		}
	}
	prune()
	keepWindow := func() {
		if _, err := store.KeepVenueWindow(ctx, time.Now(), site); err != nil && ctx.Err() == nil {
			log.Warn("moving the radius totals' window", "error", err)
		}
	}
	keepWindow()
	compaction, statistics := time.NewTicker(compactionInterval), time.NewTicker(statisticsInterval)
	pruning, queueVacuum := time.NewTicker(pruneInterval), time.NewTicker(queueVacuumInterval)
	venueWindow := time.NewTicker(venueWindowInterval)
	defer venueWindow.Stop()
	defer compaction.Stop()
	defer statistics.Stop()
	defer pruning.Stop()
	defer queueVacuum.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-pruning.C:
			prune()
		case <-queueVacuum.C:
			if err := store.VacuumWebhookQueue(ctx); err != nil && ctx.Err() == nil {
				log.Warn("vacuuming the webhook queue", "error", err)
			}
			if _, err := store.CompactVenueWindowCounts(ctx); err != nil && ctx.Err() == nil {
				log.Warn("folding the radius window's counts", "error", err)
			}
		case <-venueWindow.C:
			keepWindow()
		case <-statistics.C:
			refresh()
		case <-compaction.C:
			folded, err := store.CompactTermCounts(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("compacting term counts", "error", err)
			}
			if folded > 0 {
				if err := store.VacuumTermCounts(ctx); err != nil && ctx.Err() == nil {
					log.Warn("vacuuming term counts", "error", err)
				}
			}
		}
	}
}

// usersCommand manages users and tokens without a running server.
func usersCommand(ctx context.Context, store *models.Store, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("users needs a subcommand: create, token, list or revoke")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("users "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	login := fs.String("login", "", "the user's login")
	role := fs.String("role", "", "the user's role: administrator, editor, author, contributor or subscriber")
	name := fs.String("name", "", "the user's display name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("users %s: unexpected argument %q", sub, fs.Arg(0))
	}
	needLogin := func() error {
		if *login == "" {
			return fmt.Errorf("users %s needs --login", sub)
		}
		return nil
	}
	switch sub {
	case "create":
		if err := needLogin(); err != nil {
			return err
		}
		r, err := models.ParseRole(*role)
		if err != nil {
			return fmt.Errorf("users create: %w", err)
		}
		token, err := store.CreateUser(ctx, *login, *name, r)
		if err != nil {
			return fmt.Errorf("users create: %w", err)
		}
		fmt.Fprintln(stdout, token)
	case "token":
		if err := needLogin(); err != nil {
			return err
		}
		token, err := store.IssueToken(ctx, *login)
		if err != nil {
			return fmt.Errorf("users token: %w", err)
		}
		fmt.Fprintln(stdout, token)
	case "list":
		users, err := store.ListUsers(ctx)
		if err != nil {
			return fmt.Errorf("users list: %w", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LOGIN\tROLE\tNAME\tACTIVE TOKENS")
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", u.Login, u.Role, u.Name, u.ActiveTokens)
		}
		return tw.Flush()
	case "revoke":
		if err := needLogin(); err != nil {
			return err
		}
		n, err := store.RevokeTokens(ctx, *login)
		if err != nil {
			return fmt.Errorf("users revoke: %w", err)
		}
		fmt.Fprintf(stdout, "revoked %d token(s) of %s\n", n, *login)
	default:
		return fmt.Errorf("unknown users subcommand %q (create, token, list or revoke)", sub)
	}
	return nil
}
