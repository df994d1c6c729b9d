package sim_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestOverrunCostsPerEvent: without kills, a job that runs past its
// estimate is extended one second at a time, but a reservation that waits
// for it is not re-examined every second (docs/simulator.md, "Kills and
// overruns"). Worked by hand (P = 2; submit, runtime, processors,
// estimate): J1 0 20 2 10, J2 1 5 1 5.
//
// t=0: J1 starts, held over [0,10). t=1: J2 is reserved at 10. t=10: J1
// has not ended: its hold is lengthened to 11 and J2 re-placed at 11, which
// waits only for J1 — no pass at 11, nor at any second until an event.
// t=20: J1 ends; its hold is first brought to 21 (catch-up), so its end is
// an early end; the compression moves J2 to 20, and the pass starts it.
// J2 ends at 25. Passes: 0, 1, 10, 20, 25 — five, where re-planning every
// second of the overrun made fourteen (0, 1, 10, 11, …, 20, 25).
func TestOverrunCostsPerEvent(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 2, Estimate: 10}, Runtime: 20},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 1, Estimate: 5}, Runtime: 5},
	}
	for _, spec := range []string{"conservative", "ff-cons", "qops", "msb", "mrt", "slack"} {
		s, err := policy.New(spec, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: 2, NoKill: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Outcomes[1].Start; got != 20 {
			t.Errorf("%s: J2 starts at %d, want 20", spec, got)
		}
		if res.Passes != 5 {
			t.Errorf("%s: %d passes, want 5 (0, 1, 10, 20, 25)", spec, res.Passes)
		}
	}
}
