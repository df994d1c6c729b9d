package fcfs

import (
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Remove of a waiting job (cancellation) drops it from the queue without
// freeing processors; Remove of a running job frees them.
func TestRemoveWaitingAndRunning(t *testing.T) {
	f := New(4, Config{})
	a := &job.Request{ID: 0, Procs: 3, Estimate: 10}
	b := &job.Request{ID: 1, Procs: 4, Estimate: 10}
	c := &job.Request{ID: 2, Procs: 1, Estimate: 10}
	f.Insert(0, a)
	f.Insert(0, b)
	f.Insert(0, c)
	var started []int
	f.Tick(0, func(j *job.Request) { started = append(started, j.ID) })
	if len(started) != 1 || started[0] != 0 {
		t.Fatalf("started %v, want [0] (b blocks c)", started)
	}
	f.Remove(1, b) // cancel the blocking job
	started = nil
	f.Tick(1, func(j *job.Request) { started = append(started, j.ID) })
	if len(started) != 1 || started[0] != 2 {
		t.Fatalf("after cancelling b started %v, want [2]", started)
	}
	f.Remove(5, a)
	f.Remove(5, c)
	if f.free != 4 {
		t.Fatalf("free = %d after all ended, want 4", f.free)
	}
}

// largestFirst is a dynamic order (no fixed key): widest job first.
type largestFirst struct{}

func (largestFirst) Name() string                         { return "largest" }
func (largestFirst) Less(_ int64, a, b *job.Request) bool { return a.Procs > b.Procs }

// TestOrder, worked by hand on P = 4 with A (4 procs, estimate 100),
// B (2, 50), C (1, 10), D (3, 20) submitted at 0 in that order: arrival
// starts A and blocks; sjf starts C then D (free 3, then 0) and B waits;
// when D ends B starts and A blocks the rest; a dynamic order (widest
// first, re-sorted at each pass) starts A. Only arrival order promises
// arrival-order starts to the auditor.
func TestOrder(t *testing.T) {
	mk := func() []*job.Request {
		return []*job.Request{{ID: 0, Procs: 4, Estimate: 100}, {ID: 1, Procs: 2, Estimate: 50},
			{ID: 2, Procs: 1, Estimate: 10}, {ID: 3, Procs: 3, Estimate: 20}}
	}
	run := func(f *Policy, js []*job.Request, now int64) []int {
		var got []int
		f.Tick(now, func(j *job.Request) { got = append(got, j.ID) })
		return got
	}
	for _, c := range []struct {
		order   policy.Order
		first   []int
		arrival bool
	}{
		{nil, []int{0}, true},
		{policy.FCFS, []int{0}, true},
		{policy.SJF, []int{2, 3}, false},
		{largestFirst{}, []int{0}, false},
	} {
		f, js := New(4, Config{Order: c.order}), mk()
		for _, j := range js {
			f.Insert(0, j)
		}
		if got := run(f, js, 0); !slices.Equal(got, c.first) {
			t.Errorf("order %v: started %v, want %v", c.order, got, c.first)
		}
		if policy.InArrivalOrder(f) != c.arrival {
			t.Errorf("order %v: InArrivalOrder %v", c.order, !c.arrival)
		}
		if c.order == policy.SJF {
			f.Remove(20, js[3])
			if got := run(f, js, 20); !slices.Equal(got, []int{1}) {
				t.Errorf("sjf after D's end: started %v, want [1]", got)
			}
			if f.Name() != "fcfs:order=sjf" {
				t.Errorf("name %q", f.Name())
			}
		}
	}
}
