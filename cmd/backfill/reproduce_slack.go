package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

func init() { reproductions = append(reproductions, newReproduceSlack) }

// The published figures of Talby & Feitelson §5 (KTH SP2, Sep 1996 – Aug
// 1997, 128 processors, mean wait in seconds).
var (
	paperMonths = []string{"1996-09", "1996-10", "1996-11", "1996-12", "1997-01", "1997-02",
		"1997-03", "1997-04", "1997-05", "1997-06", "1997-07", "1997-08"}
	// §5.2: conservative, priority (slack-based, SF=3, AWT=2401, AST)
	paperEqual = [][2]float64{{440.6, 440.6}, {3062.7, 2504.3}, {4887.0, 3774.6}, {2157.2, 1904.2},
		{3302.3, 2531.9}, {2624.3, 2373.9}, {2644.8, 2196.9}, {2220.3, 1905.2}, {2093.6, 1779.2},
		{1443.2, 1282.0}, {399.9, 354.1}, {1941.5, 1670.8}}
	paperEqualYear = [2]float64{2401.44, 2004.46}
	// §5.3: equal priorities, unequal, high-priority jobs, low-priority jobs
	paperDiff = [][4]float64{{440.6, 440.6, 0.0, 550.8}, {2504.3, 2783.7, 2295.6, 2906.0},
		{3774.6, 4797.7, 4460.2, 1882.3}, {1904.2, 2026.0, 1814.8, 2078.8}, {2531.9, 2777.4, 2603.8, 2820.8},
		{2373.9, 2728.7, 2369.2, 2818.7}, {2196.9, 2220.9, 1687.2, 2354.6}, {1905.2, 2056.2, 1797.4, 2120.9},
		{1779.2, 1889.3, 1491.9, 1988.7}, {1282.0, 1374.7, 1323.3, 1387.6}, {354.1, 372.6, 320.2, 385.8},
		{1670.8, 1847.1, 1817.5, 1854.5}}
	// §5.2 text: yearly improvement over conservative per variant (%)
	paperVariants = []struct{ spec, label, paper string }{
		{"slack:h=ast", "AST, SF=3", "16.5 %"},
		{"slack:sf=9", "AST, SF=9", "19.25 %"},
		{"slack:h=aat", "AAT", "13 %"},
		{"slack:h=dp", "DP", "11.7 %"},
		{"slack:h=dc", "DC", "9.2 %"},
		{"slack:h=du", "DU", "8.1 %"},
	}
)

type slackRepro struct {
	trace   string
	procs   []int
	awt     string
	workers int
	months  []string
}

func newReproduceSlack() *cobra.Command {
	f := &slackRepro{}
	cmd := &cobra.Command{
		Use:   "slack",
		Short: "Talby & Feitelson §5: slack-based vs conservative backfilling on KTH SP2, month by month",
		Long: `Splits the KTH SP2 log into calendar months (Sep 1996 – Aug 1997, in the
trace's time zone) and simulates each month from an empty machine, with jobs
killed at their estimate, as the paper's simulator did. For each machine size
it prints per month the mean wait of EASY, conservative and slack-based
backfilling (αu = αt = αp = αf = 1, SF = 3, AWT = 2401, AST) beside the
paper's table; the yearly figure is total wait / total jobs. Then SF = 9 and
the other heuristics (yearly improvement over conservative), and the
differential-priority experiment of §5.3 (every fifth job UP = PP = 1).
The paper used 128 processors; the trace's header says 100.`,
		Example: `  backfill reproduce slack
  backfill reproduce slack --procs 128 --awt auto`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReproduceSlack(cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.trace, "trace", "t", "", "the KTH SP2 trace (default: the embedded copy)")
	fl.IntSliceVar(&f.procs, "procs", []int{128, 100}, "machine sizes to simulate")
	fl.StringVar(&f.awt, "awt", "2401", "AWT in seconds, or auto (our conservative yearly mean wait for each machine size)")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "simulations run in parallel")
	fl.StringSliceVar(&f.months, "months", nil, "only these months (YYYY-MM, comma-separated); the yearly rows then cover them only")
	return cmd
}

// monthRun is one simulation of one month.
type monthRun struct {
	month int
	spec  string
	prio  bool // every fifth job UP = PP = 1
	// extend: the tick strategy of §4.7 (sim.Options.Extend) instead of
	// killing jobs at their estimate
	extend bool
	waits  []int64
	// killed, saved and extensions are the engine's counts; busy is the
	// processor-seconds used and span the makespan (first submit to last
	// end), for utilization
	killed, saved, extensions int
	busy, span                int64
	high                      []bool
	err                       error
}

func runReproduceSlack(w io.Writer, f *slackRepro) error {
	t0 := time.Now()
	fmt.Fprintln(w, "Talby & Feitelson, slack-based backfilling, §5: KTH SP2 by calendar month")
	fmt.Fprintln(w, "jobs killed at their estimate; each month simulated alone from an empty machine; mean wait in seconds")
	for _, P := range f.procs {
		tf := traceFlags{procs: P, estimate: "user", fallback: "runtime"}
		tr, err := tf.load(f.trace)
		if err != nil {
			return err
		}
		parts, err := workload.SplitMonths(tr)
		if err != nil {
			return err
		}
		if len(f.months) > 0 {
			var keep []workload.Part
			for _, p := range parts {
				if indexOf(f.months, p.Name) >= 0 {
					keep = append(keep, p)
				}
			}
			if len(keep) != len(f.months) {
				return fmt.Errorf("--months %v: the trace has months %s", f.months, monthNames(parts))
			}
			parts = keep
		}
		awt := f.awt
		if awt == "auto" {
			awt, err = yearlyConservativeWait(parts, P)
			if err != nil {
				return err
			}
		}
		slackSpec := func(s string) string { return s + ":awt=" + awt }
		var runs []*monthRun
		for m := range parts {
			for _, spec := range []string{"easy", "conservative"} {
				runs = append(runs, &monthRun{month: m, spec: spec})
			}
			for _, v := range paperVariants {
				runs = append(runs, &monthRun{month: m, spec: slackSpec(v.spec)})
			}
			runs = append(runs, &monthRun{month: m, spec: slackSpec("slack:h=ast"), prio: true})
			runs = append(runs, &monthRun{month: m, spec: slackSpec("slack:h=ast"), extend: true})
		}
		if err := runMonths(parts, P, runs, f.workers); err != nil {
			return err
		}
		get := func(m int, spec string, prio bool) *monthRun {
			for _, r := range runs {
				if r.month == m && r.spec == spec && r.prio == prio && !r.extend {
					return r
				}
			}
			return nil
		}
		fmt.Fprintf(w, "\n== P = %d processors (%s), AWT = %s s ==\n\n", P, tr.ProcsSource, awt)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "month\tjobs\tEASY\tconservative\tslack\timprovement\t\tpaper: cons\tslack\timpr.\t")
		var tot [3]int64
		var totJobs int
		for m, p := range parts {
			e, c, s := sumWait(get(m, "easy", false)), sumWait(get(m, "conservative", false)), sumWait(get(m, slackSpec("slack:h=ast"), false))
			n := len(p.Jobs)
			tot[0], tot[1], tot[2], totJobs = tot[0]+e, tot[1]+c, tot[2]+s, totJobs+n
			paper := "\t\t"
			if i := indexOf(paperMonths, p.Name); i >= 0 {
				pc, ps := paperEqual[i][0], paperEqual[i][1]
				paper = fmt.Sprintf("%.1f\t%.1f\t%s", pc, ps, pctImpr(pc, ps))
			}
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%s\t\t%s\t\n", p.Name, n, mean(e, n), mean(c, n), mean(s, n), pctImpr(mean(c, n), mean(s, n)), paper)
		}
		fmt.Fprintf(tw, "year\t%d\t%.1f\t%.1f\t%.1f\t%s\t\t%.1f\t%.1f\t%s\t\n", totJobs, mean(tot[0], totJobs), mean(tot[1], totJobs), mean(tot[2], totJobs),
			pctImpr(mean(tot[1], totJobs), mean(tot[2], totJobs)), paperEqualYear[0], paperEqualYear[1], pctImpr(paperEqualYear[0], paperEqualYear[1]))
		tw.Flush()

		fmt.Fprintf(w, "\nyearly mean wait and improvement over conservative (%.1f s), per variant:\n\n", mean(tot[1], totJobs))
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "variant\tmean wait\timprovement\tpaper\t")
		fmt.Fprintf(tw, "EASY\t%.1f\t%s\t%s\t\n", mean(tot[0], totJobs), pctImpr(mean(tot[1], totJobs), mean(tot[0], totJobs)), "≈ conservative")
		for _, v := range paperVariants {
			var sum int64
			for m := range parts {
				sum += sumWait(get(m, slackSpec(v.spec), false))
			}
			fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t\n", v.label, mean(sum, totJobs), pctImpr(mean(tot[1], totJobs), mean(sum, totJobs)), v.paper)
		}
		tw.Flush()

		fmt.Fprintln(w, "\ndifferential priorities (§5.3): every fifth job of each month UP = PP = 1, slack AST SF=3:")
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "month\tequal\tunequal\thigh\tlow\t\tpaper: equal\tunequal\thigh\tlow\t")
		var te, tu, th, tl int64
		var nh, nl int
		for m, p := range parts {
			eq := sumWait(get(m, slackSpec("slack:h=ast"), false))
			r := get(m, slackSpec("slack:h=ast"), true)
			var u, h, l int64
			var ch, cl int
			for i, wt := range r.waits {
				u += wt
				if r.high[i] {
					h += wt
					ch++
				} else {
					l += wt
					cl++
				}
			}
			te, tu, th, tl, nh, nl = te+eq, tu+u, th+h, tl+l, nh+ch, nl+cl
			n := len(p.Jobs)
			paper := "\t\t\t"
			if i := indexOf(paperMonths, p.Name); i >= 0 {
				d := paperDiff[i]
				paper = fmt.Sprintf("%.1f\t%.1f\t%.1f\t%.1f", d[0], d[1], d[2], d[3])
			}
			fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t\t%s\t\n", p.Name, mean(eq, n), mean(u, n), mean(h, ch), mean(l, cl), paper)
		}
		fmt.Fprintf(tw, "year\t%.1f\t%.1f\t%.1f\t%.1f\t\t%.1f\t%.1f\t%s\t%s\t\n", mean(te, totJobs), mean(tu, totJobs), mean(th, nh), mean(tl, nl),
			2004.5, 2226.2, "(−2.5 %)", "(+3.9 %)")
		tw.Flush()
		fmt.Fprintf(w, "\nhigh-priority jobs vs equal priorities: %s; low-priority: %s (the paper: 2.5 %% less, 3.9 %% more)\n",
			pctChange(mean(te, totJobs), mean(th, nh)), pctChange(mean(te, totJobs), mean(tl, nl)))
		writeTickStrategy(w, runs, P, slackSpec("slack:h=ast"), totJobs)
	}
	fmt.Fprintf(w, "\n(10 simulations per month and machine size in %.1f s; see docs/reproductions.md for why our figures differ)\n",
		time.Since(t0).Seconds())
	return nil
}

// writeTickStrategy prints the tick strategy of §4.7 against killing, for
// slack-based backfilling (spec) over the months: jobs killed, extensions
// granted, jobs saved, utilization (busy processor-seconds over P × the
// sum of the months' makespans) and mean wait.
func writeTickStrategy(w io.Writer, runs []*monthRun, P int, spec string, totJobs int) {
	type agg struct {
		killed, saved, ext int
		busy, span, wait   int64
	}
	var kill, ext agg
	for _, r := range runs {
		if r.spec != spec || r.prio {
			continue
		}
		a := &kill
		if r.extend {
			a = &ext
		}
		a.killed, a.saved, a.ext = a.killed+r.killed, a.saved+r.saved, a.ext+r.extensions
		a.busy, a.span, a.wait = a.busy+r.busy, a.span+r.span, a.wait+sumWait(r)
	}
	util := func(a agg) float64 {
		if a.span == 0 {
			return 0
		}
		return 100 * float64(a.busy) / (float64(P) * float64(a.span))
	}
	fmt.Fprintln(w, "\ntick strategy (§4.7): a job still running at its estimate gets 10 % more when that is cheaper than killing it (slack AST SF=3):")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "overrun	killed	extensions	saved	busy proc-h	utilization %	mean wait	")
	for _, row := range []struct {
		name string
		a    agg
	}{{"kill", kill}, {"extend", ext}} {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.2f\t%.1f\t\n", row.name, row.a.killed, row.a.ext, row.a.saved,
			float64(row.a.busy)/3600, util(row.a), mean(row.a.wait, totJobs))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d of %d jobs that reach their estimate saved; utilization %+.2f points (%+.1f %% processor-hours)\n",
		ext.saved, kill.killed, util(ext)-util(kill), 100*(float64(ext.busy)/float64(max(1, kill.busy))-1))
}

// runMonths runs the simulations on a bounded pool; results land in runs.
func runMonths(parts []workload.Part, P int, runs []*monthRun, workers int) error {
	sem := make(chan struct{}, max(1, workers))
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			jobs := parts[r.month].Jobs
			if r.prio {
				jobs = append([]job.Job(nil), jobs...)
				r.err = workload.ApplyPriorities(jobs, "every:5")
				if r.err != nil {
					return
				}
			}
			s, err := policy.New(r.spec, P)
			if err != nil {
				r.err = err
				return
			}
			res, err := sim.Run(jobs, s, sim.Options{Procs: P, Extend: r.extend})
			if err != nil {
				r.err = fmt.Errorf("%s, %s: %w", parts[r.month].Name, r.spec, err)
				return
			}
			r.killed, r.saved, r.extensions = res.Killed, res.Saved, res.Extensions
			first, last := int64(math.MaxInt64), int64(math.MinInt64)
			for _, o := range res.Outcomes {
				r.busy += int64(o.Procs) * o.Run()
				first, last = min(first, o.Submit), max(last, o.End)
			}
			if len(res.Outcomes) > 0 {
				r.span = last - first
			}
			r.waits = make([]int64, len(res.Outcomes))
			r.high = make([]bool, len(res.Outcomes))
			for i, o := range res.Outcomes {
				r.waits[i] = o.Wait()
				r.high[i] = jobs[i].UP == 1
			}
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

// yearlyConservativeWait is total wait / total jobs of conservative
// backfilling over the months, rounded, as a spec value.
func yearlyConservativeWait(parts []workload.Part, P int) (string, error) {
	runs := make([]*monthRun, len(parts))
	for m := range parts {
		runs[m] = &monthRun{month: m, spec: "conservative"}
	}
	if err := runMonths(parts, P, runs, runtime.GOMAXPROCS(0)); err != nil {
		return "", err
	}
	var sum int64
	n := 0
	for m, r := range runs {
		sum += sumWait(r)
		n += len(parts[m].Jobs)
	}
	return fmt.Sprintf("%.0f", max(1, mean(sum, n))), nil
}

func sumWait(r *monthRun) int64 {
	var s int64
	for _, w := range r.waits {
		s += w
	}
	return s
}

func mean(sum int64, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

func pctImpr(base, x float64) string {
	if base == 0 {
		return "0.0 %"
	}
	return fmt.Sprintf("%.1f %%", 100*(base-x)/base)
}

func pctChange(base, x float64) string {
	if base == 0 {
		return "n/a"
	}
	d := 100 * (x - base) / base
	if d < 0 {
		return fmt.Sprintf("%.1f %% less", -d)
	}
	return fmt.Sprintf("%.1f %% more", d)
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if strings.EqualFold(s, x) {
			return i
		}
	}
	return -1
}

func monthNames(parts []workload.Part) string {
	var n []string
	for _, p := range parts {
		n = append(n, p.Name)
	}
	return strings.Join(n, ",")
}
