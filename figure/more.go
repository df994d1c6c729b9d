package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/report"
)

// ByWorkload splits results into one Results per workload (Run.Trace), in
// order of first appearance: a figure never mixes workloads in one panel.
func ByWorkload(res *report.Results) (parts []*report.Results, names []string) {
	idx := map[string]int{}
	for _, r := range res.Runs {
		k, ok := idx[r.Trace]
		if !ok {
			k = len(parts)
			idx[r.Trace] = k
			parts = append(parts, &report.Results{Kind: res.Kind, Path: res.Path})
			names = append(names, r.Trace)
		}
		parts[k].Runs = append(parts[k].Runs, r)
	}
	return parts, names
}

// Panels are the figure's plots, drawn side by side (Write draws one).
type Panels []*plot.Plot

// WritePanels renders the panels side by side (a grid of at most 3
// columns) as format to w; the figure's width grows with the columns.
func WritePanels(w io.Writer, ps Panels, opt Options, format string) (err error) {
	if len(ps) == 1 {
		return Write(w, ps[0], opt, format)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the figure: %v", r)
		}
	}()
	cols := min(3, len(ps))
	rows := (len(ps) + cols - 1) / cols
	wd, ht := opt.size()
	wd, ht = wd*vg.Length(cols), ht*vg.Length(rows)
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(ps) {
				grid[i][j] = ps[k]
			}
		}
	}
	c, err := newCanvas(format, wd, ht, opt.DPI)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err = c.WriteTo(w)
	return err
}

// PlotAll is Plot for each workload of res: one panel per workload, titled
// with its name when there are several.
func PlotAll(res *report.Results, opt Options) (Panels, error) {
	parts, names := ByWorkload(res)
	var ps Panels
	for i, part := range parts {
		p, err := Plot(part, opt)
		if err != nil {
			if len(parts) > 1 {
				return nil, fmt.Errorf("workload %s: %w", names[i], err)
			}
			return nil, err
		}
		if len(parts) > 1 {
			p.Title.Text = strings.TrimSpace(opt.Title + " " + names[i])
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// CDF draws the wait-time distribution of each run with per-job outcomes:
// the fraction of the measured jobs (warm-up and drain excluded) that
// waited at most w, on a logarithmic wait axis (waits under 1 s at 1 s),
// one line per run in its policy's colour; one panel per workload.
func CDF(res *report.Results, opt Options) (Panels, error) {
	parts, names := ByWorkload(res)
	var ps Panels
	for i, part := range parts {
		p := plot.New()
		p.Title.Text = opt.Title
		if len(parts) > 1 {
			p.Title.Text = strings.TrimSpace(opt.Title + " " + names[i])
		}
		p.X.Label.Text = "wait (s)"
		p.Y.Label.Text = "fraction of jobs"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = 0, 1
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.YOffs = vg.Millimeter * 4
		perPolicy := map[string]int{}
		n := 0
		for _, r := range part.Runs {
			outs, err := r.Jobs(false)
			if err != nil {
				return nil, err
			}
			if len(outs) == 0 {
				continue
			}
			w := waits(outs, r)
			pts := make(plotter.XYs, 0, 2*len(w))
			for k, v := range w {
				if k+1 < len(w) && w[k+1] == v {
					continue // the last of equal waits carries the fraction
				}
				x := math.Max(1, float64(v))
				f := float64(k+1) / float64(len(w))
				if len(pts) > 0 { // a step: the previous fraction up to x
					pts = append(pts, plotter.XY{X: x, Y: pts[len(pts)-1].Y})
				}
				pts = append(pts, plotter.XY{X: x, Y: f})
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			k := perPolicy[r.Policy]
			perPolicy[r.Policy]++
			l.Color = PolicyColor(r.Policy)
			l.Dashes = plotutil.Dashes(k)
			p.Add(l)
			p.Legend.Add(r.Label, l)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("--cdf: no run of %s has per-job outcomes", names[i])
		}
		p.Add(plotter.NewGrid())
		ps = append(ps, p)
	}
	return ps, nil
}

// waits are the sorted waits of the measured jobs of r (as the report's
// CDF: warm-up and drain excluded, rejected jobs left out).
func waits(outs []job.Outcome, r *report.Run) []int64 {
	first, last := outs[0].Submit, outs[0].Submit
	for i := range outs {
		first, last = min(first, outs[i].Submit), max(last, outs[i].Submit)
	}
	w := make([]int64, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Rejected || o.Start < 0 || (r.Opt.WarmUp > 0 && o.Submit < first+r.Opt.WarmUp) || (r.Opt.Drain > 0 && o.Submit > last-r.Opt.Drain) {
			continue
		}
		w = append(w, o.Wait())
	}
	slices.Sort(w)
	return w
}

// Gantt draws one run's schedule between from and to (seconds since its
// first submission; to ≤ 0: its last end): processors against time, each
// job a rectangle on the processors of the report's drawing rule
// (report.Assign), filled with a colour of its user (ten colours), outlined.
func Gantt(r *report.Run, from, to int64, opt Options) (*plot.Plot, error) {
	outs, err := r.Jobs(true)
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("--gantt: run %s has no per-job outcomes", r.Label)
	}
	t0, end := outs[0].Submit, int64(0)
	for i := range outs {
		t0 = min(t0, outs[i].Submit)
	}
	for i := range outs {
		end = max(end, outs[i].End-t0)
	}
	if to <= 0 {
		to = end
	}
	if from < 0 || to <= from || from >= end {
		return nil, fmt.Errorf("--from %d --to %d: expected 0 ≤ from < to (seconds since the first submission; the schedule ends at %d)", from, to, end)
	}
	pl := report.Assign(outs, r.Procs)
	p := plot.New()
	p.Title.Text = opt.Title
	if p.Title.Text == "" {
		p.Title.Text = r.Label
	}
	unit, scale := "h", 3600.0
	if to-from > 4*86400 {
		unit, scale = "days", 86400
	}
	p.X.Label.Text = "time since the first submission (" + unit + ")"
	p.Y.Label.Text = "processor"
	drawn := 0
	for _, rc := range pl.Rects {
		o := &outs[rc.Job]
		s, e := o.Start-t0, o.End-t0
		if e <= from || s >= to {
			continue
		}
		s, e = max(s, from), min(e, to)
		x0, x1 := float64(s)/scale, float64(e)/scale
		y0, y1 := float64(rc.Lo), float64(rc.Lo+rc.N)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if err != nil {
			return nil, err
		}
		poly.Color = userColor(o.User)
		poly.LineStyle.Width = vg.Points(0.3)
		poly.LineStyle.Color = color.Gray{Y: 60}
		p.Add(poly)
		drawn++
	}
	if drawn > 20000 {
		return nil, fmt.Errorf("--gantt: %d jobs in [%d, %d] s: choose a narrower window with --from and --to (at most 20,000 jobs)", drawn, from, to)
	}
	p.X.Min, p.X.Max = float64(from)/scale, float64(to)/scale
	p.Y.Min, p.Y.Max = 0, float64(max(pl.Rows, r.Procs))
	return p, nil
}

func userColor(u int32) color.Color {
	if u < 0 {
		return color.Gray{Y: 170}
	}
	h := uint32(u+1) * 2654435761
	var c color.RGBA
	fmt.Sscanf(report.Palette[10+h%10], "#%02x%02x%02x", &c.R, &c.G, &c.B)
	c.A = 255
	return c
}

// ParseSeconds reads a time like 86400, 36h, 2d, 1d12h or 90m as seconds.
func ParseSeconds(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	var total int64
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) {
			return 0, fmt.Errorf("%q: expected seconds or a duration like 36h, 2d, 1d12h, 90m", s)
		}
		n, _ := strconv.ParseInt(rest[:i], 10, 64)
		unit := map[byte]int64{'d': 86400, 'h': 3600, 'm': 60, 's': 1}[rest[i]]
		if unit == 0 {
			return 0, fmt.Errorf("%q: unknown unit %q (d, h, m, s)", s, rest[i:i+1])
		}
		total += n * unit
		rest = rest[i+1:]
	}
	return total, nil
}
