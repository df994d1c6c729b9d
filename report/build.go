package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// BuildOptions choose what the report shows.
type BuildOptions struct {
	// Title of the page; default "backfill report: " + the input.
	Title string
	// Classes are the per-class breakdowns; default DefaultClasses.
	Classes []metrics.ClassRule
	// Gantt lists the runs (labels) that get a Gantt chart; nil means
	// every run with per-job outcomes, as long as their jobs add up to at
	// most MaxGanttJobs (else only the first such run, with a warning).
	Gantt []string
	// MaxGanttJobs bounds the jobs of the default Gantt selection; 0 means
	// DefaultMaxGanttJobs.
	MaxGanttJobs int
	// Bins is the largest number of time bins of the utilization and queue
	// curves (default 8192, fewer for more than 16 runs: 2^17 bins in all,
	// at least 720 per run; bins are at least MinBinSeconds wide); CDFPoints
	// the points per wait CDF (default 400).
	Bins, CDFPoints int
}

// DefaultMaxGanttJobs is the default bound on the jobs of all Gantt charts
// of a report together (about 6 MB of page per 100,000 jobs).
const DefaultMaxGanttJobs = 400_000

// Data is the report's content, embedded in the page as JSON. Golden tests
// compare it, not the page's bytes.
type Data struct {
	Title     string       `json:"title"`
	Kind      string       `json:"kind"`
	Source    string       `json:"source"`
	Warnings  []string     `json:"warnings"`
	Runs      []RunInfo    `json:"runs"`
	Summary   SummaryTable `json:"summary"`
	Params    []ParamPlot  `json:"params"`
	CDF       []CDF        `json:"cdf"`
	Time      []TimeSeries `json:"time"`
	Classes   []ClassTable `json:"classes"`
	Gantt     []Gantt      `json:"gantt"`
	Generator string       `json:"generator"`
}

// RunInfo describes a run in the page.
type RunInfo struct {
	Label  string   `json:"label"`
	Policy string   `json:"policy"`
	Params []KV     `json:"params"`
	Axes   []KV     `json:"axes"`
	Trace  string   `json:"trace"`
	Procs  int      `json:"procs"`
	Jobs   int      `json:"jobs"`
	Header []string `json:"header"`
	// Colour is the policy's colour (PolicyColour), the same in every
	// chart and in `backfill plot`; Dash numbers the runs of one policy
	// (0 for the first), drawn with different line types.
	Colour string `json:"colour"`
	Dash   int    `json:"dash"`
	// Group is the run's comparison group: runs of the same workload and
	// load (Group numbers them in order of first appearance). "Best" marks
	// compare runs of one group only.
	Group int `json:"group"`
	// GroupName names the group ("KTH-SP2 load=0.9"), "" when all runs are
	// in one group.
	GroupName string `json:"group_name"`
	// Short is the label without the group's coordinates (workload,
	// trace, load): the name of the run within its group's charts.
	Short string `json:"short"`
}

// Column is a column of the summary table.
type Column struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Digits int    `json:"digits"`
	// Better is "lower", "higher" or "" (no best is marked).
	Better string `json:"better"`
}

// SummaryTable is the comparison table: one row per run.
type SummaryTable struct {
	Columns []Column `json:"columns"`
	// Rows[i] are the values of run i, in column order.
	Rows [][]float64 `json:"rows"`
	// Best[c] are the rows holding the best value of column c within their
	// group (RunInfo.Group: the same workload and load; all of them on a
	// tie); a group whose rows all agree has none marked, nor has a column
	// without "better".
	Best [][]int `json:"best"`
}

// ParamPlot shows the runs against one parameter or coordinate.
type ParamPlot struct {
	X     string      `json:"x"`
	Lines []ParamLine `json:"lines"`
}

// ParamLine is one curve of a ParamPlot with the three plotted metrics.
type ParamLine struct {
	Name string `json:"name"`
	// Policy is the line's policy (its colour is the policy's); Runs the
	// labels of the runs it aggregates (the run selector hides a line
	// whose runs are all hidden).
	Policy      string    `json:"policy"`
	Runs        []string  `json:"runs"`
	X           []float64 `json:"x"`
	MeanWait    []Agg     `json:"mean_wait"`
	MeanBSLD    []Agg     `json:"mean_bsld"`
	Utilization []Agg     `json:"utilization"`
}

// CDF is the distribution of the measured jobs' waits of one run: points
// (wait in seconds, fraction of jobs that waited at most that long),
// sampled at evenly spaced fractions.
type CDF struct {
	Run    string       `json:"run"`
	Points [][2]float64 `json:"points"`
}

// TimeSeries are utilization and queue length over time, in bins of Step
// seconds from Start, for each run with outcomes. The bins are fine (at
// most BuildOptions.Bins, default 8192, and at least 10 minutes wide): the
// page averages them into about one point per pixel of the visible window,
// so that zooming in refines the curves down to Step.
type TimeSeries struct {
	// Group and GroupName are the comparison group (RunInfo.Group) whose
	// runs the curves show: runs of one workload and load share a time
	// axis; runs of different workloads never do.
	Group     int             `json:"group"`
	GroupName string          `json:"group_name"`
	Start     int64           `json:"start"`
	Step      int64           `json:"step"`
	Runs      []TimeSeriesRun `json:"runs"`
}

// TimeSeriesRun are one run's curves: Util[i] is the fraction of the
// machine busy during bin i, Queue[i] the mean number of waiting jobs
// (submitted, not yet started) during bin i.
// Util and Queue stop at the bin of the run's last end: a run that
// ends early is not drawn as an idle machine afterwards.
type TimeSeriesRun struct {
	Run   string    `json:"run"`
	Util  []float64 `json:"util"`
	Queue []float64 `json:"queue"`
}

// ClassTable is a per-class breakdown: Stats[r][c] are the statistics of
// class c in run r (Jobs = 0 for an empty class, shown as "—"). Labels
// carry units ("runtime ≤ 1 h", "size 2–4 procs").
type ClassTable struct {
	Rule   string            `json:"rule"`
	Labels []string          `json:"labels"`
	Runs   []string          `json:"runs"`
	Stats  [][]metrics.Stats `json:"stats"`
}

// Gantt is one schedule for the Gantt chart: the drawn jobs as columns
// (times relative to T0, the first submission), and their processor
// rectangles (see Assign for the drawing rule).
type Gantt struct {
	Run   string `json:"run"`
	Procs int    `json:"procs"`
	Rows  int    `json:"rows"`
	T0    int64  `json:"t0"`
	// Span is the last end, relative to T0.
	Span int64 `json:"span"`
	// Drawn is the number of jobs drawn; Skipped those not drawn
	// (zero-length or rejected).
	Drawn   int       `json:"drawn"`
	Skipped int       `json:"skipped"`
	Jobs    GanttJobs `json:"jobs"`
	// Rects: job index (into Jobs), first processor, number of processors.
	Rects GanttRects `json:"rects"`
	// Bounds is the number of drawn jobs with a promised start bound.
	Bounds int `json:"bounds"`
}

// GanttJobs are the drawn jobs, in order of placement (start, then ID).
// Bound is -1 for a job without a promised bound.
type GanttJobs struct {
	ID      []int64 `json:"id"`
	User    []int32 `json:"user"`
	Submit  []int64 `json:"submit"`
	Start   []int64 `json:"start"`
	End     []int64 `json:"end"`
	Procs   []int   `json:"procs"`
	Est     []int64 `json:"est"`
	Runtime []int64 `json:"runtime"`
	Killed  []int8  `json:"killed"`
	Bound   []int64 `json:"bound"`
}

// GanttRects are the rectangles as columns.
type GanttRects struct {
	Job []int32 `json:"job"`
	Lo  []int32 `json:"lo"`
	N   []int32 `json:"n"`
}

// DefaultClasses are the per-class breakdowns of a machine of procs
// processors: short/long jobs (runtime ≤ 1 h) and sizes 1, ≤ 4, ≤ 16, …
// (powers of 4 below procs).
func DefaultClasses(procs int) []metrics.ClassRule {
	rules := []metrics.ClassRule{{By: "runtime", Bounds: []int64{3600}}}
	size := metrics.ClassRule{By: "size", Bounds: []int64{1}}
	for b := int64(4); b < int64(procs); b *= 4 {
		size.Bounds = append(size.Bounds, b)
	}
	return append(rules, size)
}

// Build computes the report's data from results.
func Build(res *Results, opt BuildOptions) (*Data, error) {
	if len(res.Runs) == 0 {
		return nil, fmt.Errorf("report: no runs in %s", res.Path)
	}
	if opt.Bins <= 0 {
		// fine bins, about 2^17 per curve type in all: a sweep's many runs
		// get coarser ones (the page stays a few megabytes)
		with := 0
		for _, r := range res.Runs {
			if r.HasJobs() {
				with++
			}
		}
		opt.Bins = min(8192, max(720, (1<<17)/max(1, with)))
	}
	if opt.CDFPoints <= 0 {
		opt.CDFPoints = 400
	}
	if opt.MaxGanttJobs <= 0 {
		opt.MaxGanttJobs = DefaultMaxGanttJobs
	}
	d := &Data{
		Title: opt.Title, Kind: res.Kind, Source: res.Path, Generator: "backfill report",
		Warnings: slices.Clone(res.Warnings),
	}
	if d.Title == "" {
		d.Title = "backfill report: " + res.Path
	}
	maxProcs := 0
	groups, names := Groups(res)
	dash := map[string]int{}
	for i, r := range res.Runs {
		d.Runs = append(d.Runs, RunInfo{Label: r.Label, Policy: r.Policy, Params: nonNil(r.Params), Axes: nonNil(r.Axes),
			Trace: r.Trace, Procs: r.Procs, Jobs: len(r.Outcomes), Header: nonNil(r.Header),
			Colour: PolicyColour(r.Policy), Dash: dash[r.Policy], Group: groups[i], GroupName: names[groups[i]], Short: shortLabel(r)})
		dash[r.Policy]++
		maxProcs = max(maxProcs, r.Procs)
	}
	d.Summary = summaryTable(res, groups)
	for _, x := range Variables(res) {
		p := ParamPlot{X: x}
		for _, l := range Lines(res, x) {
			if len(l.X) < 2 {
				continue
			}
			mw, _ := MetricByKey("mean_wait")
			mb, _ := MetricByKey("mean_bsld")
			ut, _ := MetricByKey("utilization")
			var labels []string
			for _, idx := range l.Runs {
				for _, k := range idx {
					labels = append(labels, res.Runs[k].Label)
				}
			}
			p.Lines = append(p.Lines, ParamLine{Name: l.Name, Policy: res.Runs[l.Runs[0][0]].Policy, Runs: labels, X: l.X,
				MeanWait: l.Points(res, mw), MeanBSLD: l.Points(res, mb), Utilization: l.Points(res, ut)})
		}
		d.Params = append(d.Params, p)
	}
	rules := opt.Classes
	if rules == nil {
		rules = DefaultClasses(maxProcs)
	}
	cts := make([]ClassTable, len(rules))
	for k, rule := range rules {
		cts[k] = ClassTable{Rule: rule.String(), Labels: ClassLabels(rule)}
	}
	// one time axis per group, over its runs' spans
	axes := make([]*TimeSeries, len(names))
	for g := range names {
		var members []*Run
		for i, r := range res.Runs {
			if groups[i] == g && r.HasJobs() {
				members = append(members, r)
			}
		}
		if ts := newTimeAxis(members, opt.Bins); ts != nil {
			ts.Group, ts.GroupName = g, names[g]
			axes[g] = ts
		}
	}
	// the per-job statistics, one run's jobs in memory at a time (a sweep's
	// are read on demand, only the columns needed)
	for i, r := range res.Runs {
		if !r.HasJobs() {
			continue
		}
		outs, err := r.jobs(false)
		if err != nil {
			return nil, err
		}
		d.CDF = append(d.CDF, CDF{Run: r.Label, Points: waitCDF(outs, r.Opt, opt.CDFPoints)})
		axes[groups[i]].add(r.Label, outs, r.Procs)
		for k, rule := range rules {
			cl := metrics.Classes(outs, r.Opt, rule)
			st := make([]metrics.Stats, len(cl))
			for c := range cl {
				st[c] = cl[c].Stats
			}
			cts[k].Runs = append(cts[k].Runs, r.Label)
			cts[k].Stats = append(cts[k].Stats, st)
		}
	}
	for _, ts := range axes {
		if ts != nil && len(ts.Runs) > 0 {
			d.Time = append(d.Time, *ts)
		}
	}
	for _, ct := range cts {
		if len(ct.Runs) > 0 {
			d.Classes = append(d.Classes, ct)
		}
	}
	sel, warn, err := ganttSelection(res, opt)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		d.Warnings = append(d.Warnings, warn)
	}
	for _, r := range sel {
		outs, err := r.jobs(true)
		if err != nil {
			return nil, err
		}
		if peak := peakUse(outs); peak > 4*max(r.Procs, 1) {
			return nil, fmt.Errorf("%s: the schedule holds up to %d processors at once on a %d-processor machine: not a schedule of this machine (wrong --machine-procs?)", r.Label, peak, r.Procs)
		}
		g := buildGantt(r, outs)
		if g.Rows > r.Procs {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: the schedule holds up to %d processors at once on a %d-processor machine; the Gantt chart draws rows %d–%d for the excess",
				r.Label, g.Rows, r.Procs, r.Procs, g.Rows-1))
		}
		d.Gantt = append(d.Gantt, g)
	}
	// empty lists are [] in the page's JSON, never null: the script
	// iterates over them
	d.Warnings, d.Params, d.CDF, d.Classes, d.Gantt, d.Time = nonNil(d.Warnings), nonNil(d.Params), nonNil(d.CDF), nonNil(d.Classes), nonNil(d.Gantt), nonNil(d.Time)
	return d, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// shortLabel is a run's label without the coordinates of its group.
func shortLabel(r *Run) string {
	if len(r.Axes) == 0 {
		return r.Label
	}
	s := r.Policy
	for _, kv := range r.Params {
		s += ":" + kv.Name + "=" + kv.Value
	}
	for _, kv := range r.Axes {
		switch kv.Name {
		case "workload", "trace", "load":
		default:
			s += " " + kv.Name + "=" + kv.Value
		}
	}
	return s
}

// Groups numbers the runs' comparison groups: runs of the same workload
// (trace) and load coordinate are compared with each other, never across
// workloads or loads. names[g] is the group's name ("" when there is one
// group).
func Groups(res *Results) (group []int, names []string) {
	key := func(r *Run) string {
		k := r.Trace
		for _, kv := range r.Axes {
			if kv.Name == "load" {
				k += " load=" + kv.Value
			}
		}
		return k
	}
	index := map[string]int{}
	for _, r := range res.Runs {
		k := key(r)
		g, ok := index[k]
		if !ok {
			g = len(names)
			index[k] = g
			names = append(names, k)
		}
		group = append(group, g)
	}
	if len(names) == 1 {
		names[0] = ""
	}
	return group, names
}

// ClassLabels are the labels of a class rule's classes with units:
// "runtime ≤ 1 h", "runtime > 1 h", "size 1 proc", "size 2–4 procs".
func ClassLabels(rule metrics.ClassRule) []string {
	n := len(rule.Bounds)
	if n == 0 {
		return []string{"all jobs"}
	}
	unit := func(v int64) string {
		switch rule.By {
		case "size":
			if v == 1 {
				return "1 proc"
			}
			return strconv.FormatInt(v, 10) + " procs"
		default:
			return durText(v)
		}
	}
	out := make([]string, n+1)
	for i := 0; i <= n; i++ {
		switch {
		case i == 0 && rule.By == "size" && rule.Bounds[0] == 1:
			out[i] = "size 1 proc"
		case i == 0:
			out[i] = rule.By + " ≤ " + unit(rule.Bounds[0])
		case i == n:
			out[i] = rule.By + " > " + unit(rule.Bounds[n-1])
		case rule.By == "size":
			out[i] = fmt.Sprintf("size %d–%s", rule.Bounds[i-1]+1, unit(rule.Bounds[i]))
		default:
			out[i] = fmt.Sprintf("%s < %s ≤ %s", unit(rule.Bounds[i-1]), rule.By, unit(rule.Bounds[i]))
		}
	}
	return out
}

// durText writes seconds in the largest unit that divides them: "90 s",
// "10 min", "1 h", "2 d".
func durText(s int64) string {
	switch {
	case s != 0 && s%86400 == 0:
		return strconv.FormatInt(s/86400, 10) + " d"
	case s != 0 && s%3600 == 0:
		return strconv.FormatInt(s/3600, 10) + " h"
	case s != 0 && s%60 == 0:
		return strconv.FormatInt(s/60, 10) + " min"
	}
	return strconv.FormatInt(s, 10) + " s"
}

func summaryTable(res *Results, groups []int) SummaryTable {
	type col struct {
		Column
		of func(s *metrics.Summary) float64
	}
	cols := []col{
		{Column{"jobs", "jobs", 0, ""}, func(s *metrics.Summary) float64 { return float64(s.All.Jobs) }},
		{Column{"mean_wait", "mean wait (s)", 1, "lower"}, func(s *metrics.Summary) float64 { return s.All.MeanWait }},
		{Column{"median_wait", "median wait (s)", 1, "lower"}, func(s *metrics.Summary) float64 { return s.All.MedianWait }},
		{Column{"p90_wait", "p90 wait (s)", 1, "lower"}, func(s *metrics.Summary) float64 { return s.All.P90Wait }},
		{Column{"p99_wait", "p99 wait (s)", 1, "lower"}, func(s *metrics.Summary) float64 { return s.All.P99Wait }},
		{Column{"max_wait", "max wait (s)", 0, "lower"}, func(s *metrics.Summary) float64 { return float64(s.All.MaxWait) }},
		{Column{"mean_response", "mean response (s)", 1, "lower"}, func(s *metrics.Summary) float64 { return s.All.MeanResponse }},
		{Column{"mean_bsld", "mean bsld", 2, "lower"}, func(s *metrics.Summary) float64 { return s.All.MeanBSLD }},
		{Column{"short_mean_bsld", "short bsld", 2, "lower"}, func(s *metrics.Summary) float64 { return s.Short.MeanBSLD }},
		{Column{"long_mean_bsld", "long bsld", 2, "lower"}, func(s *metrics.Summary) float64 { return s.Long.MeanBSLD }},
		{Column{"utilization", "util %", 2, "higher"}, func(s *metrics.Summary) float64 { return 100 * s.Utilization }},
		{Column{"makespan", "makespan (s)", 0, "lower"}, func(s *metrics.Summary) float64 { return float64(s.Makespan) }},
		{Column{"killed", "killed", 0, ""}, func(s *metrics.Summary) float64 { return float64(s.All.Killed) }},
	}
	t := SummaryTable{}
	for _, c := range cols {
		t.Columns = append(t.Columns, c.Column)
	}
	for _, r := range res.Runs {
		row := make([]float64, len(cols))
		for i, c := range cols {
			row[i] = c.of(&r.Summary)
		}
		t.Rows = append(t.Rows, row)
	}
	ngroups := 0
	for _, g := range groups {
		ngroups = max(ngroups, g+1)
	}
	for i, c := range cols {
		best := []int{}
		// compare at the displayed precision, so that marked ties look tied
		round := func(x float64) float64 { p := math.Pow(10, float64(c.Digits)); return math.Round(x*p) / p }
		for g := 0; g < ngroups && c.Better != ""; g++ {
			var members []int
			for k := range t.Rows {
				if groups[k] == g {
					members = append(members, k)
				}
			}
			if len(members) < 2 {
				continue
			}
			bv := round(t.Rows[members[0]][i])
			all := true
			for _, k := range members {
				v := round(t.Rows[k][i])
				all = all && v == bv
				if c.Better == "lower" && v < bv || c.Better == "higher" && v > bv {
					bv = v
				}
			}
			if !all {
				for _, k := range members {
					if round(t.Rows[k][i]) == bv {
						best = append(best, k)
					}
				}
			}
		}
		t.Best = append(t.Best, best)
	}
	return t
}

// measuredWaits are the sorted waits of the jobs the summary measures
// (warm-up and drain applied; rejected jobs left out).
func measuredWaits(outs []job.Outcome, opt metrics.Options) []int64 {
	if len(outs) == 0 {
		return nil
	}
	first, last := outs[0].Submit, outs[0].Submit
	for i := range outs {
		first, last = min(first, outs[i].Submit), max(last, outs[i].Submit)
	}
	w := make([]int64, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Rejected || o.Start < 0 || (opt.WarmUp > 0 && o.Submit < first+opt.WarmUp) || (opt.Drain > 0 && o.Submit > last-opt.Drain) {
			continue
		}
		w = append(w, o.Wait())
	}
	slices.Sort(w)
	return w
}

// waitCDF samples the empirical CDF of the waits at fractions k/n for
// k = 1 … n: the point (w, F) says that a fraction F of the jobs waited at
// most w seconds. Equal waits collapse to the largest fraction.
func waitCDF(outs []job.Outcome, opt metrics.Options, n int) [][2]float64 {
	w := measuredWaits(outs, opt)
	pts := [][2]float64{}
	if len(w) == 0 {
		return pts
	}
	for k := 1; k <= n; k++ {
		rank := (k*len(w) + n - 1) / n // ⌈k·N/n⌉
		rank = max(1, min(rank, len(w)))
		v := w[rank-1]
		// the fraction of jobs with wait ≤ v
		hi, _ := slices.BinarySearch(w, v+1)
		f := round6(float64(hi) / float64(len(w)))
		if len(pts) > 0 && pts[len(pts)-1][0] == float64(v) {
			continue
		}
		pts = append(pts, [2]float64{float64(v), f})
	}
	return pts
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// MinBinSeconds is the narrowest time bin of the utilization and queue
// curves (10 minutes: finer than the daily cycle, coarse enough that a
// multi-year trace stays a few megabytes).
const MinBinSeconds = 600

// newTimeAxis is the time axis of the curves of runs: from their first
// submission to their last end (from the outcomes in memory, else from
// the summaries), in at most bins bins of at least MinBinSeconds; nil
// without runs.
func newTimeAxis(runs []*Run, bins int) *TimeSeries {
	var t0, t1 int64
	have := false
	for _, r := range runs {
		a, b := r.Summary.FirstSubmit, max(r.Summary.LastEnd, r.Summary.FirstSubmit)
		if r.Outcomes != nil || (a == 0 && b == 0) {
			if len(r.Outcomes) == 0 {
				continue
			}
			a, b = r.Outcomes[0].Submit, r.Outcomes[0].Submit
			for i := range r.Outcomes {
				o := &r.Outcomes[i]
				a, b = min(a, o.Submit), max(b, o.End, o.Submit)
			}
		}
		if !have {
			t0, t1, have = a, b, true
		}
		t0, t1 = min(t0, a), max(t1, b)
	}
	if !have {
		return nil
	}
	span := max(t1-t0, 1)
	step := max((span+int64(bins)-1)/int64(bins), MinBinSeconds)
	return &TimeSeries{Start: t0, Step: step, Runs: []TimeSeriesRun{}}
}

// timeSeries is the curves of every run with outcomes on one time axis.
func timeSeries(res *Results, bins int) *TimeSeries {
	var runs []*Run
	for _, r := range res.Runs {
		if r.Outcomes != nil {
			runs = append(runs, r)
		}
	}
	ts := newTimeAxis(runs, bins)
	if ts == nil {
		return nil
	}
	for _, r := range runs {
		ts.add(r.Label, r.Outcomes, r.Procs)
	}
	return ts
}

// add integrates a run's busy processors and waiting jobs over the bins;
// its curves stop at the bin of its last end.
func (ts *TimeSeries) add(label string, outs []job.Outcome, procs int) {
	if ts == nil {
		return
	}
	t0, step := ts.Start, ts.Step
	var last = t0 // the run's last end (or submission)
	busy := make([]event, 0, 2*len(outs))
	queue := make([]event, 0, 2*len(outs))
	for i := range outs {
		o := &outs[i]
		last = max(last, o.Submit)
		if o.Rejected || o.Start < 0 {
			continue
		}
		last = max(last, o.End)
		if o.End > o.Start {
			busy = append(busy, event{o.Start, int64(o.Procs)}, event{o.End, -int64(o.Procs)})
		}
		if o.Start > o.Submit {
			queue = append(queue, event{o.Submit, 1}, event{o.Start, -1})
		}
	}
	n := int((last-t0)/step) + 1 // the curves stop with the run
	u := integrate(busy, t0, step, n)
	q := integrate(queue, t0, step, n)
	for i := range u {
		if procs > 0 {
			u[i] = math.Round(u[i]/float64(procs)*1e4) / 1e4
		}
		q[i] = math.Round(q[i]*100) / 100
	}
	ts.Runs = append(ts.Runs, TimeSeriesRun{Run: label, Util: u, Queue: q})
}

type event struct{ t, d int64 }

// integrate returns the time average over each bin [t0+i·step,
// t0+(i+1)·step) of the step function that starts at 0 and changes by d at
// each event's time.
func integrate(ev []event, t0, step int64, n int) []float64 {
	slices.SortFunc(ev, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	out := make([]float64, n)
	var level int64
	last := t0
	k := 0
	flush := func(until int64) {
		// add level over [last, until) to the bins
		for last < until {
			b := int((last - t0) / step)
			if b >= n {
				return
			}
			edge := min(t0+int64(b+1)*step, until)
			out[b] += float64(level * (edge - last))
			last = edge
		}
	}
	for k < len(ev) {
		t := ev[k].t
		flush(t)
		for k < len(ev) && ev[k].t == t {
			level += ev[k].d
			k++
		}
	}
	flush(t0 + int64(n)*step)
	for i := range out {
		out[i] /= float64(step)
	}
	return out
}

// ganttSelection picks the runs that get a Gantt chart.
func ganttSelection(res *Results, opt BuildOptions) ([]*Run, string, error) {
	if opt.Gantt != nil {
		var sel []*Run
		for _, label := range opt.Gantt {
			var found *Run
			for _, r := range res.Runs {
				if r.Label == label {
					found = r
				}
			}
			if found == nil {
				labels := make([]string, len(res.Runs))
				for i, r := range res.Runs {
					labels[i] = strconv.Quote(r.Label)
				}
				return nil, "", fmt.Errorf("--gantt: no run %q (runs: %s)", label, joinComma(labels))
			}
			if !found.HasJobs() {
				return nil, "", fmt.Errorf("--gantt: run %q has no per-job outcomes", label)
			}
			sel = append(sel, found)
		}
		return sel, "", nil
	}
	var sel []*Run
	total := 0
	for _, r := range res.Runs {
		if r.HasJobs() {
			sel = append(sel, r)
			total += r.jobCount()
		}
	}
	if len(sel) > 1 && total > opt.MaxGanttJobs {
		return sel[:1], fmt.Sprintf("Gantt chart of %s only: the %d runs have %d jobs together (more than %d); choose runs with --gantt",
			sel[0].Label, len(sel), total, opt.MaxGanttJobs), nil
	}
	return sel, "", nil
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// peakUse is the largest number of processors held at once (ends before
// starts at the same instant).
func peakUse(outs []job.Outcome) int {
	ev := make([]event, 0, 2*len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Start >= 0 && o.End > o.Start {
			ev = append(ev, event{o.Start, int64(o.Procs)}, event{o.End, -int64(o.Procs)})
		}
	}
	slices.SortFunc(ev, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.d, b.d) // releases first
	})
	var use, peak int64
	for _, e := range ev {
		use += e.d
		peak = max(peak, use)
	}
	return int(peak)
}

func buildGantt(r *Run, outs []job.Outcome) Gantt {
	pl, ok := FromAlloc(outs, r.Alloc, r.Procs)
	if !ok {
		pl = Assign(outs, r.Procs)
	}
	g := Gantt{Run: r.Label, Procs: r.Procs, Rows: pl.Rows, Drawn: pl.Placed, Skipped: len(outs) - pl.Placed}
	if len(outs) > 0 {
		g.T0 = outs[0].Submit
		for i := range outs {
			g.T0 = min(g.T0, outs[i].Submit)
		}
	}
	n := pl.Placed
	j := &g.Jobs
	j.ID, j.User, j.Submit, j.Start, j.End = make([]int64, 0, n), make([]int32, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n)
	j.Procs, j.Est, j.Runtime, j.Killed, j.Bound = make([]int, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]int8, 0, n), make([]int64, 0, n)
	g.Rects = GanttRects{Job: make([]int32, len(pl.Rects)), Lo: make([]int32, len(pl.Rects)), N: make([]int32, len(pl.Rects))}
	k := int32(-1)
	for i, rc := range pl.Rects {
		if i == 0 || rc.Job != pl.Rects[i-1].Job { // a job's rects are consecutive
			k++
			addJob(j, &outs[rc.Job], g.T0)
			g.Span = max(g.Span, outs[rc.Job].End-g.T0)
			if outs[rc.Job].Bound >= 0 {
				g.Bounds++
			}
		}
		g.Rects.Job[i], g.Rects.Lo[i], g.Rects.N[i] = k, rc.Lo, rc.N
	}
	return g
}

func addJob(j *GanttJobs, o *job.Outcome, t0 int64) {
	k := int8(0)
	if o.Killed {
		k = 1
	}
	b := int64(-1)
	if o.Bound >= 0 {
		b = o.Bound - t0
	}
	j.ID = append(j.ID, o.SWFID)
	j.User = append(j.User, o.User)
	j.Submit = append(j.Submit, o.Submit-t0)
	j.Start = append(j.Start, o.Start-t0)
	j.End = append(j.End, o.End-t0)
	j.Procs = append(j.Procs, o.Procs)
	j.Est = append(j.Est, o.Estimate)
	j.Runtime = append(j.Runtime, o.Runtime)
	j.Killed = append(j.Killed, k)
	j.Bound = append(j.Bound, b)
}
