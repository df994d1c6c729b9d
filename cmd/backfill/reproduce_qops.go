package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	deadlinepol "github.com/backfill-hpc/backfill/policy/deadline"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
	deadlinewl "github.com/backfill-hpc/backfill/workload/deadline"
)

func init() { reproductions = append(reproductions, newReproduceQoPS) }

// qopsSetup is one of the paper's trace × load-method combinations.
type qopsSetup struct {
	label, file, method string
	// figures of the paper: all-deadline admittance (s=0.2, s=0.5) and
	// utilization; mixed 80 % (s=0.2, 0.5), 20 % (s=0.2, 0.5)
	figAll, figMixed string
}

var qopsSetups = []qopsSetup{
	{"CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", deadlinewl.MethodDup, "Figures 4, 5, 6", "Figures 13–16, 25–28, 37, 38"},
	{"SDSC-SP2", "SDSC-SP2-1998-4.2-cln.swf.gz", deadlinewl.MethodDup, "Figures 7, 8, 9", "Figures 17–20, 29–32, 39, 40"},
	{"CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", deadlinewl.MethodExpand, "Figures 10, 11, 12", "Figures 21–24, 33–36, 41, 42"},
}

type qopsRepro struct {
	dir        string
	parts      []string
	jobs       int
	offset     int
	loads      []float64
	stringency []float64
	policies   []string
	rs         []float64
	seed       uint64
	ctcProcs   int
	workers    int
}

func newReproduceQoPS() *cobra.Command {
	f := &qopsRepro{}
	cmd := &cobra.Command{
		Use:   "qops",
		Short: "Islam et al., QoPS: deadline scheduling with admission control (QoPS vs MSB vs MRT, EASY and conservative)",
		Long: `Reproduces the experiments of Islam, Balaji, Sadayappan & Panda, "QoPS: A QoS
based scheme for parallel job scheduling" (§5), printing our figures beside
the paper's findings (the paper gives its results as plots only, so its
statements are quoted rather than numbers).

Workloads (package workload/deadline): 5000-job subsets (--jobs, --offset) of
CTC-SP2 and SDSC-SP2 with exact runtime estimates (the paper assumes accurate
estimates), the load raised to l by duplication (incremental) or expansion
(runtimes × l), deadlines submit + max(runtime, (1 − s) × EASY response), and
all jobs, 80 % or 20 % of them with deadlines; the others get QoPS's
artificial deadline max(24 h, R × estimate). Jobs are killed at their
estimate. Every schedule is audited: no admitted job may miss its deadline.

Parts (--part):
  deadline     all jobs with deadlines: unadmitted jobs and processor-seconds,
               achieved utilization beside EASY and conservative (Figures 4–12)
  mixed        80 % and 20 % deadline jobs: unadmitted deadline jobs and
               processor-seconds, utilization (Figures 13–24, 37–42); response
               and bounded slowdown of the non-deadline jobs against offered
               load (Figures 25–36) and against achieved utilization (43–54)
  r            QoPS with R = 2, 5, 10: the non-deadline jobs (Figures 55–58)

Traces are read from --traces; a missing trace is reported and skipped.`,
		Example: `  backfill reproduce qops
  backfill reproduce qops --part deadline --loads 1,1.6 --jobs 2000
  backfill reproduce qops --policies qops,qops:k=20,msb,mrt:backtrack=100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReproduceQoPS(cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of the SWF traces")
	fl.StringSliceVar(&f.parts, "part", []string{"deadline", "mixed", "r"}, "parts to run: deadline, mixed, r")
	fl.IntVar(&f.jobs, "jobs", 5000, "jobs in each trace subset (the paper: 5000)")
	fl.IntVar(&f.offset, "offset", 0, "first job of each subset")
	fl.Float64SliceVar(&f.loads, "loads", []float64{1.0, 1.2, 1.4, 1.6}, "load factors l")
	fl.Float64SliceVar(&f.stringency, "stringency", []float64{0.2, 0.5}, "stringency factors s")
	fl.StringSliceVar(&f.policies, "policies", []string{"qops", "msb", "mrt"}, "deadline policies compared (with parameters; EASY and conservative are always added)")
	fl.Float64SliceVar(&f.rs, "r", []float64{2, 5, 10}, "relaxation factors R of the r part (QoPS)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the duplication and of the choice of deadline jobs")
	fl.IntVar(&f.ctcProcs, "ctc-procs", 0, "machine size for CTC-SP2 (default: the header's 338, the batch partition)")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "simulations run in parallel")
	return cmd
}

// qopsKey identifies one simulation.
type qopsKey struct {
	setup int
	l, s  float64
	frac  float64
	spec  string
}

// qopsWL is one deadline workload and the simulations on it.
type qopsWL struct {
	setup   int
	l, s    float64
	frac    float64
	specs   []string
	res     map[string]metrics.Summary
	extend  map[string]int
	dlJobs  int
	jobs    int
	err     error
	elapsed time.Duration
}

func runReproduceQoPS(w io.Writer, f *qopsRepro) error {
	for _, p := range f.parts {
		if !slices.Contains([]string{"deadline", "mixed", "r"}, p) {
			return fmt.Errorf("--part: unknown part %q (deadline, mixed, r)", p)
		}
	}
	if f.jobs < 1 || f.offset < 0 {
		return fmt.Errorf("--jobs must be at least 1 and --offset not negative")
	}
	for _, l := range f.loads {
		if !(l >= 1 && l <= 100) {
			return fmt.Errorf("--loads: %g is not in [1, 100]", l)
		}
	}
	for _, s := range f.stringency {
		if !(s >= 0 && s < 1) {
			return fmt.Errorf("--stringency: %g is not in [0, 1)", s)
		}
	}
	if len(f.loads) == 0 || len(f.stringency) == 0 || len(f.policies) == 0 {
		return fmt.Errorf("--loads, --stringency and --policies need at least one value each")
	}
	for _, r := range f.rs {
		if !(r >= 0 && r <= 1e6) {
			return fmt.Errorf("--r: %g is not in [0, 1e6]", r)
		}
	}
	for _, p := range f.policies {
		s, err := policy.New(p, 128)
		if err != nil {
			return fmt.Errorf("--policies: %w", err)
		}
		if _, ok := s.(policy.Admitter); !ok {
			return fmt.Errorf("--policies: %s has no admission control", p)
		}
	}
	t0 := time.Now()
	fmt.Fprintln(w, "Islam, Balaji, Sadayappan & Panda, QoPS (OSU-CISRC-4/03-TR21) §5: deadline scheduling with admission control")
	fmt.Fprintf(w, "%d-job subsets from job %d, exact estimates, jobs killed at their estimate; traces from %s\n", f.jobs, f.offset, f.dir)
	fmt.Fprintf(w, "deadline policies: %s (defaults: QoPS K=5 EDF, new job first; MSB AST; MRT EDF, backtrack limit 10; R=5)\n", strings.Join(f.policies, ", "))

	// the traces
	traces := map[string]*workload.Trace{}
	var notes []string
	for _, st := range qopsSetups {
		if _, ok := traces[st.file]; ok {
			continue
		}
		path := filepath.Join(f.dir, st.file)
		if _, err := os.Stat(path); err != nil {
			notes = append(notes, fmt.Sprintf("missing: %s (not in %s): skipped", st.file, f.dir))
			traces[st.file] = nil
			continue
		}
		tf := traceFlags{estimate: "exact", fallback: "runtime"}
		if strings.HasPrefix(st.file, "CTC") {
			tf.procs = f.ctcProcs
		}
		tr, err := tf.load(path)
		if err != nil {
			return err
		}
		traces[st.file] = tr
		fmt.Fprintf(w, "%s: %d processors (%s)\n", st.label, tr.Procs, tr.ProcsSource)
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}

	// the workloads and their simulations
	base := append(slices.Clone(f.policies), "easy", "conservative")
	var wls []*qopsWL
	add := func(si int, frac float64, specs []string) {
		for _, s := range f.stringency {
			for _, l := range f.loads {
				wls = append(wls, &qopsWL{setup: si, l: l, s: s, frac: frac, specs: specs})
			}
		}
	}
	hasPart := func(p string) bool { return slices.Contains(f.parts, p) }
	for si, st := range qopsSetups {
		if traces[st.file] == nil {
			continue
		}
		if hasPart("deadline") {
			add(si, 1, base)
		}
		mixedSpecs := base
		if hasPart("r") && si == 0 {
			mixedSpecs = slices.Clone(base)
			for _, r := range f.rs {
				mixedSpecs = append(mixedSpecs, qopsRSpec(r))
			}
		}
		if hasPart("mixed") || (hasPart("r") && si == 0) {
			for _, frac := range []float64{0.8, 0.2} {
				specs := base
				if si == 0 {
					specs = mixedSpecs
				}
				add(si, frac, specs)
			}
		}
	}
	if err := f.simulate(wls, traces); err != nil {
		return err
	}
	get := func(si int, l, s, frac float64) *qopsWL {
		for _, x := range wls {
			if x.setup == si && x.l == l && x.s == s && x.frac == frac {
				return x
			}
		}
		return nil
	}
	for si, st := range qopsSetups {
		if traces[st.file] == nil {
			continue
		}
		if hasPart("deadline") {
			f.partDeadline(w, si, st, get)
		}
		if hasPart("mixed") {
			f.partMixed(w, si, st, get)
		}
	}
	if hasPart("r") && traces[qopsSetups[0].file] != nil {
		f.partR(w, get)
	}
	var cpu time.Duration
	for _, x := range wls {
		cpu += x.elapsed
	}
	fmt.Fprintf(w, "\n(%d workloads, %.0f s of simulation time, %.0f s wall; see docs/reproductions.md)\n",
		len(wls), cpu.Seconds(), time.Since(t0).Seconds())
	return nil
}

// qopsRSpec is QoPS with relaxation factor r (the plain spec for the
// default R = 5, so that the run is shared).
func qopsRSpec(r float64) string {
	if r == 5 {
		return "qops"
	}
	return fmt.Sprintf("qops:r=%g", r)
}

// simulate builds every workload and runs its simulations on a pool of
// workers, auditing each schedule (with the deadline check for the
// deadline policies).
func (f *qopsRepro) simulate(wls []*qopsWL, traces map[string]*workload.Trace) error {
	sem := make(chan struct{}, max(1, f.workers))
	var wg sync.WaitGroup
	var mu sync.Mutex
	bar := newProgress(int64(len(wls)), "simulating")
	for _, x := range wls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer bar.add(1)
			t0 := time.Now()
			st := qopsSetups[x.setup]
			tr := traces[st.file]
			sp := deadlinewl.Spec{Offset: f.offset, Count: f.jobs, Load: x.l, Method: st.method, Stringency: x.s, Fraction: x.frac, Seed: f.seed}
			if f.offset+f.jobs > len(tr.Jobs) {
				sp.Count = 0
			}
			b, err := deadlinewl.Build(tr.Jobs, tr.Procs, sp, simulate.EASYResponses)
			if err != nil {
				x.err = fmt.Errorf("%s: %w", st.label, err)
				return
			}
			x.jobs, x.dlJobs = len(b.Jobs), b.Deadlines
			x.res = map[string]metrics.Summary{}
			x.extend = map[string]int{}
			for _, spec := range x.specs {
				s, err := policy.New(spec, tr.Procs)
				if err != nil {
					x.err = err
					return
				}
				res, err := sim.Run(b.Jobs, s, sim.Options{Procs: tr.Procs})
				if err != nil {
					x.err = fmt.Errorf("%s on %s (%s): %w", spec, st.label, sp, err)
					return
				}
				_, adm := s.(policy.Admitter)
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, Expect: len(b.Jobs), Deadlines: adm})
				if !rep.OK() {
					x.err = fmt.Errorf("%s on %s (%s) fails the audit:\n%s", spec, st.label, sp, rep.String())
					return
				}
				sum := metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})
				mu.Lock()
				x.res[spec] = sum
				if d, ok := s.(*deadlinepol.Sched); ok {
					x.extend[spec] = d.Stats.Extended
				}
				mu.Unlock()
			}
			x.elapsed = time.Since(t0)
		}()
	}
	wg.Wait()
	bar.finish()
	for _, x := range wls {
		if x.err != nil {
			return x.err
		}
	}
	return nil
}

func polLabel(spec string) string {
	switch spec {
	case "qops":
		return "QoPS"
	case "msb":
		return "MSB"
	case "mrt":
		return "MRT"
	case "easy":
		return "EASY"
	case "conservative":
		return "cons"
	}
	return spec
}

func pct1(x float64) string { return fmt.Sprintf("%.1f", 100*x) }

// unadm is the unadmitted share of the deadline jobs (jobs and work).
func unadm(s metrics.Summary) (jobs, work float64) {
	if s.Admission == nil {
		return 0, 0
	}
	return s.Admission.UnadmittedDeadline, s.Admission.UnadmittedDeadlineWork
}

type getWL func(si int, l, s, frac float64) *qopsWL

// partDeadline prints the all-deadline tables of one setup and our
// findings beside the paper's.
func (f *qopsRepro) partDeadline(w io.Writer, si int, st qopsSetup, get getWL) {
	f.admittanceTables(w, si, st, 1, get, fmt.Sprintf("all jobs with deadlines (the paper's %s)", st.figAll))
}

// admittanceTables prints, for each stringency, unadmitted jobs and
// processor-seconds and utilization per load, then the findings.
func (f *qopsRepro) admittanceTables(w io.Writer, si int, st qopsSetup, frac float64, get getWL, title string) {
	how := "duplication"
	if st.method == deadlinewl.MethodExpand {
		how = "expansion"
	}
	fmt.Fprintf(w, "\n== %s, load by %s: %s ==\n", st.label, how, title)
	for _, s := range f.stringency {
		fmt.Fprintf(w, "\nstringency s = %g: unadmitted deadline jobs %%, unadmitted processor-seconds %% (of the deadline jobs), achieved utilization %%\n\n", s)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		h := "load\tjobs\t"
		for _, p := range f.policies {
			h += "unadm " + polLabel(p) + "\t"
		}
		for _, p := range f.policies {
			h += "work " + polLabel(p) + "\t"
		}
		for _, p := range append(slices.Clone(f.policies), "easy", "conservative") {
			h += "util " + polLabel(p) + "\t"
		}
		fmt.Fprintln(tw, h)
		for _, l := range f.loads {
			x := get(si, l, s, frac)
			row := fmt.Sprintf("%g\t%d\t", l, x.jobs)
			for _, p := range f.policies {
				j, _ := unadm(x.res[p])
				row += pct1(j) + "\t"
			}
			for _, p := range f.policies {
				_, wk := unadm(x.res[p])
				row += pct1(wk) + "\t"
			}
			for _, p := range append(slices.Clone(f.policies), "easy", "conservative") {
				row += pct1(x.res[p].Utilization) + "\t"
			}
			fmt.Fprintln(tw, row)
		}
		tw.Flush()
		if frac < 1 {
			var ext []string
			for _, p := range f.policies {
				n := 0
				for _, l := range f.loads {
					n += get(si, l, s, frac).extend[p]
				}
				ext = append(ext, fmt.Sprintf("%s %d", polLabel(p), n))
			}
			fmt.Fprintf(w, "  non-deadline jobs admitted past their artificial deadline (extended; over all loads): %s\n", strings.Join(ext, ", "))
		}
		f.findings(w, si, s, frac, get)
		for _, ln := range qopsPaper(frac, s) {
			fmt.Fprintln(w, "  paper: "+ln)
		}
	}
}

// qopsPaper quotes the paper's findings on admittance and utilization for
// a share of deadline jobs and a stringency factor (§5.1, §5.2).
func qopsPaper(frac, s float64) []string {
	switch {
	case frac == 1 && s < 0.35:
		return []string{"QoPS admits more than MSB and MRT, especially at high load (Figure 4)",
			"QoPS's utilization is about 10 % below EASY and conservative (Figure 6)",
			"from l = 1.4 to 1.6 QoPS's unadmitted jobs decrease, its unadmitted processor-seconds more so (looser deadlines from EASY's longer waits)"}
	case frac == 1:
		return []string{"QoPS is closer to MSB and MRT: the schemes converge as s grows (Figure 5)",
			"utilization 5–10 % below EASY and conservative; QoPS ≈ MSB, MRT 3–5 % lower at l = 1.6 (Figure 6)"}
	case frac > 0.5 && s < 0.35:
		return []string{"QoPS consistently superior to MSB and MRT, especially at high load (Figure 13)",
			"utilization about 8 % below the non-deadline schemes (Figure 37)"}
	case frac > 0.5:
		return []string{"the schemes get more similar as s grows (Figure 14)"}
	default:
		return []string{"QoPS significantly outperforms MSB and MRT, even at s = 0.5 (Figures 15, 16)",
			"utilization 2–3 % below the non-deadline schemes (Figures 37, 38)"}
	}
}

// findings compares the deadline policies as the paper's text does.
func (f *qopsRepro) findings(w io.Writer, si int, s, frac float64, get getWL) {
	if !slices.Contains(f.policies, "qops") || len(f.loads) == 0 {
		return
	}
	var lines []string
	for _, other := range f.policies {
		if other == "qops" {
			continue
		}
		better, worse := 0, 0
		var diffHigh float64
		for _, l := range f.loads {
			x := get(si, l, s, frac)
			q, _ := unadm(x.res["qops"])
			o, _ := unadm(x.res[other])
			switch {
			case q < o-0.0005:
				better++
			case q > o+0.0005:
				worse++
			}
			if l == f.loads[len(f.loads)-1] {
				diffHigh = o - q
			}
		}
		lines = append(lines, fmt.Sprintf("QoPS admits more deadline jobs than %s at %d of %d loads, fewer at %d; at l = %g: %+.1f points",
			polLabel(other), better, len(f.loads), worse, f.loads[len(f.loads)-1], 100*diffHigh))
	}
	var loss []float64
	for _, l := range f.loads {
		x := get(si, l, s, frac)
		loss = append(loss, 100*(x.res["easy"].Utilization-x.res["qops"].Utilization))
	}
	lines = append(lines, fmt.Sprintf("utilization of QoPS below EASY by %.1f to %.1f points (mean %.1f)", slices.Min(loss), slices.Max(loss), mean64(loss)))
	if n := len(f.loads); n >= 2 {
		a, b := get(si, f.loads[n-2], s, frac), get(si, f.loads[n-1], s, frac)
		ja, wa := unadm(a.res["qops"])
		jb, wb := unadm(b.res["qops"])
		lines = append(lines, fmt.Sprintf("QoPS from l = %g to %g: unadmitted jobs %s → %s %%, processor-seconds %s → %s %%",
			f.loads[n-2], f.loads[n-1], pct1(ja), pct1(jb), pct1(wa), pct1(wb)))
	}
	for _, ln := range lines {
		fmt.Fprintln(w, "  ours: "+ln)
	}
}

func mean64(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// partMixed prints the mixed-workload tables of one setup: admittance and
// utilization, then the non-deadline jobs against load and against
// achieved utilization.
func (f *qopsRepro) partMixed(w io.Writer, si int, st qopsSetup, get getWL) {
	for _, frac := range []float64{0.8, 0.2} {
		f.admittanceTables(w, si, st, frac, get, fmt.Sprintf("%.0f %% deadline jobs (the paper's %s)", 100*frac, st.figMixed))
		for _, s := range f.stringency {
			fmt.Fprintf(w, "\nnon-deadline jobs (%.0f %%), s = %g: mean response time (s) and mean bounded slowdown\n\n", 100*(1-frac), s)
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
			all := append(slices.Clone(f.policies), "easy", "conservative")
			h := "load\t"
			for _, p := range all {
				h += "resp " + polLabel(p) + "\t"
			}
			for _, p := range all {
				h += "bsld " + polLabel(p) + "\t"
			}
			fmt.Fprintln(tw, h)
			for _, l := range f.loads {
				x := get(si, l, s, frac)
				row := fmt.Sprintf("%g\t", l)
				for _, p := range all {
					row += fmt.Sprintf("%.0f\t", nd(x.res[p]).MeanResponse)
				}
				for _, p := range all {
					row += fmt.Sprintf("%.1f\t", nd(x.res[p]).MeanBSLD)
				}
				fmt.Fprintln(tw, row)
			}
			tw.Flush()
			fmt.Fprintln(w, "  paper: response and slowdown are lower under QoPS, MSB and MRT than under EASY and conservative, whose delivered load is higher (Figures 25–28)")
			if frac < 0.5 {
				fmt.Fprintln(w, "  paper: with 20 % deadline jobs QoPS's response is comparable to or better than MSB's except at l = 1.6, its slowdown lower at all loads (Figure 25)")
			}
			f.byUtilization(w, si, s, frac, get)
			fmt.Fprintln(w, "  paper: at the same utilization QoPS is consistently better than MSB and MRT, and than EASY and conservative, especially in slowdown (Figure 43)")
		}
	}
}

// nd is the Stats of the non-deadline jobs of a run.
func nd(s metrics.Summary) metrics.Stats {
	if s.Admission == nil {
		return s.All
	}
	return s.Admission.NonDeadline
}

// byUtilization is the paper's Figure 43 view: each deadline policy's
// non-deadline response and slowdown at its achieved utilization, beside
// EASY's and conservative's interpolated at the same utilization (their
// curves over the loads, linear between points; "-" outside their range).
func (f *qopsRepro) byUtilization(w io.Writer, si int, s, frac float64, get getWL) {
	type pt struct{ u, resp, bsld float64 }
	curve := func(spec string) []pt {
		var c []pt
		for _, l := range f.loads {
			x := get(si, l, s, frac)
			c = append(c, pt{x.res[spec].Utilization, nd(x.res[spec]).MeanResponse, nd(x.res[spec]).MeanBSLD})
		}
		sort.Slice(c, func(a, b int) bool { return c[a].u < c[b].u })
		return c
	}
	interp := func(c []pt, u float64) (float64, float64, bool) {
		for i := 1; i < len(c); i++ {
			if u >= c[i-1].u && u <= c[i].u && c[i].u > c[i-1].u {
				t := (u - c[i-1].u) / (c[i].u - c[i-1].u)
				return c[i-1].resp + t*(c[i].resp-c[i-1].resp), c[i-1].bsld + t*(c[i].bsld-c[i-1].bsld), true
			}
		}
		return 0, 0, false
	}
	easy, cons := curve("easy"), curve("conservative")
	fmt.Fprintf(w, "\nthe same against achieved utilization (Figure 43 view): EASY and conservative interpolated at each point's utilization\n\n")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tload\tutil %\tresp\tbsld\tEASY resp\tbsld\tcons resp\tbsld\t")
	wins := map[string][2]int{}
	for _, p := range f.policies {
		for _, q := range curve(p) {
			cells := fmt.Sprintf("%s\t\t%.1f\t%.0f\t%.1f\t", polLabel(p), 100*q.u, q.resp, q.bsld)
			for k, c := range [][]pt{easy, cons} {
				r, b, ok := interp(c, q.u)
				if !ok {
					cells += "-\t-\t"
					continue
				}
				cells += fmt.Sprintf("%.0f\t%.1f\t", r, b)
				if k == 0 {
					x := wins[p]
					if q.resp < r {
						x[0]++
					}
					if q.bsld < b {
						x[1]++
					}
					wins[p] = x
				}
			}
			fmt.Fprintln(tw, cells)
		}
	}
	tw.Flush()
	for _, p := range f.policies {
		n := 0
		for _, q := range curve(p) {
			if _, _, ok := interp(easy, q.u); ok {
				n++
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "  ours: at the same utilization, %s's non-deadline jobs have a lower mean response than under EASY at %d of %d points, a lower slowdown at %d\n",
				polLabel(p), wins[p][0], n, wins[p][1])
		}
	}
}

// partR prints QoPS's non-deadline jobs for each R on CTC with
// duplication (Figures 55–58).
func (f *qopsRepro) partR(w io.Writer, get getWL) {
	fmt.Fprintf(w, "\n== QoPS with relaxation factor R, CTC-SP2 with duplication: non-deadline jobs (the paper's Figures 55–58) ==\n")
	for _, frac := range []float64{0.2, 0.8} {
		for _, s := range f.stringency {
			fmt.Fprintf(w, "\n%.0f %% deadline jobs, s = %g: mean response time (s), mean bounded slowdown, unadmitted deadline jobs %%\n\n", 100*frac, s)
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
			h := "load\t"
			for _, r := range f.rs {
				h += fmt.Sprintf("resp R=%g\t", r)
			}
			for _, r := range f.rs {
				h += fmt.Sprintf("bsld R=%g\t", r)
			}
			for _, r := range f.rs {
				h += fmt.Sprintf("unadm R=%g\t", r)
			}
			fmt.Fprintln(tw, h)
			for _, l := range f.loads {
				x := get(0, l, s, frac)
				row := fmt.Sprintf("%g\t", l)
				for _, r := range f.rs {
					row += fmt.Sprintf("%.0f\t", nd(x.res[qopsRSpec(r)]).MeanResponse)
				}
				for _, r := range f.rs {
					row += fmt.Sprintf("%.1f\t", nd(x.res[qopsRSpec(r)]).MeanBSLD)
				}
				for _, r := range f.rs {
					j, _ := unadm(x.res[qopsRSpec(r)])
					row += pct1(j) + "\t"
				}
				fmt.Fprintln(tw, row)
			}
			tw.Flush()
		}
	}
	fmt.Fprintln(w, "\n  paper (Figure 57, 80 % deadline jobs, s = 0.2): as R grows, the mean response of the non-deadline jobs grows and their mean slowdown falls")
}
