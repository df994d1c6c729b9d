package audit

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// naiveCapacity is the capacity check by its definition, in O(n²): at each
// instant where a job starts, the processors of the jobs with
// Start ≤ t < End (End > Start, Procs > 0) against P; the violation names
// the starting jobs in ID order.
func naiveCapacity(outcomes []job.Outcome, procs int) []Violation {
	var times []int64
	for _, o := range outcomes {
		if o.End > o.Start && o.Procs > 0 {
			times = append(times, o.Start)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var vs []Violation
	for _, t := range times {
		var busy int64
		var starting []int
		for i, o := range outcomes {
			if o.End > o.Start && o.Procs > 0 && o.Start <= t && t < o.End {
				busy += int64(o.Procs)
				if o.Start == t {
					starting = append(starting, i)
				}
			}
		}
		if busy <= int64(procs) {
			continue
		}
		slices.SortFunc(starting, func(x, y int) int {
			return cmp.Or(cmp.Compare(outcomes[x].ID, outcomes[y].ID), cmp.Compare(x, y))
		})
		var ids strings.Builder
		for k, i := range starting {
			if k == maxListed {
				fmt.Fprintf(&ids, " ... (%d jobs)", len(starting))
				break
			}
			fmt.Fprintf(&ids, " %d", outcomes[i].ID)
		}
		o := outcomes[starting[0]]
		vs = append(vs, Violation{Kind: KindCapacity, JobID: o.ID, SWFID: o.SWFID, Time: t,
			Msg: fmt.Sprintf("%d processors busy > %d; starting:%s", busy, procs, ids.String())})
	}
	return vs
}

// TestCapacityAgainstDefinition checks the sweep (radix-sorted packed
// events, or ranked times when they span too many bits to pack) against
// the definition on random overloaded schedules with permuted IDs, equal
// instants, zero-length and empty jobs, near 0 and near the ends of int64.
func TestCapacityAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	found, ranked := 0, 0
	for trial := range 300 {
		n := 1 + r.IntN(60)
		if trial%50 == 0 {
			n = 400 // more than maxListed starting at an instant
		}
		var base, step int64
		switch trial % 3 {
		case 0:
			base, step = 0, 1
		case 1:
			base, step = -1000, 7
		case 2:
			base, step = math.MinInt64/2, math.MaxInt64/64 // to pack, too many bits: ranked
		}
		ids := r.Perm(n)
		o := make([]job.Outcome, n)
		for i := range o {
			start := base + step*r.Int64N(20)
			end := start + step*(r.Int64N(6)-1) // some end before or at their start
			o[i] = job.Outcome{Job: job.Job{Request: job.Request{ID: ids[i], SWFID: int64(ids[i]) + 1000, Procs: r.IntN(5)}},
				Start: start, End: end}
		}
		procs := 1 + r.IntN(8)
		a := auditor{opt: Options{Procs: procs}, counts: map[string]int{}}
		a.capacity(o)
		slices.SortStableFunc(a.vs, compareViolations)
		want := naiveCapacity(o, procs)
		if !slices.Equal(a.vs, want) {
			t.Fatalf("trial %d (n=%d, P=%d):\n got %v\nwant %v", trial, n, procs, a.vs, want)
		}
		found += len(want)
		if sw := newSweep(o); sw.times != nil {
			ranked++
		}
	}
	if found < 300 || ranked < 50 {
		t.Fatalf("the trials test little: %d violations, %d with ranked times", found, ranked)
	}
}

// TestAuditAnyOrder: the report does not depend on the order of the
// outcomes (the ID check sorts only outcomes that are not in ID order),
// with a duplicate, a missing, an unknown ID and an overload to report.
func TestAuditAnyOrder(t *testing.T) {
	o := valid()
	o[5] = o[4]                                           // duplicate 4 (the same outcome twice: which is named cannot depend on order), missing 5
	o = append(o, mk(9, 40, 40, 1, 1), mk(7, 0, 0, 4, 3)) // unknown 9 and 7; 7 overloads t=0
	want := Audit(o, killOpt)
	if want.Counts[KindDuplicateID] != 1 || want.Counts[KindMissing] != 1 || want.Counts[KindUnknownID] != 2 || want.Counts[KindCapacity] < 1 {
		t.Fatalf("the schedule does not break what it should: %v", want.Counts)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		p := slices.Clone(o)
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		got := Audit(p, killOpt)
		if !slices.Equal(got.Violations, want.Violations) || fmt.Sprint(got.Counts) != fmt.Sprint(want.Counts) {
			t.Fatalf("shuffled: %v\nwant %v", got.Violations, want.Violations)
		}
	}
}

// BenchmarkCapacity audits a schedule shaped like the KTH trace's (28,475
// jobs over a year on 100 processors, starts not in ID order).
func BenchmarkCapacity(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	o := make([]job.Outcome, 28475)
	for i := range o {
		start := r.Int64N(29_000_000)
		run := r.Int64N(20000)
		o[i] = job.Outcome{Job: job.Job{Request: job.Request{ID: i, Procs: 1 + r.IntN(4)}}, Start: start, End: start + run}
	}
	a := auditor{opt: Options{Procs: 1 << 30}, counts: map[string]int{}}
	for b.Loop() {
		a.capacity(o)
	}
}
