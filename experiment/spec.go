// Package experiment runs sweeps of simulations described in YAML files.
//
// It is the experiment workbench: a sweep described in a
// YAML file (workloads × transformations × policies × parameter grids ×
// seeds) is parsed with strict validation (Parse), expanded into runs each
// identified by a hash of its full configuration (Expand), partitioned
// into shards for array jobs (Shard), executed by a bounded worker pool
// that skips finished runs (Execute), and stored in a results directory of
// per-run JSON and Parquet files that Collect merges into summary tables.
// docs/workbench.md describes the file format and the results store.
package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // every registered policy can be swept
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
	deadlinewl "github.com/backfill-hpc/backfill/workload/deadline"
	"github.com/backfill-hpc/backfill/workload/estimate"
	"github.com/backfill-hpc/backfill/workload/model"
	_ "github.com/backfill-hpc/backfill/workload/model/all" // every registered workload model can be swept
)

// Spec is a parsed, validated experiment file.
type Spec struct {
	// Name names the experiment (default: the file's name without its
	// extension).
	Name string
	// Description is free text.
	Description string
	// File is the path of the YAML file, Dir its directory (the base of
	// relative paths) and Source its bytes.
	File, Dir string
	Source    []byte
	// Out is the results directory named in the file ("" when absent),
	// resolved against Dir.
	Out string
	// TracesDir is the directory that relative trace paths are resolved
	// against (the file's "traces" key, resolved against Dir; Dir when
	// absent).
	TracesDir string
	// Seeds are the default seeds of the random parts of a run (estimate
	// models, generators): "seeds" or "replications: N" (1..N); [1] by
	// default.
	Seeds []uint64
	// Sim holds the simulation settings.
	Sim SimSpec
	// Workloads and Policies in file order.
	Workloads []WorkloadSpec
	Policies  []PolicySpec
}

// SimSpec holds the simulation settings of a sweep.
type SimSpec struct {
	// Kill is a grid: true kills jobs at their estimate (the default, as
	// in the papers), false lets them run on (--no-kill).
	Kill []bool
	// Extend is a grid: true offers jobs still running at their estimate
	// an extension (the tick strategy of Talby & Feitelson §4.7, for
	// policies that implement it; simulate --overrun extend). Only with
	// kill.
	Extend []bool
	// Tau is the bounded-slowdown threshold; WarmUp and Drain exclude
	// jobs from the averages (docs/metrics.md). Seconds.
	Tau, WarmUp, Drain int64
	// Audit checks every schedule with package audit (default true). It
	// does not change results, so it is not part of a run's hash.
	Audit bool
}

// WorkloadSpec is one entry of "workloads": a trace (or a generator
// model) and the grids of its transformations.
type WorkloadSpec struct {
	// Line is the entry's line in the file.
	Line int
	// Label names the workload in results (default: the trace's name up
	// to its first '.', or the model name).
	Label string
	// Trace is the trace as written; TracePath where it resolves to
	// ("builtin" for the embedded KTH SP2 trace).
	Trace, TracePath string
	// Model is the spec of a synthetic workload model instead of a trace
	// (package workload/model, canonical form), ModelJobs the number of
	// jobs it generates and Rate, when > 0, Poisson arrivals at that many
	// jobs per second instead of the model's own arrival process.
	Model     string
	ModelJobs int
	Rate      float64
	// Procs is the machine-size grid (0 = from the trace).
	Procs []int
	// Estimate is the grid of estimate models (package workload/estimate).
	Estimate []string
	// Fallback is the estimate of jobs without one ("runtime" or "max").
	Fallback string
	// Clamp and Lenient are the ingestion options of the same names.
	Clamp, Lenient bool
	// Mem schedules memory as a second resource (K = 2; simulate --mem):
	// "auto" or the machine's memory in KB; MemPerProc the memory per
	// processor in KB instead; MemMissing the rule for jobs without a
	// requested memory (mode, zero, skip). Mem is "" and MemPerProc 0 when
	// memory is not scheduled.
	Mem        string
	MemPerProc int64
	MemMissing string
	// Load is the grid of target offered loads; 0 keeps the workload's own.
	Load []float64
	// Months is the grid of calendar months ("YYYY-MM"); nil simulates the
	// whole trace; AllMonths expands to every month of the trace.
	Months    []string
	AllMonths bool
	// Skip and Jobs select a subset: the jobs after the first Skip, at most
	// Jobs of them (0 = all).
	Skip, Jobs int
	// Priorities is the grid of priority sources (workload.ApplyPriorities).
	Priorities []string
	// Deadlines is the grid of deadline-workload specs (package
	// workload/deadline, canonical form; "" = no deadlines).
	Deadlines []string
	// Seeds overrides Spec.Seeds for this workload.
	Seeds []uint64
}

// PolicySpec is one entry of "policies": a policy name with a grid of
// parameter values.
type PolicySpec struct {
	Line   int
	Name   string
	Params []ParamGrid // in file order
}

// ParamGrid is the list of values of one policy parameter.
type ParamGrid struct {
	Key    string
	Values []string
	Line   int
}

// Error is one problem in an experiment file.
type Error struct {
	File string
	Line int    // 0 when not tied to a line
	Key  string // the key's path, e.g. workloads[1].load
	Msg  string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return loc + ": " + e.Key + ": " + e.Msg
	}
	return loc + ": " + e.Msg
}

// Errors are all the problems found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// ParseFile reads and validates the experiment file at path. Every
// problem is reported (as Errors) with the file, the line and the key.
func ParseFile(path string, opt ParseOptions) (*Spec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(src, path, opt)
}

// ParseOptions adjust Parse.
type ParseOptions struct {
	// TracesDir, when set, replaces the file's "traces" directory (for a
	// machine where the traces lie elsewhere; a trace's identity is its
	// name and content, so the runs keep their IDs).
	TracesDir string
}

// Parse validates the experiment file src, read from path (relative paths
// in it are resolved against path's directory). Checks: YAML syntax,
// unknown and duplicate keys, types, empty grids, ranges, policy names and
// parameters (against the registry), estimate models, and that every trace
// exists. All problems are returned together as Errors.
func Parse(src []byte, path string, opt ParseOptions) (*Spec, error) {
	p := &parser{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Errors{p.yamlError(err)}
	}
	dir := filepath.Dir(path)
	s := &Spec{File: path, Dir: dir, Source: src, TracesDir: dir, Seeds: []uint64{1},
		Sim: SimSpec{Kill: []bool{true}, Extend: []bool{false}, Tau: 10, Audit: true}}
	base := filepath.Base(path)
	s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	if len(doc.Content) == 0 {
		return nil, Errors{{File: path, Msg: "the file is empty (expected a mapping with workloads and policies)"}}
	}
	root := deref(doc.Content[0])
	var workloads, policies, seeds, repl *yaml.Node
	p.mapping(root, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			s.Name = p.str(v, key)
			if s.Name != "" && !nameRE.MatchString(s.Name) {
				p.errf(v, key, "expected letters, digits, '.', '_' or '-' (it names files), found %q", s.Name)
			}
		case "description":
			s.Description = p.str(v, key)
		case "out":
			if o := p.str(v, key); o != "" {
				s.Out = resolve(dir, o)
			}
		case "traces":
			if t := p.str(v, key); t != "" {
				s.TracesDir = resolve(dir, t)
				if st, err := os.Stat(s.TracesDir); opt.TracesDir == "" && (err != nil || !st.IsDir()) {
					p.errf(v, key, "directory %s not found", s.TracesDir)
				}
			}
		case "seeds":
			seeds = v
		case "replications":
			repl = v
		case "simulation":
			p.simulation(v, key, &s.Sim)
		case "workloads":
			workloads = v
		case "policies":
			policies = v
		default:
			p.unknown(k, "", key, "name, description, out, traces, seeds, replications, simulation, workloads, policies")
		}
	})
	if opt.TracesDir != "" {
		s.TracesDir = opt.TracesDir
	}
	if sd := p.seeds(seeds, repl, ""); sd != nil {
		s.Seeds = sd
	}
	if root.Kind == yaml.MappingNode {
		if workloads == nil {
			p.errf(root, "workloads", "missing (expected a list of workloads)")
		} else {
			p.seq(workloads, "workloads", func(i int, n *yaml.Node) {
				s.Workloads = append(s.Workloads, p.workload(n, fmt.Sprintf("workloads[%d]", i), s))
			})
		}
		if policies == nil {
			p.errf(root, "policies", "missing (expected a list of policies)")
		} else {
			p.seq(policies, "policies", func(i int, n *yaml.Node) {
				s.Policies = append(s.Policies, p.policy(n, fmt.Sprintf("policies[%d]", i)))
			})
		}
	}
	if slices.ContainsFunc(s.Workloads, func(w WorkloadSpec) bool { return w.Mem != "" || w.MemPerProc > 0 }) {
		for i, ps := range s.Policies {
			for _, spec := range ps.Specs() {
				if _, err := policy.NewK(resolveAutoForCheck(spec), []int{checkProcs, 1 << 30}); err != nil {
					p.errf(&yaml.Node{Line: ps.Line}, fmt.Sprintf("policies[%d]", i), "%s: a workload schedules memory (mem), and %v", spec, err)
					break
				}
			}
		}
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return s, nil
}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	monthRE = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)
)

// resolve makes p absolute-or-relative to dir, keeping absolute paths.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

type parser struct {
	file string
	errs Errors
}

func (p *parser) errf(n *yaml.Node, key, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// yamlError turns a yaml.v3 syntax error ("yaml: line 3: ...") into an
// Error with the line.
func (p *parser) yamlError(err error) *Error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, e := strconv.Atoi(num); e == nil {
				line, msg = n, tail
			}
		}
	}
	return &Error{File: p.file, Line: line, Msg: "invalid YAML: " + msg}
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping calls f for each key of the mapping n, in order, rejecting
// duplicate and non-string keys.
func (p *parser) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		what := path
		if what == "" {
			what = "the file"
		}
		p.errf(n, path, "expected a mapping (key: value lines) for %s, found %s", what, kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			p.errf(k, path, "expected a plain key, found %s (anchors merged with << are not supported)", kindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errf(k, join(path, k.Value), "duplicate key (first given on line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		f(k.Value, k, v)
	}
}

func (p *parser) unknown(k *yaml.Node, path, key, known string) {
	p.errf(k, join(path, key), "unknown key (expected one of: %s)", known)
}

// seq calls f for each element of the list n; an empty list is an error.
func (p *parser) seq(n *yaml.Node, path string, f func(i int, n *yaml.Node)) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.errf(n, path, "expected a list, found %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.errf(n, path, "empty list (expected at least one element)")
		return
	}
	for i, e := range n.Content {
		f(i, deref(e))
	}
}

// grid calls f for each value of a grid: a scalar is a one-value grid, a
// list gives its elements; an empty list is an error.
func (p *parser) grid(n *yaml.Node, path string, f func(n *yaml.Node, path string)) {
	n = deref(n)
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			p.errf(n, path, "empty grid (give at least one value)")
			return
		}
		for i, e := range n.Content {
			f(deref(e), fmt.Sprintf("%s[%d]", path, i))
		}
		return
	}
	f(n, path)
}

func (p *parser) scalar(n *yaml.Node, path, want string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n, path, "expected %s, found %s", want, kindName(n))
		return false
	}
	return true
}

func (p *parser) str(n *yaml.Node, path string) string {
	if !p.scalar(n, path, "a string") {
		return ""
	}
	return n.Value
}

func (p *parser) integer(n *yaml.Node, path string, lo, hi int64) int64 {
	if !p.scalar(n, path, "an integer") {
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if n.Tag != "!!int" || err != nil {
		p.errf(n, path, "expected an integer, found %q", n.Value)
		return 0
	}
	if v < lo || v > hi {
		p.errf(n, path, "expected an integer from %d to %d, found %d", lo, hi, v)
		return 0
	}
	return v
}

func (p *parser) boolean(n *yaml.Node, path string) bool {
	if !p.scalar(n, path, "true or false") {
		return false
	}
	if n.Tag != "!!bool" {
		p.errf(n, path, "expected true or false, found %q", n.Value)
		return false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

func (p *parser) number(n *yaml.Node, path string) float64 {
	if !p.scalar(n, path, "a number") {
		return 0
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if (n.Tag != "!!int" && n.Tag != "!!float") || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		p.errf(n, path, "expected a number, found %q", n.Value)
		return 0
	}
	return v
}

const maxSeed = 1<<63 - 1

func (p *parser) seeds(seeds, repl *yaml.Node, path string) []uint64 {
	switch {
	case seeds != nil && repl != nil:
		p.errf(repl, join(path, "replications"), "give either seeds or replications, not both")
	case seeds != nil:
		var out []uint64
		p.grid(seeds, join(path, "seeds"), func(n *yaml.Node, kp string) {
			v := uint64(p.integer(n, kp, 0, maxSeed))
			if slices.Contains(out, v) {
				p.errf(n, kp, "seed %d given twice", v)
			}
			out = append(out, v)
		})
		return out
	case repl != nil:
		r := p.integer(repl, join(path, "replications"), 1, 100000)
		if r < 1 {
			return nil
		}
		out := make([]uint64, r)
		for i := range out {
			out[i] = uint64(i + 1)
		}
		return out
	}
	return nil
}

func (p *parser) simulation(n *yaml.Node, path string, sim *SimSpec) {
	p.mapping(n, path, func(key string, k, v *yaml.Node) {
		kp := join(path, key)
		switch key {
		case "kill":
			sim.Kill = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				b := p.boolean(n, kp)
				if slices.Contains(sim.Kill, b) {
					p.errf(n, kp, "%v given twice", b)
				}
				sim.Kill = append(sim.Kill, b)
			})
		case "extend":
			sim.Extend = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				b := p.boolean(n, kp)
				if slices.Contains(sim.Extend, b) {
					p.errf(n, kp, "%v given twice", b)
				}
				sim.Extend = append(sim.Extend, b)
			})
		case "tau":
			sim.Tau = p.integer(v, kp, 1, 1<<40)
		case "warmup":
			sim.WarmUp = p.integer(v, kp, 0, 1<<40)
		case "drain":
			sim.Drain = p.integer(v, kp, 0, 1<<40)
		case "audit":
			sim.Audit = p.boolean(v, kp)
		default:
			p.unknown(k, path, key, "kill, extend, tau, warmup, drain, audit")
		}
	})
}

func (p *parser) workload(n *yaml.Node, path string, s *Spec) WorkloadSpec {
	w := WorkloadSpec{Line: n.Line, Procs: []int{0}, Estimate: []string{"user"}, Fallback: "runtime",
		Load: []float64{0}, Priorities: []string{"none"}, Deadlines: []string{""}}
	var seeds, repl, traceNode, modelNode, jobsNode, rateNode, memNode, missNode *yaml.Node
	p.mapping(n, path, func(key string, k, v *yaml.Node) {
		kp := join(path, key)
		switch key {
		case "name":
			w.Label = p.str(v, kp)
			if w.Label != "" && !nameRE.MatchString(w.Label) {
				p.errf(v, kp, "expected letters, digits, '.', '_' or '-', found %q", w.Label)
			}
		case "trace":
			w.Trace, traceNode = p.str(v, kp), v
		case "model":
			if spec := p.str(v, kp); spec != "" {
				m, err := model.New(spec)
				if err != nil {
					p.errf(v, kp, "%v", err)
				} else {
					w.Model = m.Spec()
				}
				modelNode = v
			}
		case "jobs":
			w.ModelJobs = int(p.integer(v, kp, 1, 100_000_000))
			jobsNode = v
		case "rate":
			w.Rate = p.number(v, kp)
			if !(w.Rate > 0) {
				p.errf(v, kp, "expected a positive number of jobs per second, found %s", v.Value)
			}
			rateNode = v
		case "procs":
			w.Procs = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				w.Procs = append(w.Procs, int(p.integer(n, kp, 1, math.MaxInt32)))
			})
		case "estimate":
			w.Estimate = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				e := p.str(n, kp)
				if e == "" {
					return
				}
				m, err := estimate.Parse(e)
				if err != nil {
					p.errf(n, kp, "%v", err)
					return
				}
				w.Estimate = append(w.Estimate, m.Spec())
			})
		case "estimate_fallback":
			w.Fallback = p.str(v, kp)
			if w.Fallback != "runtime" && w.Fallback != "max" {
				p.errf(v, kp, "expected runtime or max, found %q", w.Fallback)
			}
		case "clamp":
			w.Clamp = p.boolean(v, kp)
		case "lenient":
			w.Lenient = p.boolean(v, kp)
		case "load":
			w.Load = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "original" {
					w.Load = append(w.Load, 0)
					return
				}
				l := p.number(n, kp)
				if l != 0 && !(l > 0 && l <= 100) {
					p.errf(n, kp, "expected a target offered load in (0, 100] or \"original\", found %s", n.Value)
				}
				if l > 0 {
					w.Load = append(w.Load, l)
				}
			})
		case "months":
			if v.Kind == yaml.ScalarNode && v.Value == "all" {
				w.AllMonths = true
				return
			}
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				m := p.str(n, kp)
				if m != "" && !monthRE.MatchString(m) {
					p.errf(n, kp, "expected a month YYYY-MM or \"all\", found %q", m)
				}
				w.Months = append(w.Months, m)
			})
		case "subset":
			p.mapping(v, kp, func(key string, k, v *yaml.Node) {
				switch key {
				case "skip":
					w.Skip = int(p.integer(v, join(kp, key), 0, math.MaxInt32))
				case "jobs":
					w.Jobs = int(p.integer(v, join(kp, key), 1, math.MaxInt32))
				default:
					p.unknown(k, kp, key, "skip, jobs")
				}
			})
		case "priorities":
			w.Priorities = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				pr := p.str(n, kp)
				kind, arg, _ := strings.Cut(pr, ":")
				switch kind {
				case "none", "every":
				case "csv", "user", "group", "queue", "partition":
					f := resolve(s.Dir, arg)
					if _, err := os.Stat(f); err != nil {
						p.errf(n, kp, "priority file %s not found", f)
					}
					pr = kind + ":" + f
				default:
					p.errf(n, kp, "expected none, every:N, csv:FILE or user|group|queue|partition:FILE, found %q", pr)
				}
				w.Priorities = append(w.Priorities, pr)
			})
		case "mem":
			m := p.str(v, kp)
			if m == "auto" {
				w.Mem = m
			} else if kb, err := workload.ParseMem(m); err != nil || kb <= 0 {
				p.errf(v, kp, "expected auto or a memory size in KB (suffix M, G, T), found %q", m)
			} else {
				w.Mem = strconv.FormatInt(kb, 10)
			}
			memNode = v
		case "mem_per_proc":
			kb, err := workload.ParseMem(p.str(v, kp))
			if err != nil || kb <= 0 {
				p.errf(v, kp, "expected a memory size in KB (suffix M, G, T), found %q", v.Value)
			}
			w.MemPerProc = kb
			memNode = v
		case "mem_missing":
			w.MemMissing = p.str(v, kp)
			if w.MemMissing != "mode" && w.MemMissing != "zero" && w.MemMissing != "skip" {
				p.errf(v, kp, "expected mode, zero or skip, found %q", w.MemMissing)
			}
			missNode = v
		case "deadlines":
			w.Deadlines = nil
			p.grid(v, kp, func(n *yaml.Node, kp string) {
				text := p.str(n, kp)
				if text == "none" {
					w.Deadlines = append(w.Deadlines, "")
					return
				}
				sp, err := deadlinewl.ParseSpec(text)
				if err != nil {
					p.errf(n, kp, "%v", err)
					return
				}
				w.Deadlines = append(w.Deadlines, sp.String())
			})
		case "seeds":
			seeds = v
		case "replications":
			repl = v
		default:
			p.unknown(k, path, key, "name, trace, model, jobs, rate, mem, mem_per_proc, mem_missing, deadlines, procs, estimate, estimate_fallback, clamp, lenient, load, months, subset, priorities, seeds, replications")
		}
	})
	w.Seeds = p.seeds(seeds, repl, path)
	p.dups(n, path, "procs", w.Procs)
	p.dups(n, path, "estimate", w.Estimate)
	p.dups(n, path, "load", w.Load)
	p.dups(n, path, "months", w.Months)
	p.dups(n, path, "priorities", w.Priorities)
	p.dups(n, path, "deadlines", w.Deadlines)
	if w.Mem != "" && w.MemPerProc > 0 {
		p.errf(memNode, join(path, "mem_per_proc"), "give mem or mem_per_proc, not both")
	}
	if missNode != nil && w.Mem == "" && w.MemPerProc == 0 {
		p.errf(missNode, join(path, "mem_missing"), "applies only with mem or mem_per_proc")
	}
	if (w.Mem != "" || w.MemPerProc > 0) && w.MemMissing == "" {
		w.MemMissing = "mode"
	}
	if modelNode != nil && memNode != nil {
		p.errf(memNode, join(path, "mem"), "memory comes from a trace's field 10; a model has none")
	}
	switch {
	case w.Trace != "" && modelNode != nil:
		p.errf(n, path, "give either trace or model, not both")
	case w.Trace == "" && modelNode == nil:
		p.errf(n, path, "missing trace (a file, or builtin for the embedded KTH SP2 trace) or model")
	case w.Trace != "":
		if jobsNode != nil {
			p.errf(jobsNode, join(path, "jobs"), "jobs is the size of a generated workload; select jobs of a trace with subset: {jobs: N}")
		}
		if rateNode != nil {
			p.errf(rateNode, join(path, "rate"), "rate belongs to a model; scale a trace with load")
		}
		if w.Trace == "builtin" {
			w.TracePath = "builtin"
		} else {
			w.TracePath = resolve(s.TracesDir, w.Trace)
			if st, err := os.Stat(w.TracePath); err != nil || st.IsDir() {
				p.errf(traceNode, join(path, "trace"), "trace file %s not found", w.TracePath)
			}
		}
		if w.Label == "" {
			w.Label = traceLabel(w.Trace)
		}
	default: // a model
		if w.ModelJobs == 0 && jobsNode == nil {
			p.errf(n, join(path, "jobs"), "missing: the number of jobs the model generates")
		}
		if w.AllMonths || w.Months != nil {
			p.errf(n, join(path, "months"), "month splits need a trace with a start time, not a model")
		}
		if rateNode != nil && slices.ContainsFunc(w.Load, func(l float64) bool { return l > 0 }) {
			p.errf(rateNode, join(path, "rate"), "give a rate or target loads, not both")
		}
		if w.Label == "" {
			w.Label, _, _ = strings.Cut(w.Model, ":")
		}
	}
	return w
}

// traceLabel is the default label of a trace: its base name without the
// extensions .gz and .swf (CTC-SP2-1996-3.1-cln.swf.gz gives
// CTC-SP2-1996-3.1-cln).
func traceLabel(t string) string {
	if t == "builtin" {
		t = workload.BuiltinName
	}
	b := filepath.Base(t)
	b = strings.TrimSuffix(b, ".gz")
	b = strings.TrimSuffix(b, ".swf")
	return b
}

func (p *parser) dups(n *yaml.Node, path, key string, vals any) {
	var seen []string
	add := func(s string) {
		if slices.Contains(seen, s) {
			p.errf(n, join(path, key), "value %s given twice", s)
		}
		seen = append(seen, s)
	}
	switch vs := vals.(type) {
	case []int:
		for _, v := range vs {
			add(strconv.Itoa(v))
		}
	case []float64:
		for _, v := range vs {
			add(strconv.FormatFloat(v, 'g', -1, 64))
		}
	case []string:
		for _, v := range vs {
			add(v)
		}
	}
}

func (p *parser) policy(n *yaml.Node, path string) PolicySpec {
	ps := PolicySpec{Line: n.Line}
	if n.Kind == yaml.ScalarNode {
		spec := p.str(n, path)
		name, params, err := policy.Parse(spec)
		if err != nil {
			p.errf(n, path, "%v", err)
			return ps
		}
		ps.Name = name
		for _, k := range sortedKeys(params) {
			ps.Params = append(ps.Params, ParamGrid{Key: k, Values: []string{params[k]}, Line: n.Line})
		}
	} else {
		p.mapping(n, path, func(key string, k, v *yaml.Node) {
			kp := join(path, key)
			switch key {
			case "name":
				ps.Name = p.str(v, kp)
			case "params":
				p.mapping(v, kp, func(key string, k, v *yaml.Node) {
					g := ParamGrid{Key: key, Line: k.Line}
					p.grid(v, join(kp, key), func(n *yaml.Node, vp string) {
						s := p.str(n, vp)
						if strings.ContainsAny(s, ":") {
							p.errf(n, vp, "a parameter value cannot contain ':', found %q", s)
						}
						if slices.Contains(g.Values, s) {
							p.errf(n, vp, "value %q given twice", s)
						}
						g.Values = append(g.Values, s)
					})
					ps.Params = append(ps.Params, g)
				})
			default:
				p.unknown(k, path, key, "name, params")
			}
		})
		if ps.Name == "" && n.Kind == yaml.MappingNode {
			p.errf(n, join(path, "name"), "missing policy name")
		}
	}
	if ps.Name == "" {
		return ps
	}
	info, ok := lookupPolicy(ps.Name)
	if !ok {
		p.errf(n, path, "unknown policy %q (known: %s)", ps.Name, policyNames())
		return ps
	}
	for _, g := range ps.Params {
		if !policy.Accepts(info, g.Key) {
			names := make([]string, len(info.Params))
			for i, x := range info.Params {
				names[i] = x.Name
			}
			p.errf(&yaml.Node{Line: g.Line}, join(path, "params."+g.Key), "policy %s has no parameter %q (it has: %s)", ps.Name, g.Key, strings.Join(names, ", "))
			return ps
		}
	}
	combos := 1
	for _, g := range ps.Params {
		combos *= len(g.Values)
		if combos > MaxPolicyGrid {
			p.errf(n, path, "the parameter grid has more than %d combinations", MaxPolicyGrid)
			ps.Params = nil
			return ps
		}
	}
	// build every combination once, so that a bad value fails here
	var first error
	bad := 0
	for _, spec := range ps.Specs() {
		if _, err := policy.New(resolveAutoForCheck(spec), checkProcs); err != nil {
			if bad++; first == nil {
				first = fmt.Errorf("%s: %w", spec, err)
			}
		}
	}
	switch {
	case bad == 1:
		p.errf(n, path, "%v", first)
	case bad > 1:
		p.errf(n, path, "%v (and %d more combinations fail)", first, bad-1)
	}
	return ps
}

// MaxPolicyGrid is the largest number of parameter combinations of one
// policy entry, and MaxRuns the largest number of runs of a sweep.
const (
	MaxPolicyGrid = 10_000
	MaxRuns       = 1_000_000
)

// checkProcs is the machine size policies are built with to validate
// their parameters (the real size is known only when a run loads its
// workload).
const checkProcs = 1024

// resolveAutoForCheck replaces awt=auto (resolved per run, see
// resolveAuto) by a number, so that the spec can be built for checking.
func resolveAutoForCheck(spec string) string {
	return strings.ReplaceAll(spec, simulate.AutoAWT, "awt=1")
}

// Specs returns the policy specs of the grid, in canonical form
// (parameters sorted by key), the first parameter of the file varying
// slowest.
func (ps PolicySpec) Specs() []string {
	combos := [][]string{nil}
	for _, g := range ps.Params {
		var next [][]string
		for _, c := range combos {
			for _, v := range g.Values {
				next = append(next, append(slices.Clone(c), g.Key+"="+v))
			}
		}
		combos = next
	}
	out := make([]string, len(combos))
	for i, c := range combos {
		slices.Sort(c)
		out[i] = strings.Join(append([]string{ps.Name}, c...), ":")
	}
	return out
}

// CanonicalPolicy returns spec with its parameters sorted by key.
func CanonicalPolicy(spec string) (string, error) {
	name, params, err := policy.Parse(spec)
	if err != nil {
		return "", err
	}
	parts := []string{name}
	for _, k := range sortedKeys(params) {
		parts = append(parts, k+"="+params[k])
	}
	return strings.Join(parts, ":"), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func lookupPolicy(name string) (policy.Info, bool) {
	for _, i := range policy.List() {
		if i.Name == name {
			return i, true
		}
	}
	return policy.Info{}, false
}

func policyNames() string {
	var names []string
	for _, i := range policy.List() {
		names = append(names, i.Name)
	}
	return strings.Join(names, ", ")
}
