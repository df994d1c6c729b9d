// Package figure draws static figures of results for papers with gonum/plot:
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
		return bars(p, res, m)
	}
	p.X.Label.Text = x
	lines := report.Lines(res, x)
	n := 0
	for i, l := range lines {
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
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i / 7)
		points.Color = plotutil.Color(i)
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
			eb.Color = plotutil.Color(i)
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		p.Legend.Add(l.Name, line, points)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no policy has two values of %s", x)
	}
	p.Add(plotter.NewGrid())
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
func bars(p *plot.Plot, res *report.Results, m report.Metric) (*plot.Plot, error) {
	vals := make(plotter.Values, len(res.Runs))
	names := make([]string, len(res.Runs))
	for i, r := range res.Runs {
		vals[i] = m.Of(&r.Summary)
		names[i] = r.Label
	}
	b, err := plotter.NewBarChart(vals, vg.Points(18))
	if err != nil {
		return nil, err
	}
	b.Color = color.RGBA{R: 78, G: 121, B: 167, A: 255}
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalX(names...)
	p.Y.Min = 0
	p.Y.Max = slicesMax(vals) * 1.05
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

// Write renders p as format (an extension of Formats) to w.
func Write(w io.Writer, p *plot.Plot, opt Options, format string) error {
	wd, ht := opt.Width, opt.Height
	if wd <= 0 {
		wd = 12 * vg.Centimeter
	}
	if ht <= 0 {
		ht = 8 * vg.Centimeter
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png", "jpg", "tif":
		dpi := opt.DPI
		if dpi <= 0 {
			dpi = 300
		}
		img := vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(dpi))
		switch format {
		case "png":
			c = vgimg.PngCanvas{Canvas: img}
		case "jpg":
			c = vgimg.JpegCanvas{Canvas: img}
		default:
			c = vgimg.TiffCanvas{Canvas: img}
		}
	default:
		wt, err := p.WriterTo(wd, ht, format)
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	}
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
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

func slicesMax(v plotter.Values) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	if m == 0 {
		m = 1
	}
	return m
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
