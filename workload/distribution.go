package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/flatcsv"
)

// SizeBin is one bin of the size histogram: sizes in [Lo, Hi].
type SizeBin struct {
	Lo, Hi int
	Jobs   int
}

// Distribution summarizes the distributions of a workload, for comparing
// models with traces ("backfill info", "--compare").
type Distribution struct {
	// Name is the trace name; Jobs the number of jobs; Procs P.
	Name  string
	Jobs  int
	Procs int
	// Sizes is the histogram of sizes by power of two: 1, 2, 3–4, 5–8, …
	// up to the bin holding P.
	Sizes []SizeBin
	// Serial and Pow2 are the fractions of serial jobs and of jobs whose
	// size is a power of two (serial included); MeanSize the mean size.
	Serial, Pow2, MeanSize float64
	// RuntimeQ are the runtime quantiles at RuntimeQuantiles (seconds,
	// nearest rank); MeanRuntime the mean and RuntimeCV the coefficient
	// of variation.
	RuntimeQ               []int64
	MeanRuntime, RuntimeCV float64
	// MeanGap, GapCV and MedianGap describe the inter-arrival times.
	MeanGap, GapCV float64
	MedianGap      int64
	// Corr is the correlation of log size and log(runtime+1) (the
	// size–runtime correlation of the models).
	Corr float64
	// Load is the offered load (as Summarize).
	Load float64
}

// RuntimeQuantiles are the quantiles reported by Distribution.
var RuntimeQuantiles = []float64{0.10, 0.25, 0.50, 0.75, 0.90, 0.99}

// Distribute computes the Distribution of tr.
func Distribute(tr *Trace) Distribution {
	d := Distribution{Name: tr.Name, Jobs: len(tr.Jobs), Procs: tr.Procs, Load: Summarize(tr).OfferedLoad}
	d.Sizes = append(d.Sizes, SizeBin{Lo: 1, Hi: 1})
	for hi := 2; hi/2 < tr.Procs; hi *= 2 { // bins 1, 2, 3-4, 5-8, ... up to the one holding P
		d.Sizes = append(d.Sizes, SizeBin{Lo: hi/2 + 1, Hi: hi})
	}
	if len(tr.Jobs) == 0 {
		return d
	}
	runs := make([]int64, len(tr.Jobs))
	var sizeSum, runSum, run2 float64
	var sx, sy, sxx, syy, sxy float64
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		for b := range d.Sizes {
			if j.Procs >= d.Sizes[b].Lo && j.Procs <= d.Sizes[b].Hi {
				d.Sizes[b].Jobs++
			}
		}
		if j.Procs == 1 {
			d.Serial++
		}
		if j.Procs&(j.Procs-1) == 0 {
			d.Pow2++
		}
		sizeSum += float64(j.Procs)
		r := float64(j.Runtime)
		runs[i] = j.Runtime
		runSum += r
		run2 += r * r
		x, y := math.Log(float64(j.Procs)), math.Log(r+1)
		sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
	}
	n := float64(len(tr.Jobs))
	d.Serial /= n
	d.Pow2 /= n
	d.MeanSize = sizeSum / n
	d.MeanRuntime = runSum / n
	if d.MeanRuntime > 0 {
		d.RuntimeCV = math.Sqrt(math.Max(0, run2/n-d.MeanRuntime*d.MeanRuntime)) / d.MeanRuntime
	}
	if den := math.Sqrt((n*sxx - sx*sx) * (n*syy - sy*sy)); den > 0 {
		d.Corr = (n*sxy - sx*sy) / den
	}
	slices.Sort(runs)
	for _, q := range RuntimeQuantiles {
		d.RuntimeQ = append(d.RuntimeQ, runs[rank(q, len(runs))])
	}
	if len(tr.Jobs) > 1 {
		gaps := make([]int64, len(tr.Jobs)-1)
		var g1, g2 float64
		for i := 1; i < len(tr.Jobs); i++ {
			g := tr.Jobs[i].Submit - tr.Jobs[i-1].Submit
			gaps[i-1] = g
			g1 += float64(g)
			g2 += float64(g) * float64(g)
		}
		m := float64(len(gaps))
		d.MeanGap = g1 / m
		if d.MeanGap > 0 {
			d.GapCV = math.Sqrt(math.Max(0, g2/m-d.MeanGap*d.MeanGap)) / d.MeanGap
		}
		slices.Sort(gaps)
		d.MedianGap = gaps[rank(0.5, len(gaps))]
	}
	return d
}

// rank is the nearest-rank index of quantile q among n sorted values.
func rank(q float64, n int) int {
	k := int(math.Ceil(q*float64(n))) - 1
	return max(0, min(n-1, k))
}

// WriteDistributions prints the distributions side by side, one column
// per workload (a model next to a real trace with --compare). Size bins
// beyond a workload's machine are blank.
func WriteDistributions(w io.Writer, ds []Distribution) error {
	var b strings.Builder
	const lw = 24
	row := func(label string, cells []string) {
		fmt.Fprintf(&b, "%-*s", lw, label)
		for _, c := range cells {
			fmt.Fprintf(&b, " %14s", c)
		}
		b.WriteByte('\n')
	}
	cells := func(f func(d Distribution) string) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = f(d)
		}
		return out
	}
	pc := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	b.WriteString("distribution\n")
	if len(ds) > 1 {
		row("", cells(func(d Distribution) string { return short(d.Name, 14) }))
	}
	row("jobs", cells(func(d Distribution) string { return strconv.Itoa(d.Jobs) }))
	row("machine size P", cells(func(d Distribution) string { return strconv.Itoa(d.Procs) }))
	row("offered load", cells(func(d Distribution) string { return strconv.FormatFloat(d.Load, 'f', 3, 64) }))
	row("serial jobs", cells(func(d Distribution) string { return pc(d.Serial) }))
	row("power-of-two sizes", cells(func(d Distribution) string { return pc(d.Pow2) }))
	row("mean size", cells(func(d Distribution) string { return strconv.FormatFloat(d.MeanSize, 'f', 1, 64) }))
	nb := 0
	for _, d := range ds {
		nb = max(nb, len(d.Sizes))
	}
	for k := 0; k < nb; k++ {
		var label string
		for _, d := range ds {
			if k < len(d.Sizes) {
				s := d.Sizes[k]
				label = "  size " + strconv.Itoa(s.Lo)
				if s.Hi != s.Lo {
					label += "-" + strconv.Itoa(s.Hi)
				}
			}
		}
		row(label, cells(func(d Distribution) string {
			if k >= len(d.Sizes) || d.Jobs == 0 {
				return ""
			}
			return pc(float64(d.Sizes[k].Jobs) / float64(d.Jobs))
		}))
	}
	for qi, q := range RuntimeQuantiles {
		row(fmt.Sprintf("runtime p%g (s)", 100*q), cells(func(d Distribution) string {
			if qi >= len(d.RuntimeQ) {
				return ""
			}
			return strconv.FormatInt(d.RuntimeQ[qi], 10)
		}))
	}
	row("runtime mean (s)", cells(func(d Distribution) string { return strconv.FormatFloat(d.MeanRuntime, 'f', 0, 64) }))
	row("runtime CV", cells(func(d Distribution) string { return strconv.FormatFloat(d.RuntimeCV, 'f', 2, 64) }))
	row("corr(log size, log run)", cells(func(d Distribution) string { return strconv.FormatFloat(d.Corr, 'f', 3, 64) }))
	row("inter-arrival mean (s)", cells(func(d Distribution) string { return strconv.FormatFloat(d.MeanGap, 'f', 1, 64) }))
	row("inter-arrival median (s)", cells(func(d Distribution) string { return strconv.FormatInt(d.MedianGap, 10) }))
	row("inter-arrival CV", cells(func(d Distribution) string { return strconv.FormatFloat(d.GapCV, 'f', 2, 64) }))
	_, err := io.WriteString(w, b.String())
	return err
}

func short(s string, n int) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	for _, ext := range []string{".gz", ".swf"} {
		s = strings.TrimSuffix(s, ext)
	}
	if len(s) > n {
		s = s[:n]
	}
	return s
}

// WriteInfo writes what `backfill info` prints of trace tr, beside the
// distributions of the traces of compare: in format table, the summary
// (Summarize), a blank line and the distributions side by side; in json,
// one object of the tool's version, the summary and the distributions;
// in csv, that object flattened to key,value rows (nested keys dotted).
func WriteInfo(w io.Writer, format, version string, tr *Trace, compare []*Trace) error {
	sum := Summarize(tr)
	ds := []Distribution{Distribute(tr)}
	for _, c := range compare {
		ds = append(ds, Distribute(c))
	}
	out := struct {
		Version       string         `json:"version"`
		Summary       Info           `json:"summary"`
		Distributions []Distribution `json:"distributions"`
	}{version, sum, ds}
	switch format {
	case "json":
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "csv":
		return flatcsv.Write(w, out)
	}
	if err := sum.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return WriteDistributions(w, ds)
}
