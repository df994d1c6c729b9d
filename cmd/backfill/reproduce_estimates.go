package main

import (
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

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/estimate"
)

func init() { reproductions = append(reproductions, newReproduceEstimates) }

// estTrace is a trace of the slides' experiments with its published
// figures.
type estTrace struct {
	label, file string
	// mean wait in minutes (the slides' tables): EASY, SJBF, EASY++
	easy, sjbf, plus float64
}

// The slides' "Results" tables (after Tsafrir, Etsion & Feitelson 2007).
var estTraces = []estTrace{
	{"SDSC-SP2", "SDSC-SP2-1998-4.2-cln.swf.gz", 363, 361, 327},
	{"CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", 21, 19, 14},
	{"KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", 114, 102, 95},
	{"SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", 130, 102, 87},
}

// The slides' "Jann vs. CTC" table, CTC rows (user estimates): response
// time in seconds and bounded slowdown, EASY and conservative, for short
// (≤ 1 h), long and all jobs.
var slidesCTCClasses = []struct {
	class                    string
	respE, respC, sldE, sldC float64
}{
	{"short", 3785, 4632, 22.8, 45.4},
	{"long", 33867, 37763, 1.47, 1.65},
	{"all", 15465, 17497, 14.5, 28.4},
}

type estRepro struct {
	dir     string
	parts   []string
	seeds   int
	factors []float64
	workers int
}

func newReproduceEstimates() *cobra.Command {
	f := &estRepro{}
	cmd := &cobra.Command{
		Use:   "estimates",
		Short: "Feitelson's slides on runtime estimates: SJBF and EASY++ vs EASY, EASY vs conservative by class, the inaccuracy sweep",
		Long: `Reproduces the experiments on runtime estimates of Feitelson's slides
("Parallel Job Scheduling and Workloads"), printing our figures beside the
published ones. Jobs are killed at their estimate. Parts (--part):

  sjbf     mean wait of EASY, SJBF (shortest job backfilled first) and EASY++
           (SJBF + predictions from the user's last 2 jobs, corrected to the
           estimate) on SDSC-SP2, CTC-SP2, KTH-SP2 and SDSC-BLUE, in minutes
  classes  EASY vs conservative, response time and bounded slowdown for short
           (≤ 1 h) and long jobs, on CTC-SP2 with user and with exact estimates
  sweep    mean bounded slowdown of EASY and conservative on CTC-SP2 (430
           processors) and KTH-SP2 as estimates get less accurate: exact,
           factor f = 2…10 (uniform in [r, f·r]), user, user × 2, and the
           modal model with more and more jobs at the maximum estimate

Traces are read from --traces; a missing trace is reported and skipped
(KTH-SP2 falls back to the embedded copy). Random estimate models are
averaged over --seeds seeds.`,
		Example: `  backfill reproduce estimates
  backfill reproduce estimates --part sjbf --traces ../shared/traces
  backfill reproduce estimates --part sweep --seeds 5 --factors 1,2,5,10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReproduceEstimates(cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of the SWF traces")
	fl.StringSliceVar(&f.parts, "part", []string{"sjbf", "classes", "sweep"}, "parts to run: sjbf, classes, sweep")
	fl.IntVar(&f.seeds, "seeds", 3, "seeds per random estimate model (factor, modal)")
	fl.Float64SliceVar(&f.factors, "factors", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "inaccuracy factors f of the sweep")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "simulations run in parallel")
	return cmd
}

// estLoad reads a trace from dir with P processors (0: the header's) and
// user estimates; KTH falls back to the embedded copy. It returns nil and
// a note when the file is missing.
func (f *estRepro) load(file string, P int, est string) (*workload.Trace, string, error) {
	tf := traceFlags{procs: P, estimate: est, fallback: "runtime", seed: 1}
	path := filepath.Join(f.dir, file)
	if _, err := os.Stat(path); err != nil {
		if file == workload.BuiltinName {
			tr, err := tf.load("")
			return tr, fmt.Sprintf("%s not in %s: using the embedded copy", file, f.dir), err
		}
		return nil, fmt.Sprintf("missing: %s (not in %s): skipped", file, f.dir), nil
	}
	tr, err := tf.load(path)
	return tr, "", err
}

// estRun is one simulation.
type estRun struct {
	jobs  []job.Job
	procs int
	spec  string
	label string
	out   []job.Outcome
	err   error
}

// estSimulate runs every simulation, in parallel, and audits each
// schedule.
func estSimulate(runs []*estRun, workers int) error {
	sem := make(chan struct{}, max(1, workers))
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, err := policy.New(r.spec, r.procs)
			if err != nil {
				r.err = err
				return
			}
			res, err := sim.Run(r.jobs, s, sim.Options{Procs: r.procs})
			if err != nil {
				r.err = fmt.Errorf("%s on %s: %w", r.spec, r.label, err)
				return
			}
			rep := audit.Audit(res.Outcomes, audit.Options{Procs: r.procs, Kill: true, KnownRuntime: true, Expect: len(r.jobs)})
			if !rep.OK() {
				r.err = fmt.Errorf("%s on %s fails the audit:\n%s", r.spec, r.label, rep.String())
				return
			}
			r.out = res.Outcomes
		}()
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

func runReproduceEstimates(w io.Writer, f *estRepro) error {
	for _, p := range f.parts {
		if !slices.Contains([]string{"sjbf", "classes", "sweep"}, p) {
			return fmt.Errorf("--part: unknown part %q (sjbf, classes, sweep)", p)
		}
	}
	if f.seeds < 1 {
		return fmt.Errorf("--seeds must be at least 1")
	}
	for _, x := range f.factors {
		if !(x >= 1 && x <= 1000) {
			return fmt.Errorf("--factors: %g is not in [1, 1000]", x)
		}
	}
	t0 := time.Now()
	fmt.Fprintln(w, "Runtime estimates (Feitelson's slides; Tsafrir, Etsion & Feitelson): our simulations beside the published figures")
	fmt.Fprintln(w, "jobs are killed at their estimate; traces from", f.dir)
	if slices.Contains(f.parts, "sjbf") {
		if err := f.partSJBF(w); err != nil {
			return err
		}
	}
	if slices.Contains(f.parts, "classes") {
		if err := f.partClasses(w); err != nil {
			return err
		}
	}
	if slices.Contains(f.parts, "sweep") {
		if err := f.partSweep(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "reproduce estimates: %.0f s\n", time.Since(t0).Seconds())
	return nil
}

func estMeanWaitMin(out []job.Outcome) float64 {
	return metrics.Summarize(out, metrics.Options{}).All.MeanWait / 60
}

// estGainClass classifies a relative gain 1 − new/old: better (≥ 2 %), worse
// (≤ −2 %) or none.
func estGainClass(old, new float64) string {
	g := 1 - new/old
	switch {
	case g >= 0.02:
		return "better"
	case g <= -0.02:
		return "worse"
	}
	return "none"
}

func estChange(old, new float64) string {
	if old == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", 100*(new/old-1))
}

// partSJBF: mean wait of EASY, SJBF and EASY++ on the four traces.
func (f *estRepro) partSJBF(w io.Writer) error {
	fmt.Fprintln(w, "\n== EASY vs SJBF vs EASY++: mean wait (minutes) ==")
	type row struct {
		t     estTrace
		P     int
		where string
		runs  []*estRun
	}
	var rows []*row
	var all []*estRun
	var notes []string
	for _, t := range estTraces {
		sizes := []int{0}
		if t.label == "CTC-SP2" {
			sizes = []int{512, 0} // see docs/reproductions.md
		}
		for _, P := range sizes {
			tr, note, err := f.load(t.file, P, "user")
			if err != nil {
				return err
			}
			if note != "" && !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
			if tr == nil {
				continue
			}
			r := &row{t: t, P: tr.Procs, where: tr.ProcsSource}
			for _, spec := range []string{"easy", "easy:order=sjbf", "easy++"} {
				x := &estRun{jobs: tr.Jobs, procs: tr.Procs, spec: spec, label: t.label}
				r.runs = append(r.runs, x)
				all = append(all, x)
			}
			rows = append(rows, r)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	if err := estSimulate(all, f.workers); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "trace\tP\tEASY\tSJBF\tchange\tEASY++\tchange\t\tslides: EASY\tSJBF\tchange\tEASY++\tchange\t\tSJBF gain\tEASY++ gain\t")
	for _, r := range rows {
		e, s, p := estMeanWaitMin(r.runs[0].out), estMeanWaitMin(r.runs[1].out), estMeanWaitMin(r.runs[2].out)
		verdict := func(a, b, pa, pb float64) string {
			ours, slides := estGainClass(a, b), estGainClass(pa, pb)
			if ours != slides {
				return fmt.Sprintf("differs (%s vs %s)", ours, slides)
			}
			d := math.Round(100 * ((1 - b/a) - (1 - pb/pa)))
			if d == 0 {
				d = 0 // not -0
			}
			return fmt.Sprintf("agrees, %+.0f pts", d)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%s\t%.1f\t%s\t\t%.0f\t%.0f\t%s\t%.0f\t%s\t\t%s\t%s\t\n", r.t.label, r.P, e, s, estChange(e, s), p, estChange(e, p),
			r.t.easy, r.t.sjbf, estChange(r.t.easy, r.t.sjbf), r.t.plus, estChange(r.t.easy, r.t.plus),
			verdict(e, s, r.t.easy, r.t.sjbf), verdict(e, p, r.t.easy, r.t.plus))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nchange: relative to EASY. gain: direction (better/none/worse at ±2 %) ours vs the slides', and the")
	fmt.Fprintln(w, "difference of the gains in percentage points (positive: ours gains more). CTC-SP2 at 512 processors")
	fmt.Fprintln(w, "(the machine's total; the log's header gives 338, the batch partition) matches the slides' figures.")

	fmt.Fprintln(w, "\nEASY++ predictions (history-2 of the user's ended jobs, capped at the estimate, corrected to it):")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "trace\tP\tjobs\tMAE (min)\tunder-predicted\tcorrections\tuser-estimate MAE (min)\t")
	for _, r := range rows {
		out := r.runs[2].out
		p := metrics.Predictions(out, metrics.Options{})
		var userErr float64
		for _, o := range out {
			userErr += math.Abs(float64(o.Estimate - o.Run()))
		}
		if p == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f%%\t%d\t%.1f\t\n", r.t.label, r.P, p.Jobs, p.MAE/60, 100*p.Under, p.Corrections, userErr/float64(len(out))/60)
	}
	tw.Flush()
	return nil
}

// partClasses: EASY vs conservative by class on CTC, user and exact
// estimates.
func (f *estRepro) partClasses(w io.Writer) error {
	fmt.Fprintln(w, "\n== EASY vs conservative by job class on CTC-SP2: response time (s) and bounded slowdown ==")
	rule := metrics.ClassRule{By: "runtime", Bounds: []int64{3600}}
	type cfg struct {
		est string
		P   int
		e   *estRun
		c   *estRun
	}
	var cfgs []*cfg
	var all []*estRun
	for _, est := range []string{"user", "exact"} {
		for _, P := range []int{430, 0} {
			tr, note, err := f.load("CTC-SP2-1996-3.1-cln.swf.gz", P, est)
			if err != nil {
				return err
			}
			if tr == nil {
				fmt.Fprintln(w, note)
				return nil
			}
			c := &cfg{est: est, P: tr.Procs}
			c.e = &estRun{jobs: tr.Jobs, procs: tr.Procs, spec: "easy", label: "CTC-SP2"}
			c.c = &estRun{jobs: tr.Jobs, procs: tr.Procs, spec: "conservative", label: "CTC-SP2"}
			all = append(all, c.e, c.c)
			cfgs = append(cfgs, c)
		}
	}
	if err := estSimulate(all, f.workers); err != nil {
		return err
	}
	for _, c := range cfgs {
		ce := metrics.Classes(c.e.out, metrics.Options{}, rule)
		cc := metrics.Classes(c.c.out, metrics.Options{}, rule)
		se := metrics.Summarize(c.e.out, metrics.Options{}).All
		sc := metrics.Summarize(c.c.out, metrics.Options{}).All
		stats := [][2]metrics.Stats{{ce[0].Stats, cc[0].Stats}, {ce[1].Stats, cc[1].Stats}, {se, sc}}
		fmt.Fprintf(w, "\n%s estimates, P = %d:\n\n", c.est, c.P)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "class\tjobs\tresp EASY\tresp cons\tbsld EASY\tbsld cons\t")
		if c.est == "user" {
			fmt.Fprint(tw, "\tslides: resp EASY\tresp cons\tbsld EASY\tbsld cons\t")
		}
		fmt.Fprintln(tw)
		for i, s := range stats {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2f\t%.2f\t", slidesCTCClasses[i].class, s[0].Jobs, s[0].MeanResponse, s[1].MeanResponse, s[0].MeanBSLD, s[1].MeanBSLD)
			if c.est == "user" {
				p := slidesCTCClasses[i]
				fmt.Fprintf(tw, "\t%.0f\t%.0f\t%.2f\t%.2f\t", p.respE, p.respC, p.sldE, p.sldC)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		better := func(e, c float64) string {
			if e < c {
				return "EASY"
			}
			return "conservative"
		}
		if c.est == "user" {
			fmt.Fprintf(w, "better for response time: %s (slides: EASY); for slowdown: %s (slides: EASY); short jobs' slowdown: %s (slides: EASY)\n",
				better(se.MeanResponse, sc.MeanResponse), better(se.MeanBSLD, sc.MeanBSLD), better(ce[0].Stats.MeanBSLD, cc[0].Stats.MeanBSLD))
		} else {
			fmt.Fprintf(w, "better for response time: %s (slides: EASY); for slowdown: %s (slides: conservative, \"results like Jann\")\n",
				better(se.MeanResponse, sc.MeanResponse), better(se.MeanBSLD, sc.MeanBSLD))
		}
	}
	fmt.Fprintln(w, "\nThe slides' table (Mu'alem & Feitelson) used the CTC SP2 as a 430-node machine; the log's header gives 338.")
	return nil
}

// sweepModel is one estimate model of the sweep.
type sweepModel struct {
	label, spec string
	random      bool
}

// partSweep: mean bounded slowdown as estimates get less accurate.
func (f *estRepro) partSweep(w io.Writer) error {
	fmt.Fprintln(w, "\n== The inaccuracy sweep: mean bounded slowdown (τ = 10 s) ==")
	var models []sweepModel
	for _, x := range f.factors {
		s := strconv.FormatFloat(x, 'g', -1, 64)
		label := "f = " + s
		if x == 1 {
			label += " (exact)"
		}
		models = append(models, sweepModel{label, "factor:" + s, x > 1})
	}
	models = append(models, sweepModel{"user", "user", false}, sweepModel{"user × 2", "double", false})
	for _, p := range []string{"10", "", "40", "60", "80"} {
		spec, label := "modal:atmax="+p, "modal, "+p+"% at max"
		if p == "" {
			spec, label = "modal", fmt.Sprintf("modal, %.1f%% at max", estimate.DefaultAtMax())
		}
		models = append(models, sweepModel{label, spec, true})
	}
	for _, t := range []struct {
		label, file string
		P           int
	}{{"CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", 430}, {"KTH-SP2", workload.BuiltinName, 0}} {
		base, note, err := f.load(t.file, t.P, "user")
		if err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(w, note)
		}
		if base == nil {
			continue
		}
		type cell struct{ e, c []*estRun }
		cells := make([]cell, len(models))
		var all []*estRun
		notes := map[string][]string{}
		for i, m := range models {
			n := 1
			if m.random {
				n = f.seeds
			}
			for s := 1; s <= n; s++ {
				jobs := slices.Clone(base.Jobs)
				nt, err := estimate.Apply(jobs, m.spec, uint64(s))
				if err != nil {
					return err
				}
				if s == 1 {
					notes[m.spec] = nt
				}
				e := &estRun{jobs: jobs, procs: base.Procs, spec: "easy", label: t.label + " " + m.spec}
				c := &estRun{jobs: jobs, procs: base.Procs, spec: "conservative", label: t.label + " " + m.spec}
				cells[i].e, cells[i].c = append(cells[i].e, e), append(cells[i].c, c)
				all = append(all, e, c)
			}
		}
		if err := estSimulate(all, f.workers); err != nil {
			return err
		}
		bsld := func(rs []*estRun) (mean, lo, hi float64) {
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, r := range rs {
				b := metrics.Summarize(r.out, metrics.Options{}).All.MeanBSLD
				mean += b
				lo, hi = min(lo, b), max(hi, b)
			}
			return mean / float64(len(rs)), lo, hi
		}
		fmt.Fprintf(w, "\n%s, P = %d (%d jobs; random models: mean of %d seeds, range in brackets):\n\n", t.label, base.Procs, len(base.Jobs), f.seeds)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "estimates\tEASY\t\tconservative\t\tkilled (seed 1)\t")
		res := map[string][2]float64{}
		for i, m := range models {
			em, el, eh := bsld(cells[i].e)
			cm, cl, ch := bsld(cells[i].c)
			res[m.spec] = [2]float64{em, cm}
			rng := func(lo, hi float64) string {
				if len(cells[i].e) == 1 {
					return ""
				}
				return fmt.Sprintf("[%.2f–%.2f]", lo, hi)
			}
			killed := metrics.Summarize(cells[i].e[0].out, metrics.Options{}).All.Killed
			fmt.Fprintf(tw, "%s\t%.2f\t%s\t%.2f\t%s\t%d\t\n", m.label, em, rng(el, eh), cm, rng(cl, ch), killed)
		}
		tw.Flush()
		if nt := notes["modal"]; len(nt) > 1 {
			fmt.Fprintln(w, strings.Join(nt[1:], "\n"))
		}
		estSweepVerdict(w, f.factors, res)
	}
	return nil
}

// estSweepVerdict states, for EASY and conservative, whether the slides'
// claims hold in res (spec → mean bsld of EASY, conservative).
func estSweepVerdict(w io.Writer, factors []float64, res map[string][2]float64) {
	spec := func(x float64) string { return "factor:" + strconv.FormatFloat(x, 'g', -1, 64) }
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for k, name := range []string{"EASY", "conservative"} {
		var parts []string
		if len(factors) >= 2 && slices.Contains(factors, 1) {
			hi := slices.Max(factors)
			exact, worst := res[spec(1)][k], res[spec(hi)][k]
			bestF, best := 1.0, exact
			for _, x := range factors {
				if v := res[spec(x)][k]; v < best {
					bestF, best = x, v
				}
			}
			parts = append(parts, fmt.Sprintf("inaccuracy helps (f = %g below f = 1): %s (%.2f vs %.2f; best f = %g: %.2f)", hi, yes(worst < exact), worst, exact, bestF, best))
			parts = append(parts, fmt.Sprintf("f-model better than user estimates at f = %g: %s", bestF, yes(best < res["user"][k])))
		}
		parts = append(parts, fmt.Sprintf("user × 2 better than user: %s (%.2f vs %.2f)", yes(res["double"][k] < res["user"][k]), res["double"][k], res["user"][k]))
		m := []float64{res["modal:atmax=10"][k], res["modal"][k], res["modal:atmax=40"][k], res["modal:atmax=60"][k], res["modal:atmax=80"][k]}
		parts = append(parts, fmt.Sprintf("modal: more jobs at the maximum is worse (10%% → 80%%): %s (%.2f → %.2f)", yes(m[4] > m[0]), m[0], m[4]))
		fmt.Fprintf(w, "%s: %s\n", name, strings.Join(parts, "; "))
	}
}
