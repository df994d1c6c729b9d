package experiment

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"backfill/job"
	"backfill/workload"
	"backfill/workload/estimate"
)

// ScaleLoad changes the offered load of jobs (on procs processors) to
// target by scaling the inter-arrival times: every submit time s becomes
// first + round(f·(s − first)) with f = load/target, where load =
// Σ size·runtime / (procs · (last submit − first submit)) is the
// workload's own offered load (the formula of `backfill info`). Sizes,
// runtimes and estimates are unchanged, and so is the submission order.
// It returns the note recorded with the run.
//
// It is a variable so that another load transformation (for example one
// from package workload) can be swapped in without touching the rest of
// the workbench; any replacement must be deterministic.
var ScaleLoad = scaleInterArrivals

func scaleInterArrivals(jobs []job.Job, procs int, target float64) (string, error) {
	before := OfferedLoad(jobs, procs)
	if len(jobs) < 2 || jobs[len(jobs)-1].Submit == jobs[0].Submit {
		return "", fmt.Errorf("load scaling: all jobs are submitted at the same time, so the load cannot be changed by scaling inter-arrival times")
	}
	if before <= 0 {
		return "", fmt.Errorf("load scaling: the workload has no work (every runtime is 0)")
	}
	f := before / target
	first := jobs[0].Submit
	for i := range jobs {
		d := float64(float64(jobs[i].Submit-first) * f) // explicit conversion: no fused multiply-add
		if d > 1<<52 {
			return "", fmt.Errorf("load scaling to %g: submit times would overflow", target)
		}
		jobs[i].Submit = first + int64(math.Round(d))
	}
	after := OfferedLoad(jobs, procs)
	return fmt.Sprintf("load scaled from %.4f to %.4f (target %s): inter-arrival times multiplied by %.6f", before, after, strconv.FormatFloat(target, 'g', -1, 64), f), nil
}

// OfferedLoad is Σ size·runtime / (procs · (last submit − first submit))
// over jobs sorted by submit time; 0 when the span is 0.
func OfferedLoad(jobs []job.Job, procs int) float64 {
	if len(jobs) == 0 || procs <= 0 {
		return 0
	}
	span := jobs[len(jobs)-1].Submit - jobs[0].Submit
	if span <= 0 {
		return 0
	}
	var work float64
	for i := range jobs {
		work += float64(jobs[i].Procs) * float64(jobs[i].Runtime)
	}
	return work / (float64(procs) * float64(span))
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
		ps := ""
		for _, k := range sortedKeys(c.Params) {
			ps += ":" + k + "=" + c.Params[k]
		}
		return fmt.Sprintf("model %s%s seed %d", c.Model, ps, c.Seed)
	}
	return fmt.Sprintf("trace %s procs %d fallback %s clamp %v lenient %v", r.path, c.Procs, c.Fallback, c.Clamp, c.Lenient)
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
			e.tr, e.err = generate(c.Model, c.Params, c.Seed)
			return
		}
		e.tr, e.sum, e.err = readTrace(r.path, ingestOptions(c.Procs, c.Fallback, c.Clamp, c.Lenient))
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
	Records     int
	Jobs        []job.Job
	// Rules are the ingestion rules and the notes of each transformation.
	Rules []string
	// Skipped counts the records of the trace not turned into jobs.
	Skipped workload.Counts
	// OfferedLoad is the load of Jobs (see OfferedLoad).
	OfferedLoad float64
}

// buildWorkload applies the run's transformations to its base workload,
// in this order: month, subset, estimate model, load, priorities. The
// base is not modified.
func buildWorkload(r *Run, base *workload.Trace) (*Workload, error) {
	c := &r.Config
	w := &Workload{Name: base.Name, Procs: base.Procs, ProcsSource: base.ProcsSource, Records: base.Records,
		Rules: slices.Clone(base.Rules), Skipped: base.Skipped}
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
	if c.Load > 0 {
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
	w.OfferedLoad = OfferedLoad(w.Jobs, w.Procs)
	return w, nil
}
