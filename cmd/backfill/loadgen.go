package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/service"
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
	fl.StringVar(&f.sync, "sync", "full", "SQLite synchronous mode of the started services: full or normal")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed of the job sizes and estimates")
	fl.BoolVar(&f.asJSON, "json", false, "print the results as JSON")
	fl.StringVar(&f.drain, "drain", "newest", "how the queue is held at Q: newest (each client cancels the job it just submitted), oldest (cancel the job at the front of the queue, which makes reservation-based policies compress the whole queue) or none (the queue grows)")
	fl.Float64Var(&f.deadlineShare, "deadline-share", 0, "share of the measured jobs with a deadline (deadline policies: qops, msb, mrt): after the long job's end, one estimate plus up to 4 estimates and Q × 2000 s")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	return cmd
}

// LoadResult is one configuration's measurement.
type LoadResult struct {
	Policy      string  `json:"policy"`
	Queue       int     `json:"queue"`
	Clients     int     `json:"clients"`
	Seconds     float64 `json:"seconds"`
	Submissions int     `json:"submissions"`
	PerSecond   float64 `json:"submissions_per_second"`
	SubmitP50   float64 `json:"submit_p50_ms"`
	SubmitP99   float64 `json:"submit_p99_ms"`
	SubmitMax   float64 `json:"submit_max_ms"`
	CancelP50   float64 `json:"cancel_p50_ms"`
	CancelP99   float64 `json:"cancel_p99_ms"`
	DecisionP50 float64 `json:"decision_p50_ms"`
	DecisionP99 float64 `json:"decision_p99_ms"`
	Errors      int     `json:"errors"`
	Rejected    int     `json:"rejected"`
	FinalQueue  int     `json:"final_queue"`
}

func runLoadgen(cmd *cobra.Command, f *loadgenFlags) error {
	if f.drain != "newest" && f.drain != "oldest" && f.drain != "none" {
		return fmt.Errorf("--drain must be newest, oldest or none, got %q", f.drain)
	}
	if f.clients < 1 || f.duration <= 0 {
		return errors.New("--clients and --duration must be positive")
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
	var results []LoadResult
	for _, pol := range f.policies {
		for _, q := range f.queues {
			if q < 0 {
				return fmt.Errorf("--queue %d: must be ≥ 0", q)
			}
			r, err := loadOne(cmd.ErrOrStderr(), f, pol, q)
			if err != nil {
				return fmt.Errorf("%s, queue %d: %w", pol, q, err)
			}
			results = append(results, r)
		}
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		return printJSON(w, results)
	}
	fmt.Fprintf(w, "# backfill loadgen: %d clients, %s per configuration, drain=%s, sync=%s, GOMAXPROCS=%d\n", f.clients, f.duration, f.drain, f.sync, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tqueue\tfinal queue\tsubmissions\tsubmits/s\tp50 ms\tp99 ms\tmax ms\tdecision p50 ms\tdecision p99 ms\tcancel p50 ms\tcancel p99 ms\trejected\terrors\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.1f\t%.3f\t%.3f\t%.2f\t%.2f\t%d\t%d\t\n", r.Policy, r.Queue, r.FinalQueue, r.Submissions, r.PerSecond,
			r.SubmitP50, r.SubmitP99, r.SubmitMax, r.DecisionP50, r.DecisionP99, r.CancelP50, r.CancelP99, r.Rejected, r.Errors)
	}
	return tw.Flush()
}

// loadOne measures one policy at one queue length.
func loadOne(log io.Writer, f *loadgenFlags, pol string, queue int) (LoadResult, error) {
	res := LoadResult{Policy: pol, Queue: queue, Clients: f.clients}
	base, adminTok := f.server, ""
	procs := f.procs
	if f.server == "" {
		dir, err := os.MkdirTemp("", "backfill-loadgen-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		adminTok = service.NewToken()
		svc, err := service.Open(service.Config{Policy: pol, Procs: procs, StateDir: dir, Sync: f.sync, AdminToken: adminTok})
		if err != nil {
			return res, err
		}
		defer svc.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return res, err
		}
		srv := &http.Server{Handler: svc.Handler()}
		go srv.Serve(ln)
		defer srv.Close()
		stop := make(chan struct{})
		go svc.Run(stop)
		defer close(stop)
		base = "http://" + ln.Addr().String()
	} else {
		if f.tokenFile == "" {
			return res, errors.New("--server needs --token-file (an admin token)")
		}
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return res, err
		}
		adminTok = strings.TrimSpace(string(b))
	}
	ctx := context.Background()
	admin := service.NewClient(base, adminTok)
	admin.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: f.clients + 4}
	h, err := admin.Health(ctx)
	if err != nil {
		return res, err
	}
	procs = h.Procs
	res.Policy = h.Policy
	name := "load" + strconv.FormatInt(time.Now().UnixNano(), 36)
	u, err := admin.CreateUser(ctx, service.UserRequest{Name: name})
	if err != nil {
		return res, err
	}
	// one client per goroutine, sharing one transport
	newClient := func() *service.Client {
		c := service.NewClient(base, u.Token)
		c.HTTP.Transport = admin.HTTP.Transport
		return c
	}
	cl := newClient()
	rng := rand.New(rand.NewPCG(f.seed, uint64(queue)))
	var rmu sync.Mutex
	all, long := procs, int64(300*24*3600)
	blockerEnd := h.Now + 2 + long
	job := func() service.SubmitRequest {
		rmu.Lock()
		defer rmu.Unlock()
		n := 1 + rng.IntN(max(1, procs/8))
		if rng.IntN(10) == 0 {
			n = 1 + rng.IntN(procs)
		}
		e := int64(60 + rng.IntN(36000))
		r := service.SubmitRequest{Procs: &n, Estimate: &e}
		if f.deadlineShare > 0 && rng.Float64() < f.deadlineShare {
			// after the long job, within about twice the queue's work
			d := blockerEnd + e + int64(rng.Float64()*float64(4*e+int64(queue)*2000))
			r.Deadline = &d
		}
		return r
	}
	// the blocker: every processor, for a long time
	b, err := cl.Submit(ctx, service.SubmitRequest{Procs: &all, Estimate: &long, Name: "blocker"})
	if err != nil {
		return res, err
	}
	// wait for its start (the pass of its second), so that no job of the
	// load starts before it
	for i := 0; ; i++ {
		v, err := cl.Job(ctx, b.ID)
		if err != nil {
			return res, err
		}
		if v.State == service.Running {
			break
		}
		if i == 500 {
			return res, fmt.Errorf("the long job did not start (%s)", v.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// fill the queue (concurrently)
	var fifo []int64
	var fmu sync.Mutex
	fmt.Fprintf(log, "loadgen: %s: filling the queue with %d jobs…\n", res.Policy, queue)
	fillers := make([]*service.Client, f.clients)
	for i := range fillers {
		fillers[i] = newClient()
	}
	if err := parallel(f.clients, queue, func(w, _ int) error {
		r := job()
		r.Deadline = nil // the queue is filled with jobs that stay
		v, err := fillers[w].Submit(ctx, r)
		if err != nil {
			return err
		}
		fmu.Lock()
		fifo = append(fifo, v.ID)
		fmu.Unlock()
		return nil
	}); err != nil {
		return res, err
	}
	slices.Sort(fifo)
	fmt.Fprintf(log, "loadgen: %s: queue %d, measuring for %s with %d clients…\n", res.Policy, queue, f.duration, f.clients)
	var (
		mu      sync.Mutex
		subLat  []float64
		decLat  []float64
		canLat  []float64
		errs    int
		wg      sync.WaitGroup
		stopAt  = time.Now().Add(f.duration)
		started = time.Now()
	)
	for c := 0; c < f.clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient()
			for time.Now().Before(stopAt) {
				t0 := time.Now()
				v, timing, err := cl.SubmitTiming(ctx, job())
				d := time.Since(t0).Seconds() * 1000
				mu.Lock()
				if err != nil {
					errs++
					mu.Unlock()
					continue
				}
				if !v.Admitted {
					subLat = append(subLat, d)
					if x, ok := serverTiming(timing, "decision"); ok {
						decLat = append(decLat, x)
					}
					mu.Unlock()
					continue // rejected: it left no job to cancel
				}
				subLat = append(subLat, d)
				if x, ok := serverTiming(timing, "decision"); ok {
					decLat = append(decLat, x)
				}
				mu.Unlock()
				var old int64 = -1
				if f.drain == "none" {
					continue
				}
				if f.drain == "newest" {
					old = v.ID
				} else {
					fmu.Lock()
					fifo = append(fifo, v.ID)
					if len(fifo) > queue {
						old = fifo[0]
						fifo = fifo[1:]
					}
					fmu.Unlock()
				}
				if old >= 0 {
					t0 = time.Now()
					_, err := cl.Cancel(ctx, old)
					d = time.Since(t0).Seconds() * 1000
					mu.Lock()
					if err != nil {
						errs++
					} else {
						canLat = append(canLat, d)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(started).Seconds()
	res.Submissions = len(subLat)
	res.PerSecond = float64(len(subLat)) / res.Seconds
	res.SubmitP50, res.SubmitP99, res.SubmitMax = quantile(subLat, 0.5), quantile(subLat, 0.99), quantile(subLat, 1)
	res.CancelP50, res.CancelP99 = quantile(canLat, 0.5), quantile(canLat, 0.99)
	res.DecisionP50, res.DecisionP99 = quantile(decLat, 0.5), quantile(decLat, 0.99)
	res.Errors = errs
	if l, err := admin.Jobs(ctx, "rejected", ""); err == nil {
		res.Rejected = len(l.Jobs)
	}
	if h, err := admin.Health(ctx); err == nil {
		res.FinalQueue = h.Waiting
	}
	return res, nil
}

// quantile is the q-quantile (nearest rank) of xs, sorting xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(q*float64(len(xs))+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// serverTiming reads metric name's duration (ms) from a Server-Timing
// header.
func serverTiming(h, name string) (float64, bool) {
	for _, part := range strings.Split(h, ",") {
		fields := strings.Split(strings.TrimSpace(part), ";")
		if len(fields) < 2 || fields[0] != name {
			continue
		}
		for _, p := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "dur="); ok {
				x, err := strconv.ParseFloat(v, 64)
				return x, err == nil
			}
		}
	}
	return 0, false
}

// parallel runs f(w, i) for i in 0..n-1 on k goroutines (w: the
// goroutine's number); the first error stops it.
func parallel(k, n int, f func(w, i int) error) error {
	var mu sync.Mutex
	next := 0
	var first error
	var wg sync.WaitGroup
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || first != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := f(w, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}(w)
	}
	wg.Wait()
	return first
}
