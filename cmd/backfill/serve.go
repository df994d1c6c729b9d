package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/backfill-hpc/backfill/service"
	"github.com/backfill-hpc/backfill/service/executor"
)

// serviceCommands are the live service's commands: the server and its
// clients.
func serviceCommands() []*cobra.Command {
	return []*cobra.Command{newServe(), newSubmit(), newQueue(), newCancel(), newUserCmd(), newLoadgen()}
}

// serveStop, when set (tests), stops a running serve when closed.
var serveStop chan struct{}

type serveFlags struct {
	policy, state, listen, executor, clock, sync string
	procs                                        int
	clockStart                                   int64
	maxBody                                      int64
	adminTokenFile                               string
	sbatchArgs                                   []string
	tlsCert, tlsKey                              string
	verbose                                      bool
	check                                        string
	acceptLoss                                   bool
	maxInFlight                                  int
	maxExecBacklog                               int
	snapshotEvery                                int
	snapshotInterval, snapshotCost               time.Duration
	// limits
	maxConns, maxConnsPerClient             int
	headerTimeout, bodyTimeout, idleTimeout time.Duration
	// local executor
	jobDir, runAs, cgroup string
	runAsMap, jobEnv      []string
}

func newServe() *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the live scheduler service (HTTP/JSON API)",
		Long: `serve runs a policy as a live scheduler: users submit jobs over an HTTP/JSON
API (see /v1/openapi.json and docs/service.md) and get at once their reserved
start, the latest start the policy guarantees (conservative, slack), or, with a
deadline policy, whether their deadline is accepted. Every accepted request is
committed to a bbolt database in --state (state.db, fsynced at each commit)
before it is answered; after a crash the service rebuilds its state from that
log. A state directory that lost acknowledged records or whose database is
damaged (records deleted, bytes changed, a truncated or emptied database, a
missing admin user) is refused with a message naming the files and the ways
out; --check STATE verifies one offline, --accept-loss continues from what is
left. A state directory of a version before bbolt (SQLite) is refused with the
command that converts it (tools/migratestate). The port opens at once; until the state is rebuilt requests get 503 with
Retry-After (health: recovering). Other --policy or --procs than at the
previous start reconfigure the service (running jobs kept, waiting jobs
re-planned; see POST /v1/reconfigure in docs/service.md).

At the first start an admin token is written to STATE/admin.token; create
user tokens with 'backfill user add NAME'.`,
		Example: `  # conservative backfilling on 128 processors, advisor mode (a resource
  # manager polls GET /v1/decisions and reports ends)
  backfill serve --policy conservative --procs 128 --state /var/lib/backfill

  # run the jobs' commands as local processes on 8 processor slots
  backfill serve --policy easy --procs 8 --state ./state --executor local

  # jobs go to Slurm held, released when the policy starts them
  backfill serve --policy slack --procs 64 --state ./state --executor slurm`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "conservative", "policy spec, name[:key=value...] (see 'backfill policies')")
	fl.IntVar(&f.procs, "procs", 0, "machine size P (required)")
	fl.StringVar(&f.state, "state", "", "state directory: database, admin token, job directories (required)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8470", "address to listen on (loopback unless told otherwise; port 0 picks one, written to STATE/addr)")
	fl.StringVar(&f.executor, "executor", "none", "none (advisor), local (run commands here) or slurm")
	fl.StringVar(&f.clock, "clock", "wall", "wall, or manual (time moves only by POST /v1/clock; tests and replays)")
	fl.Int64Var(&f.clockStart, "clock-start", 0, "initial time of the manual clock (seconds)")
	fl.StringVar(&f.sync, "sync", "full", "full: fsync the database at each commit (durable across power loss), or normal: no fsync (durable across process crashes only)")
	fl.Int64Var(&f.maxBody, "max-body", 64<<10, "largest request body accepted, bytes")
	fl.StringVar(&f.adminTokenFile, "admin-token-file", "", "file holding the admin token (default: generated into STATE/admin.token)")
	fl.StringArrayVar(&f.sbatchArgs, "sbatch-arg", nil, "extra sbatch argument for the slurm executor (repeatable), e.g. --sbatch-arg=--partition=debug")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (and --tls-key)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "private key for --tls-cert")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every decision and executor action")
	f.registerLimits(fl)
	fl.StringVar(&f.jobDir, "job-dir", "", "local executor: root of the job directories, outside --state (default STATE-jobs)")
	fl.StringVar(&f.runAs, "run-as", "", "local executor: unprivileged account jobs run as (name or UID[:GID]); required when serve runs as root")
	fl.StringArrayVar(&f.runAsMap, "run-as-map", nil, "local executor: USER=ACCOUNT, the local account of a service user's jobs (repeatable; overrides --run-as)")
	fl.StringArrayVar(&f.jobEnv, "job-env", nil, "local executor: pass this variable of serve's environment to jobs (repeatable; the default set is PATH, LANG, LANGUAGE, LC_*, TZ)")
	fl.StringVar(&f.cgroup, "cgroup", "auto", "local executor: auto (a cgroup v2 per job if the service can create them, else a logged fallback), off, or a delegated cgroup v2 directory")
	return cmd
}

func runServe(cmd *cobra.Command, f *serveFlags) error {
	if f.check != "" {
		return service.Check(f.check, cmd.OutOrStdout())
	}
	if f.procs < 1 {
		return errors.New("--procs is required (the machine size, at least 1)")
	}
	if f.state == "" {
		return errors.New("--state is required (a directory for the database)")
	}
	logger := serveLogger(cmd.ErrOrStderr(), f.verbose)
	// everything the service writes is its own (state, tokens, job
	// bookkeeping); the executor sets job files' owners and modes itself
	syscall.Umask(0o077)
	runAsMap, err := executor.ParseAccountMap(f.runAsMap)
	if err != nil {
		return fmt.Errorf("--run-as-map: %w", err)
	}
	if err := checkServeLimits(f); err != nil {
		return err
	}
	if err := service.CheckNofile(f.maxConns, logger); err != nil {
		return err
	}
	cfg, err := serveConfig(f, logger, runAsMap)
	if err != nil {
		return err
	}
	svc, err := service.Start(cfg) // rebuilt in the background; the port answers 503 meanwhile
	if err != nil {
		return err
	}
	defer svc.Close()
	raw, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	lim := service.ServerLimits{MaxConns: f.maxConns, MaxConnsPerClient: f.maxConnsPerClient,
		HeaderTimeout: f.headerTimeout, IdleTimeout: f.idleTimeout}
	ln := svc.Listener(raw, lim)
	url, err := service.Announce(f.state, raw.Addr().(*net.TCPAddr), f.tlsCert != "", logger)
	if err != nil {
		return err
	}
	logger.Info("serving", "url", url, "policy", svc.Policy(), "procs", f.procs, "executor", svc.ExecutorName(), "clock", f.clock, "state", f.state)
	srv := svc.Server(lim)
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	return svc.ServeUntil(srv, ln, f.tlsCert, f.tlsKey, sig, serveStop)
}

// checkServeLimits refuses connection, body, in-flight and backlog limits
// that the service would replace by its defaults or could not serve.
func checkServeLimits(f *serveFlags) error {
	if f.maxConns < 1 || f.maxConnsPerClient < 1 || f.headerTimeout <= 0 || f.bodyTimeout <= 0 || f.idleTimeout <= 0 {
		return errors.New("--max-conns, --max-conns-per-client and the timeouts must be positive")
	}
	// 0 means "the default" in service.Config; given on the command line
	// it would be silently replaced, so it is refused
	if f.maxBody < 1 {
		return fmt.Errorf("--max-body %d: expected at least 1 byte (the default is 65536)", f.maxBody)
	}
	if f.maxInFlight == 0 || f.maxInFlight < -1 {
		return fmt.Errorf("--max-in-flight %d: expected at least 1, or -1 for no limit", f.maxInFlight)
	}
	if f.snapshotCost == 0 {
		return errors.New("--snapshot-cost 0: expected a duration, or a negative one for never (the default is 1s)")
	}
	if f.maxExecBacklog == 0 || f.maxExecBacklog < -1 {
		return fmt.Errorf("--max-exec-backlog %d: expected at least 1, or -1 for no limit", f.maxExecBacklog)
	}
	return nil
}

// serveConfig is the service's configuration from the flags: the policy,
// machine, state, executor, limits, clock and admin token.
func serveConfig(f *serveFlags, logger *slog.Logger, runAsMap map[string]string) (service.Config, error) {
	cfg := service.Config{Policy: f.policy, Procs: f.procs, StateDir: f.state, Executor: f.executor,
		Sync: f.sync, MaxBody: f.maxBody, BodyTimeout: f.bodyTimeout, Logger: logger, AcceptLoss: f.acceptLoss, MaxInFlight: f.maxInFlight, MaxExecBacklog: f.maxExecBacklog,
		SnapshotEvery: f.snapshotEvery, SnapshotInterval: f.snapshotInterval, SnapshotCost: f.snapshotCost,
		ExecOptions: executor.Options{SbatchArgs: f.sbatchArgs, JobRoot: f.jobDir, RunAs: f.runAs, RunAsMap: runAsMap,
			Env: f.jobEnv, Cgroup: f.cgroup}}
	switch f.clock {
	case "wall":
	case "manual":
		cfg.Clock = service.NewManualClock(f.clockStart)
	default:
		return cfg, fmt.Errorf("--clock must be wall or manual, got %q", f.clock)
	}
	if f.adminTokenFile != "" {
		tok, err := service.ReadAdminToken(f.adminTokenFile, logger)
		if err != nil {
			return cfg, err
		}
		cfg.AdminToken, cfg.AdminTokenFile = tok, f.adminTokenFile
	}
	return cfg, nil
}

// registerLimits registers the flags of the service's limits, snapshots
// and recovery.
func (f *serveFlags) registerLimits(fl *pflag.FlagSet) {
	fl.IntVar(&f.maxInFlight, "max-in-flight", service.DefaultMaxInFlight, "API requests handled at once; beyond, 503 with Retry-After (backpressure); -1 for no limit")
	fl.IntVar(&f.maxExecBacklog, "max-exec-backlog", service.DefaultMaxExecBacklog, "executor actions waiting (a slow resource manager) beyond which submissions get 503 with Retry-After; -1 for no limit")
	fl.IntVar(&f.snapshotEvery, "snapshot-every", service.DefaultSnapshotEvery, "save a snapshot of the state every N log records (and compact the log behind the previous one), so a restart replays only the records after it; -1 for never")
	fl.DurationVar(&f.snapshotInterval, "snapshot-interval", service.DefaultSnapshotInterval, "save a snapshot after this time if records were logged since the last one")
	fl.DurationVar(&f.snapshotCost, "snapshot-cost", service.DefaultSnapshotCost, "save a snapshot once the policy has spent this long deciding since the last one (a restart replays about that much); negative: never")
	fl.StringVar(&f.check, "check", "", "verify the state directory `STATE` offline (files, high-water mark, log, snapshots, admin user, replay) and exit; changes nothing")
	fl.BoolVar(&f.acceptLoss, "accept-loss", false, "start from what a damaged state directory still holds, giving up the acknowledged records it lost (logged; a copy of the damaged files is kept in STATE/damaged-TIME/); without it such a directory is refused")
	fl.IntVar(&f.maxConns, "max-conns", 1024, "most connections held at once; beyond it a connection gets health or 503 within 1 s (keep well below the open-files limit)")
	fl.IntVar(&f.maxConnsPerClient, "max-conns-per-client", 128, "most connections from one IP address")
	fl.DurationVar(&f.headerTimeout, "header-timeout", 5*time.Second, "time a client has to send a request's headers")
	fl.DurationVar(&f.bodyTimeout, "body-timeout", 10*time.Second, "time a client has to send a request's body after its headers (bodies of requests without a valid token are never read)")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", 60*time.Second, "keep-alive connections idle this long are closed")
}

// serveLogger is the service's text logger on w, at debug level when
// verbose.
func serveLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
