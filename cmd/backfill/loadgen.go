package main

import (
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/service/clientfmt"
	"github.com/backfill-hpc/backfill/service/loadgen"
)

type loadgenFlags struct {
	server, tokenFile string
	policies          []string
	procs             int
	queues            []int
	duration          time.Duration
	clients           int
	sync              string
	seed              uint64
	asJSON            bool
	cpuprofile        string
	drain             string
	deadlineShare     float64
	trace             int
}

func newLoadgen() *cobra.Command {
	f := &loadgenFlags{}
	cmd := &cobra.Command{
		Use:   "loadgen",
		Short: "Measure the service: sustained submissions/s and decision latency at given queue lengths",
		Long: `loadgen measures a backfill service on loopback. For each policy and queue
length Q it starts a service (in this process, on 127.0.0.1, wall clock, a
fresh state directory, durable commits unless --sync normal), fills the
machine with one job holding every processor for a long time, submits Q
waiting jobs, then for --duration runs --clients concurrent clients in a
closed loop: each submits a job (random size and estimate) and cancels a job
so that the queue stays at Q: the one it just submitted (--drain newest), or
the oldest waiting one (--drain oldest: the front of the queue leaves, as when
a long job ends early, and conservative backfilling compresses the queue), or
none at all (--drain none: the queue grows from Q during the measurement; the
final length is reported). Besides the latency seen by the client (lock wait,
commit and HTTP included), it reports the policy's own decision time, read
from the answers' Server-Timing header. It reports the
sustained submissions per second and the latency of submissions (the
decision: admission, reserved and guaranteed start, committed) as seen by
the client, p50 and p99, and of the cancellations.

With --server it measures a running service instead (admin token needed;
use a fresh service: it submits and cancels jobs).`,
		Example: `  backfill loadgen --policy conservative --queue 100,1000,10000
  backfill loadgen --policy conservative,easy --queue 1000 --duration 20s --clients 16`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLoadgen(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "measure this running service instead of starting one")
	fl.StringVar(&f.tokenFile, "token-file", "", "admin token file (with --server)")
	fl.StringSliceVar(&f.policies, "policy", []string{"conservative"}, "policies (each starts its own service)")
	fl.IntVar(&f.procs, "procs", 1024, "machine size of the started services")
	fl.IntSliceVar(&f.queues, "queue", []int{100, 1000, 10000}, "queue lengths to hold")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "measured time per configuration")
	fl.IntVar(&f.clients, "clients", 8, "concurrent clients")
	fl.StringVar(&f.sync, "sync", "full", "sync mode of the started services' state: full (fsync at each commit) or normal (no fsync)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed of the job sizes and estimates")
	fl.BoolVar(&f.asJSON, "json", false, "print the results as JSON")
	fl.StringVar(&f.drain, "drain", "newest", "how the queue is held at Q: newest (each client cancels the job it just submitted), oldest (cancel the job at the front of the queue, which makes reservation-based policies compress the whole queue) or none (the queue grows)")
	fl.Float64Var(&f.deadlineShare, "deadline-share", 0, "share of the measured jobs with a deadline (deadline policies: qops, msb, mrt): after the long job's end, one estimate plus up to 4 estimates and Q × 2000 s")
	fl.IntVar(&f.trace, "trace", 0, "break down the time of this many of the slowest submissions and cancellations (lock wait, engine, snapshot, commit… from the answers' Server-Timing), and the mean over those at or above the p99, on stderr")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	return cmd
}

func runLoadgen(cmd *cobra.Command, f *loadgenFlags) error {
	cfg := &loadgen.Config{Server: f.server, Procs: f.procs, Sync: f.sync, Duration: f.duration,
		Clients: f.clients, Seed: f.seed, Drain: f.drain, DeadlineShare: f.deadlineShare, Trace: f.trace}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	results, err := loadgen.Sweep(cmd.ErrOrStderr(), cfg, f.tokenFile, f.policies, f.queues)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		return clientfmt.JSON(w, results)
	}
	return loadgen.WriteTable(w, cfg, results)
}
