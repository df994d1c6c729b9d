package report

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestFromAlloc: the Gantt rectangles are the jobs' real core intervals;
// an allocation of the wrong size, or none, falls back to packing.
func TestFromAlloc(t *testing.T) {
	mk := func(id int, start, end int64, procs int) job.Outcome {
		return job.Outcome{Job: job.Job{Request: job.Request{ID: id, Procs: procs}}, Start: start, End: end}
	}
	outs := []job.Outcome{mk(0, 5, 10, 3), mk(1, 0, 10, 2), mk(2, 3, 3, 1)}
	pl, ok := FromAlloc(outs, []string{"0 6-7", "2-3", "9"}, 8)
	if !ok {
		t.Fatal("valid allocation refused")
	}
	// order by start: job 1 (0-3... "2-3"), then job 0 ("0", "6-7"); job 2 has no length
	want := []Rect{{1, 2, 2}, {0, 0, 1}, {0, 6, 2}}
	if len(pl.Rects) != len(want) || pl.Placed != 2 {
		t.Fatalf("%+v", pl)
	}
	for i := range want {
		if pl.Rects[i] != want[i] {
			t.Errorf("rect %d: %+v, want %+v", i, pl.Rects[i], want[i])
		}
	}
	for _, bad := range [][]string{{"0 6", "2-3", ""}, {"0 6-8", "2-3", ""}, {"0-2", "x", ""}, nil} {
		if _, ok := FromAlloc(outs, bad, 8); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
