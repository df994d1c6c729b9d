package reservation

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// TestReplanAfterHandPlacement: a reservation a policy placed by hand
// (Hold, Unhold, Insert, SetWait: slack's priced slots, QoPS's admission)
// need not be an earliest fit, so the re-plan after an overrun must search
// it as the literal re-plan does, not keep its window (replan.go: those
// calls clear Book.fitted). Worked by hand: P = 4, job A (2 processors,
// estimate 10) runs from 0 and is still running at 10; job C (2
// processors, 5 s), which could start at 0, is held at 40 by hand. At the
// pass at 10 A's hold becomes [0, 20) (overrun=limit) and C's earliest fit
// from 10 is 10 (2 processors are free beside A): C starts at 10.
func TestReplanAfterHandPlacement(t *testing.T) {
	for _, how := range []string{"unhold+hold", "insert", "setwait"} {
		run := policy.NewRunning(4)
		run.Overrun = policy.OverrunLimit
		b := NewScalar[struct{}]("test", run)
		a := &job.Request{ID: 0, SWFID: 1, Procs: 2, Estimate: 10}
		c := &job.Request{ID: 1, SWFID: 2, Procs: 2, Estimate: 5}
		if err := run.Start(0, a); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "unhold+hold":
			b.Settle(0)
			e := b.Add(0, c, 2, 5, struct{}{})
			if e.Start != 0 {
				t.Fatalf("%s: C placed at %d, want 0", how, e.Start)
			}
			b.Unhold(e, 0)
			e.Start = 40
			b.Hold(e, 40)
		case "insert":
			e := &Entry[int, struct{}]{J: c, Need: 2, Dur: 5, Start: 40, First: 40}
			b.Hold(e, 40)
			b.fitted = true // only Insert may clear it here
			b.Insert(e)
		case "setwait":
			e := &Entry[int, struct{}]{J: c, Need: 2, Dur: 5, Start: 40, First: 40}
			if err := run.Prof.Add(40, 45, 2); err != nil {
				t.Fatal(err)
			}
			b.SetWait([]*Entry[int, struct{}]{e})
			b.Index(e)
		}
		b.Settle(10)
		var started []int
		b.Pass(10, func(e *Entry[int, struct{}]) { started = append(started, e.J.ID) })
		if len(started) != 1 || started[0] != 1 {
			t.Fatalf("%s: the pass at 10 started %v, want job C (1)", how, started)
		}
		if end, _ := run.HoldEnd(a); end != 20 {
			t.Fatalf("%s: A's hold ends at %d, want 20", how, end)
		}
	}
}
