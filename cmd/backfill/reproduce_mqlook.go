package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

func init() { reproductions = append(reproductions, newReproduceMQLook) }

// mqlPolicy is one scheduler of the comparison.
type mqlPolicy struct {
	spec, label string
	kind        byte // 'e' EASY, 'm' multiple-queue, 'l' lookahead
	seed        bool // the seed paper's variant (else the original paper's, or EASY)
}

var mqlPolicies = []mqlPolicy{
	{"easy", "EASY (basic aggressive)", 'e', false},
	{"multiqueue", "multiple-queue, Lawson & Smirni (FCFS queues)", 'm', false},
	{"multiqueue:order=sjf", "multiple-queue, seed paper (queues by estimate)", 'm', true},
	{"lookahead", "lookahead LOS (reservation, depth 50, C=5)", 'l', false},
	{"lookahead:reserve=false:order=sjf:depth=all", "lookahead, seed paper (plain DP, by estimate) + aging C=5", 'l', true},
	{"lookahead:reserve=false:order=sjf:depth=all:cs=inf", "lookahead, seed paper literal (no aging)", 'l', true},
}

var mqlDepths = []string{"1", "5", "10", "50", "200", "all"}

// mqlReal are the real traces compared at their own size by default.
var mqlReal = []string{"KTH-SP2-1996-2.1-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"}

type mqlRepro struct {
	dir     string
	real    []string
	parts   []string
	batches int
	seed    uint64
	workers int
}

func newReproduceMQLook() *cobra.Command {
	f := &mqlRepro{}
	cmd := &cobra.Command{
		Use:   "mqlook",
		Short: "Rajaei & Dadfar: EASY vs multiple-queue vs lookahead backfilling, on a 16-node workload like the seed paper's and on real traces",
		Long: `Compares EASY (the seed paper's "basic aggressive" backfilling), multiple-queue
backfilling (Lawson & Smirni) and lookahead backfilling (Shmueli & Feitelson's
LOS), each also in the seed paper's variant, and prints mean wait, bounded
slowdown and utilization with the seed paper's qualitative findings beside
ours. Jobs are killed at their estimate. Parts (--part):

  seed    the seed paper's setting: a 16-node cluster whose master does not
          compute (P = 15; multiple-queue partitions 4/4/4/3) and batches of
          30 jobs shaped like its Table 1 — arrivals uniform in 1…16 s, 1 to 4
          processors, estimates uniform in 10…100 s (9 jobs), 200…300 s (11)
          and 1300…1400 s (10), runtime = estimate; averaged over --batches
          random batches
  scaled  KTH-SP2 scaled down to 15 processors: sizes × 15/100 rounded up,
          arrivals stretched so that the offered load stays the trace's
  real    real traces at their own size (--real, read from --traces; KTH-SP2
          falls back to the embedded copy, missing traces are skipped)
  depth   the bound of the DP: LOS with lookahead depth 1 … all on the
          scaled and real workloads

The findings are evaluated on every workload run, for the seed paper's
variants and for the originals'.`,
		Example: `  backfill reproduce mqlook
  backfill reproduce mqlook --part seed --batches 1000
  backfill reproduce mqlook --part real,depth --real HPC2N-2002-2.2-cln.swf.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReproduceMQLook(cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of the SWF traces")
	fl.StringSliceVar(&f.real, "real", mqlReal, "real traces (file names in --traces) for the real and depth parts")
	fl.StringSliceVar(&f.parts, "part", []string{"seed", "scaled", "real", "depth"}, "parts to run: seed, scaled, real, depth")
	fl.IntVar(&f.batches, "batches", 200, "random 30-job batches of the seed part")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the first batch (batch i uses seed+i)")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "simulations run in parallel")
	return cmd
}

// mqlWorkload is one workload: a machine size and one or more job sets
// (several for the seed part's batches, whose figures are averaged).
type mqlWorkload struct {
	name  string
	procs int
	sets  [][]job.Job
	large bool // P > 16: the seed paper's "larger clusters"
}

// mqlResult is the averaged figures of one policy on one workload.
type mqlResult struct {
	wait, bsld, util float64
	maxWait          int64
}

// mqlRun is one simulation.
type mqlRun struct {
	w, set int
	spec   string
	s      metrics.Summary
	err    error
}

func runReproduceMQLook(w io.Writer, f *mqlRepro) error {
	t0 := time.Now()
	for _, p := range f.parts {
		if p != "seed" && p != "scaled" && p != "real" && p != "depth" {
			return fmt.Errorf("--part: unknown part %q (want seed, scaled, real or depth)", p)
		}
	}
	want := func(p string) bool { return indexOf(f.parts, p) >= 0 }
	fmt.Fprintln(w, "Rajaei & Dadfar (2006): basic aggressive (EASY) vs multiple-queue vs lookahead backfilling")
	fmt.Fprintln(w, "jobs killed at their estimate; wait and bounded slowdown (τ = 10 s) averaged over jobs; utilization = work / (P × makespan)")
	var wls []mqlWorkload
	if want("seed") {
		wl := mqlWorkload{name: fmt.Sprintf("seed-like batches (P=15, %d × 30 jobs)", f.batches), procs: 15}
		for b := 0; b < f.batches; b++ {
			wl.sets = append(wl.sets, mqlSeedBatch(f.seed+uint64(b)))
		}
		wls = append(wls, wl)
	}
	var scaled *mqlWorkload
	if want("scaled") || want("depth") {
		kth, note, err := mqlLoad(f.dir, workload.BuiltinName)
		if err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(w, "note: "+note)
		}
		jobs, stretch := mqlScale(kth, 15)
		scaled = &mqlWorkload{name: "KTH-SP2 scaled to P=15", procs: 15, sets: [][]job.Job{jobs}}
		fmt.Fprintf(w, "scaled workload: %d KTH-SP2 jobs, sizes ceil(n·15/%d), arrivals stretched ×%.3f (offered load kept at %.3f)\n",
			len(jobs), kth.Procs, stretch, mqlLoadOf(kth.Jobs, kth.Procs))
		if want("scaled") {
			wls = append(wls, *scaled)
		}
	}
	var reals []mqlWorkload
	if want("real") || want("depth") {
		for _, file := range f.real {
			tr, note, err := mqlLoad(f.dir, file)
			if err != nil {
				return err
			}
			if note != "" {
				fmt.Fprintln(w, "note: "+note)
			}
			if tr == nil {
				continue
			}
			reals = append(reals, mqlWorkload{name: strings.TrimSuffix(strings.TrimSuffix(file, ".gz"), ".swf"), procs: tr.Procs,
				sets: [][]job.Job{tr.Jobs}, large: tr.Procs > 16})
		}
		if want("real") {
			wls = append(wls, reals...)
		}
	}
	var specs []string
	for _, p := range mqlPolicies {
		specs = append(specs, p.spec)
	}
	res, err := mqlSimulate(wls, specs, f.workers)
	if err != nil {
		return err
	}
	if len(wls) > 0 {
		fmt.Fprintln(w, "\npolicies:")
		for _, p := range mqlPolicies {
			fmt.Fprintf(w, "  %-58s %s\n", p.label, p.spec)
		}
	}
	for i, wl := range wls {
		fmt.Fprintf(w, "\n== %s ==\n\n", wl.name)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "policy\tmean wait s\tmax wait s\tmean bsld\tutil %\t")
		for k, p := range mqlPolicies {
			r := res[i][k]
			fmt.Fprintf(tw, "%s\t%.1f\t%d\t%.2f\t%.2f\t\n", p.label, r.wait, r.maxWait, r.bsld, 100*r.util)
		}
		tw.Flush()
	}
	if len(wls) > 0 {
		mqlFindings(w, wls, res)
	}
	if want("depth") {
		dw := append([]mqlWorkload{*scaled}, reals...)
		var ds []string
		for _, d := range mqlDepths {
			ds = append(ds, "lookahead:depth="+d)
		}
		dres, err := mqlSimulate(dw, ds, f.workers)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "\n== the DP's bound: LOS (reservation, C=5) by lookahead depth; mean wait s / mean bsld ==")
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "workload\t")
		for _, d := range mqlDepths {
			fmt.Fprintf(tw, "depth %s\t", d)
		}
		fmt.Fprintln(tw)
		for i, wl := range dw {
			fmt.Fprintf(tw, "%s\t", wl.name)
			for k := range mqlDepths {
				fmt.Fprintf(tw, "%.0f / %.1f\t", dres[i][k].wait, dres[i][k].bsld)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\n(done in %.1f s; see docs/reproductions.md for the discussion)\n", time.Since(t0).Seconds())
	return nil
}

// mqlFindings states the seed paper's qualitative findings and whether
// each holds on our workloads, for the seed paper's variants and for the
// originals'.
func mqlFindings(w io.Writer, wls []mqlWorkload, res [][]mqlResult) {
	pick := func(kind byte, seed bool) int {
		for k, p := range mqlPolicies {
			if p.kind == kind && (p.seed == seed || kind == 'e') {
				return k // the first of its kind: with aging for the seed lookahead
			}
		}
		return -1
	}
	type claim struct {
		text string
		test func(r []mqlResult, e, m, l int, wl mqlWorkload) (bool, bool) // applies, holds
	}
	const eps = 0.0005 // utilization differences below 0.05 points are ties
	claims := []claim{
		{"§5, Fig. 4–6: jobs wait longer under multiple-queue than under lookahead",
			func(r []mqlResult, e, m, l int, _ mqlWorkload) (bool, bool) { return true, r[m].wait > r[l].wait }},
		{"§5, Fig. 4: the basic aggressive (EASY) wait is very small compared with the other two",
			func(r []mqlResult, e, m, l int, _ mqlWorkload) (bool, bool) {
				return true, r[e].wait < r[m].wait && r[e].wait < r[l].wait
			}},
		{"§7: lookahead performs better than the other two (mean wait)",
			func(r []mqlResult, e, m, l int, _ mqlWorkload) (bool, bool) {
				return true, r[l].wait < r[e].wait && r[l].wait < r[m].wait
			}},
		{"§5, Fig. 5: lookahead gives better utilization (higher than both, ties within 0.05 points excluded)",
			func(r []mqlResult, e, m, l int, _ mqlWorkload) (bool, bool) {
				return true, r[l].util > r[e].util+eps && r[l].util > r[m].util+eps
			}},
		{"§7 (a prediction): on clusters larger than 16 processors multiple-queue may beat lookahead",
			func(r []mqlResult, e, m, l int, wl mqlWorkload) (bool, bool) { return wl.large, r[m].wait < r[l].wait }},
	}
	fmt.Fprintln(w, "\n== the seed paper's findings beside ours ==")
	for ci, c := range claims {
		fmt.Fprintf(w, "\n%d. %s\n", ci+1, c.text)
		for _, seed := range []bool{true, false} {
			e, m, l := pick('e', seed), pick('m', seed), pick('l', seed)
			var yes, no []string
			for i, wl := range wls {
				applies, holds := c.test(res[i], e, m, l, wl)
				if !applies {
					continue
				}
				if holds {
					yes = append(yes, wl.name)
				} else {
					no = append(no, wl.name)
				}
			}
			who := "originals (L&S FCFS queues, LOS)"
			if seed {
				who = "seed variants (queues by estimate, plain DP + aging)"
			}
			if len(yes)+len(no) == 0 {
				fmt.Fprintf(w, "   %s: no workload applies\n", who)
				continue
			}
			fmt.Fprintf(w, "   %s: holds on %d of %d", who, len(yes), len(yes)+len(no))
			if len(yes) > 0 {
				fmt.Fprintf(w, " (%s)", strings.Join(yes, "; "))
			}
			fmt.Fprintln(w)
		}
	}
}

// mqlSimulate runs every policy on every set of every workload, audits
// each schedule, and averages the figures over a workload's sets.
func mqlSimulate(wls []mqlWorkload, specs []string, workers int) ([][]mqlResult, error) {
	var runs []*mqlRun
	for i, wl := range wls {
		for s := range wl.sets {
			for _, spec := range specs {
				runs = append(runs, &mqlRun{w: i, set: s, spec: spec})
			}
		}
	}
	sem := make(chan struct{}, max(1, workers))
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			wl := wls[r.w]
			jobs := wl.sets[r.set]
			s, err := policy.New(r.spec, wl.procs)
			if err != nil {
				r.err = err
				return
			}
			out, err := sim.Run(jobs, s, sim.Options{Procs: wl.procs})
			if err != nil {
				r.err = fmt.Errorf("%s, %s: %w", wl.name, r.spec, err)
				return
			}
			rep := audit.Audit(out.Outcomes, audit.Options{Procs: wl.procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
			if !rep.OK() {
				r.err = fmt.Errorf("%s, %s: the schedule fails the audit:\n%s", wl.name, r.spec, rep.String())
				return
			}
			r.s = metrics.Summarize(out.Outcomes, metrics.Options{Procs: wl.procs})
		}()
	}
	wg.Wait()
	out := make([][]mqlResult, len(wls))
	for i := range out {
		out[i] = make([]mqlResult, len(specs))
	}
	for _, r := range runs {
		if r.err != nil {
			return nil, r.err
		}
		k := indexOf(specs, r.spec)
		n := float64(len(wls[r.w].sets))
		x := &out[r.w][k]
		x.wait += r.s.All.MeanWait / n
		x.bsld += r.s.All.MeanBSLD / n
		x.util += r.s.Utilization / n
		x.maxWait = max(x.maxWait, r.s.All.MaxWait)
	}
	return out, nil
}

// mqlLoad reads a trace with user estimates; KTH-SP2 falls back to the
// embedded copy; a missing file gives nil and a note.
func mqlLoad(dir, file string) (*workload.Trace, string, error) {
	tf := traceFlags{estimate: "user", fallback: "runtime", seed: 1}
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); err != nil {
		if file == workload.BuiltinName {
			tr, err := tf.load("")
			return tr, fmt.Sprintf("%s not in %s: using the embedded copy", file, dir), err
		}
		return nil, fmt.Sprintf("missing: %s (not in %s): skipped", file, dir), nil
	}
	tr, err := tf.load(path)
	return tr, "", err
}

// mqlSeedBatch is a batch of 30 jobs shaped like the seed paper's Table 1
// (its columns are garbled in the copy we have, so the batch follows the
// table's ranges rather than its rows): arrivals 1…16 s, 1–4 processors,
// estimates in three bands, runtime = estimate.
func mqlSeedBatch(seed uint64) []job.Job {
	r := rand.New(rand.NewPCG(seed, 2006))
	bands := []struct {
		n      int
		lo, hi int64
	}{{9, 10, 100}, {11, 200, 300}, {10, 1300, 1400}}
	var jobs []job.Job
	for _, b := range bands {
		for range b.n {
			est := b.lo + r.Int64N(b.hi-b.lo+1)
			jobs = append(jobs, job.Job{Request: job.Request{Submit: 1 + r.Int64N(16), Procs: 1 + r.IntN(4), Estimate: est,
				User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: est})
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	for i := range jobs {
		jobs[i].ID, jobs[i].SWFID = i, int64(i+1)
	}
	return jobs
}

// mqlLoadOf is the offered load: Σ size·runtime / (P × submit span).
func mqlLoadOf(jobs []job.Job, procs int) float64 {
	if len(jobs) < 2 {
		return 0
	}
	var work float64
	for _, j := range jobs {
		work += float64(j.Procs) * float64(j.Runtime)
	}
	span := float64(jobs[len(jobs)-1].Submit - jobs[0].Submit)
	return work / (float64(procs) * max(1, span))
}

// mqlScale scales a trace down to P processors: sizes ceil(n·P/P0), and
// arrivals stretched by the factor that keeps the offered load (rounding
// sizes up adds work). It returns the jobs and the stretch.
func mqlScale(tr *workload.Trace, P int) ([]job.Job, float64) {
	jobs := make([]job.Job, len(tr.Jobs))
	copy(jobs, tr.Jobs)
	for i := range jobs {
		jobs[i].Procs = max(1, int(math.Ceil(float64(jobs[i].Procs)*float64(P)/float64(tr.Procs))))
	}
	k := mqlLoadOf(jobs, P) / mqlLoadOf(tr.Jobs, tr.Procs)
	t0 := jobs[0].Submit
	for i := range jobs {
		jobs[i].Submit = t0 + int64(math.Round(float64(jobs[i].Submit-t0)*k))
	}
	return jobs, k
}
