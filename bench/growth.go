package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/workload/model"
)

// Growth is the set of synthetic workloads of a growth curve: time
// against the number of jobs, one workload per number of jobs and offered
// load, generated once and kept in Dir.
type Growth struct {
	Jobs     []int     // numbers of jobs, e.g. 10,000, 100,000, 1,000,000
	Loads    []float64 // offered loads, e.g. 0.7, 0.9, 0.95, 1.0
	Model    string    // workload model, e.g. lublin
	Procs    int       // machine size P
	Seed     uint64    // generator seed
	Estimate string    // runtime estimates (backfill generate --estimate)
	Dir      string    // where the workloads are kept
	// Generate writes the workload of jobs jobs at offered load as SWF;
	// nil: backfill generate with the fields above (model.WriteSWF).
	Generate func(w io.Writer, jobs int, load float64) error
}

// Check refuses a growth curve that cannot be made (errors name bench's
// flags): no job counts or loads, a count outside 1 to 10,000,000, a load
// not above 0 or infinite, a machine below 1 processor, an unknown model.
func (g *Growth) Check() error {
	if len(g.Jobs) == 0 || len(g.Loads) == 0 {
		return fmt.Errorf("--growth needs --growth-jobs and --growth-loads")
	}
	for _, n := range g.Jobs {
		if n < 1 || n > 10_000_000 {
			return fmt.Errorf("--growth-jobs %d: want 1 to 10,000,000", n)
		}
	}
	for _, l := range g.Loads {
		if !(l > 0) || math.IsInf(l, 1) {
			return fmt.Errorf("--growth-loads %g: want an offered load greater than 0", l)
		}
	}
	if g.Procs < 1 {
		return fmt.Errorf("--growth-procs %d: want at least 1", g.Procs)
	}
	if _, err := model.New(g.Model); err != nil {
		return fmt.Errorf("--growth-model: %w", err)
	}
	return nil
}

// generate writes the workload of jobs jobs at offered load (Generate).
func (g *Growth) generate(w io.Writer, jobs int, load float64) error {
	if g.Generate != nil {
		return g.Generate(w, jobs, load)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := model.WriteSWF(bw, g.Model, model.Config{Jobs: jobs, Procs: g.Procs, Seed: g.Seed, Load: load}, g.Estimate); err != nil {
		return err
	}
	return bw.Flush()
}

// DefaultGrowthDir is where growth workloads are kept by default: the
// user's cache directory, else the temporary one.
func DefaultGrowthDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "backfill", "growth")
}

// Workload is one workload of a growth curve.
type Workload struct {
	Path string
	Jobs int
	Load float64
}

// Workloads is g's workloads, by load and then number of jobs, both
// increasing (the order Plan.Skip relies on).
func (g *Growth) Workloads() []Workload {
	jobs := append([]int(nil), g.Jobs...)
	loads := append([]float64(nil), g.Loads...)
	sort.Ints(jobs)
	sort.Float64s(loads)
	var out []Workload
	for _, l := range loads {
		for _, n := range jobs {
			name := fmt.Sprintf("%s-P%d-n%d-load%s-%s-seed%d.swf", g.Model, g.Procs, n, strconv.FormatFloat(l, 'g', -1, 64),
				strings.ReplaceAll(g.Estimate, ":", "_"), g.Seed)
			out = append(out, Workload{Path: filepath.Join(g.Dir, name), Jobs: n, Load: l})
		}
	}
	return out
}

// Ensure generates the workloads that are not in Dir yet, saying so on
// log; a workload is written to a temporary file first, so that an
// interrupted generation leaves no partial workload behind. The files are
// named by their parameters: after a change to the generator, empty Dir.
func (g *Growth) Ensure(log io.Writer) error {
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		return err
	}
	for _, w := range g.Workloads() {
		if _, err := os.Stat(w.Path); err == nil {
			continue
		}
		fmt.Fprintf(log, "generating %s\n", w.Path)
		f, err := os.CreateTemp(g.Dir, ".gen-*")
		if err != nil {
			return err
		}
		err = g.generate(f, w.Jobs, w.Load)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), w.Path)
		}
		if err != nil {
			_ = os.Remove(f.Name())
			return fmt.Errorf("generating %s: %w", w.Path, err)
		}
	}
	return nil
}

// Point is one measured point of a growth curve: the simulation's CPU
// seconds Sec (its wall seconds Wall) for Jobs jobs, or, when Capped, only
// that it took longer than Sec seconds of wall time (the limit; NotRun
// when a smaller workload was already over it).
type Point struct {
	Jobs   int     `json:"jobs"`
	Sec    float64 `json:"sim_cpu_s"`
	Wall   float64 `json:"sim_s"`
	Capped bool    `json:"capped,omitempty"`
	NotRun bool    `json:"not_run,omitempty"`
}

// Curve is one policy's growth curve at one offered load. Exponent is
// the least-squares slope of log(sim CPU s) on log(jobs) over the measured
// points (NaN with fewer than two); when a larger workload was over the
// limit, AtLeast is the slope from the last measured point to the limit at
// the first capped one, a lower bound of the growth there (NaN if none).
type Curve struct {
	Policy   string  `json:"policy"`
	Load     float64 `json:"load"`
	Points   []Point `json:"points"`
	Exponent float64 `json:"-"`
	AtLeast  float64 `json:"-"`
}

// MarshalJSON writes c with exponent and at_least as numbers, or null when
// not defined.
func (c Curve) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	type plain Curve
	return json.Marshal(struct {
		plain
		Exponent *float64 `json:"exponent"`
		AtLeast  *float64 `json:"at_least"`
	}{plain(c), num(c.Exponent), num(c.AtLeast)})
}

// Curves gathers the lines of a growth run (one per workload of ws and
// policy, as Plan.Run returns them) into curves, by load and then policy
// in the order of policies.
func Curves(ws []Workload, policies []string, lines []Line) []Curve {
	byPath := map[string]Workload{}
	for _, w := range ws {
		byPath[filepath.Base(w.Path)] = w
	}
	var loads []float64
	for _, w := range ws {
		if len(loads) == 0 || loads[len(loads)-1] != w.Load {
			loads = append(loads, w.Load)
		}
	}
	var out []Curve
	for _, load := range loads {
		for _, pol := range policies {
			c := Curve{Policy: pol, Load: load}
			for _, l := range lines {
				w, ok := byPath[l.Trace]
				if !ok || w.Load != load || l.Policy == LoadOnly || l.Error != "" || !samePolicy(l, pol) {
					continue
				}
				p := Point{Jobs: w.Jobs, Sec: l.SimCPUSec, Wall: l.SimSec}
				if p.Sec <= 0 { // no CPU time measured
					p.Sec = l.SimSec
				}
				if l.LimitSec > 0 {
					p = Point{Jobs: w.Jobs, Sec: l.LimitSec, Capped: true, NotRun: l.NotRun}
				}
				c.Points = append(c.Points, p)
			}
			c.Exponent, c.AtLeast = fit(c.Points)
			out = append(out, c)
		}
	}
	return out
}

// samePolicy says whether l is a run of the policy asked as pol: a
// child's line names the policy as the scheduler does (e.g. with its
// parameters), a stopped run as asked.
func samePolicy(l Line, pol string) bool {
	return l.Asked == pol || (l.Asked == "" && l.Policy == pol)
}

// fit is the least-squares slope of log(sec) on log(jobs) over the
// measured points, and the slope from the last measured point's wall time
// to the first capped one's limit (NaN when not defined).
func fit(ps []Point) (exponent, atLeast float64) {
	exponent, atLeast = math.NaN(), math.NaN()
	var xs, ys []float64
	var last *Point
	for i := range ps {
		p := &ps[i]
		if p.Capped {
			wall := last.wall()
			if last != nil && math.IsNaN(atLeast) && p.Jobs > last.Jobs && wall > 0 {
				atLeast = math.Log(p.Sec/wall) / math.Log(float64(p.Jobs)/float64(last.Jobs))
			}
			continue
		}
		if p.Sec <= 0 || p.Jobs <= 0 {
			continue
		}
		xs, ys = append(xs, math.Log(float64(p.Jobs))), append(ys, math.Log(p.Sec))
		last = p
	}
	if len(xs) < 2 {
		return exponent, atLeast
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return exponent, atLeast
	}
	return sxy / sxx, atLeast
}

// wall is p's wall seconds (Sec when not recorded).
func (p *Point) wall() float64 {
	if p == nil {
		return 0
	}
	if p.Wall > 0 {
		return p.Wall
	}
	return p.Sec
}

// GrowthTable writes the curves as an aligned table: sim CPU s at each number
// of jobs ("> N" over the limit of N s, "(not run)" when a smaller
// workload already was), the fitted exponent and the lower bound towards
// the first capped point.
func GrowthTable(w io.Writer, jobs []int, curves []Curve) {
	jobs = append([]int(nil), jobs...)
	sort.Ints(jobs)
	header := []string{"policy", "load"}
	for _, n := range jobs {
		header = append(header, strconv.Itoa(n))
	}
	header = append(header, "exponent", "to limit ≥")
	rows := [][]string{header}
	for _, c := range curves {
		row := []string{c.Policy, strconv.FormatFloat(c.Load, 'g', -1, 64)}
		for _, n := range jobs {
			cell := ""
			for _, p := range c.Points {
				if p.Jobs != n {
					continue
				}
				switch {
				case p.NotRun:
					cell = fmt.Sprintf("> %g (not run)", p.Sec)
				case p.Capped:
					cell = fmt.Sprintf("> %g", p.Sec)
				default:
					cell = fmt.Sprintf("%.3f", p.Sec)
				}
			}
			row = append(row, cell)
		}
		row = append(row, fmtExp(c.Exponent), fmtExp(c.AtLeast))
		rows = append(rows, row)
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		fmt.Fprintln(w, align(r, widths))
	}
}

func fmtExp(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return fmt.Sprintf("%.2f", x)
}

// Apply makes p measure g's workloads: one file per workload, each at its
// own offered load (shown as Line.Offered), and a policy over the limit on
// a workload is not run on the larger ones of the same load.
func (g *Growth) Apply(p *Plan) {
	loadOf := map[string]float64{}
	p.Files = p.Files[:0]
	for _, w := range g.Workloads() {
		loadOf[w.Path] = w.Load
		p.Files = append(p.Files, w.Path)
	}
	p.Loads = []float64{0} // each workload has its load
	p.SkipKey = func(file, pol string, _ float64) string { return fmt.Sprintf("%g %s", loadOf[file], pol) }
	p.OfferedOf = func(file string, _ float64) string { return Offered(loadOf[file]) }
}

// WriteTable writes the growth table of the lines of a run of p (after
// g.Apply) under a heading that says what was measured, and returns the
// curves.
func (g *Growth) WriteTable(w io.Writer, p *Plan, lines []Line) []Curve {
	curves := Curves(g.Workloads(), p.Policies, lines)
	fmt.Fprintf(w, "\n# growth: sim CPU s against jobs (%s, P = %d, estimates %s, seed %d); exponent: least-squares slope of log(sim CPU s) on log(jobs);\n# to limit: from the last measured point's wall time to the limit (wall) at the first run stopped\n",
		g.Model, g.Procs, g.Estimate, g.Seed)
	GrowthTable(w, g.Jobs, curves)
	return curves
}
