package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// The published figures of Talby & Feitelson §5 (KTH SP2, Sep 1996 – Aug
// 1997, 128 processors, mean wait in seconds).
var (
	slackMonths = []string{"1996-09", "1996-10", "1996-11", "1996-12", "1997-01", "1997-02",
		"1997-03", "1997-04", "1997-05", "1997-06", "1997-07", "1997-08"}
	// §5.2: conservative, priority (slack-based, SF=3, AWT=2401, AST)
	slackEqual = [][2]float64{{440.6, 440.6}, {3062.7, 2504.3}, {4887.0, 3774.6}, {2157.2, 1904.2},
		{3302.3, 2531.9}, {2624.3, 2373.9}, {2644.8, 2196.9}, {2220.3, 1905.2}, {2093.6, 1779.2},
		{1443.2, 1282.0}, {399.9, 354.1}, {1941.5, 1670.8}}
	slackEqualYear = [2]float64{2401.44, 2004.46}
	// §5.3: equal priorities, unequal, high-priority jobs, low-priority jobs
	slackDiff = [][4]float64{{440.6, 440.6, 0.0, 550.8}, {2504.3, 2783.7, 2295.6, 2906.0},
		{3774.6, 4797.7, 4460.2, 1882.3}, {1904.2, 2026.0, 1814.8, 2078.8}, {2531.9, 2777.4, 2603.8, 2820.8},
		{2373.9, 2728.7, 2369.2, 2818.7}, {2196.9, 2220.9, 1687.2, 2354.6}, {1905.2, 2056.2, 1797.4, 2120.9},
		{1779.2, 1889.3, 1491.9, 1988.7}, {1282.0, 1374.7, 1323.3, 1387.6}, {354.1, 372.6, 320.2, 385.8},
		{1670.8, 1847.1, 1817.5, 1854.5}}
	// the §5.3 table's yearly row: equal, unequal, high, low
	slackDiffYear = [4]float64{2004.46, 2226.17, 1955.28, 2294.0}
	// §5.2 text: yearly improvement over conservative per variant (%)
	slackVariants = []struct {
		spec, label string
		paper       float64
	}{
		{"slack:h=ast", "AST, SF=3", 16.5},
		{"slack:sf=9", "AST, SF=9", 19.25},
		{"slack:h=aat", "AAT", 13},
		{"slack:h=dp", "DP", 11.7},
		{"slack:h=dc", "DC", 9.2},
		{"slack:h=du", "DU", 8.1},
	}
)

// SlackConfig configures the slack-based backfilling reproduction
// (Talby & Feitelson §5).
type SlackConfig struct {
	// Traces is the directory holding KTH-SP2-1996-2.1-cln.swf.gz (the
	// embedded copy is used when it is missing).
	Traces string
	// Procs are the machine sizes simulated; the claims are checked on
	// the first (the paper's 128).
	Procs []int
	// AWT in seconds, or "auto" (our conservative yearly mean wait for
	// each machine size).
	AWT string
	// Months restricts the run to these months (YYYY-MM).
	Months   []string
	Workers  int
	Progress Progress
}

// DefaultSlack is the configuration of `backfill reproduce slack`.
func DefaultSlack() SlackConfig {
	return SlackConfig{Procs: []int{128, 100}, AWT: "2401"}
}

// monthRun is one simulation of one month.
type monthRun struct {
	month  int
	spec   string
	prio   bool // every fifth job UP = PP = 1
	extend bool // the tick strategy of §4.7
	waits  []int64
	high   []bool
	// killed, saved and extensions are the engine's counts; busy is the
	// processor-seconds used and span the makespan
	killed, saved, extensions int
	busy, span                int64
}

// Slack runs the slack-based backfilling reproduction.
func Slack(c SlackConfig) (*Report, error) {
	if len(c.Procs) == 0 {
		return nil, fmt.Errorf("no machine size")
	}
	t0 := time.Now()
	r := &Report{Title: "Talby & Feitelson, slack-based backfilling, §5: KTH SP2 by calendar month",
		Setup: []string{"jobs killed at their estimate; each month simulated alone from an empty machine; mean wait in seconds"}}
	for pi, P := range c.Procs {
		if P < 1 {
			return nil, fmt.Errorf("machine size %d", P)
		}
		tr, note, err := loadTrace(c.Traces, workload.BuiltinName, workload.Options{Procs: P, Estimate: "user", EstimateFallback: "runtime"})
		if err != nil {
			return nil, err
		}
		if note != "" && pi == 0 {
			r.Setup = append(r.Setup, note)
		}
		parts, err := workload.SplitMonths(tr)
		if err != nil {
			return nil, err
		}
		if len(c.Months) > 0 {
			var keep []workload.Part
			for _, p := range parts {
				if slices.Contains(c.Months, p.Name) {
					keep = append(keep, p)
				}
			}
			if len(keep) != len(c.Months) {
				var names []string
				for _, p := range parts {
					names = append(names, p.Name)
				}
				return nil, fmt.Errorf("months %v: the trace has months %s", c.Months, strings.Join(names, ","))
			}
			parts = keep
		}
		awt := c.AWT
		if awt == "auto" {
			runs := make([]*monthRun, len(parts))
			for m := range parts {
				runs[m] = &monthRun{month: m, spec: "conservative"}
			}
			if err := runMonths(parts, P, runs, c.Workers, c.Progress); err != nil {
				return nil, err
			}
			var sum int64
			n := 0
			for m, x := range runs {
				sum += sumWait(x)
				n += len(parts[m].Jobs)
			}
			awt = fmt.Sprintf("%.0f", max(1, meanOf(sum, n)))
		}
		slackSpec := func(s string) string { return s + ":awt=" + awt }
		var runs []*monthRun
		for m := range parts {
			for _, spec := range []string{"easy", "conservative"} {
				runs = append(runs, &monthRun{month: m, spec: spec})
			}
			for _, v := range slackVariants {
				runs = append(runs, &monthRun{month: m, spec: slackSpec(v.spec)})
			}
			runs = append(runs, &monthRun{month: m, spec: slackSpec("slack:h=ast"), prio: true})
			runs = append(runs, &monthRun{month: m, spec: slackSpec("slack:h=ast"), extend: true})
		}
		if err := runMonths(parts, P, runs, c.Workers, c.Progress); err != nil {
			return nil, err
		}
		slackReport(r, P, tr.ProcsSource, awt, parts, runs, slackSpec, pi == 0)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("(10 simulations per month and machine size in %.1f s; see docs/reproductions.md)", time.Since(t0).Seconds()))
	return r, nil
}

func slackReport(r *Report, P int, source, awt string, parts []workload.Part, runs []*monthRun, slackSpec func(string) string, claims bool) {
	get := func(m int, spec string, prio bool) *monthRun {
		for _, x := range runs {
			if x.month == m && x.spec == spec && x.prio == prio && !x.extend {
				return x
			}
		}
		return nil
	}
	ast := slackSpec("slack:h=ast")
	sec := r.Section(fmt.Sprintf("P = %d processors (%s), AWT = %s s", P, source, awt))
	t := sec.Table("mean wait by month (s)", "month", "jobs", "EASY", "conservative", "slack", "vs cons", "vs EASY", "", "paper: cons", "slack", "vs cons")
	var tot [3]int64
	var totJobs int
	for m, p := range parts {
		e, cn, s := sumWait(get(m, "easy", false)), sumWait(get(m, "conservative", false)), sumWait(get(m, ast, false))
		n := len(p.Jobs)
		tot[0], tot[1], tot[2], totJobs = tot[0]+e, tot[1]+cn, tot[2]+s, totJobs+n
		paper := []string{"", "", ""}
		if i := slices.Index(slackMonths, p.Name); i >= 0 {
			pc, ps := slackEqual[i][0], slackEqual[i][1]
			paper = []string{fmt.Sprintf("%.1f", pc), fmt.Sprintf("%.1f", ps), pctImpr(pc, ps)}
		}
		row := []string{p.Name, fmt.Sprint(n), f1(meanOf(e, n)), f1(meanOf(cn, n)), f1(meanOf(s, n)), pctImpr(meanOf(cn, n), meanOf(s, n)), pctImpr(meanOf(e, n), meanOf(s, n)), ""}
		t.Rows = append(t.Rows, append(row, paper...))
	}
	ye, yc, ys := meanOf(tot[0], totJobs), meanOf(tot[1], totJobs), meanOf(tot[2], totJobs)
	t.Rows = append(t.Rows, []string{"year", fmt.Sprint(totJobs), f1(ye), f1(yc), f1(ys), pctImpr(yc, ys), pctImpr(ye, ys), "",
		f1(slackEqualYear[0]), f1(slackEqualYear[1]), pctImpr(slackEqualYear[0], slackEqualYear[1])})

	vt := sec.Table(fmt.Sprintf("yearly mean wait and improvement over conservative (%.1f s), per variant", yc), "variant", "mean wait", "improvement", "paper")
	vt.AddRow("EASY", f1(ye), pctImpr(yc, ye), "≈ conservative")
	gains := map[string]float64{}
	for _, v := range slackVariants {
		var sum int64
		for m := range parts {
			sum += sumWait(get(m, slackSpec(v.spec), false))
		}
		w := meanOf(sum, totJobs)
		gains[v.spec] = 100 * (yc - w) / yc
		vt.AddRow(v.label, f1(w), pctImpr(yc, w), fmt.Sprintf("%g %%", v.paper))
	}

	pt := sec.Table("differential priorities (§5.3): every fifth job of each month UP = PP = 1, slack AST SF=3",
		"month", "equal", "unequal", "high", "low", "", "paper: equal", "unequal", "high", "low")
	var te, tu, th, tl int64
	var nh, nl int
	for m, p := range parts {
		eq := sumWait(get(m, ast, false))
		x := get(m, ast, true)
		var u, h, l int64
		var ch, cl int
		for i, wt := range x.waits {
			u += wt
			if x.high[i] {
				h += wt
				ch++
			} else {
				l += wt
				cl++
			}
		}
		te, tu, th, tl, nh, nl = te+eq, tu+u, th+h, tl+l, nh+ch, nl+cl
		n := len(p.Jobs)
		paper := []string{"", "", "", ""}
		if i := slices.Index(slackMonths, p.Name); i >= 0 {
			d := slackDiff[i]
			paper = []string{f1(d[0]), f1(d[1]), f1(d[2]), f1(d[3])}
		}
		pt.Rows = append(pt.Rows, append([]string{p.Name, f1(meanOf(eq, n)), f1(meanOf(u, n)), f1(meanOf(h, ch)), f1(meanOf(l, cl)), ""}, paper...))
	}
	eqY, unY, hiY, loY := meanOf(te, totJobs), meanOf(tu, totJobs), meanOf(th, nh), meanOf(tl, nl)
	pt.Rows = append(pt.Rows, []string{"year", f1(eqY), f1(unY), f1(hiY), f1(loY), "",
		f1(slackDiffYear[0]), f1(slackDiffYear[1]), f1(slackDiffYear[2]), f1(slackDiffYear[3])})
	writeTickStrategy(sec, runs, P, ast, totJobs)

	if !claims {
		return
	}
	cs := r.Section(fmt.Sprintf("The paper's claims (§5, P = %d) and ours", P))
	chg := func(base, x float64) float64 { return 100 * (x - base) / base }
	g := 100 * (yc - ys) / yc
	cs.Claim(Claim{ID: "slack.vs-cons", Where: "§5.2", Text: "slack-based backfilling (AST, SF = 3) improves the yearly mean wait over conservative backfilling by 16.5 %",
		Published: "16.5 % (2401.4 → 2004.5 s)", Ours: fmt.Sprintf("%.1f %% (%.1f → %.1f s)", g, yc, ys),
		Verdict: within(g, 16.5, 5), Setting: "within 5 points counts as reproduced; our absolute waits are lower (the archive's cleaned log, docs/reproductions.md)"})
	if cs.Items[len(cs.Items)-1].(*Claim).Verdict == NotReproduced {
		cs.Items[len(cs.Items)-1].(*Claim).Setting = slackEvidence
	}
	ge := 100 * (ye - ys) / ye
	cs.Claim(Claim{ID: "slack.vs-easy", Where: "abstract", Text: "the priority scheduler reduces the average wait time by about 15 % relative to EASY (equal priorities)",
		Published: "≈ 15 %", Ours: fmt.Sprintf("%.1f %% (EASY %.1f s, slack %.1f s)", ge, ye, ys), Verdict: within(ge, 15, 5),
		Setting: notRepro(within(ge, 15, 5), slackEvidence)})
	cs.Claim(Claim{ID: "slack.sf9", Where: "§5.2", Text: "SF = 9 improves more than SF = 3 (19.25 % over conservative)",
		Published: "19.25 %", Ours: fmt.Sprintf("%.1f %% (SF = 3: %.1f %%)", gains["slack:sf=9"], gains["slack:h=ast"]),
		Verdict: verdictIf(gains["slack:sf=9"] > gains["slack:h=ast"]), Setting: notRepro(verdictIf(gains["slack:sf=9"] > gains["slack:h=ast"]), slackEvidence)})
	others := []string{"slack:h=aat", "slack:h=dp", "slack:h=dc", "slack:h=du"}
	allPos, astBest := true, true
	var ours, pub []string
	maxDiff := 0.0
	for _, v := range slackVariants {
		if !slices.Contains(others, v.spec) {
			continue
		}
		allPos = allPos && gains[v.spec] > 0
		astBest = astBest && gains["slack:h=ast"] >= gains[v.spec]
		ours = append(ours, fmt.Sprintf("%s %.1f %%", v.label, gains[v.spec]))
		pub = append(pub, fmt.Sprintf("%s %g %%", v.label, v.paper))
		maxDiff = max(maxDiff, math.Abs(gains[v.spec]-v.paper))
	}
	cs.Claim(Claim{ID: "slack.heuristics", Where: "§5.2", Text: "all heuristics improve on conservative, and AST is the best",
		Published: strings.Join(pub, ", "), Ours: strings.Join(ours, ", "), Verdict: verdictIf(allPos && astBest), Setting: notRepro(verdictIf(allPos && astBest), slackEvidence)})
	hv := NotReproduced
	if maxDiff <= 5 {
		hv = Reproduced
	}
	cs.Claim(Claim{ID: "slack.heuristics-size", Where: "§5.2", Text: "the heuristics' gains over conservative (AAT 13, DP 11.7, DC 9.2, DU 8.1 %)",
		Published: strings.Join(pub, ", "), Ours: fmt.Sprintf("%s; largest difference %.1f points", strings.Join(ours, ", "), maxDiff), Verdict: hv,
		Setting: "the heuristics differ only in the order of the compression (policy/slack, §4.5 as written); the tie rules and the time slots searched are ours and not given by the paper"})
	dh, dl, dt := chg(eqY, hiY), chg(eqY, loY), chg(eqY, unY)
	cs.Claim(Claim{ID: "slack.prio-direction", Where: "§5.3", Text: "differential priorities favour the preferred jobs at a cost to the others and to the total",
		Ours: fmt.Sprintf("high %+.1f %%, low %+.1f %%, all %+.1f %% against equal priorities", dh, dl, dt), Verdict: verdictIf(dh < 0 && dl > 0 && dt > 0),
		Setting: notRepro(verdictIf(dh < 0 && dl > 0 && dt > 0), slackEvidence)})
	cs.Claim(Claim{ID: "slack.prio-high", Where: "§5.3", Text: "the preferred jobs wait 2.5 % less than with equal priorities",
		Published: "−2.5 % (table: 1955.3 vs 2004.5 s)", Ours: fmt.Sprintf("%+.1f %% (%.1f vs %.1f s)", dh, hiY, eqY), Verdict: within(dh, -2.5, 3),
		Setting: notRepro(within(dh, -2.5, 3), "SP recalculation, the p ratio's exponent and the fairness factor follow §4.3–4.4 as written; the §4.4 price table's consistent rows are unit tests in policy/slack")})
	lowV := NotReproduced
	lowS := "against the text (+3.9 %) and the table (+14.4 %) alike"
	switch {
	case math.Abs(dl-14.4) <= 3:
		lowV, lowS = Reproduced, "against the paper's table (+14.4 %)"
	case math.Abs(dl-3.9) <= 3:
		lowV, lowS = ReproducedUnder, "against the text's +3.9 %; the paper's own table (2294.0 vs 2004.46 s) gives +14.4 %, which ours does not reach"
	}
	cs.Claim(Claim{ID: "slack.prio-low", Where: "§5.3", Text: "the other jobs wait 3.9 % more than with equal priorities",
		Published: "+3.9 % (text); +14.4 % by the paper's table (2294.0 vs 2004.46 s)", Ours: fmt.Sprintf("%+.1f %% (%.1f vs %.1f s)", dl, loY, eqY), Verdict: lowV, Setting: lowS})
	cs.Claim(Claim{ID: "slack.prio-total", Where: "§5.3", Text: "in total the mean wait rises by 11.1 % (2004.5 → 2226.2 s)",
		Published: "+11.1 %", Ours: fmt.Sprintf("%+.1f %% (%.1f → %.1f s)", dt, eqY, unY), Verdict: within(dt, 11.1, 3),
		Setting: notRepro(within(dt, 11.1, 3), "as for slack.prio-high; the paper's monthly table is itself hard to read consistently (in November its low-priority jobs wait less than the high-priority ones and than the mean)")})
}

// slackEvidence is why we believe our slack-based backfilling follows the
// paper when a claim is not reproduced.
const slackEvidence = "slack-based backfilling follows §4 as written: the §4.4 price table's consistent rows are unit tests in policy/slack; the log is the archive's cleaned KTH SP2, not the paper's 1998 copy"

// within is Reproduced when x is within tol of want.
func within(x, want, tol float64) Verdict {
	return verdictIf(math.Abs(x-want) <= tol)
}

// notRepro is the evidence s when v is NotReproduced, else "".
func notRepro(v Verdict, s string) string {
	if v == NotReproduced {
		return s
	}
	return ""
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }

// writeTickStrategy adds the tick strategy of §4.7 against killing, for
// slack-based backfilling (spec) over the months.
func writeTickStrategy(sec *Section, runs []*monthRun, P int, spec string, totJobs int) {
	type agg struct {
		killed, saved, ext int
		busy, span, wait   int64
	}
	var kill, ext agg
	for _, x := range runs {
		if x.spec != spec || x.prio {
			continue
		}
		a := &kill
		if x.extend {
			a = &ext
		}
		a.killed, a.saved, a.ext = a.killed+x.killed, a.saved+x.saved, a.ext+x.extensions
		a.busy, a.span, a.wait = a.busy+x.busy, a.span+x.span, a.wait+sumWait(x)
	}
	util := func(a agg) float64 {
		if a.span == 0 {
			return 0
		}
		return 100 * float64(a.busy) / (float64(P) * float64(a.span))
	}
	t := sec.Table("tick strategy (§4.7): a job still running at its estimate gets 10 % more when that is cheaper than killing it (slack AST SF=3)",
		"overrun", "killed", "extensions", "saved", "busy proc-h", "utilization %", "mean wait")
	for _, row := range []struct {
		name string
		a    agg
	}{{"kill", kill}, {"extend", ext}} {
		t.AddRow(row.name, row.a.killed, row.a.ext, row.a.saved, fmt.Sprintf("%.0f", float64(row.a.busy)/3600), fmt.Sprintf("%.2f", util(row.a)), f1(meanOf(row.a.wait, totJobs)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d of %d jobs that reach their estimate saved; utilization %+.2f points (%+.1f %% processor-hours)",
		ext.saved, kill.killed, util(ext)-util(kill), 100*(float64(ext.busy)/float64(max(1, kill.busy))-1)))
}

// runMonths runs the simulations; results land in runs.
func runMonths(parts []workload.Part, P int, runs []*monthRun, workers int, p Progress) error {
	return parallel(len(runs), workers, p, func(i int) string {
		x := runs[i]
		s := fmt.Sprintf("slack P=%d %s %s", P, parts[x.month].Name, x.spec)
		if x.prio {
			s += " (priorities)"
		}
		if x.extend {
			s += " (extend)"
		}
		return s
	}, func(i int) error {
		x := runs[i]
		jobs := parts[x.month].Jobs
		if x.prio {
			jobs = slices.Clone(jobs)
			if err := workload.ApplyPriorities(jobs, "every:5"); err != nil {
				return err
			}
		}
		res, _, err := runAudited(runSpec{jobs: jobs, spec: x.spec, caps: []int{P}, opt: sim.Options{Extend: x.extend}, label: parts[x.month].Name})
		if err != nil {
			return err
		}
		x.killed, x.saved, x.extensions = res.Killed, res.Saved, res.Extensions
		first, last := int64(math.MaxInt64), int64(math.MinInt64)
		for _, o := range res.Outcomes {
			x.busy += int64(o.Procs) * o.Run()
			first, last = min(first, o.Submit), max(last, o.End)
		}
		if len(res.Outcomes) > 0 {
			x.span = last - first
		}
		x.waits = make([]int64, len(res.Outcomes))
		x.high = make([]bool, len(res.Outcomes))
		for i, o := range res.Outcomes {
			x.waits[i] = o.Wait()
			x.high[i] = jobs[i].UP == 1
		}
		return nil
	})
}

func sumWait(x *monthRun) int64 {
	var s int64
	for _, w := range x.waits {
		s += w
	}
	return s
}

func meanOf(sum int64, n int) float64 {
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
