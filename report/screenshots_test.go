package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backfill-hpc/backfill/workload"
)

// TestScreenshots writes the screenshots of docs/report.md into
// BACKFILL_DOCS_SCREENSHOTS (docs/screenshots.sh sets it to docs/img); it
// is skipped without it. The sweep view is the report of the sweep fixture
// (two loads: small multiples); the Gantt overview is the whole embedded
// KTH SP2 trace under EASY, with the job table sorted by wait.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("BACKFILL_DOCS_SCREENSHOTS")
	if dir == "" {
		t.Skip("set BACKFILL_DOCS_SCREENSHOTS=DIR (docs/screenshots.sh) to write the documentation's screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(b *browser, name string, a chromedp.Action[[]byte]) {
		png, err := chromedp.Run(b.ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	res, err := Load(sweepSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeReport(t, res, BuildOptions{Title: "backfill report: sweep fixture (KTH SP2 subset, loads 0.7 and 0.9, two seeds)"})
	b := newBrowser(t, 1400, 1000)
	done := openChecked(t, b, path)
	shot(b, "report-sweep.png", chromedp.Screenshot(chromedp.ID("compare")))
	shot(b, "report-sweep-cdf.png", chromedp.Screenshot(chromedp.ID("cdf")))
	done()
	b.cancel()

	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res = simResults(t, tr.Name, tr.Jobs, tr.Procs, "easy")
	path, _ = writeReport(t, res, BuildOptions{})
	b = newBrowser(t, 1400, 1300)
	defer b.cancel()
	done = openChecked(t, b, path)
	eval[any](t, b, `backfillJobs.sort('wait', -1); document.getElementById('gantt').scrollIntoView()`)
	shot(b, "report-gantt-overview.png", chromedp.Screenshot(chromedp.ID("gantt")))
	done()
}
