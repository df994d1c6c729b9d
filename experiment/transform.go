package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
	deadlinewl "github.com/backfill-hpc/backfill/workload/deadline"
	"github.com/backfill-hpc/backfill/workload/estimate"
	"github.com/backfill-hpc/backfill/workload/model"
)

// ScaleLoad changes the offered load of jobs (on procs processors) to
// target by scaling the inter-arrival times (workload.ScaleArrivals, the
// transformation of `backfill simulate --load`): every submit time s
// becomes first + round(c·(s − first)) with c = load/target, where load =
// Σ size·runtime / (procs · (last submit − first submit)) is the
// workload's own offered load. Sizes, runtimes and estimates are
// unchanged, and so is the submission order. It returns the note recorded
// with the run.
//
// It is a variable so that another load transformation can be swapped in
// without touching the rest of the workbench; any replacement must be
// deterministic.
var ScaleLoad = scaleInterArrivals

func scaleInterArrivals(jobs []job.Job, procs int, target float64) (string, error) {
	before := model.OfferedLoad(jobs, procs)
	if before <= 0 {
		return "", fmt.Errorf("load scaling: the offered load is 0 (all jobs submitted at once, or no work), so it cannot be changed by scaling inter-arrival times")
	}
	c := before / target
	if span := float64(jobs[len(jobs)-1].Submit - jobs[0].Submit); span*c > 1<<52 {
		return "", fmt.Errorf("load scaling to %g: submit times would overflow", target)
	}
	workload.ScaleArrivals(jobs, c)
	after := model.OfferedLoad(jobs, procs)
	return fmt.Sprintf("load scaled: inter-arrival times multiplied by %.6g (offered load %.4f -> %.4f, target %s); sizes and runtimes unchanged", c, before, after, strconv.FormatFloat(target, 'g', -1, 64)), nil
}

// traceCache shares the traces read by the runs of one Execute call. An
// entry is dropped when the last run that needs it has copied its jobs.
type traceCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	tr   *workload.Trace
	sum  string
	err  error
	refs int
}

// cacheKey identifies the base workload of a run: the trace read with the
// ingestion options, or the generator with its parameters and seed.
func cacheKey(r *Run) string {
	c := &r.Config
	if c.Model != "" {
		return fmt.Sprintf("model %s jobs %d procs %d seed %d rate %g load %g", c.Model, c.ModelJobs, c.Procs, c.Seed, c.Rate, c.Load)
	}
	return fmt.Sprintf("trace %s procs %d fallback %s clamp %v lenient %v mem %s %d %s", r.path, c.Procs, c.Fallback, c.Clamp, c.Lenient, c.Mem, c.MemPerProc, c.MemMissing)
}

func newTraceCache(runs []Run) *traceCache {
	tc := &traceCache{entries: map[string]*cacheEntry{}}
	for i := range runs {
		k := cacheKey(&runs[i])
		e := tc.entries[k]
		if e == nil {
			e = &cacheEntry{}
			tc.entries[k] = e
		}
		e.refs++
	}
	return tc
}

// get returns the base workload of r (shared: callers copy the jobs) and
// a release function to call once the jobs are copied.
func (tc *traceCache) get(r *Run) (*workload.Trace, func(), error) {
	k := cacheKey(r)
	tc.mu.Lock()
	e := tc.entries[k]
	if e == nil { // not counted in advance: keep it for this call only
		e = &cacheEntry{refs: 1}
	}
	tc.mu.Unlock()
	e.once.Do(func() {
		c := &r.Config
		if c.Model != "" {
			e.tr, e.err = generate(c)
			return
		}
		e.tr, e.sum, e.err = readTrace(r.path, ingestOptions(c))
		if e.err == nil && c.Trace != nil && e.sum != c.Trace.SHA256 {
			e.err = fmt.Errorf("%s changed since the sweep was expanded (its SHA-256 is %s, expected %s)", r.path, e.sum, c.Trace.SHA256)
		}
	})
	release := func() {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		e.refs--
		if e.refs <= 0 && tc.entries[k] == e {
			delete(tc.entries, k)
		}
	}
	return e.tr, release, e.err
}

// Workload is the workload of one run, after every transformation.
type Workload struct {
	Name        string
	Procs       int
	ProcsSource string
	// Caps is the capacity vector [Procs] or [Procs, memory KB], ResCaps
	// the capacities beyond the processors (nil without memory).
	Caps, ResCaps []int
	// MemCap is the machine's memory in KB (0 without memory).
	MemCap  int64
	Records int
	Jobs    []job.Job
	// Rules are the ingestion rules and the notes of each transformation.
	Rules []string
	// Skipped counts the records of the trace not turned into jobs.
	Skipped workload.Counts
	// OfferedLoad is the load of Jobs (see OfferedLoad).
	OfferedLoad float64
}

// buildWorkload applies the run's transformations to its base workload,
// in this order: month, subset, estimate model, load, priorities,
// deadline workload. The base is not modified.
func buildWorkload(r *Run, base *workload.Trace) (*Workload, error) {
	c := &r.Config
	w := &Workload{Name: base.Name, Procs: base.Procs, ProcsSource: base.ProcsSource, Records: base.Records,
		Rules: slices.Clone(base.Rules), Skipped: base.Skipped, Caps: base.Caps(), ResCaps: base.ResCaps(), MemCap: base.MemCap}
	if c.Trace != nil {
		w.Name = c.Trace.File
	}
	jobs := base.Jobs
	if c.Month != "" {
		parts, err := workload.SplitMonths(base)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(parts, func(p workload.Part) bool { return p.Name == c.Month })
		if i < 0 {
			return nil, fmt.Errorf("month %s: the trace has no jobs submitted in it", c.Month)
		}
		jobs = parts[i].Jobs
		w.Rules = append(w.Rules, fmt.Sprintf("month %s: %d jobs submitted in it (trace time zone)", c.Month, len(jobs)))
	}
	if c.Skip > 0 || c.Jobs > 0 {
		lo := min(c.Skip, len(jobs))
		hi := len(jobs)
		if c.Jobs > 0 {
			hi = min(lo+c.Jobs, hi)
		}
		w.Rules = append(w.Rules, fmt.Sprintf("subset: jobs %d to %d of %d in submission order", lo+1, hi, len(jobs)))
		jobs = jobs[lo:hi]
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("the workload has no jobs after selection")
	}
	w.Jobs = slices.Clone(jobs)
	for i := range w.Jobs {
		w.Jobs[i].ID = i
	}
	if c.Estimate != "user" {
		notes, err := estimate.Apply(w.Jobs, c.Estimate, c.Seed)
		if err != nil {
			return nil, err
		}
		w.Rules = append(w.Rules, notes...)
	}
	if c.Load > 0 && c.Model == "" { // a model calibrated its arrivals to the load
		note, err := ScaleLoad(w.Jobs, w.Procs, c.Load)
		if err != nil {
			return nil, err
		}
		w.Rules = append(w.Rules, note)
	}
	if c.Priorities != "none" {
		if err := workload.ApplyPriorities(w.Jobs, r.prio); err != nil {
			return nil, err
		}
		w.Rules = append(w.Rules, "priorities: "+c.Priorities)
	}
	if c.Deadlines != "" {
		sp, err := deadlinewl.ParseSpec(c.Deadlines)
		if err != nil {
			return nil, err
		}
		b, err := deadlinewl.Build(w.Jobs, w.Procs, sp, simulate.EASYResponses)
		if err != nil {
			return nil, fmt.Errorf("deadlines: %w", err)
		}
		w.Jobs = b.Jobs
		w.Rules = append(w.Rules, b.Notes...)
	}
	w.OfferedLoad = model.OfferedLoad(w.Jobs, w.Procs)
	return w, nil
}

// generate builds the workload of a model run: c.ModelJobs jobs of model
// c.Model on c.Procs processors (0: the model's default) with c.Seed,
// arrivals at c.Rate or calibrated to c.Load. Estimates are the runtimes
// (the models generate no user estimates); an estimate model changes them.
func generate(c *Config) (*workload.Trace, error) {
	m, err := model.New(c.Model)
	if err != nil {
		return nil, err
	}
	g, err := m.Generate(model.Config{Jobs: c.ModelJobs, Procs: c.Procs, Seed: c.Seed, Rate: c.Rate, Load: c.Load})
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", c.Model, err)
	}
	tr := &workload.Trace{Name: g.Spec, Procs: g.Procs, ProcsSource: "model " + g.Spec, Records: len(g.Jobs), Jobs: g.Jobs}
	tr.Rules = append(tr.Rules, fmt.Sprintf("model: %s, %d jobs on %d processors, seed %d (estimates = runtimes)", g.Spec, len(g.Jobs), g.Procs, g.Seed))
	for _, p := range g.Params {
		tr.Rules = append(tr.Rules, fmt.Sprintf("model parameter %s = %g (%s)", p.Name, p.Value, p.Source))
	}
	tr.Rules = append(tr.Rules, g.Notes...)
	return tr, nil
}
