// Package figure draws static figures of results with gonum/plot.
//
// It draws static figures of results for papers with gonum/plot:
// a metric against a variable (load, a policy parameter, …) with one line
// per policy and error bars over replicates (seeds), or, when there is no
// variable, a bar per run. `backfill plot` is its command; see
// docs/report.md.
package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/backfill-hpc/backfill/report"
)

// Options describe a figure.
type Options struct {
	// Metric is the key of the plotted metric (report.Metrics).
	Metric string
	// X is the variable on the x axis: "load", a policy parameter or any
	// other coordinate of the runs; "" picks "load" when it varies, else
	// the first variable (report.Variables), else draws bars; "policy"
	// draws bars (one per run).
	X string
	// Errors are the error bars: "ci95" (95% confidence interval of the
	// mean over replicates, the default), "minmax" or "none".
	Errors string
	// Title of the figure ("" for none); LogY draws the y axis on a log
	// scale.
	Title string
	LogY  bool
	// Width and Height of the figure (default 12 cm × 8 cm); DPI the
	// resolution of raster formats (default 300).
	Width, Height vg.Length
	DPI           int
}

// Plot builds the figure of res described by opt.
func Plot(res *report.Results, opt Options) (*plot.Plot, error) {
	m, ok := report.MetricByKey(opt.Metric)
	if !ok {
		keys := make([]string, len(report.Metrics))
		for i, mm := range report.Metrics {
			keys[i] = mm.Key
		}
		return nil, fmt.Errorf("--metric: unknown metric %q (known: %s)", opt.Metric, strings.Join(keys, ", "))
	}
	switch opt.Errors {
	case "", "ci95", "minmax", "none":
	default:
		return nil, fmt.Errorf("--errors: expected ci95, minmax or none, found %q", opt.Errors)
	}
	vars := report.Variables(res)
	x := opt.X
	if x == "" {
		for _, v := range vars {
			if v == "load" {
				x = v
			}
		}
		if x == "" && len(vars) > 0 {
			x = vars[0]
		}
	} else if x == "policy" {
		x = ""
	} else if !contains(vars, x) {
		return nil, fmt.Errorf("--x %s: no policy has two runs that differ in %s (variables of these runs: %s)", x, x, listOr(vars))
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.Y.Label.Text = m.Label
	if opt.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Legend.Top = true
	p.Legend.Left = !m.Higher
	if x == "" {
		return bars(p, res, m, opt.LogY)
	}
	p.X.Label.Text = x
	lines := report.Lines(res, x)
	n := 0
	perPolicy := map[string]int{} // lines of one policy share its colour, differ in dashes and shapes
	var xs []float64              // the data's x values: the ticks
	for _, l := range lines {
		if len(l.X) < 2 {
			continue
		}
		agg := l.Points(res, m)
		pts := make(plotter.XYs, len(l.X))
		errs := make(plotter.YErrors, len(l.X))
		for k := range l.X {
			pts[k].X, pts[k].Y = l.X[k], agg[k].Mean
			switch opt.Errors {
			case "minmax":
				errs[k].Low, errs[k].High = agg[k].Mean-agg[k].Min, agg[k].Max-agg[k].Mean
			case "none":
			default:
				errs[k].Low, errs[k].High = agg[k].CI95, agg[k].CI95
			}
		}
		if opt.LogY {
			for k := range pts {
				if pts[k].Y <= 0 {
					return nil, fmt.Errorf("--log-y: %s has %s %g at %s = %g, which a logarithmic axis cannot show", l.Name, m.Key, pts[k].Y, x, pts[k].X)
				}
			}
		}
		for _, v := range l.X {
			if !slices.Contains(xs, v) {
				xs = append(xs, v)
			}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		pol := res.Runs[l.Runs[0][0]].Policy
		i := perPolicy[pol]
		perPolicy[pol]++
		c := PolicyColor(pol)
		line.Color = c
		line.Dashes = plotutil.Dashes(i)
		points.Color = c
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		if opt.Errors != "none" {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = c
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		p.Legend.Add(l.Name, line, points)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no policy has two values of %s", x)
	}
	if n > 4 { // many lines: a smaller legend, so that it stays clear of the data
		p.Legend.TextStyle.Font.Size = vg.Points(7)
	}
	p.Add(plotter.NewGrid())
	// ticks on the data's x values (a few of them: all; many: the default)
	if len(xs) <= 12 {
		slices.Sort(xs)
		ticks := make([]plot.Tick, len(xs))
		for k, v := range xs {
			ticks[k] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	// room for the legend above the data: about 7% of the height per entry
	if opt.LogY {
		if p.Y.Min > 0 && p.Y.Max > 0 {
			p.Y.Max = math.Exp(math.Log(p.Y.Max) + (math.Log(p.Y.Max)-math.Log(p.Y.Min))*0.09*float64(n))
		}
	} else {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.09 * float64(n)
	}
	return p, nil
}

// bars draws one bar per run.
func bars(p *plot.Plot, res *report.Results, m report.Metric, logY bool) (*plot.Plot, error) {
	names := make([]string, len(res.Runs))
	lo := math.Inf(1)
	for i, r := range res.Runs {
		v := m.Of(&r.Summary)
		names[i] = r.Label
		if logY && v <= 0 {
			return nil, fmt.Errorf("--log-y: run %s has %s %g, which a logarithmic axis cannot show (drop --log-y or that run)", r.Label, m.Key, v)
		}
		lo = math.Min(lo, v)
	}
	// a logarithmic axis has no 0: bars stand on a floor below the smallest
	// value (a base bar of that height, stacked on but not drawn)
	floor := 0.0
	if logY {
		floor = math.Pow(10, math.Floor(math.Log10(lo)))
	}
	for i, r := range res.Runs {
		// one bar chart per run: its policy's colour
		vals := make(plotter.Values, len(res.Runs))
		base := make(plotter.Values, len(res.Runs))
		for k := range vals {
			base[k] = floor
		}
		vals[i] = m.Of(&r.Summary) - floor
		b, err := plotter.NewBarChart(vals, vg.Points(18))
		if err != nil {
			return nil, err
		}
		if logY {
			bb, err := plotter.NewBarChart(base, vg.Points(18))
			if err != nil {
				return nil, err
			}
			b.StackOn(bb)
		}
		b.Color = PolicyColor(r.Policy)
		b.LineStyle.Width = 0
		p.Add(b)
	}
	p.NominalX(names...)
	p.Y.Min = floor
	p.Y.Max = math.Max(slicesMaxRuns(res, m)*1.05, floor*2)
	if logY {
		p.Y.Max = slicesMaxRuns(res, m) * 1.5
	}
	if len(names) > 5 {
		p.X.Tick.Label.Rotation = math.Pi / 5
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.Legend.Top = false
	return p, nil
}

// Formats are the file formats Save writes, by extension.
var Formats = []string{"png", "svg", "pdf", "eps", "jpg", "tif"}

// Write renders p as format (an extension of Formats) to w. A drawing
// failure (gonum/plot panics on some inputs) is returned as an error.
func Write(w io.Writer, p *plot.Plot, opt Options, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the figure: %v", r)
		}
	}()
	wd, ht := opt.size()
	c, err := newCanvas(format, wd, ht, opt.DPI)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// size is the figure's (or one panel's) width and height: the options',
// or 12 × 8 cm.
func (opt Options) size() (wd, ht vg.Length) {
	wd, ht = opt.Width, opt.Height
	if wd <= 0 {
		wd = 12 * vg.Centimeter
	}
	if ht <= 0 {
		ht = 8 * vg.Centimeter
	}
	return wd, ht
}

// newCanvas is a canvas of wd × ht for format: a raster image at dpi
// (default 300) for png, jpg and tif, the vector format otherwise.
func newCanvas(format string, wd, ht vg.Length, dpi int) (vg.CanvasWriterTo, error) {
	switch format {
	case "png", "jpg", "tif":
		if dpi <= 0 {
			dpi = 300
		}
		img := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(dpi))
		switch format {
		case "png":
			return vgimg.PngCanvas{Canvas: img}, nil
		case "jpg":
			return vgimg.JpegCanvas{Canvas: img}, nil
		default:
			return vgimg.TiffCanvas{Canvas: img}, nil
		}
	}
	return draw.NewFormattedCanvas(wd, ht, format)
}

// FormatOf is the format of a file name, by its extension.
func FormatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext == "jpeg" {
		ext = "jpg"
	}
	if ext == "tiff" {
		ext = "tif"
	}
	if !contains(Formats, ext) {
		return "", fmt.Errorf("%s: unknown figure format %q (known: %s)", path, ext, strings.Join(Formats, ", "))
	}
	return ext, nil
}

func slicesMaxRuns(res *report.Results, metric report.Metric) float64 {
	m := 0.0
	for _, r := range res.Runs {
		m = math.Max(m, metric.Of(&r.Summary))
	}
	if m == 0 {
		m = 1
	}
	return m
}

// PolicyColor is a policy's colour, the same as in the HTML report
// (report.PolicyColour).
func PolicyColor(policy string) color.Color {
	var c color.RGBA
	fmt.Sscanf(report.PolicyColour(policy), "#%02x%02x%02x", &c.R, &c.G, &c.B)
	c.A = 255
	return c
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func listOr(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
