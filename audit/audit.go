// Package audit checks a finished schedule from its outcomes alone.
//
// It needs nothing but the []job.Outcome a simulator produced (or that was
// read back from a foreign SWF file), so it can audit schedules made by any
// simulator: it re-derives processor usage over time by sweeping start and
// end events, and checks every job against the rules of the model (no start
// before submission, run lengths consistent with the kill mode, promised
// start bounds kept, FCFS order, every job present exactly once) and, for
// policies with admission control, that every admitted job meets its
// deadline unless a runtime past an estimate explains the miss.
//
// All checks together cost O(n log n) time for n outcomes.
package audit

import (
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/radix"
	"github.com/backfill-hpc/backfill/job"
)

// Violation kinds. Each Violation carries exactly one of these in Kind.
const (
	// KindCapacity: more processors busy at some instant than the machine has.
	KindCapacity = "capacity"
	// KindProcs: a job requests fewer than 1 or more than Options.Procs processors.
	KindProcs = "procs"
	// KindEarlyStart: a job starts before it was submitted.
	KindEarlyStart = "early-start"
	// KindNegativeRun: a job ends before it starts.
	KindNegativeRun = "negative-run"
	// KindRunLength: End−Start disagrees with the job's runtime/estimate
	// under the kill mode.
	KindRunLength = "run-length"
	// KindKilledFlag: Outcome.Killed disagrees with Runtime > Estimate
	// (kill mode) or is set although jobs are never killed.
	KindKilledFlag = "killed-flag"
	// KindBound: a job starts after the start bound promised to it.
	KindBound = "bound"
	// KindFCFS: a job starts before a job that arrived earlier
	// (by Submit, then ID).
	KindFCFS = "fcfs-order"
	// KindDuplicateID: the same ID appears in more than one outcome.
	KindDuplicateID = "duplicate-id"
	// KindUnknownID: an ID outside 0..Expect-1.
	KindUnknownID = "unknown-id"
	// KindMissing: an ID in 0..Expect-1 with no outcome.
	KindMissing = "missing"
	// KindResCapacity: more units of a resource beyond the processors in
	// use at some instant than the machine has (Options.Res).
	KindResCapacity = "resource-capacity"
	// KindResource: a job requires a negative amount of a resource, more
	// than the machine has, or a resource the machine lacks (Options.Res).
	KindResource = "resource"
	// KindDeadline: an admitted job with a deadline ends after it although
	// no job ran past its estimate while it waited, nor did it itself
	// (Options.Deadlines).
	KindDeadline = "deadline"
	// KindRejected: a job rejected at submission has a start or an end
	// (it must have Start = End = -1).
	KindRejected = "rejected"
	// KindCoreTwice: a core is given to a job while another holds it
	// (Options.Cores).
	KindCoreTwice = "core-twice"
	// KindCoreCount: a started job holds a number of cores other than its
	// size, or cores outside 0..Procs-1 (Options.Cores).
	KindCoreCount = "core-count"
)

// DefaultLimit is the number of violations of each kind kept in a Report
// when Options.Limit is 0. All violations are counted regardless.
const DefaultLimit = 1000

// Options describe the model a schedule must obey.
type Options struct {
	// Procs is the number of processors of the machine. When Procs ≤ 0 the
	// machine size is unknown and neither the capacity check nor the upper
	// bound of the per-job processor check is made.
	Procs int
	// Kill is true when jobs are killed at their estimate.
	Kill bool
	// KnownRuntime is true when outcomes carry the true Runtime (schedules
	// from our simulator); false for schedules read from foreign SWF files,
	// where only End−Start ≤ Estimate can be checked (in kill mode).
	KnownRuntime bool
	// FCFS requests the check that, for jobs ordered by (Submit, ID),
	// start times are non-decreasing.
	FCFS bool
	// Expect is the number of jobs that must be present, with IDs
	// 0..Expect-1, or -1 to skip the completeness check (duplicate IDs are
	// reported either way).
	Expect int
	// Limit is the number of violations of each kind kept in the report
	// (the earliest ones in report order); 0 means DefaultLimit and a
	// negative value keeps all. Every violation is counted regardless.
	Limit int
	// Res are the capacities of the resources beyond the processors
	// (K-resource scheduling, sim.Options.Res). When set, the auditor also
	// checks each job's Request.Res against them and that no resource is
	// over capacity at any instant.
	Res []int
	// Deadlines requests the deadline check, for policies with admission
	// control (QoPS, MSB, MRT): every job that was not rejected and has a
	// Deadline > 0 must end by it. A miss is excused, and counted in
	// Report.OverrunMisses instead, when the job itself ran longer than its
	// estimate, or when some job ran past its estimate at an instant
	// between the missing job's submission and its start (in no-kill mode a
	// scheduler cannot keep a promise that an overrun breaks; the delay can
	// propagate through jobs that started late because of it).
	Deadlines bool
	// Cores, if set, gives the cores (inclusive intervals of core ids)
	// each started job held (package machine's Allocator.Intervals): the
	// auditor checks that each job holds exactly its size in cores, all
	// below Procs, and that no core is held by two jobs at once (a job may
	// take a core at the instant another releases it).
	Cores func(id int) [][2]int
}

// Violation is one broken rule.
type Violation struct {
	// Kind is one of the Kind* constants.
	Kind string
	// JobID is the job concerned (for capacity: the lowest ID among the
	// jobs starting at the overloaded instant), or -1 when none.
	JobID int
	// SWFID is that job's number in the source trace, or -1 when unknown.
	SWFID int64
	// Time is the instant the violation is about: the overloaded instant for
	// capacity, the job's Submit for the ID checks, 0 for missing jobs, and
	// the job's Start for every other kind.
	Time int64
	// Msg explains the violation with the numbers involved.
	Msg string
}

// String renders the violation on one line, e.g.
// "t=120 capacity job 3 (SWF 17): 130 processors busy > 128; starting: 3 4".
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(v.Time, 10))
	b.WriteByte(' ')
	b.WriteString(v.Kind)
	if v.JobID >= 0 {
		fmt.Fprintf(&b, " job %d", v.JobID)
		if v.SWFID >= 0 {
			fmt.Fprintf(&b, " (SWF %d)", v.SWFID)
		}
	}
	b.WriteString(": ")
	b.WriteString(v.Msg)
	return b.String()
}

// Report is the result of an audit.
type Report struct {
	// Violations are the kept violations, sorted by (Time, Kind, JobID),
	// at most Options.Limit of each kind.
	Violations []Violation
	// Counts is the number of violations of each kind found, including
	// those not kept in Violations. Kinds with no violation are absent.
	Counts map[string]int
	// OverrunMisses is the number of admitted jobs that missed their
	// deadline because of runtimes past estimates (Options.Deadlines);
	// they are not violations.
	OverrunMisses int
	// Rejected is the number of jobs rejected at submission.
	Rejected int
}

// OK reports whether the schedule has no violation at all.
func (r *Report) OK() bool { return r.Total() == 0 }

// Total is the number of violations found, kept or not.
func (r *Report) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Kinds returns the kinds with at least one violation, sorted.
func (r *Report) Kinds() []string {
	ks := make([]string, 0, len(r.Counts))
	for k, c := range r.Counts {
		if c > 0 {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// String summarises the counts in kind order, e.g.
// "3 violations: bound=1 capacity=2", or "no violations".
func (r *Report) String() string {
	total := r.Total()
	if total == 0 {
		if r.OverrunMisses > 0 {
			return fmt.Sprintf("no violations (%d deadline misses caused by runtimes past estimates)", r.OverrunMisses)
		}
		return "no violations"
	}
	var b strings.Builder
	if total == 1 {
		b.WriteString("1 violation:")
	} else {
		fmt.Fprintf(&b, "%d violations:", total)
	}
	for _, k := range r.Kinds() {
		fmt.Fprintf(&b, " %s=%d", k, r.Counts[k])
	}
	if r.OverrunMisses > 0 {
		fmt.Fprintf(&b, " (and %d deadline misses caused by runtimes past estimates)", r.OverrunMisses)
	}
	return b.String()
}

// Write prints the summary line, every kept violation on its own line, and
// for each kind whose violations were not all kept, how many were left out.
func (r *Report) Write(w io.Writer) error {
	if _, err := fmt.Fprintln(w, r.String()); err != nil {
		return err
	}
	for _, v := range r.Violations {
		if _, err := fmt.Fprintln(w, "  "+v.String()); err != nil {
			return err
		}
	}
	kept := make(map[string]int)
	for _, v := range r.Violations {
		kept[v.Kind]++
	}
	for _, k := range r.Kinds() {
		if more := r.Counts[k] - kept[k]; more > 0 {
			if _, err := fmt.Fprintf(w, "  ... and %d more %s violations not shown\n", more, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check audits outcomes against opt and returns the kept violations in
// deterministic order (by time, then kind, then job). It is Audit(...).Violations.
func Check(outcomes []job.Outcome, opt Options) []Violation {
	r := Audit(outcomes, opt)
	return r.Violations
}

// Audit audits outcomes against opt and returns the full report: the kept
// violations (at most opt.Limit per kind, earliest first) and the count of
// every kind. The input slice is not modified.
func Audit(outcomes []job.Outcome, opt Options) Report {
	a := auditor{opt: opt, counts: make(map[string]int)}
	a.capacity(outcomes)
	if len(opt.Res) > 0 {
		a.resCapacity(outcomes)
	}
	// one pass for the per-job rules, the rejections and whether the
	// outcomes are in ID order (as a simulator's are)
	rejected, inOrder := 0, true
	for i := range outcomes {
		o := &outcomes[i]
		a.perJob(o)
		if o.Rejected {
			rejected++
		}
		if i > 0 && o.ID < outcomes[i-1].ID {
			inOrder = false
		}
	}
	if opt.FCFS {
		a.fcfs(outcomes)
	}
	a.ids(outcomes, inOrder)
	if opt.Deadlines {
		a.deadlines(outcomes)
	}
	if opt.Cores != nil {
		a.cores(outcomes)
	}

	slices.SortStableFunc(a.vs, compareViolations)
	limit := opt.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	kept := a.vs
	if limit > 0 {
		kept = kept[:0]
		perKind := make(map[string]int)
		for _, v := range a.vs {
			if perKind[v.Kind] < limit {
				perKind[v.Kind]++
				kept = append(kept, v)
			}
		}
	}
	return Report{Violations: slices.Clip(kept), Counts: a.counts, OverrunMisses: a.overrunMisses, Rejected: rejected}
}

func compareViolations(x, y Violation) int {
	return cmp.Or(
		cmp.Compare(x.Time, y.Time),
		cmp.Compare(x.Kind, y.Kind),
		cmp.Compare(x.JobID, y.JobID),
		cmp.Compare(x.SWFID, y.SWFID),
		cmp.Compare(x.Msg, y.Msg),
	)
}

type auditor struct {
	opt           Options
	vs            []Violation
	counts        map[string]int
	overrunMisses int
}

func (a *auditor) add(kind string, o *job.Outcome, t int64, format string, args ...any) {
	v := Violation{Kind: kind, JobID: -1, SWFID: -1, Time: t, Msg: fmt.Sprintf(format, args...)}
	if o != nil {
		v.JobID, v.SWFID = o.ID, o.SWFID
	}
	a.vs = append(a.vs, v)
	a.counts[kind]++
}

// maxListed is how many starting jobs a capacity violation names.
const maxListed = 20

// capacity sweeps start and end events in time order and reports every
// instant after which more than opt.Procs processors are busy. All events
// of an instant are applied before the count is checked, which is the same
// as processing ends before starts: a job may start exactly when another
// ends on the same processors. Jobs with End ≤ Start or Procs ≤ 0 occupy
// nothing.
func (a *auditor) capacity(outcomes []job.Outcome) {
	if a.opt.Procs <= 0 {
		return
	}
	sw := newSweep(outcomes)
	evs := sw.evs
	var busy int64
	capacity := int64(a.opt.Procs)
	for i := 0; i < len(evs); {
		key := evs[i] >> sw.shift
		j := i
		starts := false
		for ; j < len(evs) && evs[j]>>sw.shift == key; j++ {
			p := sw.procs[sw.index(evs[j])]
			if evs[j]&1 != 0 {
				busy += p
				starts = true
			} else {
				busy -= p
			}
		}
		if busy > capacity && starts {
			// the starting jobs, in ID order, named only for a violation
			var starting []int // indices into outcomes
			for _, e := range evs[i:j] {
				if e&1 != 0 {
					starting = append(starting, sw.index(e))
				}
			}
			slices.SortFunc(starting, func(x, y int) int {
				return cmp.Or(cmp.Compare(outcomes[x].ID, outcomes[y].ID), cmp.Compare(x, y))
			})
			var ids strings.Builder
			for k, idx := range starting {
				if k == maxListed {
					fmt.Fprintf(&ids, " ... (%d jobs)", len(starting))
					break
				}
				fmt.Fprintf(&ids, " %d", outcomes[idx].ID)
			}
			a.add(KindCapacity, &outcomes[starting[0]], sw.time(key),
				"%d processors busy > %d; starting:%s", busy, capacity, ids.String())
		}
		i = j
	}
}

// sweep is the start and end events of the jobs that occupy processors
// (End > Start, Procs > 0) in time order, each packed in a uint64: the
// time's key in the high bits (from bit shift up), the job's index into
// the outcomes above bit 0, and bit 0 set for a start. Events of an
// instant are in index order (each job's start before its end, which is
// at a later instant). Sorting these integers by their key with a radix
// sort is several times faster than sorting structs by comparison, the
// largest part of an audit.
type sweep struct {
	evs   []uint64
	shift uint
	mask  uint64  // of the index, after the shift by 1
	procs []int64 // by outcome index: the sweep reads these, not the outcomes
	base  int64   // time = base + key, or
	times []int64
	// times, when the times span too many bits to pack beside the
	// indices: the distinct times in order, and the key is a rank
}

// occupies reports whether o holds processors for some time.
func occupies(o *job.Outcome) bool { return o.End > o.Start && o.Procs > 0 }

// newSweep returns the sorted events of the outcomes that occupy
// processors. It reads the outcomes once (their times into the events'
// array, two per outcome); the packing and ranking then read that array.
func newSweep(outcomes []job.Outcome) sweep {
	idxBits := uint(bits.Len(uint(len(outcomes))))
	sw := sweep{shift: idxBits + 1, mask: uint64(1)<<idxBits - 1, procs: make([]int64, len(outcomes))}
	raw := make([]uint64, 2*len(outcomes)) // Start, End of outcome i at 2i, 2i+1
	n := 0
	var lo, hi int64
	for i := range outcomes {
		o := &outcomes[i]
		if !occupies(o) {
			continue // procs[i] stays 0: not in the sweep
		}
		if n == 0 {
			lo, hi = o.Start, o.End
		}
		lo, hi = min(lo, o.Start), max(hi, o.End)
		raw[2*i], raw[2*i+1] = uint64(o.Start), uint64(o.End)
		sw.procs[i] = int64(o.Procs)
		n++
	}
	span := uint64(hi) - uint64(lo) // cannot overflow as an unsigned difference
	keyBits := uint(bits.Len64(span))
	if keyBits+sw.shift > 64 {
		// rank the distinct times instead (at most 2n of them)
		times := make([]int64, 0, 2*n)
		for i, p := range sw.procs {
			if p > 0 {
				times = append(times, int64(raw[2*i]), int64(raw[2*i+1]))
			}
		}
		slices.Sort(times)
		sw.times = slices.Compact(times)
		keyBits = uint(bits.Len(uint(len(sw.times))))
	}
	sw.base = lo
	// pack in place: event w ≤ 2i is written after raw[2i], raw[2i+1] are read
	w := 0
	for i, p := range sw.procs {
		if p == 0 {
			continue
		}
		s, e := sw.key(int64(raw[2*i])), sw.key(int64(raw[2*i+1]))
		raw[w], raw[w+1] = s<<sw.shift|uint64(i)<<1|1, e<<sw.shift|uint64(i)<<1
		w += 2
	}
	evs := raw[:w]
	radix.Sort(evs, sw.shift, sw.shift+keyBits)
	sw.evs = evs
	return sw
}

// key is the sort key of time t.
func (sw *sweep) key(t int64) uint64 {
	if sw.times != nil {
		k, _ := slices.BinarySearch(sw.times, t)
		return uint64(k)
	}
	return uint64(t) - uint64(sw.base)
}

// time is the time of a key.
func (sw *sweep) time(key uint64) int64 {
	if sw.times != nil {
		return sw.times[key]
	}
	return int64(uint64(sw.base) + key)
}

// index is the outcome index of an event.
func (sw *sweep) index(e uint64) int { return int(e >> 1 & sw.mask) }

func (a *auditor) perJob(o *job.Outcome) {
	opt := a.opt
	if o.Rejected {
		// rejected at submission: it never ran, so nothing else applies
		if o.Start != -1 || o.End != -1 {
			a.add(KindRejected, o, o.Submit, "rejected at submission but has start %d and end %d (want -1, -1)", o.Start, o.End)
		}
		return
	}
	if o.Procs < 1 || (opt.Procs > 0 && o.Procs > opt.Procs) {
		a.add(KindProcs, o, o.Start, "requests %d processors, machine has %d", o.Procs, opt.Procs)
	}
	if len(o.Res) > 0 || len(opt.Res) > 0 {
		for k, n := range o.Res {
			switch {
			case k >= len(opt.Res):
				a.add(KindResource, o, o.Start, "requires %d units of resource %d; the machine has %d resources beyond processors", n, k+1, len(opt.Res))
			case n < 0 || n > opt.Res[k]:
				a.add(KindResource, o, o.Start, "requires %d units of resource %d, machine has %d", n, k+1, opt.Res[k])
			}
		}
	}
	if o.Start < o.Submit {
		a.add(KindEarlyStart, o, o.Start, "starts at %d before its submission at %d", o.Start, o.Submit)
	}
	run := o.End - o.Start
	if run < 0 {
		a.add(KindNegativeRun, o, o.Start, "ends at %d before it starts at %d", o.End, o.Start)
	}
	switch {
	case opt.KnownRuntime && opt.Kill:
		// the limit is the estimate plus any extension the policy granted
		limit := o.Estimate + o.Extension
		want := min(o.Runtime, limit)
		// the limit's description, formatted only for a violation
		lim := func() string {
			if o.Extension > 0 {
				return fmt.Sprintf("estimate %d + extension %d", o.Estimate, o.Extension)
			}
			return fmt.Sprintf("estimate %d", o.Estimate)
		}
		if run != want {
			a.add(KindRunLength, o, o.Start, "ran %d s, want min(runtime %d, %s) = %d", run, o.Runtime, lim(), want)
		}
		if wantKilled := o.Runtime > limit; o.Killed != wantKilled {
			a.add(KindKilledFlag, o, o.Start, "killed=%t, want %t (runtime %d, %s)", o.Killed, wantKilled, o.Runtime, lim())
		}
	case opt.KnownRuntime:
		if run != o.Runtime {
			a.add(KindRunLength, o, o.Start, "ran %d s, want runtime %d (no kill)", run, o.Runtime)
		}
		if o.Killed {
			a.add(KindKilledFlag, o, o.Start, "killed although jobs are never killed")
		}
	case opt.Kill:
		if run > o.Estimate+o.Extension {
			a.add(KindRunLength, o, o.Start, "ran %d s, beyond its estimate %d (+ extension %d)", run, o.Estimate, o.Extension)
		}
	}
	if o.Bound >= 0 && o.Start > o.Bound {
		a.add(KindBound, o, o.Start, "starts at %d after its promised bound %d (late by %d s)",
			o.Start, o.Bound, o.Start-o.Bound)
	}
}

// fcfs reports every job that starts before some job that arrived before
// it, in (Submit, ID) order; the message names the earlier job holding the
// latest start so far.
func (a *auditor) fcfs(outcomes []job.Outcome) {
	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Or(
			cmp.Compare(outcomes[x].Submit, outcomes[y].Submit),
			cmp.Compare(outcomes[x].ID, outcomes[y].ID))
	})
	latest := -1 // index of the earlier-arrived job with the latest start
	for _, i := range order {
		o := &outcomes[i]
		if o.Rejected {
			continue // never started
		}
		if latest >= 0 {
			p := &outcomes[latest]
			if o.Start < p.Start {
				a.add(KindFCFS, o, o.Start,
					"starts at %d, before job %d (submitted %d) that arrived earlier and starts at %d",
					o.Start, p.ID, p.Submit, p.Start)
				continue
			}
		}
		latest = i
	}
}

// ids checks uniqueness of IDs and, when opt.Expect ≥ 0, that they are
// exactly 0..Expect-1. inOrder says the IDs are non-decreasing in
// outcomes' order.
func (a *auditor) ids(outcomes []job.Outcome, inOrder bool) {
	// a simulator's outcomes are in ID order already (inOrder): then the
	// stable sort's order is the identity, and no list of it is made
	var order []int
	if !inOrder {
		order = make([]int, len(outcomes))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(x, y int) int {
			return cmp.Compare(outcomes[x].ID, outcomes[y].ID)
		})
	}
	at := func(k int) *job.Outcome { // the k-th outcome in ID order
		if order == nil {
			return &outcomes[k]
		}
		return &outcomes[order[k]]
	}
	expect := a.opt.Expect
	limit := a.opt.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	next := 0                   // when expect ≥ 0: the lowest ID in 0..expect-1 not yet seen
	missing := func(upTo int) { // report IDs next..upTo-1 as missing
		for id := next; id < upTo; id++ {
			if limit > 0 && id-next >= limit {
				// Missing jobs all sort at Time 0 by ID, so only the lowest
				// limit of each gap can be kept; count the rest directly.
				a.counts[KindMissing] += upTo - id
				break
			}
			a.vs = append(a.vs, Violation{Kind: KindMissing, JobID: id, SWFID: -1,
				Msg: fmt.Sprintf("no outcome for job %d of %d", id, expect)})
			a.counts[KindMissing]++
		}
	}
	for k := 0; k < len(outcomes); {
		o := at(k)
		n := 1
		for k+n < len(outcomes) && at(k+n).ID == o.ID {
			n++
		}
		if n > 1 {
			a.add(KindDuplicateID, o, o.Submit, "ID %d appears in %d outcomes", o.ID, n)
		}
		if expect >= 0 {
			if o.ID < 0 || o.ID >= expect {
				a.add(KindUnknownID, o, o.Submit, "ID %d outside 0..%d", o.ID, expect-1)
			} else {
				missing(o.ID)
				next = o.ID + 1
			}
		}
		k += n
	}
	if expect >= 0 {
		missing(expect)
	}
}

// resCapacity is capacity for the resources beyond the processors: one
// sweep of start and end events in time order with a vector of units in
// use, every event of an instant applied before the check (a job may start
// exactly when another ends). Each overloaded (instant, resource) is one
// violation.
func (a *auditor) resCapacity(outcomes []job.Outcome) {
	type event struct {
		t     int64
		start bool
		idx   int
	}
	K := len(a.opt.Res)
	evs := make([]event, 0, 2*len(outcomes))
	for i := range outcomes {
		o := &outcomes[i]
		if o.End <= o.Start || len(o.Res) == 0 {
			continue
		}
		evs = append(evs, event{o.Start, true, i}, event{o.End, false, i})
	}
	slices.SortFunc(evs, func(x, y event) int {
		return cmp.Or(
			cmp.Compare(x.t, y.t),
			cmp.Compare(outcomes[x.idx].ID, outcomes[y.idx].ID),
			cmp.Compare(x.idx, y.idx))
	})
	busy := make([]int64, K)
	for i := 0; i < len(evs); {
		t := evs[i].t
		j := i
		var starting []int
		for ; j < len(evs) && evs[j].t == t; j++ {
			o := &outcomes[evs[j].idx]
			sign := int64(-1)
			if evs[j].start {
				sign = 1
				starting = append(starting, evs[j].idx)
			}
			for k, n := range o.Res {
				if k < K {
					busy[k] += sign * int64(n)
				}
			}
		}
		if len(starting) > 0 {
			for k := range K {
				if busy[k] <= int64(a.opt.Res[k]) {
					continue
				}
				var ids strings.Builder
				for c, idx := range starting {
					if c == maxListed {
						fmt.Fprintf(&ids, " ... (%d jobs)", len(starting))
						break
					}
					fmt.Fprintf(&ids, " %d", outcomes[idx].ID)
				}
				a.add(KindResCapacity, &outcomes[starting[0]], t,
					"resource %d: %d units in use > %d; starting:%s", k+1, busy[k], a.opt.Res[k], ids.String())
			}
		}
		i = j
	}
}

// deadlines reports every admitted job with a deadline that ends after it,
// unless an overrun explains the miss (Options.Deadlines). An overrun is
// the part [Start+Estimate+Extension, End) of a job that ran longer than
// its limit; a miss by job j is excused when j overran, or when an overrun
// of any job overlaps [j.Submit, j.Start), the time j waited. O(n log n).
func (a *auditor) deadlines(outcomes []job.Outcome) {
	type span struct{ from, to int64 }
	var over []span
	for i := range outcomes {
		o := &outcomes[i]
		if o.Rejected {
			continue
		}
		if lim := o.Start + o.Estimate + o.Extension; o.End > lim {
			over = append(over, span{lim, o.End})
		}
	}
	slices.SortFunc(over, func(x, y span) int { return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to)) })
	reach := make([]int64, len(over)) // reach[i] = max to over over[:i+1]
	for i, s := range over {
		reach[i] = s.to
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	for i := range outcomes {
		o := &outcomes[i]
		if o.Rejected || o.Deadline <= 0 || o.End <= o.Deadline {
			continue
		}
		if o.End-o.Start > o.Estimate+o.Extension {
			a.overrunMisses++
			continue
		}
		// overruns that began before o started and ended after o arrived
		k, _ := slices.BinarySearchFunc(over, o.Start, func(s span, t int64) int { return cmp.Compare(s.from, t) })
		if k > 0 && reach[k-1] > o.Submit {
			a.overrunMisses++
			continue
		}
		a.add(KindDeadline, o, o.Start, "ends at %d after its deadline %d (late by %d s; submitted %d, started %d, estimate %d)",
			o.End, o.Deadline, o.End-o.Deadline, o.Submit, o.Start, o.Estimate)
	}
}
