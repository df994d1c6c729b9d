package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/workload"
)

// ConfigFormat is the version of the Config layout. It is part of every
// hash, so that a change in what a configuration means reruns everything.
const ConfigFormat = 1

// Config is the full configuration of one run: everything its results
// depend on, and nothing else. Its canonical JSON encoding (the field
// order below, no indentation) is hashed with SHA-256 to identify the run.
type Config struct {
	Format int `json:"format"`
	// Trace identifies the trace by file name and content; nil for a
	// generated workload.
	Trace *TraceRef `json:"trace,omitempty"`
	// Model is the canonical spec of a synthetic workload model instead
	// (package workload/model), ModelJobs the jobs it generates and Rate
	// its Poisson arrival rate (0: the model's own arrivals).
	Model     string  `json:"model,omitempty"`
	ModelJobs int     `json:"model_jobs,omitempty"`
	Rate      float64 `json:"rate,omitempty"`
	// Ingestion options (package workload).
	Procs    int    `json:"procs"` // 0 = from the trace
	Fallback string `json:"estimate_fallback"`
	Clamp    bool   `json:"clamp"`
	Lenient  bool   `json:"lenient"`
	// Memory as a second resource (WorkloadSpec.Mem); omitted when off.
	Mem        string `json:"mem,omitempty"`
	MemPerProc int64  `json:"mem_per_proc,omitempty"`
	MemMissing string `json:"mem_missing,omitempty"`
	// Transformations, applied in this order.
	Month    string `json:"month,omitempty"` // YYYY-MM
	Skip     int    `json:"skip,omitempty"`
	Jobs     int    `json:"jobs,omitempty"` // 0 = all
	Estimate string `json:"estimate"`
	// Load is the target offered load (0 = the workload's own): the
	// inter-arrival times of a trace are scaled, a model calibrates its
	// arrival process.
	Load       float64 `json:"load,omitempty"`
	Priorities string  `json:"priorities"`
	// PrioritiesSHA256 is the content hash of a priority file.
	PrioritiesSHA256 string `json:"priorities_sha256,omitempty"`
	// Deadlines is the deadline-workload spec (workload/deadline,
	// canonical form with its own seed), applied last; "" = none.
	Deadlines string `json:"deadlines,omitempty"`
	// Seed drives the random parts (estimate models, generators); 0 when
	// the run has none, so that seeds do not multiply deterministic runs.
	Seed uint64 `json:"seed"`
	// Policy is the canonical policy spec (parameters sorted by key).
	Policy string `json:"policy"`
	// Simulation and metric settings. Extend (the tick strategy) only
	// with Kill; omitted when off.
	Kill   bool  `json:"kill"`
	Extend bool  `json:"extend,omitempty"`
	Tau    int64 `json:"tau"`
	WarmUp int64 `json:"warmup"`
	Drain  int64 `json:"drain"`
}

// TraceRef identifies a trace file by its base name and the SHA-256 of
// its bytes, so that a run's identity does not depend on where the file
// lies (a cluster's shared directory and a laptop give the same hashes)
// but a changed file gives new runs.
type TraceRef struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// builtinSHA256 is the SHA-256 of the embedded KTH SP2 trace
// (workload.Builtin); a test checks it against the file.
const builtinSHA256 = "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b"

// Canonical returns the canonical JSON encoding of c.
func (c Config) Canonical() []byte {
	b, err := json.Marshal(c)
	if err != nil { // cannot happen: only plain types
		panic(err)
	}
	return b
}

// Hash returns the SHA-256 of the canonical encoding, in hex.
func (c Config) Hash() string {
	sum := sha256.Sum256(c.Canonical())
	return hex.EncodeToString(sum[:])
}

// Describe is a one-line description of the settings of c that differ
// from the defaults: the policy first, then the transformations.
func (c Config) Describe() string {
	desc := []string{c.Policy}
	if c.Model != "" {
		desc = append(desc, fmt.Sprintf("model=%s jobs=%d", c.Model, c.ModelJobs))
		if c.Rate > 0 {
			desc = append(desc, "rate="+strconv.FormatFloat(c.Rate, 'g', -1, 64))
		}
	}
	if c.Estimate != "user" {
		desc = append(desc, "estimate="+c.Estimate)
	}
	if c.Month != "" {
		desc = append(desc, "month="+c.Month)
	}
	if c.Skip > 0 || c.Jobs > 0 {
		desc = append(desc, fmt.Sprintf("subset=%d+%d", c.Skip, c.Jobs))
	}
	if c.Load > 0 {
		desc = append(desc, "load="+strconv.FormatFloat(c.Load, 'g', -1, 64))
	}
	if c.Priorities != "none" {
		desc = append(desc, "priorities="+c.Priorities)
	}
	if c.Deadlines != "" {
		desc = append(desc, "deadlines="+c.Deadlines)
	}
	if c.Procs > 0 {
		desc = append(desc, fmt.Sprintf("procs=%d", c.Procs))
	}
	if c.Seed > 0 {
		desc = append(desc, fmt.Sprintf("seed=%d", c.Seed))
	}
	if c.Mem != "" || c.MemPerProc > 0 {
		desc = append(desc, "mem")
	}
	if !c.Kill {
		desc = append(desc, "no-kill")
	}
	if c.Extend {
		desc = append(desc, "extend")
	}
	return strings.Join(desc, " ")
}

// IDLength is the number of hex digits of a run ID (the hash's prefix).
const IDLength = 16

// Run is one simulation of a sweep.
type Run struct {
	// Index is the run's position in the plan (expansion order).
	Index int `json:"index"`
	// ID is the first IDLength hex digits of Hash; it names the run's
	// directory in the results store.
	ID   string `json:"id"`
	Hash string `json:"hash"`
	// Label is the workload's label (not part of the hash).
	Label  string `json:"label"`
	Config Config `json:"config"`
	// path is where the trace lies on this machine, prio the priority
	// source with its file's path.
	path, prio string
}

// Plan is an expanded sweep: its runs in expansion order, without
// duplicates.
type Plan struct {
	Name string `json:"experiment"`
	Runs []Run  `json:"runs"`
	// Collapsed counts grid combinations identical to an earlier one (for
	// example the seeds of a run that draws nothing at random).
	Collapsed int `json:"-"`
}

// IsRandom reports whether estimate model spec draws random numbers (so
// that its runs depend on the seed).
func IsRandom(spec string) bool {
	name, _, _ := strings.Cut(spec, ":")
	return name == "factor" || name == "modal"
}

// Expand turns a Spec into its runs. The order is: workloads in file
// order; for each, procs, months, estimate, load, priorities, deadlines,
// seeds and kill in this order (the first varying slowest); then the policies in
// file order with their parameter grids. A combination whose
// configuration equals an earlier one's is dropped (counted in
// Plan.Collapsed). Traces are hashed here; "months: all" reads the trace
// to find its months.
func Expand(s *Spec) (*Plan, error) {
	plan := &Plan{Name: s.Name}
	seen := map[string]bool{}
	hashes := map[string]string{}
	var errs Errors
	for wi := range s.Workloads {
		w := &s.Workloads[wi]
		var ref *TraceRef
		if w.TracePath != "" {
			sum, ok := hashes[w.TracePath]
			if !ok {
				var err error
				if sum, err = traceSHA256(w.TracePath); err != nil {
					errs = append(errs, &Error{File: s.File, Line: w.Line, Key: fmt.Sprintf("workloads[%d].trace", wi), Msg: err.Error()})
					continue
				}
				hashes[w.TracePath] = sum
			}
			name := w.Trace
			if w.TracePath == "builtin" {
				name = workload.BuiltinName
			}
			ref = &TraceRef{File: baseName(name), SHA256: sum}
		}
		var prioHash = map[string]string{}
		for _, pr := range w.Priorities {
			if kind, f, ok := strings.Cut(pr, ":"); ok && kind != "every" {
				sum, err := traceSHA256(f)
				if err != nil {
					errs = append(errs, &Error{File: s.File, Line: w.Line, Key: fmt.Sprintf("workloads[%d].priorities", wi), Msg: err.Error()})
					continue
				}
				prioHash[pr] = sum
			}
		}
		seeds := w.Seeds
		if seeds == nil {
			seeds = s.Seeds
		}
		for _, procs := range w.Procs {
			months := w.Months
			if w.AllMonths {
				var err error
				if months, err = traceMonths(w, procs); err != nil {
					errs = append(errs, &Error{File: s.File, Line: w.Line, Key: fmt.Sprintf("workloads[%d].months", wi), Msg: err.Error()})
					continue
				}
			}
			if months == nil {
				months = []string{""}
			}
			// one variant per combination of the workload's grids, the
			// first varying slowest
			type variant struct {
				month, est, prio, dl string
				load                 float64
				seed                 uint64
				kill, extend         bool
			}
			var vs []variant
			for _, month := range months {
				for _, est := range w.Estimate {
					for _, load := range w.Load {
						for _, prio := range w.Priorities {
							for _, dl := range w.Deadlines {
								for _, seed := range seeds {
									if w.Model == "" && !IsRandom(est) {
										seed = 0 // collapses: the run draws nothing at random
									}
									for _, kill := range s.Sim.Kill {
										for _, extend := range s.Sim.Extend {
											vs = append(vs, variant{month, est, prio, dl, load, seed, kill, extend && kill})
										}
									}
								}
							}
						}
					}
				}
			}
			for _, v := range vs {
				for _, ps := range s.Policies {
					for _, spec := range ps.Specs() {
						c := Config{
							Format: ConfigFormat, Trace: ref, Model: w.Model, ModelJobs: w.ModelJobs, Rate: w.Rate,
							Procs: procs, Fallback: w.Fallback, Clamp: w.Clamp, Lenient: w.Lenient,
							Mem: w.Mem, MemPerProc: w.MemPerProc, MemMissing: w.MemMissing,
							Month: v.month, Skip: w.Skip, Jobs: w.Jobs, Estimate: v.est, Load: v.load,
							Priorities: v.prio, PrioritiesSHA256: prioHash[v.prio], Deadlines: v.dl, Seed: v.seed,
							Policy: spec, Kill: v.kill, Extend: v.extend, Tau: s.Sim.Tau, WarmUp: s.Sim.WarmUp, Drain: s.Sim.Drain,
						}
						if kind, f, ok := strings.Cut(c.Priorities, ":"); ok && kind != "every" {
							c.Priorities = kind + ":" + baseName(f) // the file's name and content, not its path
						}
						h := c.Hash()
						if seen[h] {
							plan.Collapsed++
							continue
						}
						seen[h] = true
						if len(plan.Runs) == MaxRuns {
							return nil, Errors{{File: s.File, Msg: fmt.Sprintf("the sweep has more than %d runs; split it into several experiment files", MaxRuns)}}
						}
						plan.Runs = append(plan.Runs, Run{
							Index: len(plan.Runs), ID: h[:IDLength], Hash: h, Label: w.Label,
							Config: c, path: w.TracePath, prio: v.prio,
						})
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return plan, nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func traceSHA256(path string) (string, error) {
	if path == "builtin" {
		return builtinSHA256, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// traceMonths lists the calendar months of a workload's trace.
func traceMonths(w *WorkloadSpec, procs int) ([]string, error) {
	tr, _, err := readTrace(w.TracePath, ingestOptions(&Config{Procs: procs, Fallback: w.Fallback, Clamp: w.Clamp,
		Lenient: w.Lenient, Mem: w.Mem, MemPerProc: w.MemPerProc, MemMissing: w.MemMissing}))
	if err != nil {
		return nil, err
	}
	parts, err := workload.SplitMonths(tr)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Name
	}
	return out, nil
}

func ingestOptions(c *Config) workload.Options {
	o := workload.Options{Procs: c.Procs, Estimate: "user", EstimateFallback: c.Fallback, Clamp: c.Clamp, Lenient: c.Lenient}
	if c.Mem != "" || c.MemPerProc > 0 {
		o.Mem, o.MemPerProc, o.MemMissing = true, c.MemPerProc, c.MemMissing
		if c.Mem != "auto" {
			o.MemCap, _ = strconv.ParseInt(c.Mem, 10, 64)
		}
	}
	return o
}

// readTrace reads the trace at path ("builtin" for the embedded one) and
// returns it with the SHA-256 of its bytes.
func readTrace(path string, opt workload.Options) (*workload.Trace, string, error) {
	if path == "builtin" {
		tr, err := workload.Builtin(opt)
		return tr, builtinSHA256, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	// the base name, not the path: results must not depend on where the
	// trace lies (the rules written with every run name the trace)
	tr, err := workload.Read(bytes.NewReader(b), baseName(path), opt)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return tr, hex.EncodeToString(sum[:]), nil
}
