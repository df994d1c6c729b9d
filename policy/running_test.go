package policy

import (
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// TestHoldsOnly: after HoldsOnly(now) the profile holds exactly the
// running jobs' holds from now on (started, lengthened past an overrun),
// whatever else it held before — the steps of a fresh profile given those
// holds alone — for processors and for requirement vectors (a re-plan that
// removes every reservation uses it: package reservation, replan.go).
func TestHoldsOnly(t *testing.T) {
	r := NewRunning(10)
	r.Overrun = OverrunLimit
	j1 := &job.Request{ID: 0, SWFID: 1, Procs: 4, Estimate: 10}
	j2 := &job.Request{ID: 1, SWFID: 2, Procs: 3, Estimate: 50}
	if err := r.Start(0, j1); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(5, j2); err != nil {
		t.Fatal(err)
	}
	if err := r.Extend(12); err != nil { // j1 past its estimate: held until 12+10
		t.Fatal(err)
	}
	if err := r.Prof.Add(30, 80, 7); err != nil { // a reservation
		t.Fatal(err)
	}
	r.HoldsOnly(12)
	want := profile.New(10)
	for _, h := range [][3]int64{{12, 22, 4}, {12, 55, 3}} {
		if err := want.Add(h[0], h[1], int(h[2])); err != nil {
			t.Fatal(err)
		}
	}
	if got, w := r.Prof.Steps(), want.Steps(); !slices.Equal(got, w) {
		t.Fatalf("after HoldsOnly: %v, want %v", got, w)
	}

	k, err := NewRunningK([]int{10, 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.StartFor(0, j1, []int{4, 6}, 10); err != nil {
		t.Fatal(err)
	}
	if err := k.Prof.Add(10, 40, []int{10, 6}); err != nil {
		t.Fatal(err)
	}
	k.HoldsOnly(5)
	if got, w := k.Prof.Res(0).FreeAt(20), 10; got != w {
		t.Fatalf("K=2 after HoldsOnly: %d free at 20, want %d", got, w)
	}
	if got, w := k.Prof.Res(1).FreeAt(5), 0; got != w {
		t.Fatalf("K=2 after HoldsOnly: %d free of resource 1 at 5, want %d", got, w)
	}
}
