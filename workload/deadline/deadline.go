// Package deadline builds the deadline workloads of the QoPS evaluation.
//
// It builds the deadline workloads of Islam, Balaji,
// Sadayappan & Panda's QoPS evaluation (§4.1, §4.2, §5) from any
// workload: job subsets by offset, higher offered loads by duplication or
// expansion, completion deadlines derived from an EASY backfilling run of
// the same workload with a stringency factor, and a share of deadline
// jobs. Each transformation is a function on []job.Job, so that the
// simulate command, the reproduction and the experiment workbench compose
// them the same way; Build applies them all in the paper's order, from a
// Spec that also has a one-line text form (ParseSpec, Spec.String).
//
// The rules, with the choices the paper leaves open (docs/workload.md):
//
//   - Subset(offset, n): jobs offset … offset+n−1 in submission order
//     (the paper's "5000-job subsets of the CTC and the SDSC traces").
//   - Duplicate(l): ⌊(l−1)·N + ½⌋ duplicates of jobs drawn without
//     replacement (a fresh random permutation for every N draws), each at
//     an arrival time uniform over [first submit, last submit]; the draws
//     depend on the seed only, and a higher load takes more of the same
//     sequence, so the workload at l = 1.6 contains every job of l = 1.4
//     with the same arrival time (§5: "the introduction of duplicate jobs
//     is done incrementally").
//   - Expand(l): every runtime and estimate multiplied by l (rounded to the
//     nearest second, estimates at least 1 s), arrivals unchanged: the
//     offered work grows by l while the number of jobs stays N. The paper
//     names "expansion" without defining it; this is our rule.
//   - Assign(s): deadline = submit + max(runtime, ⌊(1−s)·r⌋, 1), r the
//     job's response time under EASY backfilling of the same workload
//     (§4.1).
//   - Mark(frac): exactly ⌊frac·N + ½⌋ jobs, drawn with the seed, keep
//     their deadline; the others have none (Deadline = 0) and a deadline
//     scheduler gives them its artificial deadline (§4.2).
package deadline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/spec"
)

// Subset returns the jobs offset … offset+n−1 (in submission order) with
// IDs renumbered 0 … n−1; n = 0 means every job from offset on. The
// input is not modified.
func Subset(jobs []job.Job, offset, n int) ([]job.Job, error) {
	if offset < 0 || n < 0 {
		return nil, fmt.Errorf("deadline workload: subset offset %d and count %d must not be negative", offset, n)
	}
	if offset > len(jobs) || (n > 0 && offset+n > len(jobs)) {
		return nil, fmt.Errorf("deadline workload: subset of %d jobs from offset %d, but the workload has %d jobs", n, offset, len(jobs))
	}
	end := len(jobs)
	if n > 0 {
		end = offset + n
	}
	out := slices.Clone(jobs[offset:end])
	renumber(out)
	return out, nil
}

func renumber(jobs []job.Job) {
	for i := range jobs {
		jobs[i].ID = i
	}
}

// Duplicates is the number of duplicates Duplicate adds to n jobs for load
// factor l: ⌊(l−1)·n + ½⌋.
func Duplicates(n int, l float64) int {
	return int(math.Floor((l-1)*float64(n) + 0.5))
}

// Duplicate raises the offered load of jobs to l (≥ 1) by adding
// Duplicates(N, l) copies of jobs at random arrival times within the span
// of the submissions; see the package comment for the rule. The copies get
// new SWF job numbers after the largest one (their Line stays that of the
// original); the result is sorted by submit time (originals first at equal
// times, then copies in draw order) and renumbered. The input is not
// modified.
func Duplicate(jobs []job.Job, l float64, seed uint64) ([]job.Job, error) {
	if math.IsNaN(l) || l < 1 || l > 100 {
		return nil, fmt.Errorf("deadline workload: load factor %v must be in [1, 100]", l)
	}
	N := len(jobs)
	k := Duplicates(N, l)
	if N == 0 || k == 0 {
		out := slices.Clone(jobs)
		renumber(out)
		return out, nil
	}
	first, last := jobs[0].Submit, jobs[0].Submit
	var maxSWF int64
	for i := range jobs {
		first, last = min(first, jobs[i].Submit), max(last, jobs[i].Submit)
		maxSWF = max(maxSWF, jobs[i].SWFID)
	}
	r := rand.New(rand.NewPCG(seed, 0x6475706c)) // "dupl"
	out := make([]job.Job, 0, N+k)
	out = append(out, jobs...)
	var perm []int
	for i := 0; i < k; i++ {
		if i%N == 0 {
			perm = r.Perm(N)
		}
		d := jobs[perm[i%N]]
		d.Submit = first + r.Int64N(last-first+1)
		d.SWFID = maxSWF + int64(i) + 1
		out = append(out, d)
	}
	// originals keep their relative order, copies follow at equal times
	slices.SortStableFunc(out, func(a, b job.Job) int {
		if a.Submit != b.Submit {
			if a.Submit < b.Submit {
				return -1
			}
			return 1
		}
		return 0
	})
	renumber(out)
	return out, nil
}

// Expand raises the offered load of jobs to l (≥ 1) by multiplying every
// runtime and estimate by l (rounded to the nearest second, estimates at
// least 1 s); arrivals and sizes are unchanged. The input is not modified.
func Expand(jobs []job.Job, l float64) ([]job.Job, error) {
	if math.IsNaN(l) || l < 1 || l > 100 {
		return nil, fmt.Errorf("deadline workload: load factor %v must be in [1, 100]", l)
	}
	out := slices.Clone(jobs)
	for i := range out {
		j := &out[i]
		j.Runtime = int64(math.Round(float64(j.Runtime) * l))
		j.Estimate = max(1, int64(math.Round(float64(j.Estimate)*l)))
	}
	renumber(out)
	return out, nil
}

// Responses returns each job's response time (end − submit) by ID under
// EASY backfilling with jobs killed at their estimates, on a machine of
// procs processors; simulate.EASYResponses is the one the CLI, the
// workbench and the reproduction pass to Build. It is a parameter so that
// this package builds workloads without depending on the simulator.
type Responses func(jobs []job.Job, procs int) ([]int64, error)

// Assign sets every job's deadline from its EASY response time resp[ID]
// and the stringency factor s ∈ [0, 1): deadline = submit + max(runtime,
// ⌊(1−s)·resp⌋, 1). With s = 0 a job's deadline is its EASY completion
// time; a larger s makes deadlines tighter.
func Assign(jobs []job.Job, resp []int64, s float64) error {
	if math.IsNaN(s) || s < 0 || s >= 1 {
		return fmt.Errorf("deadline workload: stringency factor %v must be in [0, 1)", s)
	}
	if len(resp) != len(jobs) {
		return fmt.Errorf("deadline workload: %d response times for %d jobs", len(resp), len(jobs))
	}
	for i := range jobs {
		j := &jobs[i]
		span := max(j.Runtime, int64(math.Floor((1-s)*float64(resp[j.ID]))), 1)
		j.Deadline = j.Submit + span
	}
	return nil
}

// Mark keeps the deadlines of exactly ⌊frac·N + ½⌋ jobs, drawn with the
// seed, and removes the others' (Deadline = 0). frac = 1 keeps all.
func Mark(jobs []job.Job, frac float64, seed uint64) error {
	if math.IsNaN(frac) || frac < 0 || frac > 1 {
		return fmt.Errorf("deadline workload: deadline-job fraction %v must be in [0, 1]", frac)
	}
	keep := int(math.Floor(frac*float64(len(jobs)) + 0.5))
	if keep >= len(jobs) {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x6d61726b)) // "mark"
	perm := r.Perm(len(jobs))
	for _, i := range perm[keep:] {
		jobs[i].Deadline = 0
	}
	return nil
}

// Load methods of a Spec.
const (
	MethodDup    = "dup"
	MethodExpand = "expand"
)

// Spec describes a deadline workload. Its text form is
// "s=0.2:l=1.4:load=dup:frac=0.8:offset=0:n=5000:seed=1" (ParseSpec;
// every key optional).
type Spec struct {
	// Offset and Count select the subset (Count 0: every job from Offset).
	Offset, Count int
	// Load is the load factor l (1: the workload as it is) and Method how
	// it is reached: MethodDup (duplication) or MethodExpand (expansion).
	Load   float64
	Method string
	// Stringency is s: deadline = submit + max(runtime, (1−s)·EASY
	// response).
	Stringency float64
	// Fraction is the share of jobs that keep a deadline.
	Fraction float64
	// Seed drives the duplication and the choice of deadline jobs.
	Seed uint64
}

// DefaultSpec is every job, load 1 (duplication), s = 0.2, all jobs with
// deadlines, seed 1.
func DefaultSpec() Spec {
	return Spec{Load: 1, Method: MethodDup, Stringency: 0.2, Fraction: 1, Seed: 1}
}

// ParseSpec reads the text form of a Spec: key=value pairs separated by
// ':' or ',' — s (stringency, [0,1)), l (load factor, [1,100]), load (dup
// or expand), frac (deadline-job fraction, [0,1]), offset and n (subset),
// seed. Missing keys keep DefaultSpec's values. The grammar is package
// spec's (a key twice is an error; errors "parameter k: expected …").
func ParseSpec(text string) (Spec, error) {
	sp := DefaultSpec()
	text = strings.TrimSpace(text)
	if text == "" {
		return sp, nil
	}
	items := strings.FieldsFunc(text, func(r rune) bool { return r == ':' || r == ',' })
	args, err := spec.Args("deadline workload", text, items)
	if err != nil {
		return sp, err
	}
	if k, bad := spec.Unknown(args, "s", "l", "load", "frac", "offset", "n", "seed"); bad {
		return sp, fmt.Errorf("deadline workload %q: unknown key %q (s, l, load, frac, offset, n, seed)", text, k)
	}
	if err := sp.set(args); err != nil {
		return sp, fmt.Errorf("deadline workload %q: %w", text, err)
	}
	return sp, nil
}

// set takes the values of args, checked in the order s, l, load, frac,
// offset, n, seed (the first bad one is the error).
func (sp *Spec) set(args map[string]string) error {
	float := func(k string, dst *float64, lo, hi float64, hiOpen bool, want string) error {
		v, ok := args[k]
		if !ok {
			return nil
		}
		x, err := spec.Float(k, v, lo, hi)
		if err != nil || (hiOpen && x >= hi) {
			return spec.Expected(k, v, want)
		}
		*dst = x
		return nil
	}
	count := func(k string, dst *int) error {
		v, ok := args[k]
		if !ok {
			return nil
		}
		n, err := spec.Int64(k, v, 0, math.MaxInt)
		*dst = int(n)
		return err
	}
	if err := float("s", &sp.Stringency, 0, 1, true, "a stringency in [0, 1)"); err != nil {
		return err
	}
	if err := float("l", &sp.Load, 1, 100, false, "a load factor in [1, 100]"); err != nil {
		return err
	}
	if v, ok := args["load"]; ok {
		m, err := spec.Enum("load", v, MethodDup, MethodExpand)
		if err != nil {
			return err
		}
		sp.Method = m
	}
	if err := float("frac", &sp.Fraction, 0, 1, false, "a fraction in [0, 1]"); err != nil {
		return err
	}
	if err := count("offset", &sp.Offset); err != nil {
		return err
	}
	if err := count("n", &sp.Count); err != nil {
		return err
	}
	if v, ok := args["seed"]; ok {
		n, err := spec.Uint64("seed", v)
		if err != nil {
			return err
		}
		sp.Seed = n
	}
	return nil
}

// String is the text form of sp, every key given; ParseSpec reads it back.
func (sp Spec) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf("s=%s:l=%s:load=%s:frac=%s:offset=%d:n=%d:seed=%d",
		f(sp.Stringency), f(sp.Load), sp.Method, f(sp.Fraction), sp.Offset, sp.Count, sp.Seed)
}

// Built is a deadline workload with what was done to make it.
type Built struct {
	Jobs []job.Job
	// EASY holds each job's response time under EASY backfilling (by ID),
	// from which the deadlines were set.
	EASY []int64
	// Duplicates is the number of duplicated jobs, Deadlines the number of
	// jobs with a deadline.
	Duplicates, Deadlines int
	// Notes describe the transformations, for output headers.
	Notes []string
}

// Build applies sp to jobs on a machine of procs processors, in the
// paper's order: subset, load (duplication or expansion), the EASY
// response times of the result (easy), deadlines with the stringency
// factor, then the share of deadline jobs. The input is not modified.
func Build(jobs []job.Job, procs int, sp Spec, easy Responses) (*Built, error) {
	b := &Built{}
	js, err := Subset(jobs, sp.Offset, sp.Count)
	if err != nil {
		return nil, err
	}
	n := len(js)
	b.Notes = append(b.Notes, fmt.Sprintf("deadline workload %s", sp))
	if sp.Offset > 0 || sp.Count > 0 {
		b.Notes = append(b.Notes, fmt.Sprintf("subset: jobs %d to %d of %d", sp.Offset, sp.Offset+n-1, len(jobs)))
	}
	switch sp.Method {
	case MethodDup, "":
		js, err = Duplicate(js, sp.Load, sp.Seed)
		b.Duplicates = len(js) - n
		if sp.Load != 1 {
			b.Notes = append(b.Notes, fmt.Sprintf("load %g by duplication: %d duplicates at random arrival times", sp.Load, b.Duplicates))
		}
	case MethodExpand:
		js, err = Expand(js, sp.Load)
		if sp.Load != 1 {
			b.Notes = append(b.Notes, fmt.Sprintf("load %g by expansion: runtimes and estimates × %g", sp.Load, sp.Load))
		}
	default:
		err = fmt.Errorf("deadline workload: load method %q (dup or expand)", sp.Method)
	}
	if err != nil {
		return nil, err
	}
	b.EASY, err = easy(js, procs)
	if err != nil {
		return nil, fmt.Errorf("deadline workload: %w", err)
	}
	if err := Assign(js, b.EASY, sp.Stringency); err != nil {
		return nil, err
	}
	if err := Mark(js, sp.Fraction, sp.Seed); err != nil {
		return nil, err
	}
	for i := range js {
		if js[i].Deadline > 0 {
			b.Deadlines++
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("deadlines: submit + max(runtime, (1 − %g) × EASY response) on %d of %d jobs", sp.Stringency, b.Deadlines, len(js)))
	b.Jobs = js
	return b, nil
}
