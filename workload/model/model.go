// Package model is the interface and registry of synthetic workload models.
//
// It is the home of the synthetic workload models: a small
// interface that every model implements, a registry of models by name, and
// the helpers they share (seeded random streams, arrival processes, load
// calibration).
//
// The models live in their own packages (workload/model/lublin,
// workload/model/feitelson96, workload/model/jann97) and register
// themselves; import workload/model/all to have them all. A model is named
// by a spec "name[:key=value...]", e.g. "lublin", "lublin:classes=1" or
// "feitelson96:repeat=0"; the keys override the model's published
// parameters (see docs/workload.md).
//
// Generation is deterministic: the same spec, configuration and seed give
// the same jobs, byte for byte (on one architecture). Every random
// component draws from its own PCG stream seeded with (seed, a hash of the
// component's name), so that changing, say, the arrival process does not
// change the sizes and runtimes drawn.
package model

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/backfill-hpc/backfill/spec"
	specpkg "github.com/backfill-hpc/backfill/spec"

	"github.com/backfill-hpc/backfill/job"
)

// Config says what to generate.
type Config struct {
	// Jobs is the number of jobs (≥ 1).
	Jobs int
	// Procs is the machine size P; 0 means the model's default.
	Procs int
	// Seed seeds every random stream of the model.
	Seed uint64
	// Rate, when > 0, replaces the model's arrival process by Poisson
	// arrivals at Rate jobs per second.
	Rate float64
	// Load, when > 0, scales the arrival process so that the offered load
	// Σ size·runtime / (P · (last submit − first submit)) equals Load (see
	// Calibrate). Rate and Load are exclusive.
	Load float64
}

// Param is one parameter of a model, with where its value comes from.
type Param struct {
	// Name is the key that overrides it in a spec (model:name=value).
	Name string
	// Value is the value in force.
	Value float64
	// Doc says what it is; Source where the value comes from.
	Doc, Source string
}

// Workload is the output of a model.
type Workload struct {
	// Spec is the model's canonical spec; Procs the machine size.
	Spec  string
	Procs int
	// Seed is the seed used.
	Seed uint64
	// Jobs are in submission order with IDs 0..N−1, SWFID = ID+1, sizes in
	// [1, Procs], runtimes ≥ 0 and estimates = runtimes (at least 1 s).
	Jobs []job.Job
	// Executable, when not nil, is parallel to Jobs: the application
	// number (SWF field 14); repeated runs of one job share it.
	Executable []int32
	// Params are the parameters in force.
	Params []Param
	// Notes describe the arrival process, the calibration and every
	// adjustment, for the header of the output.
	Notes []string
	// OfferedLoad is the offered load of Jobs on Procs.
	OfferedLoad float64
}

// Model generates synthetic workloads.
type Model interface {
	// Spec is the canonical spec of the model with its overrides.
	Spec() string
	// DefaultProcs is the machine size used when Config.Procs is 0.
	DefaultProcs() int
	// Generate makes a workload.
	Generate(cfg Config) (*Workload, error)
}

// Factory builds a model from the key=value arguments of its spec.
type Factory func(args map[string]string) (Model, error)

// Info describes a registered model.
type Info struct {
	Name, Doc string
	New       Factory
}

var registry []Info

// Register adds a model; it panics on a duplicate name (a programming
// error, found at init).
func Register(name, doc string, f Factory) {
	for _, r := range registry {
		if r.Name == name {
			panic("model: duplicate model " + name)
		}
	}
	registry = append(registry, Info{Name: name, Doc: doc, New: f})
	sort.Slice(registry, func(i, j int) bool { return registry[i].Name < registry[j].Name })
}

// List returns the registered models by name.
func List() []Info { return append([]Info(nil), registry...) }

// New builds the model named by spec ("name[:key=value...]").
func New(spec string) (Model, error) {
	name, args, err := specpkg.Parse("model", spec)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range registry {
		if r.Name == name {
			return r.New(args)
		}
		names = append(names, r.Name)
	}
	return nil, fmt.Errorf("unknown workload model %q (models: %s)", name, strings.Join(names, ", "))
}

// Override is one overridable parameter: a spec key and where to store it.
type Override struct {
	Key string
	Ptr *float64
	// Min and Max bound the accepted values (inclusive).
	Min, Max float64
}

// ApplyOverrides sets the parameters named in args, checking bounds; an
// unknown key is an error listing the known ones. It returns the keys set,
// sorted, for the canonical spec.
func ApplyOverrides(model string, args map[string]string, table []Override) ([]string, error) {
	var set []string
	for k, v := range args {
		var o *Override
		for i := range table {
			if table[i].Key == k {
				o = &table[i]
			}
		}
		if o == nil {
			var keys []string
			for _, t := range table {
				keys = append(keys, t.Key)
			}
			return nil, fmt.Errorf("model %s has no parameter %q (parameters: %s)", model, k, strings.Join(keys, ", "))
		}
		x, err := spec.Float(k, v, o.Min, o.Max)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", model, err)
		}
		*o.Ptr = x
		set = append(set, k)
	}
	sort.Strings(set)
	return set, nil
}

// CanonicalSpec joins a model name and its overrides (sorted keys).
func CanonicalSpec(name string, keys []string, args map[string]string) string {
	s := name
	for _, k := range keys {
		s += ":" + k + "=" + args[k]
	}
	return s
}

// Stream returns the random source of component name for seed: a PCG
// stream seeded with (seed, FNV-1a hash of name). It is a rand.Source, so
// it serves both math/rand/v2 and package dist's samplers.
func Stream(seed uint64, name string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.NewPCG(seed, h.Sum64())
}

// MaxJobs is the largest workload a model generates in one call: ten
// million jobs, a few GB of memory (the largest archive logs hold about
// five million), so that a mistyped count is an error, not a process killed
// for lack of memory.
const MaxJobs = 10_000_000

// CheckConfig validates cfg and fills in the model's default P.
func CheckConfig(cfg *Config, defaultProcs int) error {
	switch {
	case cfg.Jobs < 1 || cfg.Jobs > MaxJobs:
		return fmt.Errorf("number of jobs must be from 1 to %d, got %d", MaxJobs, cfg.Jobs)
	case cfg.Procs < 0 || cfg.Procs > math.MaxInt32:
		return fmt.Errorf("machine size must be from 1 to %d, got %d", math.MaxInt32, cfg.Procs)
	case cfg.Rate < 0 || math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0):
		return fmt.Errorf("arrival rate must be a positive number of jobs per second, got %g", cfg.Rate)
	case cfg.Load < 0 || math.IsNaN(cfg.Load) || math.IsInf(cfg.Load, 0) || cfg.Load > 1000:
		return fmt.Errorf("offered load must be in (0, 1000], got %g", cfg.Load)
	case cfg.Rate > 0 && cfg.Load > 0:
		return fmt.Errorf("give an arrival rate or a target load, not both")
	}
	if cfg.Procs == 0 {
		cfg.Procs = defaultProcs
	}
	return nil
}

// OfferedLoad is Σ size·runtime / (P · (last submit − first submit)) of
// jobs sorted by submit time; 0 when the span is 0.
func OfferedLoad(jobs []job.Job, procs int) float64 {
	if len(jobs) < 2 || procs <= 0 {
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

// Finish puts jobs in submission order (stable: ties keep generation
// order), numbers them (ID 0..N−1, SWFID = ID+1), sets every estimate to
// the runtime (at least 1 s) and permutes exec (when not nil) alike.
func Finish(jobs []job.Job, exec []int32) {
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return jobs[idx[a]].Submit < jobs[idx[b]].Submit })
	sorted := make([]job.Job, len(jobs))
	var ex []int32
	if exec != nil {
		ex = make([]int32, len(exec))
	}
	for i, k := range idx {
		sorted[i] = jobs[k]
		if exec != nil {
			ex[i] = exec[k]
		}
	}
	copy(jobs, sorted)
	if exec != nil {
		copy(exec, ex)
	}
	for i := range jobs {
		j := &jobs[i]
		j.ID = i
		j.SWFID = int64(i) + 1
		j.Estimate = max(j.Runtime, 1)
		j.Line = 0
	}
}

// PoissonTimes returns n arrival times of a Poisson process of the given
// rate (jobs per second) starting at 0: the first arrival is at 0 and the
// gaps are exponential with mean 1/rate (dist.Exponential, drawn
// from src), rounded down to whole seconds at the end.
func PoissonTimes(n int, rate float64, src rand.Source) []int64 {
	out := make([]int64, n)
	e := newExp(rate, src)
	t := 0.0
	for i := range out {
		if i > 0 {
			t += e.Rand()
		}
		out[i] = int64(math.Floor(t))
	}
	return out
}

// Calibrate finds the time-scale factor k at which the workload gen(k)
// has offered load target (within 0.1 % when it can), for workloads whose
// span grows about linearly with k (the load falls as k grows). gen must
// be deterministic in k. It starts at k = 1 and repeats
// k ← k · load(k) / target; once a k below and a k above the target are
// known, a step leaving that bracket is replaced by the geometric midpoint
// (bisection). At most 60 rounds; the closest result is kept. It returns
// the jobs, k and the load reached.
func Calibrate(target float64, procs int, gen func(k float64) ([]job.Job, error)) ([]job.Job, float64, float64, error) {
	k := 1.0
	var best []job.Job
	bestK, bestL := 0.0, 0.0
	lo, hi := 0.0, 0.0 // k with a load above the target, below it
	for it := 0; it < 60; it++ {
		jobs, err := gen(k)
		if err != nil {
			return nil, 0, 0, err
		}
		l := OfferedLoad(jobs, procs)
		if best == nil || math.Abs(l/target-1) < math.Abs(bestL/target-1) {
			best, bestK, bestL = jobs, k, l
		}
		if l <= 0 {
			return nil, 0, 0, fmt.Errorf("cannot calibrate the load: the workload has no span or no work")
		}
		if math.Abs(l/target-1) < 0.001 {
			break
		}
		if l > target {
			lo = k
		} else {
			hi = k
		}
		next := k * l / target
		if lo > 0 && hi > 0 && lo < hi && (next <= lo || next >= hi) {
			next = math.Sqrt(lo * hi)
		}
		k = next
	}
	return best, bestK, bestL, nil
}

// IsPow2 reports whether n is a power of two (1 included).
func IsPow2(n int) bool { return n > 0 && n&(n-1) == 0 }
