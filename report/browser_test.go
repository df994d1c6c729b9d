package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// The real-browser test: Debian's chromium, headless, driven through the
// DevTools protocol (chromedp), opens a generated report from file:// with
// the network disabled. .ci/run installs chromium when it is missing (as
// root) and sets BACKFILL_REQUIRE_BROWSER=1, so that a missing browser is a
// failure there and a skip elsewhere.

// chromiumPath finds Debian's chromium (or another Chrome) on PATH.
func chromiumPath(tb testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BACKFILL_REQUIRE_BROWSER") != "" {
		tb.Fatal("chromium is not installed although BACKFILL_REQUIRE_BROWSER is set (.ci/run installs it with apt-get install chromium)")
	}
	tb.Skip("chromium is not installed: the browser test needs it (as root: apt-get install -y chromium; .ci/run does this)")
	return ""
}

// browser is a headless chromium tab with the network cut off, recording
// console errors and every request the page makes.
type browser struct {
	ctx      context.Context
	cancel   func()
	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(tb testing.TB, width, height int) *browser {
	path := chromiumPath(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		// no network: every host resolves to nothing, and any proxy use fails
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("proxy-server", "socks5://127.0.0.1:9"),
		chromedp.WindowSize(width, height),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, ccancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	b := &browser{ctx: ctx, cancel: func() { tcancel(); ccancel(); acancel() }}
	if err := chromedp.Listen(ctx, b.listen); err != nil {
		b.cancel()
		tb.Fatalf("starting chromium (%s): %v", path, err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		b.cancel()
		tb.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		b.cancel()
		tb.Fatal(err)
	}
	return b
}

func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := ev.(*network.EventRequestWillBeSent); ok {
		b.requests = append(b.requests, e.Request.URL)
	}
}

// consoleErrors collects console errors and uncaught exceptions while the
// page runs.
func (b *browser) watchConsole() func() []string {
	ctx, cancel := context.WithCancel(b.ctx)
	msgs := chromedp.Console(ctx)
	var out []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil || ctx.Err() != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				out = append(out, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
				b.mu.Unlock()
			}
		}
	}()
	return func() []string {
		time.Sleep(200 * time.Millisecond) // let queued messages arrive
		cancel()
		<-done
		b.mu.Lock()
		defer b.mu.Unlock()
		return out
	}
}

func (b *browser) open(tb testing.TB, file string) {
	tb.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		tb.Fatal(err)
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+abs)); err != nil {
		tb.Fatal(err)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`window.backfillReport && window.backfillReport.ready`,
		chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		tb.Fatalf("the report did not finish rendering: %v", err)
	}
}

func eval[T any](tb testing.TB, b *browser, expr string) T {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("%s: %v", expr, err)
	}
	return v
}

// simResults simulates the policies on jobs and returns them as report
// results, as `backfill report` does without an input.
func simResults(tb testing.TB, name string, jobs []job.Job, procs int, specs ...string) *Results {
	tb.Helper()
	res := &Results{Kind: "simulation", Path: name}
	for _, spec := range specs {
		s, err := policy.New(spec, procs)
		if err != nil {
			tb.Fatal(err)
		}
		r, err := sim.Run(jobs, s, sim.Options{Procs: procs})
		if err != nil {
			tb.Fatal(err)
		}
		pol, params := SplitSpec(spec)
		opt := metrics.Options{Procs: procs, Tau: job.Tau}
		res.Runs = append(res.Runs, &Run{Label: spec, Policy: pol, Params: params, Trace: name, Procs: procs,
			Header: []string{"policy: " + spec, "trace: " + name}, Opt: opt, Outcomes: r.Outcomes,
			Summary: metrics.Summarize(r.Outcomes, opt)})
	}
	return res
}

func writeReport(tb testing.TB, res *Results, opt BuildOptions) (string, *Data) {
	tb.Helper()
	d, err := Build(res, opt)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "report.html")
	fh, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := WriteHTML(fh, d); err != nil {
		tb.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, d
}

type view struct{ T0, T1, P0, P1 float64 }

func getView(tb testing.TB, b *browser) view {
	tb.Helper()
	m := eval[map[string]float64](tb, b, `backfillGantt.view`)
	return view{m["t0"], m["t1"], m["p0"], m["p1"]}
}

func TestBrowserReport(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := simResults(t, tr.Name, tr.Jobs, tr.Procs, "easy", "conservative", "easy:depth=4")
	path, d := writeReport(t, res, BuildOptions{})

	b := newBrowser(t, 1400, 1000)
	defer b.cancel()
	errs := b.watchConsole()
	b.open(t, path)

	// one summary row per policy
	if n := eval[int](t, b, `document.querySelectorAll('#summary-table tbody tr').length`); n != len(res.Runs) {
		t.Errorf("summary table has %d rows, want %d", n, len(res.Runs))
	}
	if n := eval[int](t, b, `document.querySelectorAll('#summary-table td.best').length`); n == 0 {
		t.Error("no best value marked in the summary table")
	}
	if n := eval[int](t, b, `backfillReport.charts`); n < 8 {
		t.Errorf("%d ECharts charts drawn, want at least 8", n)
	}
	if e := eval[[]string](t, b, `backfillReport.errors`); len(e) > 0 {
		t.Errorf("the page's script failed: %v", e)
	}

	// the Gantt chart drew every job of the first run at the whole-trace view
	if got, want := eval[int](t, b, `backfillGantt.drawn`), d.Gantt[0].Drawn; got != want {
		t.Errorf("Gantt drew %d jobs, want %d", got, want)
	}
	full := getView(t, b)
	if full.T0 != 0 || full.T1 != float64(d.Gantt[0].Span) || full.P1 != float64(d.Gantt[0].Rows) {
		t.Errorf("whole view %+v, want [0, %d] × [0, %d]", full, d.Gantt[0].Span, d.Gantt[0].Rows)
	}

	// zoom changes the visible range, down to one minute
	eval[any](t, b, `backfillGantt.zoom(0.1, 100000)`)
	z := getView(t, b)
	if span := z.T1 - z.T0; span >= full.T1-full.T0 || span < 0.09*(full.T1-full.T0) || z.T0 > 100000 || z.T1 < 100000 {
		t.Errorf("zoom 0.1 around t=100000: view %+v from %+v", z, full)
	}
	zd := eval[int](t, b, `backfillGantt.drawn`)
	if zd <= 0 || zd >= d.Gantt[0].Drawn {
		t.Errorf("zoomed view drew %d jobs, want some but fewer than %d", zd, d.Gantt[0].Drawn)
	}
	eval[any](t, b, `backfillGantt.zoom(1e-9, 100000)`)
	if m := getView(t, b); m.T1-m.T0 != 60 {
		t.Errorf("deepest zoom spans %v s, want 60", m.T1-m.T0)
	}
	eval[any](t, b, `backfillGantt.reset()`)
	if v := getView(t, b); v != full {
		t.Errorf("reset view %+v, want %+v", v, full)
	}

	// a click on the utilization curve shows that moment in the Gantt chart:
	// a one-day window around it
	eval[any](t, b, `(function(){var el=document.querySelector('#chart-util-time canvas'),r=el.getBoundingClientRect();
		var o={clientX:r.left+r.width/2,clientY:r.top+r.height/2,bubbles:true};
		el.dispatchEvent(new MouseEvent('mousedown',o)); el.dispatchEvent(new MouseEvent('mouseup',o)); el.dispatchEvent(new MouseEvent('click',o));})()`)
	if v := getView(t, b); v.T1-v.T0 != 86400 || v.T0 < 0.3*full.T1 || v.T1 > 0.7*full.T1 {
		t.Errorf("after a click in the middle of the utilization chart the Gantt shows %+v, want one day near the middle of [0, %v]", v, full.T1)
	}
	eval[any](t, b, `backfillGantt.reset()`)

	// conservative promises bounds: its reservation markers are drawn
	eval[any](t, b, `backfillGantt.select(1)`)
	if got, want := eval[int](t, b, `backfillGantt.drawn`), d.Gantt[1].Drawn; got != want {
		t.Errorf("conservative: Gantt drew %d jobs, want %d", got, want)
	}
	eval[any](t, b, `backfillGantt.setView(2000000, 2400000)`)
	if m := eval[int](t, b, `backfillGantt.marks`); m == 0 || d.Gantt[1].Bounds == 0 {
		t.Errorf("conservative: %d reservation markers drawn (%d jobs with bounds)", m, d.Gantt[1].Bounds)
	}
	for _, mode := range []string{"size", "wait", "killed", "user"} {
		eval[any](t, b, `backfillGantt.colour('`+mode+`')`)
	}

	// hover shows the job's details
	eval[any](t, b, `(function(){var c=document.getElementById('gantt-canvas'),r=c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+r.width/2,clientY:r.top+r.height-60,bubbles:true}));})()`)
	if tip := eval[string](t, b, `document.getElementById('gantt-tip').style.display==='block' ? document.getElementById('gantt-tip').textContent : ''`); !strings.Contains(tip, "wait") {
		t.Errorf("hover tooltip: %q", tip)
	}
	if h := eval[int](t, b, `backfillGantt.highlighted`); h < 0 {
		t.Error("hover highlighted no job")
	}

	// nothing was fetched but the page itself
	if n := eval[int](t, b, `performance.getEntriesByType('resource').length`); n != 0 {
		t.Errorf("the page loaded %d resources", n)
	}
	b.mu.Lock()
	for _, u := range b.requests {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
			t.Errorf("network request to %s", u)
		}
	}
	b.mu.Unlock()

	// screenshots: the zoomed conservative schedule with its reservation
	// markers, the whole easy schedule, the whole page
	dir := t.TempDir()
	if d := os.Getenv("BACKFILL_SCREENSHOT_DIR"); d != "" {
		dir = d
	}
	save := func(name string, a chromedp.Action[[]byte]) {
		png, err := chromedp.Run(b.ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eval[any](t, b, `backfillGantt.setView(2000000, 2100000); document.getElementById('gantt').scrollIntoView()`)
	eval[any](t, b, `(function(){var c=document.getElementById('gantt-canvas'),r=c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+r.width*0.6,clientY:r.top+r.height*0.5,bubbles:true}));})()`)
	save("gantt-zoom.png", chromedp.CaptureScreenshot()) // the viewport: a hovered job stays highlighted
	eval[any](t, b, `backfillGantt.select(0); backfillGantt.reset()`)
	save("gantt.png", chromedp.Screenshot(chromedp.ID("gantt")))
	eval[any](t, b, `window.scrollTo(0,0)`)
	save("report.png", chromedp.FullScreenshot(100))
	t.Logf("screenshots in %s", dir)
	// a probe proves that console errors are caught: it must be the only one
	eval[any](t, b, `console.error('backfill-probe')`)
	e := errs()
	if len(e) != 1 || !strings.Contains(e[0], "backfill-probe") {
		t.Errorf("console errors (the last one should be the probe, alone):\n%s", strings.Join(e, "\n"))
	}
}

// BenchmarkBrowserFirstRender measures the first render of a report with a
// 100,000-job Gantt chart in headless chromium: the time from navigation to
// the end of the page's script (all charts and the Gantt drawn), reported as
// first-render-ms, and one redraw of the whole trace (redraw-ms). With
// BACKFILL_REPORT_HTML set, it measures that file instead.
func BenchmarkBrowserFirstRender(b *testing.B) {
	path := os.Getenv("BACKFILL_REPORT_HTML")
	if path == "" {
		r := rand.New(rand.NewPCG(7, 7))
		jobs := testgen.Jobs(r, testgen.Spec{Jobs: 100_000, Procs: 1024, MeanGap: 30, MaxRuntime: 20000})
		res := simResults(b, "synthetic-100k", jobs, 1024, "easy")
		path, _ = writeReport(b, res, BuildOptions{})
		if out := os.Getenv("BACKFILL_REPORT_OUT"); out != "" { // keep the page to look at
			data, err := os.ReadFile(path)
			if err != nil || os.WriteFile(out, data, 0o644) != nil {
				b.Fatal("cannot copy the page to BACKFILL_REPORT_OUT")
			}
		}
	}
	br := newBrowser(b, 1400, 1000)
	defer br.cancel()
	var first, redraw, day float64
	for b.Loop() {
		br.open(b, path)
		first += eval[float64](b, br, `backfillReport.firstRenderMs`)
		b.Logf("timings (ms): %s", eval[string](b, br, `JSON.stringify(backfillReport.timings)`))
		redraw += eval[float64](b, br, `backfillGantt.reset(), backfillGantt.lastDrawMs`)
		// a one-day view in the middle of the trace, as when zooming in
		day += eval[float64](b, br, `(function(){var v=backfillGantt.view, m=(v.t0+v.t1)/2;
			backfillGantt.setView(m, m+86400); return backfillGantt.lastDrawMs})()`)
	}
	b.ReportMetric(first/float64(b.N), "first-render-ms")
	b.ReportMetric(redraw/float64(b.N), "redraw-ms")
	b.ReportMetric(day/float64(b.N), "day-redraw-ms")
	b.ReportMetric(eval[float64](b, br, `backfillGantt.drawn`), "jobs-drawn")
}
