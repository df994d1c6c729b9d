package fcfs

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// Remove of a waiting job (cancellation) drops it from the queue without
// freeing processors; Remove of a running job frees them.
func TestRemoveWaitingAndRunning(t *testing.T) {
	f := New(4)
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
