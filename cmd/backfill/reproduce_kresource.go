package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
	wkres "github.com/backfill-hpc/backfill/workload/kresource"
	"github.com/backfill-hpc/backfill/workload/model/feitelson96"
)

func init() { reproductions = append(reproductions, newReproduceKres) }

// kresCompared are the algorithms normalized to FCFS/FF-EASY, in the
// order of the paper's figures.
var kresCompared = []struct{ spec, label string }{
	{"bl-easy", "BL"}, {"bb-easy", "BB"}, {"ff-cons", "FF-CONS"},
}

// kresVariants are further algorithms reported beside the paper's (the
// --variants flag): by default BL and BB without the fullness modifier,
// whose combination with the balance measures is our reading.
var kresVariants = []string{"bl-easy:fullness=off", "bb-easy:fullness=off"}

// kresPaper are the paper's statements about Figures 2 and 3 (§3.3, §4).
var kresPaper = []string{
	"BB outperforms all other algorithms for both metrics, by up to 50 % (§3.3)",
	"FF-EASY generally outperforms both BL and FF-CONS (§3.3)",
	"FF-CONS consistently performs much worse than the others (§3.3)",
	"as K increases BB keeps a significant gain, BL's gain decreases (§3.3.1)",
	"BB's gain is about 10 % higher with uniform than with exponential requirements (§3.3.2)",
	"as the load increases BB's gain increases; BL does worse at high loads (§3.3.3)",
	"BB gains 10–50 % in mean response time but only 10–30 % in weighted mean response time (§3.3.4)",
}

// kresRealTraces are the shared traces that record requested memory.
var kresRealTraces = []string{"HPC2N-2002-2.2-cln.swf.gz", "RICC-2010-2.noheader.swf.gz"}

type kresRepro struct {
	jobs, seeds, procs, workers, maxSteps int
	ks, queues                            []int
	dists                                 []string
	tol                                   float64
	traces                                string
	real                                  []string
	realJobs                              int
	noSynthetic, noReal                   bool
	variants                              []string
	memScale                              []float64
}

func newReproduceKres() *cobra.Command {
	f := &kresRepro{}
	cmd := &cobra.Command{
		Use:   "kresource",
		Short: "Leinberger, Karypis & Kumar: BL, BB and FF-CONS against FF-EASY on K resources (Figures 2 and 3), and on real traces with memory",
		Long: `Synthetic part (the paper's §3): jobs of the Feitelson 1996 model (no
repeated runs, estimate = runtime) on a machine of P processors, each job's
size turned into K requirements (uniform or exponential factors scaled by
the size; every resource has capacity P), Poisson arrivals. For each K,
distribution and target mean ready-queue length, the arrival rate is
searched for (log-bisection) at which FCFS/FF-EASY's mean ready-queue
length over the arrival period is the target within --tol; BL-EASY,
BB-EASY and FF-CONS run at that rate. Printed: the performance gain of each
over FF-EASY, (FF − X)/FF in %, for mean response time (Figure 2) and
weighted mean response time (Figure 3), mean over --seeds replications with
a 95 % confidence interval (Student t), then the paper's statements with
ours beside them.

Real part: K = 2 (processors, memory from SWF field 10) on the shared
traces that record requested memory, with each machine's memory from its
archive page and, to make memory bind more often, a fraction of it
(--mem-scale); FF-EASY without the memory constraint is shown for
reference, and the utilization and peak use of each resource.`,
		Example: `  backfill reproduce kresource
  backfill reproduce kresource --seeds 5 --jobs 20000
  backfill reproduce kresource --no-synthetic --traces ../shared/traces`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReproduceKres(cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.jobs, "jobs", 10000, "jobs per synthetic workload")
	fl.IntVar(&f.seeds, "seeds", 3, "replications (seeds 1..N) of each synthetic configuration")
	fl.IntVar(&f.procs, "procs", feitelson96.DefaultProcs, "machine size P, the capacity of every resource")
	fl.IntSliceVar(&f.ks, "k", []int{2, 4, 8}, "numbers of resources K")
	fl.StringSliceVar(&f.dists, "dist", []string{"uniform", "exponential"}, "distributions of the requirement factors")
	fl.IntSliceVar(&f.queues, "queue", []int{64, 128, 256}, "target mean ready-queue lengths of FF-EASY")
	fl.Float64Var(&f.tol, "tol", 0.03, "relative tolerance of the rate search on the mean queue length")
	fl.IntVar(&f.maxSteps, "max-steps", 40, "largest number of FF-EASY runs in one rate search")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "simulations run in parallel")
	fl.StringVar(&f.traces, "traces", filepath.Join("..", "shared", "traces"), "directory of the real traces")
	fl.StringSliceVar(&f.real, "real", kresRealTraces, "real traces with requested memory (file names in --traces)")
	fl.IntVar(&f.realJobs, "real-jobs", 0, "simulate only the first N jobs of each real trace (0: all)")
	fl.Float64SliceVar(&f.memScale, "mem-scale", []float64{1, 0.75}, "machine memory of the real traces as multiples of the archive's (jobs that no longer fit are skipped and counted)")
	fl.BoolVar(&f.noSynthetic, "no-synthetic", false, "skip the synthetic part")
	fl.BoolVar(&f.noReal, "no-real", false, "skip the real-trace part")
	fl.StringSliceVar(&f.variants, "variants", kresVariants, "further K-resource policies shown beside BL, BB and FF-CONS (empty: none)")
	return cmd
}

func runReproduceKres(w io.Writer, f *kresRepro) error {
	t0 := time.Now()
	fmt.Fprintln(w, "Leinberger, Karypis & Kumar, Job scheduling in the presence of multiple resource requirements (TR 99-025)")
	if !f.noSynthetic {
		if err := kresSynthetic(w, f); err != nil {
			return err
		}
	}
	if !f.noReal {
		if err := kresReal(w, f); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n(%.0f s)\n", time.Since(t0).Seconds())
	return nil
}

// kresCell is one synthetic configuration on one seed: the calibrated
// rate and, per algorithm (FF-EASY first, then kresCompared), the mean and
// the weighted mean response time.
type kresCell struct {
	k, queue, seed int
	dist           string
	rate, q        float64
	steps          int
	resp, wresp    []float64
}

func kresSynthetic(w io.Writer, f *kresRepro) error {
	if f.jobs < 100 || f.seeds < 1 || f.procs < 1 {
		return fmt.Errorf("--jobs must be at least 100, --seeds and --procs at least 1")
	}
	var dists []wkres.Dist
	for _, s := range f.dists {
		d, err := wkres.ParseDist(s)
		if err != nil {
			return err
		}
		dists = append(dists, d)
	}
	queues := slices.Sorted(slices.Values(f.queues))
	for _, q := range queues {
		if q < 1 {
			return fmt.Errorf("--queue: target %d is not positive", q)
		}
	}
	for _, k := range f.ks {
		if k < 1 {
			return fmt.Errorf("--k: %d resources", k)
		}
	}
	for _, spec := range f.specs() {
		if _, err := policy.NewK(spec, []int{f.procs, f.procs}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nSynthetic: Feitelson 1996 model (no repeated runs, estimate = runtime), %d jobs, P = %d for every resource, seeds 1..%d\n", f.jobs, f.procs, f.seeds)
	fmt.Fprintf(w, "rate: log-bisection until FF-EASY's mean ready-queue length over the arrival period is the target within %.0f %% (at most %d runs)\n", 100*f.tol, f.maxSteps)

	// one unit per (K, distribution, seed): its rate searches go from the
	// smallest queue target up, each starting at the previous rate
	type unit struct {
		k     int
		d     wkres.Dist
		seed  int
		cells []kresCell
		err   error
	}
	var units []*unit
	for _, k := range f.ks {
		for _, d := range dists {
			for s := 1; s <= f.seeds; s++ {
				units = append(units, &unit{k: k, d: d, seed: s})
			}
		}
	}
	sem := make(chan struct{}, max(1, f.workers))
	var wg sync.WaitGroup
	for _, u := range units {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			u.cells, u.err = kresUnit(f, u.k, u.d, uint64(u.seed), queues)
		}()
	}
	wg.Wait()
	cells := map[[3]int]map[int]kresCell{} // (k, dist, queue) → seed → cell
	for _, u := range units {
		if u.err != nil {
			return u.err
		}
		for _, c := range u.cells {
			key := [3]int{c.k, int(u.d), c.queue}
			if cells[key] == nil {
				cells[key] = map[int]kresCell{}
			}
			cells[key][c.seed] = c
		}
	}

	// gains per configuration: mean and CI over seeds
	type gain struct{ mean, ci float64 }
	gains := func(key [3]int, weighted bool) []gain {
		out := make([]gain, len(f.algos()))
		for a := range out {
			var xs []float64
			for s := 1; s <= f.seeds; s++ {
				c := cells[key][s]
				m := c.resp
				if weighted {
					m = c.wresp
				}
				xs = append(xs, 100*(m[0]-m[a+1])/m[0])
			}
			out[a].mean, out[a].ci = meanCI(xs)
		}
		return out
	}
	for _, weighted := range []bool{false, true} {
		title := "Figure 2: mean response time"
		if weighted {
			title = "Figure 3: weighted mean response time (weight = Σ_i requirement_i/P × runtime)"
		}
		fmt.Fprintf(w, "\n%s, gain over FF-EASY in %% (positive: better than FF-EASY)", title)
		if f.seeds > 1 {
			fmt.Fprintf(w, ", mean ± 95 %% CI over %d seeds", f.seeds)
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "K\tdist\tqueue\trate (jobs/h)\tFF-EASY (s)\t")
		for _, a := range f.algos() {
			fmt.Fprintf(tw, "%s\t", a.label)
		}
		fmt.Fprintln(tw)
		for _, k := range f.ks {
			for _, d := range dists {
				for _, q := range queues {
					key := [3]int{k, int(d), q}
					var rate, base float64
					for s := 1; s <= f.seeds; s++ {
						c := cells[key][s]
						rate += c.rate / float64(f.seeds)
						if weighted {
							base += c.wresp[0] / float64(f.seeds)
						} else {
							base += c.resp[0] / float64(f.seeds)
						}
					}
					fmt.Fprintf(tw, "%d\t%s\t%d\t%.1f\t%.0f\t", k, d, q, rate*3600, base)
					for _, g := range gains(key, weighted) {
						if f.seeds > 1 {
							fmt.Fprintf(tw, "%+.1f ± %.1f\t", g.mean, g.ci)
						} else {
							fmt.Fprintf(tw, "%+.1f\t", g.mean)
						}
					}
					fmt.Fprintln(tw)
				}
			}
		}
		tw.Flush()
	}

	// calibration quality
	worst, steps, runs := 0.0, 0, 0
	for _, byseed := range cells {
		for _, c := range byseed {
			worst = max(worst, math.Abs(c.q/float64(c.queue)-1))
			steps += c.steps
			runs++
		}
	}
	fmt.Fprintf(w, "\nrate search: %d searches, %.1f FF-EASY runs each on average, largest queue deviation from target %.1f %%\n", runs, float64(steps)/float64(max(runs, 1)), 100*worst)

	// the paper's statements, with ours
	var s kresStats
	for key := range cells {
		g, gw := gains(key, false), gains(key, true)
		s.add(key[0], wkres.Dist(key[1]), key[2], g[0].mean, g[1].mean, g[2].mean, gw[0].mean, gw[1].mean, gw[2].mean)
	}
	fmt.Fprintln(w, "\nThe paper's statements (§3.3), and ours (gains are means over seeds):")
	for i, st := range kresPaper {
		fmt.Fprintf(w, "  paper: %s\n    ours: %s\n", st, s.ours(i, f.ks, dists, queues))
	}
	return nil
}

// kresUnit calibrates and runs one (K, distribution, seed) for every
// queue target, smallest first.
func kresUnit(f *kresRepro, k int, d wkres.Dist, seed uint64, queues []int) ([]kresCell, error) {
	P := f.procs
	caps := make([]int, k)
	for i := range caps {
		caps[i] = P
	}
	gen := func(rate float64) ([]job.Job, error) {
		jobs, err := feitelson96.Jobs(f.jobs, P, rate, seed)
		if err != nil {
			return nil, err
		}
		return jobs, wkres.Vectors(jobs, k, d, seed)
	}
	runOne := func(spec string, jobs []job.Job) ([]job.Outcome, error) {
		s, err := policy.NewK(spec, caps)
		if err != nil {
			return nil, err
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: P, Res: caps[1:]})
		if err != nil {
			return nil, fmt.Errorf("K=%d %s seed %d %s: %w", k, d, seed, spec, err)
		}
		return res.Outcomes, nil
	}
	queueAt := func(rate float64) (float64, error) {
		jobs, err := gen(rate)
		if err != nil {
			return 0, err
		}
		out, err := runOne("ff-easy", jobs)
		if err != nil {
			return 0, err
		}
		first, last := metrics.ArrivalSpan(out)
		return metrics.MeanQueue(out, first, last), nil
	}
	// first guess: the rate of offered load 1 in resource 0
	probe, err := gen(1)
	if err != nil {
		return nil, err
	}
	work := 0.0
	for _, j := range probe {
		work += float64(j.Procs) * float64(j.Runtime)
	}
	rate := float64(P) / (work / float64(len(probe)))
	var cells []kresCell
	for _, q := range queues {
		cal, err := wkres.Calibrate(float64(q), rate, f.tol, f.maxSteps, queueAt)
		if err != nil {
			return nil, err
		}
		rate = cal.Rate
		jobs, err := gen(rate)
		if err != nil {
			return nil, err
		}
		c := kresCell{k: k, queue: q, seed: int(seed), dist: d.String(), rate: rate, q: cal.Queue, steps: cal.Steps}
		for _, spec := range append([]string{"ff-easy"}, f.specs()...) {
			out, err := runOne(spec, jobs)
			if err != nil {
				return nil, err
			}
			rep := audit.Audit(out, audit.Options{Procs: P, Res: caps[1:], Kill: true, KnownRuntime: true, Expect: len(jobs)})
			if !rep.OK() {
				return nil, fmt.Errorf("K=%d %s seed %d %s: the schedule fails the audit: %s", k, d, seed, spec, rep.String())
			}
			c.resp = append(c.resp, meanResponse(out))
			c.wresp = append(c.wresp, metrics.WeightedResponse(out, caps))
		}
		cells = append(cells, c)
	}
	return cells, nil
}

type kresAlgo struct{ spec, label string }

// algos are the algorithms compared with FF-EASY: the paper's three, then
// the variants.
func (f *kresRepro) algos() []kresAlgo {
	var a []kresAlgo
	for _, c := range kresCompared {
		a = append(a, kresAlgo{c.spec, c.label})
	}
	for _, v := range f.variants {
		if v = strings.TrimSpace(v); v != "" {
			a = append(a, kresAlgo{v, v})
		}
	}
	return a
}

func (f *kresRepro) specs() []string {
	var s []string
	for _, a := range f.algos() {
		s = append(s, a.spec)
	}
	return s
}

func meanResponse(out []job.Outcome) float64 {
	sum := 0.0
	for i := range out {
		sum += float64(out[i].Response())
	}
	return sum / float64(max(len(out), 1))
}

// meanCI is the mean of xs and the half-width of its 95 % confidence
// interval (Student t with n − 1 degrees of freedom); 0 for one value.
func meanCI(xs []float64) (float64, float64) {
	n := float64(len(xs))
	m := 0.0
	for _, x := range xs {
		m += x / n
	}
	if len(xs) < 2 {
		return m, 0
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m) / (n - 1)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	return m, t * math.Sqrt(v/n)
}

// kresStats collects the mean gains of every configuration for the
// statement checks.
type kresStats struct {
	rows []kresRow
}

type kresRow struct {
	k, queue        int
	d               wkres.Dist
	bl, bb, cons    float64 // mean response gains
	wbl, wbb, wcons float64 // weighted
}

func (s *kresStats) add(k int, d wkres.Dist, q int, bl, bb, cons, wbl, wbb, wcons float64) {
	s.rows = append(s.rows, kresRow{k, q, d, bl, bb, cons, wbl, wbb, wcons})
}

func (s *kresStats) mean(sel func(kresRow) bool, val func(kresRow) float64) float64 {
	sum, n := 0.0, 0
	for _, r := range s.rows {
		if sel(r) {
			sum += val(r)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

func (s *kresStats) span(val func(kresRow) float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range s.rows {
		lo, hi = min(lo, val(r)), max(hi, val(r))
	}
	return lo, hi
}

func (s *kresStats) count(pred func(kresRow) bool) int {
	n := 0
	for _, r := range s.rows {
		if pred(r) {
			n++
		}
	}
	return n
}

func (s *kresStats) ours(i int, ks []int, dists []wkres.Dist, queues []int) string {
	all := func(kresRow) bool { return true }
	bb := func(r kresRow) float64 { return r.bb }
	wbb := func(r kresRow) float64 { return r.wbb }
	bl := func(r kresRow) float64 { return r.bl }
	n := len(s.rows)
	switch i {
	case 0:
		best := s.count(func(r kresRow) bool { return r.bb > r.bl && r.bb > r.cons && r.bb > 0 })
		wbest := s.count(func(r kresRow) bool { return r.wbb > r.wbl && r.wbb > r.wcons && r.wbb > 0 })
		_, hi := s.span(bb)
		return fmt.Sprintf("BB is best and better than FF-EASY in %d of %d configurations (mean response), %d of %d (weighted); its largest gain %+.1f %%", best, n, wbest, n, hi)
	case 1:
		blw := s.count(func(r kresRow) bool { return r.bl < 0 })
		cw := s.count(func(r kresRow) bool { return r.cons < 0 })
		return fmt.Sprintf("FF-EASY beats BL in %d of %d configurations and FF-CONS in %d of %d (mean response)", blw, n, cw, n)
	case 2:
		lo, hi := s.span(func(r kresRow) float64 { return r.cons })
		wlo, whi := s.span(func(r kresRow) float64 { return r.wcons })
		return fmt.Sprintf("FF-CONS's gain ranges over %+.1f … %+.1f %% (mean response), %+.1f … %+.1f %% (weighted)", lo, hi, wlo, whi)
	case 3:
		var b strings.Builder
		b.WriteString("mean gain by K —")
		for _, k := range ks {
			sel := func(r kresRow) bool { return r.k == k }
			fmt.Fprintf(&b, " K=%d: BB %+.1f, BL %+.1f;", k, s.mean(sel, bb), s.mean(sel, bl))
		}
		return strings.TrimSuffix(b.String(), ";")
	case 4:
		u := s.mean(func(r kresRow) bool { return r.d == wkres.Uniform }, bb)
		e := s.mean(func(r kresRow) bool { return r.d == wkres.Exponential }, bb)
		return fmt.Sprintf("BB's mean gain %+.1f %% (uniform) vs %+.1f %% (exponential): difference %+.1f points", u, e, u-e)
	case 5:
		var b strings.Builder
		b.WriteString("mean gain by target queue —")
		for _, q := range queues {
			sel := func(r kresRow) bool { return r.queue == q }
			fmt.Fprintf(&b, " %d: BB %+.1f, BL %+.1f;", q, s.mean(sel, bb), s.mean(sel, bl))
		}
		return strings.TrimSuffix(b.String(), ";")
	case 6:
		lo, hi := s.span(bb)
		wlo, whi := s.span(wbb)
		return fmt.Sprintf("BB's gain %+.1f … %+.1f %% (mean response), %+.1f … %+.1f %% (weighted); mean %+.1f vs %+.1f",
			lo, hi, wlo, whi, s.mean(all, bb), s.mean(all, wbb))
	}
	return ""
}

// kresReal runs K = 2 (processors, memory) on the real traces that record
// requested memory, at each memory scale.
func kresReal(w io.Writer, f *kresRepro) error {
	fmt.Fprintln(w, "\nReal traces, K = 2 (processors, memory = SWF field 10 × size; machine memory from the archive page, times --mem-scale; jobs without field 10 get the trace's most common per-processor request; user estimates, jobs killed at their estimate)")
	for _, name := range f.real {
		path := filepath.Join(f.traces, name)
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(w, "\n%s: not found in %s, skipped\n", name, f.traces)
			continue
		}
		for _, scale := range f.memScale {
			if err := kresRealOne(w, f, name, path, scale); err != nil {
				return err
			}
		}
	}
	return nil
}

func kresRealOne(w io.Writer, f *kresRepro, name, path string, scale float64) error {
	if scale <= 0 {
		return fmt.Errorf("--mem-scale: %g is not positive", scale)
	}
	tf := traceFlags{estimate: "user", fallback: "runtime", mem: "auto", memMissing: "mode"}
	tr, err := tf.load(path)
	if err != nil {
		return err
	}
	skipped := 0
	if scale != 1 {
		// reload with the scaled memory, so that the jobs that no longer
		// fit are skipped and counted by the ingestion rules
		tf.mem = strconv.FormatInt(int64(float64(tr.MemCap)*scale), 10)
		if tr, err = tf.load(path); err != nil {
			return err
		}
		skipped = tr.Skipped.Get(workload.SkipTooMuchMem)
	}
	jobs := tr.Jobs
	if f.realJobs > 0 && f.realJobs < len(jobs) {
		jobs = jobs[:f.realJobs]
	}
	caps := tr.Caps()
	fmt.Fprintf(w, "\n%s, memory × %g: %d jobs (%d skipped: more memory than the machine), P = %d, memory %s (%s); %s\n",
		name, scale, len(jobs), skipped, tr.Procs, fmtKB(tr.MemCap), tr.MemSource, tr.Adjusted.String())
	type row struct {
		label string
		spec  string
		mem   bool
		out   []job.Outcome
		err   error
	}
	rows := []*row{{label: "FF-EASY", spec: "ff-easy", mem: true}}
	for _, a := range f.algos() {
		rows = append(rows, &row{label: a.label, spec: a.spec, mem: true})
	}
	rows = append(rows, &row{label: "FF-EASY, processors only", spec: "ff-easy"})
	sem := make(chan struct{}, max(1, f.workers))
	var wg sync.WaitGroup
	for _, r := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			js, c := jobs, caps
			if !r.mem {
				js = make([]job.Job, len(jobs))
				copy(js, jobs)
				for i := range js {
					js[i].Res = nil
				}
				c = caps[:1]
			}
			s, err := policy.NewK(r.spec, c)
			if err != nil {
				r.err = err
				return
			}
			res, err := sim.Run(js, s, sim.Options{Procs: c[0], Res: c[1:]})
			if err != nil {
				r.err = fmt.Errorf("%s %s: %w", name, r.label, err)
				return
			}
			rep := audit.Audit(res.Outcomes, audit.Options{Procs: c[0], Res: c[1:], Kill: true, KnownRuntime: true, Expect: len(js)})
			if !rep.OK() {
				r.err = fmt.Errorf("%s %s: the schedule fails the audit: %s", name, r.label, rep.String())
				return
			}
			r.out = res.Outcomes
			if !r.mem {
				for i := range r.out {
					r.out[i].Res = jobs[i].Res // for the weights and the memory use
				}
			}
		}()
	}
	wg.Wait()
	for _, r := range rows {
		if r.err != nil {
			return r.err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tmean wait (s)\tmean resp (s)\tgain\tweighted resp (s)\tgain\tmean bsld\tCPU util\tmem util\tmem peak\t")
	base, wbase := meanResponse(rows[0].out), metrics.WeightedResponse(rows[0].out, caps)
	for _, r := range rows {
		resp := meanResponse(r.out)
		wresp := metrics.WeightedResponse(r.out, caps) // memory counted in the weight for every row
		sum := metrics.Summarize(r.out, metrics.Options{Procs: tr.Procs, Tau: job.Tau})
		util, peak := kresUse(r.out, caps)
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%+.1f %%\t%.0f\t%+.1f %%\t%.1f\t%.1f %%\t%.1f %%\t%.0f %%\t\n", r.label, sum.All.MeanWait, resp, 100*(base-resp)/base,
			wresp, 100*(wbase-wresp)/wbase, sum.All.MeanBSLD, 100*util[0], 100*util[1], 100*peak[1])
	}
	tw.Flush()
	return nil
}

// kresUse is the utilization of each resource over the schedule (held
// units × time / (capacity × makespan from the first submission to the
// last end)) and its peak use as a fraction of the capacity.
func kresUse(out []job.Outcome, caps []int) (util, peak []float64) {
	util, peak = make([]float64, len(caps)), make([]float64, len(caps))
	if len(out) == 0 {
		return
	}
	first, last := out[0].Submit, out[0].End
	type ev struct {
		t int64
		d []int
	}
	evs := make([]ev, 0, 2*len(out))
	for i := range out {
		o := &out[i]
		first, last = min(first, o.Submit), max(last, o.End)
		v := make([]int, len(caps))
		for k := range caps {
			v[k] = o.Need(k)
			util[k] += float64(v[k]) * float64(o.Run())
		}
		if o.End > o.Start {
			neg := make([]int, len(caps))
			for k := range v {
				neg[k] = -v[k]
			}
			evs = append(evs, ev{o.Start, v}, ev{o.End, neg})
		}
	}
	span := float64(max(last-first, 1))
	for k, c := range caps {
		util[k] /= float64(c) * span
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	used := make([]int, len(caps))
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			for k, d := range evs[i].d {
				used[k] += d
			}
		}
		for k, c := range caps {
			peak[k] = max(peak[k], float64(used[k])/float64(c))
		}
	}
	return
}

// fmtKB renders an amount of memory in KB: in GB (binary) from 1 GB on.
func fmtKB(kb int64) string {
	if kb >= 1<<20 {
		return fmt.Sprintf("%.1f GB", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%d KB", kb)
}
