package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/backfill-hpc/backfill/experiment"
)

// Sweep shows a sweep's progress (experiment.Options.OnEvent): a bar
// (done/total, failures, ETA) on a terminal, one log line per finished
// run otherwise, or nothing. Event is not safe for concurrent calls.
type Sweep struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	log   bool
	none  bool
	start time.Time
}

// NewSweep is the display on w in mode auto (a bar when w is a
// terminal, log lines otherwise), bar, log or none.
func NewSweep(w io.Writer, mode string) *Sweep {
	d := &Sweep{w: w, start: time.Now()}
	tty := false
	if fh, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(fh.Fd()))
	}
	switch mode {
	case "bar":
		tty = true
	case "log":
		tty = false
	case "none":
		d.none = true
		return d
	}
	d.log = !tty
	return d
}

// Event shows e: in log mode a line per finished run ("[3/10] ok ID
// LABEL CONFIG (1.2s, eta 8s)", with the error's first line when it
// failed); in bar mode the bar, from the first start (the first runs may
// be long).
func (d *Sweep) Event(e experiment.Event) {
	if d.none || (d.log && e.Kind != experiment.RunDone) {
		return
	}
	if d.log {
		status := "ok"
		if e.Err != nil {
			status = "FAILED"
		}
		eta := ""
		if e.Done < e.Total {
			rem := time.Duration(float64(time.Since(d.start)) / float64(e.Done) * float64(e.Total-e.Done))
			eta = ", eta " + rem.Round(time.Second).String()
		}
		fmt.Fprintf(d.w, "[%d/%d] %s %s %s %s (%.1fs%s)", e.Done, e.Total, status, e.Run.ID, e.Run.Label, e.Run.Config.Describe(), e.Elapsed.Seconds(), eta)
		if e.Err != nil {
			fmt.Fprintf(d.w, ": %s", experiment.FirstLine(e.Err.Error()))
		}
		fmt.Fprintln(d.w)
		return
	}
	if d.bar == nil {
		d.bar = progressbar.NewOptions(e.Total,
			progressbar.OptionSetWriter(d.w),
			progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("runs"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	if e.Failed > 0 {
		d.bar.Describe(fmt.Sprintf("sweep (%d failed)", e.Failed))
	}
	_ = d.bar.Set(e.Done)
}

// Finish ends the bar, if one was drawn.
func (d *Sweep) Finish() {
	if d.bar != nil {
		_ = d.bar.Finish()
		fmt.Fprintln(d.w)
	}
}
