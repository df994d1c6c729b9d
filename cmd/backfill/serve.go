package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
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
committed to an SQLite database in --state (WAL mode) before it is answered;
after a crash the service rebuilds its state from that log. A state directory
that lost acknowledged records (a damaged or deleted WAL, an emptied database,
a missing admin user) is refused with a message naming the files and the ways
out; --check STATE verifies one offline, --accept-loss continues from what is
left. The port opens at once; until the state is rebuilt requests get 503 with
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
	fl.StringVar(&f.sync, "sync", "full", "SQLite synchronous mode: full (durable across power loss) or normal (across process crashes)")
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
	if err := checkNofile(f.maxConns, logger); err != nil {
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
	url, err := serveURL(f, raw.Addr().(*net.TCPAddr), logger)
	if err != nil {
		return err
	}
	logger.Info("serving", "url", url, "policy", svc.Policy(), "procs", f.procs, "executor", svc.ExecutorName(), "clock", f.clock, "state", f.state)
	srv := svc.Server(lim)
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	stop := make(chan struct{})
	go svc.Run(stop)
	errc := make(chan error, 1)
	go func() {
		if f.tlsCert != "" {
			errc <- srv.ServeTLS(ln, f.tlsCert, f.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	return serveUntilStopped(logger, svc, srv, stop, errc)
}

// writeFileAtomic writes file (mode 0600) through a temporary file and a
// rename: readers never see it half written, and a link at its place is
// replaced, not followed.
func writeFileAtomic(file string, data []byte) error {
	tmp := file + ".tmp"
	os.Remove(tmp)
	fd, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := fd.Write(data); err != nil {
		fd.Close()
		return err
	}
	if err := fd.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// checkNofile makes sure the open-files limit leaves room for maxConns
// connections plus the database, the jobs' files and the overflow
// answers: it raises the soft limit to the hard one if needed (Go does so
// at start on Linux), and refuses a --max-conns that cannot fit.
func checkNofile(maxConns int, log *slog.Logger) error {
	const reserve = 256 // database, job files, overflow answers, logs
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil
	}
	need := uint64(maxConns + reserve)
	if rl.Cur < need && rl.Max >= need {
		rl.Cur = need
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			log.Warn("cannot raise the open-files limit", "err", err)
		}
	}
	if rl.Cur < need {
		return fmt.Errorf("--max-conns %d needs an open-files limit of at least %d (ulimit -n is %d): lower --max-conns or raise the limit", maxConns, need, rl.Cur)
	}
	return nil
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
		tok, err := readAdminToken(f.adminTokenFile, logger)
		if err != nil {
			return cfg, err
		}
		cfg.AdminToken, cfg.AdminTokenFile = tok, f.adminTokenFile
	}
	return cfg, nil
}

// serveURL is the service's URL; it warns about a non-loopback address and
// writes the URL to the state directory's addr file.
func serveURL(f *serveFlags, addr *net.TCPAddr, logger *slog.Logger) (string, error) {
	if !addr.IP.IsLoopback() {
		logger.Warn("listening on a non-loopback address: anyone who can reach it can try tokens; use --tls-cert, or a firewall", "addr", addr.String())
	}
	scheme := "http"
	if f.tlsCert != "" {
		scheme = "https"
	}
	url := scheme + "://" + addr.String()
	if err := writeFileAtomic(filepath.Join(f.state, "addr"), []byte(url+"\n")); err != nil {
		return "", err
	}
	return url, nil
}

// serveUntilStopped waits for a signal, serveStop, a failed state database
// or a server error, then stops the service's loop and shuts the server
// down.
func serveUntilStopped(logger *slog.Logger, svc *service.Service, srv *http.Server, stop chan struct{}, errc chan error) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case s := <-sig:
		logger.Info("shutting down", "signal", s.String())
	case <-serveStop:
		logger.Info("shutting down")
	case <-svc.Failed():
		logger.Error("the state database failed; stopping (a restart recovers from the log)", "err", svc.Fatal())
		close(stop)
		srv.Close()
		return svc.Fatal()
	case err := <-errc:
		close(stop)
		return err
	case <-recoveryFailed(svc):
		logger.Error("the state could not be rebuilt from the log; stopping", "err", svc.WaitReady())
		close(stop)
		srv.Close()
		return svc.WaitReady()
	}
	close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// recoveryFailed is closed when the service's state could not be rebuilt
// (never, once it is).
func recoveryFailed(svc *service.Service) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		if svc.WaitReady() != nil {
			close(c)
		}
	}()
	return c
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

// readAdminToken reads --admin-token-file. A file that other users can
// read gives them the admin token: it is logged as a warning (not refused:
// mounted secrets are often 0644 inside a container where nobody else runs).
func readAdminToken(path string, logger *slog.Logger) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s: empty admin token", path)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the admin token file can be read by other users: chmod 600 it", "file", path, "mode", fmt.Sprintf("%04o", st.Mode().Perm()))
	}
	return tok, nil
}
