package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/dist"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
)

// Metric is a figure of a run's summary that plots can show.
type Metric struct {
	// Key is the metric's name in JSON and on the command line, Label its
	// axis title.
	Key, Label string
	// Higher is true when a larger value is better (utilization).
	Higher bool
	// Of extracts the value from a summary.
	Of func(s *metrics.Summary) float64
}

// Metrics are the figures plots can show, by key.
var Metrics = []Metric{
	{"mean_wait", "mean wait (s)", false, func(s *metrics.Summary) float64 { return s.All.MeanWait }},
	{"median_wait", "median wait (s)", false, func(s *metrics.Summary) float64 { return s.All.MedianWait }},
	{"p90_wait", "90th percentile wait (s)", false, func(s *metrics.Summary) float64 { return s.All.P90Wait }},
	{"mean_response", "mean response (s)", false, func(s *metrics.Summary) float64 { return s.All.MeanResponse }},
	{"mean_bsld", "mean bounded slowdown", false, func(s *metrics.Summary) float64 { return s.All.MeanBSLD }},
	{"utilization", "utilization (%)", true, func(s *metrics.Summary) float64 { return 100 * s.Utilization }},
	{"short_mean_bsld", "mean bounded slowdown, short jobs", false, func(s *metrics.Summary) float64 { return s.Short.MeanBSLD }},
	{"long_mean_bsld", "mean bounded slowdown, long jobs", false, func(s *metrics.Summary) float64 { return s.Long.MeanBSLD }},
	{"killed", "killed jobs", false, func(s *metrics.Summary) float64 { return float64(s.All.Killed) }},
}

// MetricByKey returns the metric named key.
func MetricByKey(key string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// ReplicateAxis is the experiment coordinate whose runs are replicates of
// one point (averaged, with error bars), not points of their own.
const ReplicateAxis = "seed"

// Agg is a metric at one point over its replicates: the mean, the half
// width of a 95% confidence interval of the mean (Student's t with n−1
// degrees of freedom; 0 for one replicate), the smallest and largest value,
// and the number of replicates.
type Agg struct {
	Mean float64 `json:"mean"`
	CI95 float64 `json:"ci95"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// Aggregate computes the Agg of values.
func Aggregate(values []float64) Agg {
	a := Agg{N: len(values)}
	if a.N == 0 {
		return a
	}
	n := float64(a.N)
	for _, v := range values {
		a.Mean += v
	}
	a.Mean /= n
	a.Min, a.Max = slices.Min(values), slices.Max(values)
	if a.N > 1 {
		// sample standard deviation, two passes: s² = Σ(v − mean)² / (n − 1)
		ss := 0.0
		for _, v := range values {
			ss += (v - a.Mean) * (v - a.Mean)
		}
		sd := math.Sqrt(ss / (n - 1))
		t := dist.StudentTQuantile(0.975, n-1)
		a.CI95 = t * sd / math.Sqrt(n)
	}
	return a
}

// Line is one curve of a metric against an x variable: the runs of one
// policy that agree on every other parameter and coordinate.
type Line struct {
	// Name is the policy and the fixed parameters and coordinates
	// ("easy", "easy order=sjbf", "conservative trace=CTC").
	Name string `json:"name"`
	// X are the distinct x values, increasing; Runs[i] the indexes (into
	// Results.Runs) of the replicates at X[i].
	X    []float64 `json:"x"`
	Runs [][]int   `json:"runs"`
}

// Points aggregates metric m over the replicates of each point.
func (l *Line) Points(res *Results, m Metric) []Agg {
	out := make([]Agg, len(l.X))
	for i, idx := range l.Runs {
		v := make([]float64, len(idx))
		for k, r := range idx {
			v[k] = m.Of(&res.Runs[r].Summary)
		}
		out[i] = Aggregate(v)
	}
	return out
}

// Lines groups the runs into curves against the variable x: a policy
// parameter (its registered default applies to runs that do not set it)
// or an experiment coordinate (Run.Axes). Runs whose x value is not a
// number are left out. Lines are ordered by name.
func Lines(res *Results, x string) []Line {
	// coordinates with one value in every run distinguish nothing: left out
	// of the line names
	constant := map[string]bool{}
	for _, r := range res.Runs {
		for _, kv := range r.Axes {
			constant[kv.Name] = true
		}
	}
	for name := range constant {
		v0, ok0 := coord(res.Runs[0], name)
		for _, r := range res.Runs {
			if v, ok := coord(r, name); !ok || !ok0 || v != v0 {
				constant[name] = false
			}
		}
	}
	groups := map[string]map[float64][]int{}
	for i, r := range res.Runs {
		xv, ok := coord(r, x)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(xv, 64)
		if err != nil || math.IsNaN(f) {
			continue
		}
		parts := []string{r.Policy}
		for _, kv := range r.Params {
			if kv.Name != x {
				parts = append(parts, kv.Name+"="+kv.Value)
			}
		}
		for _, kv := range r.Axes {
			if kv.Name != x && kv.Name != ReplicateAxis && !constant[kv.Name] {
				parts = append(parts, kv.Name+"="+kv.Value)
			}
		}
		name := strings.Join(parts, " ")
		if groups[name] == nil {
			groups[name] = map[float64][]int{}
		}
		groups[name][f] = append(groups[name][f], i)
	}
	var lines []Line
	for name, pts := range groups {
		l := Line{Name: name}
		for x := range pts {
			l.X = append(l.X, x)
		}
		slices.Sort(l.X)
		for _, x := range l.X {
			l.Runs = append(l.Runs, pts[x])
		}
		lines = append(lines, l)
	}
	slices.SortFunc(lines, func(a, b Line) int { return cmp.Compare(a.Name, b.Name) })
	return lines
}

// coord is the value of parameter or coordinate x for run r.
func coord(r *Run, x string) (string, bool) {
	for _, kv := range r.Axes {
		if kv.Name == x {
			return kv.Value, true
		}
	}
	for _, kv := range r.Params {
		if kv.Name == x {
			return kv.Value, true
		}
	}
	for _, info := range policy.List() {
		if info.Name != r.Policy {
			continue
		}
		for _, p := range info.Params {
			if p.Name == x {
				return p.Default, true
			}
		}
	}
	return "", false
}

// Variables lists the parameters and coordinates along which some policy
// has at least two distinct numeric values, in name order: the x axes worth
// plotting. The replicate axis is not one.
func Variables(res *Results) []string {
	names := map[string]bool{}
	for _, r := range res.Runs {
		for _, kv := range r.Params {
			names[kv.Name] = true
		}
		for _, kv := range r.Axes {
			if kv.Name != ReplicateAxis {
				names[kv.Name] = true
			}
		}
	}
	var out []string
	for n := range names {
		for _, l := range Lines(res, n) {
			if len(l.X) >= 2 {
				out = append(out, n)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
