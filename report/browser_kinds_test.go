package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/workload"
)

// openChecked opens a report and returns a function that fails the test on
// any console error or uncaught exception the page produced (a probe proves
// the watcher works: it must be the only error).
func openChecked(t *testing.T, b *browser, path string) func() {
	t.Helper()
	errs := b.watchConsole()
	b.open(t, path)
	return func() {
		t.Helper()
		if e := eval[[]string](t, b, `backfillReport.errors`); len(e) > 0 {
			t.Errorf("the page's script failed: %v", e)
		}
		eval[any](t, b, `console.error('backfill-probe')`)
		e := errs()
		if len(e) != 1 || !strings.Contains(e[0], "backfill-probe") {
			t.Errorf("console errors (the last one should be the probe, alone):\n%s", strings.Join(e, "\n"))
		}
	}
}

// TestBrowserPlainReport: runs without any policy parameter (what
// `simulate --out d; report d` gives) once broke paramCharts with a
// TypeError; the report must render without any console error.
func TestBrowserPlainReport(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := simResults(t, tr.Name, tr.Jobs[:3000], tr.Procs, "fcfs", "easy", "conservative")
	path, d := writeReport(t, res, BuildOptions{})
	if len(d.Params) != 0 {
		t.Fatalf("plain runs have %d parameter plots", len(d.Params))
	}
	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	done := openChecked(t, b, path)
	if n := eval[int](t, b, `backfillReport.charts`); n < 6 {
		t.Errorf("%d charts drawn", n)
	}
	done()
}

// TestBrowserSweepReport loads the sweep fixture: several loads and seeds.
func TestBrowserSweepReport(t *testing.T) {
	res, err := Load(sweepSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeReport(t, res, BuildOptions{})
	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	done := openChecked(t, b, path)
	// the best marks compare runs of one load only: each load has its own
	if h := eval[string](t, b, `document.querySelector('#summary-table thead').textContent`); !strings.Contains(h, "workload, load") {
		t.Errorf("the summary of runs at two loads has no group column: %q", h)
	}
	done()
}

// TestBrowserGanttOverview checks the whole-trace Gantt views of the
// embedded trace: the inked area of the whole-trace view equals the busy
// processor-time (an occupancy map, not one-pixel columns that overstate
// it), conservative's reservation markers are capped at 20,000 jobs with a
// notice, and the ten users of the legend have ten different colours.
func TestBrowserGanttOverview(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := simResults(t, tr.Name, tr.Jobs, tr.Procs, "easy", "conservative")
	path, d := writeReport(t, res, BuildOptions{})
	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	done := openChecked(t, b, path)

	for i, g := range d.Gantt {
		eval[any](t, b, `backfillGantt.select(`+string(rune('0'+i))+`)`)
		var area float64
		for k := range g.Jobs.ID {
			area += float64(g.Jobs.Procs[k]) * float64(g.Jobs.End[k]-g.Jobs.Start[k])
		}
		busy := area / (float64(g.Rows) * float64(g.Span))
		ink := eval[float64](t, b, `backfillGantt.ink`)
		if math.Abs(ink-busy) > 0.01 {
			t.Errorf("%s: the whole-trace view inks %.1f %% of its area, the schedule is busy %.1f %% of it", g.Run, 100*ink, 100*busy)
		}
		// the ten legend users have ten colours
		cols := eval[[]string](t, b, `backfillGantt.legendColours`)
		seen := map[string]bool{}
		for _, c := range cols {
			if seen[c] {
				t.Errorf("%s: legend colour %s used twice: %v", g.Run, c, cols)
			}
			seen[c] = true
		}
		if len(cols) != 10 {
			t.Errorf("%s: %d legend users", g.Run, len(cols))
		}
	}
	// conservative (run 1): the whole trace has more than 20,000 jobs with a
	// bound: no markers, and the notice; a window with fewer than 20,000 but
	// more than 6,667 draws them all
	if d.Gantt[1].Bounds <= 20000 {
		t.Fatalf("conservative has %d bounds: the fixture must have more than 20,000", d.Gantt[1].Bounds)
	}
	eval[any](t, b, `backfillGantt.select(1); backfillGantt.reset()`)
	if m, st := eval[int](t, b, `backfillGantt.marks`), eval[string](t, b, `backfillGantt.status`); m != 0 || !strings.Contains(st, "zoom in to see reservation markers") {
		t.Errorf("whole view: %d markers, status %q", m, st)
	}
	span := float64(d.Gantt[1].Span)
	eval[any](t, b, `backfillGantt.setView(0, `+ftoa(span*0.5)+`)`)
	inView := eval[int](t, b, `backfillGantt.marksInView`)
	if inView <= 6667 || inView > 20000 {
		t.Logf("half view holds %d bounded jobs", inView)
	}
	if inView > 6667 && inView <= 20000 {
		if m := eval[int](t, b, `backfillGantt.marks`); m != inView {
			t.Errorf("%d bounded jobs in view, %d markers drawn", inView, m)
		}
	} else {
		// find a window holding between 6,667 and 20,000
		found := false
		for _, f := range []float64{0.2, 0.3, 0.4, 0.6} {
			eval[any](t, b, `backfillGantt.setView(0, `+ftoa(span*f)+`)`)
			if n := eval[int](t, b, `backfillGantt.marksInView`); n > 6667 && n <= 20000 {
				found = true
				if m := eval[int](t, b, `backfillGantt.marks`); m != n {
					t.Errorf("%d bounded jobs in view, %d markers drawn", n, m)
				}
				break
			}
		}
		if !found {
			t.Error("no window with 6,667 to 20,000 bounded jobs")
		}
	}
	done()
}

// TestBrowserTimeSeries: the curves stop where a run ends, the bins refine
// on zoom, the tooltips carry units, and the legend is not over the title.
func TestBrowserTimeSeries(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	long := simResults(t, tr.Name, tr.Jobs, tr.Procs, "easy")
	short := simResults(t, tr.Name, tr.Jobs[:len(tr.Jobs)/2], tr.Procs, "fcfs")
	short.Runs[0].Label = "fcfs-half"
	long.Runs = append(long.Runs, short.Runs...)
	path, d := writeReport(t, long, BuildOptions{})
	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	done := openChecked(t, b, path)
	last := eval[[]float64](t, b, `backfillTime.lastX`)
	if len(last) != 2 || last[1] > 0.7*last[0] {
		t.Errorf("the half-trace run's curve ends at day %v, the whole one at %v: it must stop where its jobs end", last[1:], last[:1])
	}
	whole := eval[float64](t, b, `backfillTime.bin`)
	eval[any](t, b, `backfillTime.zoom(40, 42)`)
	zoomed := eval[float64](t, b, `backfillTime.bin`)
	if zoomed >= whole || zoomed > 3600 || zoomed != float64(d.Time[0].Step) && zoomed > 2*float64(d.Time[0].Step) {
		t.Errorf("bin width %v s at the whole trace, %v s zoomed to 2 %% of it (fine step %d s)", whole, zoomed, d.Time[0].Step)
	}
	units := eval[string](t, b, `(function(){var c=echarts.getInstanceByDom(document.getElementById('chart-util-time'));
		return c.getOption().tooltip[0].valueFormatter(50)})()`)
	if !strings.Contains(units, "%") {
		t.Errorf("utilization tooltip value %q has no unit", units)
	}
	// the legend's box and the title's box do not intersect
	overlap := eval[bool](t, b, `(function(){var c=echarts.getInstanceByDom(document.getElementById('chart-util-time')),m=c.getModel();
		function box(main){var v=c.getViewOfComponentModel(m.getComponent(main)),r=v.group.getBoundingRect().clone();r.applyTransform(v.group.getLocalTransform());return r;}
		var l=box('legend'),t=box('title');return l.intersect(t);})()`)
	if overlap {
		t.Error("the time series legend overlaps the title")
	}
	done()
}

func ftoa(x float64) string { return strconv.FormatFloat(math.Round(x), 'f', 0, 64) }

// TestBrowserSweepViews: a sweep's charts are small multiples by workload
// and load, the run selector filters every chart and the summary, and the
// job table searches, sorts, exports and selects in the Gantt chart.
func TestBrowserSweepViews(t *testing.T) {
	res, err := Load(sweepSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path, d := writeReport(t, res, BuildOptions{})
	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	done := openChecked(t, b, path)
	groups := eval[int](t, b, `backfillRuns.groups`)
	if groups != 2 {
		t.Fatalf("%d groups, want 2 (two loads)", groups)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#cdf-groups .chart').length`); n != groups {
		t.Errorf("%d CDF charts, want one per group (%d)", n, groups)
	}
	series := `echarts.getInstanceByDom(document.getElementById('chart-cdf')).getOption().series.length`
	if n := eval[int](t, b, series); n != 4 {
		t.Errorf("first group's CDF has %d curves, want its 4 runs", n)
	}
	// short names inside a group: no load= in the legend
	if names := eval[string](t, b, `JSON.stringify(echarts.getInstanceByDom(document.getElementById('chart-cdf')).getOption().series.map(function(s){return s.name}))`); strings.Contains(names, "load=") {
		t.Errorf("legend names repeat the group's load: %s", names)
	}
	one := res.Runs[0].Label
	eval[any](t, b, `backfillRuns.show(["`+one+`"])`)
	if n := eval[int](t, b, series); n != 1 {
		t.Errorf("after choosing one run the CDF has %d curves", n)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#summary-table tbody tr:not(.hidden)').length`); n != 1 {
		t.Errorf("after choosing one run the summary shows %d rows", n)
	}
	if n := eval[int](t, b, `echarts.getInstanceByDom(document.getElementById('chart-mean-wait')).getOption().series[0].data.length`); n != 1 {
		t.Errorf("after choosing one run the bar chart has %d bars", n)
	}
	eval[any](t, b, `backfillRuns.all()`)

	// the job table: the Gantt run's jobs
	g := d.Gantt[0]
	if n := eval[int](t, b, `backfillJobs.count`); n != len(g.Jobs.ID) {
		t.Errorf("job table lists %d jobs, want %d", n, len(g.Jobs.ID))
	}
	eval[any](t, b, `backfillJobs.sort('wait', -1)`)
	rows := eval[[]int](t, b, `backfillJobs.rows`)
	maxWait := int64(0)
	for k := range g.Jobs.ID {
		maxWait = max(maxWait, g.Jobs.Start[k]-g.Jobs.Submit[k])
	}
	if w := g.Jobs.Start[rows[0]] - g.Jobs.Submit[rows[0]]; w != maxWait {
		t.Errorf("sorted by wait, descending: first wait %d, the largest is %d", w, maxWait)
	}
	user := g.Jobs.User[0]
	want := 0
	for k := range g.Jobs.ID {
		if g.Jobs.User[k] == user {
			want++
		}
	}
	if n := eval[int](t, b, `backfillJobs.search('user:`+strconv.Itoa(int(user))+`')`); n != want {
		t.Errorf("search user:%d: %d rows, want %d", user, n, want)
	}
	csvText := eval[string](t, b, `backfillJobs.csv()`)
	if lines := strings.Count(csvText, "\n"); lines != want+1 || !strings.HasPrefix(csvText, "job_id,user,") {
		t.Errorf("CSV export: %d lines for %d rows:\n%.200s", lines, want, csvText)
	}
	eval[any](t, b, `backfillJobs.click(0)`)
	sel := eval[int](t, b, `backfillGantt.selected`)
	if sel != eval[[]int](t, b, `backfillJobs.rows`)[0] || eval[int](t, b, `backfillGantt.highlighted`) != sel {
		t.Errorf("clicking the first row selected job %d, highlighted %d", sel, eval[int](t, b, `backfillGantt.highlighted`))
	}
	done()
}
