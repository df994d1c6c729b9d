package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"

	"github.com/backfill-hpc/backfill/figure"
	"github.com/backfill-hpc/backfill/internal/fileout"
	"github.com/backfill-hpc/backfill/report"
)

type plotFlags struct {
	output, metric, x, errors, title string
	logY, cdf                        bool
	gantt, from, to                  string
	width, height                    float64
	procs, dpi                       int
}

func newPlot() *cobra.Command {
	f := &plotFlags{}
	keys := make([]string, len(report.Metrics))
	for i, m := range report.Metrics {
		keys[i] = m.Key
	}
	cmd := &cobra.Command{
		Use:   "plot INPUT... -o FIGURE.{png,svg,pdf,eps}",
		Short: "Draw a static figure for papers: a metric against load or a parameter, one line per policy",
		Long: `plot draws one figure with gonum/plot from results: a metric against a
variable, one line per policy (and per combination of the other parameters),
with error bars over replicates (runs that differ only in their seed), or a
bar per run when nothing varies.

INPUT is a directory written by 'backfill simulate --out' or a jobs.csv, as
for 'backfill report'; give several to compare, e.g. one directory per load
or per seed. Each run's coordinates: its policy parameters, "load" (the
offered load of its jobs), and with an estimate model "estimate" and "seed"
(the replicate axis). The format follows the file extension. See
docs/report.md.`,
		Example: `  # bounded slowdown against load, EASY vs conservative (one directory per load)
  backfill simulate --load 0.6 --policy easy,conservative --out load0.6/
  backfill simulate --load 0.8 --policy easy,conservative --out load0.8/
  backfill plot load0.6/ load0.8/ --metric mean_bsld -o bsld.pdf

  # mean wait against EASY's reservation depth
  backfill simulate --policy easy,easy:depth=2,easy:depth=4,easy:depth=8 --out depth/
  backfill plot depth/ --x depth --metric mean_wait -o depth.svg

  # the wait-time distributions, one line per run
  backfill plot depth/ --cdf -o waits.pdf

  # two days of EASY's schedule, from day 30
  backfill plot depth/ --gantt easy --from 30d --to 32d -o gantt.pdf`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlot(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "figure.png", "figure file; the format follows the extension ("+strings.Join(figure.Formats, ", ")+")")
	fl.StringVarP(&f.metric, "metric", "m", "mean_bsld", "metric on the y axis: "+strings.Join(keys, ", "))
	fl.StringVar(&f.x, "x", "", "variable on the x axis: load, a policy parameter (depth, …) or another coordinate ; policy: a bar per run (default: load when it varies, else the first variable, else bars)")
	fl.StringVar(&f.errors, "errors", "ci95", "error bars over seeds: ci95 (95% confidence interval of the mean, Student's t), minmax or none")
	fl.StringVar(&f.title, "title", "", "figure title")
	fl.BoolVar(&f.logY, "log-y", false, "logarithmic y axis")
	fl.BoolVar(&f.cdf, "cdf", false, "draw the wait-time CDF of each run (per-job outcomes) instead of a metric")
	fl.StringVar(&f.gantt, "gantt", "", "draw this run's schedule (a Gantt chart: processors × time) instead of a metric; with --from and --to")
	fl.StringVar(&f.from, "from", "0", "--gantt: start of the window, since the first submission: seconds or a duration (36h, 2d, 1d12h)")
	fl.StringVar(&f.to, "to", "", "--gantt: end of the window (default: the last end)")
	fl.Float64Var(&f.width, "width", 12, "width in cm (up to 500)")
	fl.Float64Var(&f.height, "height", 8, "height in cm (up to 500)")
	fl.IntVar(&f.dpi, "dpi", 300, "resolution of png, jpg and tif figures (1 to 2400; at most 200 million pixels)")
	fl.IntVar(&f.procs, "machine-procs", 0, "machine size for a jobs.csv without simulate's \"machine:\" comment")
	return cmd
}

func runPlot(cmd *cobra.Command, f *plotFlags, args []string) error {
	format, err := figure.FormatOf(f.output)
	if err != nil {
		return err
	}
	if err := checkPlotFlags(cmd, f, format); err != nil {
		return err
	}
	res, err := report.LoadAll(args, report.LoadOptions{Procs: f.procs})
	if err != nil {
		return err
	}
	opt := figure.Options{Metric: f.metric, X: f.x, Errors: f.errors, Title: f.title, LogY: f.logY,
		Width: vg.Length(f.width) * vg.Centimeter, Height: vg.Length(f.height) * vg.Centimeter, DPI: f.dpi}
	panels, what, err := figure.Draw(res, figure.Request{CDF: f.cdf, Gantt: f.gantt, From: f.from, To: f.to, Metric: f.metric}, opt)
	if err != nil {
		return err
	}
	// draw first, write after: a figure that cannot be drawn leaves no
	// (empty) file behind
	var buf bytes.Buffer
	if err := figure.WritePanels(&buf, panels, opt, format); err != nil {
		return fmt.Errorf("%s: %w", f.output, err)
	}
	if err := fileout.Write(f.output, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s of %d runs, %d panel(s)\n", f.output, what, len(res.Runs), len(panels))
	return nil
}

// checkPlotFlags refuses an unknown metric (also where it is not drawn: a
// mistyped or ignored flag is an error, not a silent default), --metric
// with --cdf or --gantt, and sizes that would not be drawable.
func checkPlotFlags(cmd *cobra.Command, f *plotFlags, format string) error {
	if _, ok := report.MetricByKey(f.metric); !ok {
		keys := make([]string, len(report.Metrics))
		for i, m := range report.Metrics {
			keys[i] = m.Key
		}
		return fmt.Errorf("--metric: unknown metric %q (known: %s)", f.metric, strings.Join(keys, ", "))
	}
	if (f.cdf || f.gantt != "") && cmd.Flags().Changed("metric") {
		return fmt.Errorf("--metric %s: not used by --cdf or --gantt (they draw wait times or a schedule, not a metric)", f.metric)
	}
	return figure.CheckSize(f.width, f.height, f.dpi, format)
}
