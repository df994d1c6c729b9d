// Package loadgen measures a live service: sustained submissions per second
// and decision latency at a held queue length.
//
// For one policy and queue length Q, Run starts a service on loopback (or
// uses a running one), fills the machine with one job holding every
// processor, submits Q waiting jobs, then runs closed-loop clients for a
// fixed time: each submits a job and cancels one (Drain) so that the queue
// stays at Q. Latencies are nearest-rank quantiles in milliseconds; the
// policy's own decision time is read from the answers' Server-Timing header.
package loadgen

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
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/backfill-hpc/backfill/service"
)

// Config is what one measurement needs.
type Config struct {
	// Server is a running service's base URL; empty starts one in this
	// process on 127.0.0.1 with a fresh state directory.
	Server string
	// AdminToken is the running service's admin token (with Server).
	AdminToken string
	// Procs is the machine size of a started service.
	Procs int
	// Sync is a started service's sync mode (full, normal: see
	// store.Options).
	Sync string
	// Duration is the measured time.
	Duration time.Duration
	// Clients is the number of concurrent clients.
	Clients int
	// Seed seeds the job sizes and estimates.
	Seed uint64
	// Drain is how the queue is held at Q: newest, oldest or none.
	Drain string
	// DeadlineShare is the share of measured jobs with a deadline (only
	// for policies with admission control: the others refuse deadlines).
	DeadlineShare float64
	// Trace is how many of the slowest submissions and cancellations
	// have their time broken down (from the answers' Server-Timing:
	// lock wait, engine, commit, snapshot…) on the log, with the mean
	// breakdown of the requests at or above the p99; 0 for none.
	Trace int
}

// Result is one configuration's measurement.
type Result struct {
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
	CancelMax   float64 `json:"cancel_max_ms"`
	DecisionP50 float64 `json:"decision_p50_ms"`
	DecisionP99 float64 `json:"decision_p99_ms"`
	Errors      int     `json:"errors"`
	Rejected    int     `json:"rejected"`
	FinalQueue  int     `json:"final_queue"`
}

// Validate checks the configuration's drain mode, clients and duration.
func (c *Config) Validate() error {
	if c.Drain != "newest" && c.Drain != "oldest" && c.Drain != "none" {
		return fmt.Errorf("--drain must be newest, oldest or none, got %q", c.Drain)
	}
	if c.Clients < 1 || c.Duration <= 0 {
		return errors.New("--clients and --duration must be positive")
	}
	return nil
}

// run is one measurement's state.
type run struct {
	cfg        *Config
	log        io.Writer
	queue      int
	base       string
	transport  http.RoundTripper
	userToken  string
	procs      int
	blockerEnd int64
	deadlines  bool // the policy has admission control (deadlines accepted)
	rmu        sync.Mutex
	rng        *rand.Rand
	fmu        sync.Mutex
	fifo       []int64 // waiting job ids, oldest first (drain oldest)

	mu                     sync.Mutex
	subLat, decLat, canLat []float64
	subs, cans             []sample // for Trace
	errs                   int
}

// sample is one request's latency seen by the client and its answer's
// Server-Timing header.
type sample struct {
	ms     float64
	timing string
}

// Run measures policy pol (the started service's policy) at queue length
// queue, writing progress lines to log.
func Run(log io.Writer, cfg *Config, pol string, queue int) (Result, error) {
	res := Result{Policy: pol, Queue: queue, Clients: cfg.Clients}
	r := &run{cfg: cfg, log: log, queue: queue, base: cfg.Server}
	adminTok := cfg.AdminToken
	if cfg.Server == "" {
		base, tok, stop, err := startLocal(cfg, pol)
		if err != nil {
			return res, err
		}
		defer stop()
		r.base, adminTok = base, tok
	}
	ctx := context.Background()
	admin := service.NewClient(r.base, adminTok)
	admin.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: cfg.Clients + 4}
	r.transport = admin.HTTP.Transport
	h, err := admin.Health(ctx)
	if err != nil {
		return res, err
	}
	r.procs = h.Procs
	res.Policy = h.Policy
	switch strings.SplitN(h.Policy, ":", 2)[0] {
	case "qops", "msb", "mrt":
		r.deadlines = true
	}
	name := "load" + strconv.FormatInt(time.Now().UnixNano(), 36)
	u, err := admin.CreateUser(ctx, service.UserRequest{Name: name})
	if err != nil {
		return res, err
	}
	r.userToken = u.Token
	r.rng = rand.New(rand.NewPCG(cfg.Seed, uint64(queue)))
	r.blockerEnd = h.Now + 2 + blockerLength
	if err := r.block(ctx); err != nil {
		return res, err
	}
	if err := r.fill(ctx, res.Policy); err != nil {
		return res, err
	}
	fmt.Fprintf(log, "loadgen: %s: queue %d, measuring for %s with %d clients…\n", res.Policy, queue, cfg.Duration, cfg.Clients)
	started := time.Now()
	r.measure(ctx, started.Add(cfg.Duration))
	r.summarize(&res, time.Since(started).Seconds())
	if cfg.Trace > 0 {
		WriteTrace(log, "submit", r.subs, cfg.Trace)
		WriteTrace(log, "cancel", r.cans, cfg.Trace)
	}
	if l, err := admin.Jobs(ctx, "rejected", ""); err == nil {
		res.Rejected = len(l.Jobs)
	}
	if h, err := admin.Health(ctx); err == nil {
		res.FinalQueue = h.Waiting
	}
	return res, nil
}

// blockerLength is the blocker's estimate: every processor for 300 days.
const blockerLength = int64(300 * 24 * 3600)

// startLocal starts a service with policy pol on loopback; stop shuts it
// down and removes its state directory.
func startLocal(cfg *Config, pol string) (base, adminTok string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "backfill-loadgen-")
	if err != nil {
		return "", "", nil, err
	}
	adminTok = service.NewToken()
	svc, err := service.Open(service.Config{Policy: pol, Procs: cfg.Procs, StateDir: dir, Sync: cfg.Sync, AdminToken: adminTok})
	if err != nil {
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.Close()
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	srv := &http.Server{Handler: svc.Handler()}
	go srv.Serve(ln)
	done := make(chan struct{})
	go svc.Run(done)
	stop = func() {
		close(done)
		srv.Close()
		svc.Close()
		os.RemoveAll(dir)
	}
	return "http://" + ln.Addr().String(), adminTok, stop, nil
}

// client is a new client of the load's user, sharing one transport.
func (r *run) client() *service.Client {
	c := service.NewClient(r.base, r.userToken)
	c.HTTP.Transport = r.transport
	return c
}

// job draws a random job: mostly up to procs/8 processors, one in ten up to
// the whole machine, an estimate of 60 s to 10 h, and with probability
// DeadlineShare a deadline after the blocker's end.
func (r *run) job() service.SubmitRequest {
	r.rmu.Lock()
	defer r.rmu.Unlock()
	n := 1 + r.rng.IntN(max(1, r.procs/8))
	if r.rng.IntN(10) == 0 {
		n = 1 + r.rng.IntN(r.procs)
	}
	e := int64(60 + r.rng.IntN(36000))
	req := service.SubmitRequest{Procs: &n, Estimate: &e}
	if r.deadlines && r.cfg.DeadlineShare > 0 && r.rng.Float64() < r.cfg.DeadlineShare {
		// after the long job, within about twice the queue's work
		d := r.blockerEnd + e + int64(r.rng.Float64()*float64(4*e+int64(r.queue)*2000))
		req.Deadline = &d
	}
	return req
}

// block submits the blocker (every processor, for a long time) and waits
// for its start (the pass of its second), so that no job of the load
// starts before it.
func (r *run) block(ctx context.Context) error {
	cl := r.client()
	all, long := r.procs, blockerLength
	b, err := cl.Submit(ctx, service.SubmitRequest{Procs: &all, Estimate: &long, Name: "blocker"})
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		v, err := cl.Job(ctx, b.ID)
		if err != nil {
			return err
		}
		if v.State == service.Running {
			return nil
		}
		if i == 500 {
			return fmt.Errorf("the long job did not start (%s)", v.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fill submits the queue's jobs (concurrently, without deadlines: they
// stay) and records their ids in order.
func (r *run) fill(ctx context.Context, pol string) error {
	fmt.Fprintf(r.log, "loadgen: %s: filling the queue with %d jobs…\n", pol, r.queue)
	fillers := make([]*service.Client, r.cfg.Clients)
	for i := range fillers {
		fillers[i] = r.client()
	}
	if err := parallel(r.cfg.Clients, r.queue, func(w, _ int) error {
		req := r.job()
		req.Deadline = nil // the queue is filled with jobs that stay
		v, err := fillers[w].Submit(ctx, req)
		if err != nil {
			return err
		}
		r.fmu.Lock()
		r.fifo = append(r.fifo, v.ID)
		r.fmu.Unlock()
		return nil
	}); err != nil {
		return err
	}
	slices.Sort(r.fifo)
	return nil
}

// measure runs the closed-loop clients until stopAt.
func (r *run) measure(ctx context.Context, stopAt time.Time) {
	var wg sync.WaitGroup
	for c := 0; c < r.cfg.Clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := r.client()
			for time.Now().Before(stopAt) {
				r.step(ctx, cl)
			}
		}()
	}
	wg.Wait()
}

// step submits one job and cancels the one the drain mode names.
func (r *run) step(ctx context.Context, cl *service.Client) {
	t0 := time.Now()
	v, timing, err := cl.SubmitTiming(ctx, r.job())
	d := time.Since(t0).Seconds() * 1000
	r.mu.Lock()
	if err != nil {
		r.errs++
		r.mu.Unlock()
		return
	}
	r.subLat = append(r.subLat, d)
	r.subs = append(r.subs, sample{d, timing})
	if x, ok := ServerTiming(timing, "decision"); ok {
		r.decLat = append(r.decLat, x)
	}
	r.mu.Unlock()
	if !v.Admitted {
		return // rejected: it left no job to cancel
	}
	old := r.victim(v.ID)
	if old < 0 {
		return
	}
	t0 = time.Now()
	_, timing, err = cl.CancelTiming(ctx, old)
	d = time.Since(t0).Seconds() * 1000
	r.mu.Lock()
	if err != nil {
		r.errs++
	} else {
		r.canLat = append(r.canLat, d)
		r.cans = append(r.cans, sample{d, timing})
	}
	r.mu.Unlock()
}

// victim is the job to cancel after id was admitted, or -1 for none.
func (r *run) victim(id int64) int64 {
	switch r.cfg.Drain {
	case "none":
		return -1
	case "newest":
		return id
	}
	r.fmu.Lock()
	defer r.fmu.Unlock()
	r.fifo = append(r.fifo, id)
	if len(r.fifo) > r.queue {
		old := r.fifo[0]
		r.fifo = r.fifo[1:]
		return old
	}
	return -1
}

// summarize fills res's counts and quantiles from the measured latencies.
func (r *run) summarize(res *Result, seconds float64) {
	res.Seconds = seconds
	res.Submissions = len(r.subLat)
	res.PerSecond = float64(len(r.subLat)) / res.Seconds
	res.SubmitP50, res.SubmitP99, res.SubmitMax = Quantile(r.subLat, 0.5), Quantile(r.subLat, 0.99), Quantile(r.subLat, 1)
	res.CancelP50, res.CancelP99, res.CancelMax = Quantile(r.canLat, 0.5), Quantile(r.canLat, 0.99), Quantile(r.canLat, 1)
	res.DecisionP50, res.DecisionP99 = Quantile(r.decLat, 0.5), Quantile(r.decLat, 0.99)
	res.Errors = r.errs
}

// Quantile is the q-quantile (nearest rank) of xs, sorting xs; 0 for none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(q*float64(len(xs))+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// ServerTiming reads metric name's duration (ms) from a Server-Timing
// header.
func ServerTiming(h, name string) (float64, bool) {
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

// Sweep measures every policy at every queue length, policies outer, in
// order. With cfg.Server set, the admin token is read from tokenFile
// (required) before each measurement. An error names the configuration.
func Sweep(log io.Writer, cfg *Config, tokenFile string, policies []string, queues []int) ([]Result, error) {
	var results []Result
	for _, pol := range policies {
		for _, q := range queues {
			if q < 0 {
				return nil, fmt.Errorf("--queue %d: must be ≥ 0", q)
			}
			r, err := sweepOne(log, cfg, tokenFile, pol, q)
			if err != nil {
				return nil, fmt.Errorf("%s, queue %d: %w", pol, q, err)
			}
			results = append(results, r)
		}
	}
	return results, nil
}

// sweepOne reads the admin token of a running service (if any) and
// measures one policy at one queue length.
func sweepOne(log io.Writer, cfg *Config, tokenFile, pol string, queue int) (Result, error) {
	if cfg.Server != "" {
		if tokenFile == "" {
			return Result{}, errors.New("--server needs --token-file (an admin token)")
		}
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return Result{}, err
		}
		cfg.AdminToken = strings.TrimSpace(string(b))
	}
	return Run(log, cfg, pol, queue)
}

// WriteTable writes results as the aligned table of backfill loadgen,
// under a comment line naming the configuration and GOMAXPROCS.
func WriteTable(w io.Writer, cfg *Config, results []Result) error {
	fmt.Fprintf(w, "# backfill loadgen: %d clients, %s per configuration, drain=%s, sync=%s, GOMAXPROCS=%d\n", cfg.Clients, cfg.Duration, cfg.Drain, cfg.Sync, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tqueue\tfinal queue\tsubmissions\tsubmits/s\tp50 ms\tp99 ms\tmax ms\tdecision p50 ms\tdecision p99 ms\tcancel p50 ms\tcancel p99 ms\tcancel max ms\trejected\terrors\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.1f\t%.3f\t%.3f\t%.2f\t%.2f\t%.1f\t%d\t%d\t\n", r.Policy, r.Queue, r.FinalQueue, r.Submissions, r.PerSecond,
			r.SubmitP50, r.SubmitP99, r.SubmitMax, r.DecisionP50, r.DecisionP99, r.CancelP50, r.CancelP99, r.CancelMax, r.Rejected, r.Errors)
	}
	return tw.Flush()
}

// traceParts are the parts of a request's time in the service's
// Server-Timing header (service.reqTiming), in the order WriteTrace
// prints them.
var traceParts = []string{"lock", "engine", "decision", "capture", "enqueue", "publish", "queue", "snapsave", "commit", "commitwait", "total"}

// WriteTrace writes to w where the time of the slowest requests of kind
// went: the n slowest one by one, then the mean of each part over the
// requests at or above the p99. "outside" is the client's time minus the
// service's total: HTTP, the network stack and the scheduling of both
// processes' goroutines (and the client's own, when the service runs in
// the same process).
func WriteTrace(w io.Writer, kind string, xs []sample, n int) {
	if len(xs) == 0 {
		return
	}
	xs = slices.Clone(xs)
	slices.SortFunc(xs, func(a, b sample) int { return cmpFloat(b.ms, a.ms) })
	line := func(label string, ms float64, parts map[string]float64) {
		var b strings.Builder
		fmt.Fprintf(&b, "loadgen: %s %s %.2f ms:", kind, label, ms)
		for _, p := range traceParts {
			if v, ok := parts[p]; ok {
				fmt.Fprintf(&b, " %s %.2f", p, v)
			}
		}
		if t, ok := parts["total"]; ok {
			fmt.Fprintf(&b, " outside %.2f", ms-t)
		}
		fmt.Fprintln(w, b.String())
	}
	parse := func(h string) map[string]float64 {
		m := map[string]float64{}
		for _, p := range traceParts {
			if v, ok := ServerTiming(h, p); ok {
				m[p] = v
			}
		}
		return m
	}
	for i := 0; i < min(n, len(xs)); i++ {
		line(fmt.Sprintf("#%d", i+1), xs[i].ms, parse(xs[i].timing))
	}
	top := xs[:max(1, len(xs)/100)]
	sum := map[string]float64{}
	var ms float64
	for _, x := range top {
		ms += x.ms
		for k, v := range parse(x.timing) {
			sum[k] += v
		}
	}
	for k := range sum {
		sum[k] /= float64(len(top))
	}
	line(fmt.Sprintf("mean of the %d at or above the p99", len(top)), ms/float64(len(top)), sum)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
