package figure

import (
	"fmt"
	"strings"

	"github.com/backfill-hpc/backfill/report"
)

// Request is what the plot command asks to draw: the wait-time CDF of
// every run, the schedule (a Gantt chart) of the run labelled Gantt between
// From and To (seconds or durations since the first submission; To empty:
// the last end), or else the metric of opt against its variable.
type Request struct {
	CDF      bool
	Gantt    string
	From, To string
	Metric   string
}

// Draw draws what q asks for and says what it is ("wait CDF", "Gantt
// chart of LABEL" or the metric's key). Asking for both the CDF and a Gantt
// chart is an error; errors name the plot command's flags.
func Draw(res *report.Results, q Request, opt Options) (Panels, string, error) {
	switch {
	case q.CDF && q.Gantt != "":
		return nil, "", fmt.Errorf("--cdf and --gantt: give one of them")
	case q.CDF:
		panels, err := CDF(res, opt)
		return panels, "wait CDF", err
	case q.Gantt != "":
		return drawGantt(res, q, opt)
	}
	panels, err := PlotAll(res, opt)
	return panels, q.Metric, err
}

// drawGantt draws the schedule of the run q.Gantt names, between q.From
// and q.To.
func drawGantt(res *report.Results, q Request, opt Options) (Panels, string, error) {
	var run *report.Run
	var labels []string
	for _, r := range res.Runs {
		labels = append(labels, r.Label)
		if r.Label == q.Gantt {
			run = r
		}
	}
	if run == nil {
		return nil, "", fmt.Errorf("--gantt %q: no such run (runs: %s)", q.Gantt, strings.Join(labels, ", "))
	}
	from, err := ParseSeconds(q.From)
	if err != nil {
		return nil, "", fmt.Errorf("--from: %w", err)
	}
	var to int64
	if q.To != "" {
		if to, err = ParseSeconds(q.To); err != nil {
			return nil, "", fmt.Errorf("--to: %w", err)
		}
	}
	p, err := Gantt(run, from, to, opt)
	if err != nil {
		return nil, "", err
	}
	return Panels{p}, "Gantt chart of " + run.Label, nil
}

// CheckSize refuses a figure that would not be drawable: dpi outside 1 to
// 2400, a width or height (in cm) outside (0, 500], or a raster format
// (png, jpg, tif) above 200 million pixels. 500 cm at 2400 dpi would still
// be too large, so the pixel count is bounded too (a 100 cm × 100 cm
// figure at 300 dpi is 140 million pixels). Errors name the plot
// command's flags.
func CheckSize(width, height float64, dpi int, format string) error {
	if dpi < 1 || dpi > 2400 {
		return fmt.Errorf("--dpi %d: expected 1 to 2400", dpi)
	}
	if !(width > 0 && width <= 500 && height > 0 && height <= 500) {
		return fmt.Errorf("--width %g --height %g: expected sizes above 0 and up to 500 cm", width, height)
	}
	raster := format == "png" || format == "jpg" || format == "tif"
	if px := width / 2.54 * float64(dpi) * height / 2.54 * float64(dpi); raster && px > 200e6 {
		return fmt.Errorf("--width %g --height %g --dpi %d: %.0f million pixels, expected at most 200 million (a smaller --dpi or size)", width, height, dpi, px/1e6)
	}
	return nil
}
