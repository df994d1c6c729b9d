package slurm

import (
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figureDir is the recording the figures show.
const figureDir = "testdata/record2"

// TestRecordingFigures writes docs/img/slurm-starts.png (our start of
// every job against Slurm's, fair-share on and off) and
// docs/img/slurm-priorities.png (our priority against sprio's) when
// BACKFILL_WRITE_FIGURES=1, from the recording with slurmctld's events
// (figureDir).
func TestRecordingFigures(t *testing.T) {
	if os.Getenv("BACKFILL_WRITE_FIGURES") != "1" {
		t.Skip("BACKFILL_WRITE_FIGURES=1 writes the figures")
	}
	colors := map[string]color.Color{"fs": color.RGBA{R: 200, G: 60, B: 40, A: 255}, "nofs": color.RGBA{R: 40, G: 90, B: 200, A: 255}}
	starts := plot.New()
	starts.Title.Text = "slurm policy vs real slurmctld 22.05: job starts"
	starts.X.Label.Text = "Slurm's start (min after slurmctld start)"
	starts.Y.Label.Text = "our start (min)"
	prios := plot.New()
	prios.Title.Text = "multifactor priority vs sprio (Slurm's schedule replayed)"
	prios.X.Label.Text = "sprio priority"
	prios.Y.Label.Text = "our priority"
	var maxT float64
	for _, name := range []string{"fs", "nofs"} {
		r, c := runRecording(t, figureDir, name, RecordingEndLag, true)
		pts := make(plotter.XYs, len(c.Ours))
		for i := range c.Ours {
			pts[i].X = float64(c.Real[i]-r.CtldStart) / 60
			pts[i].Y = float64(c.Ours[i]-r.CtldStart) / 60
			maxT = max(maxT, pts[i].X, pts[i].Y)
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			t.Fatal(err)
		}
		sc.GlyphStyle.Color = colors[name]
		sc.GlyphStyle.Radius = vg.Points(2)
		if name == "nofs" {
			sc.GlyphStyle.Shape = draw.CrossGlyph{}
		}
		label := map[string]string{"fs": "fair-share on", "nofs": "fair-share off"}[name]
		starts.Add(sc)
		starts.Legend.Add(label, sc)
		pc, err := r.ComparePriorities(figureDir)
		if err != nil {
			t.Fatal(err)
		}
		pp := make(plotter.XYs, len(pc.Ours))
		for i := range pc.Ours {
			pp[i].X, pp[i].Y = float64(pc.Theirs[i]), float64(pc.Ours[i])
		}
		ps, err := plotter.NewScatter(pp)
		if err != nil {
			t.Fatal(err)
		}
		ps.GlyphStyle.Color = colors[name]
		ps.GlyphStyle.Radius = vg.Points(1.5)
		prios.Add(ps)
		prios.Legend.Add(label, ps)
	}
	// the diagonal and the tolerance band (bf_interval + 5 s = 25 s)
	for _, off := range []float64{0, -25.0 / 60, 25.0 / 60} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: off}, {X: maxT, Y: maxT + off}})
		if err != nil {
			t.Fatal(err)
		}
		l.Color = color.Gray{Y: 120}
		if off != 0 {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		starts.Add(l)
	}
	starts.Legend.Top, starts.Legend.Left = true, true
	prios.Legend.Top, prios.Legend.Left = true, true
	dir := filepath.Join("..", "..", "docs", "img")
	if err := starts.Save(6*vg.Inch, 5*vg.Inch, filepath.Join(dir, "slurm-starts.png")); err != nil {
		t.Fatal(err)
	}
	if err := prios.Save(6*vg.Inch, 5*vg.Inch, filepath.Join(dir, "slurm-priorities.png")); err != nil {
		t.Fatal(err)
	}
}
