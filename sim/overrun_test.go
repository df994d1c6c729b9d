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

// TestOverrunRules: the three rules for the planned end of a job past its
// estimate (policy.OverrunRule; docs/simulator.md, "Kills and overruns")
// give three schedules, worked by hand. P = 2; submit, runtime,
// processors, estimate: J1 0 35 1 10, J2 1 5 2 5, J3 12 5 1 5, J4 22 9 1 9.
//
// second (the hold ends at now+1 at each event): t=10 J1's hold → 11, J2
// → 11 (no pass at 11: it waits only for J1). t=12 (catch-up) J1 → 13,
// J2 → 13; J3 fits nowhere before J2 ([12,13) is one second) → 18. t=18
// J1 → 19, J2 → 19, J3 → 24. t=22 J1 → 23, J2 → [23,28), J3 → [28,33),
// J4 → 28 (one processor is free over [28,37)). t=28 J1 → 29, J2 → 29,
// J3 → 34, J4 → 34. t=34 J1 → 35, J2 → 35, J3 → 40, J4 → 40. t=35 J1
// ends at its hold's end: J2 starts; t=40 J3 and J4 start.
//
// limit (Slurm: now + estimate): t=10 J1 → 20, J2 → 20. t=12 one
// processor is free over [12,20): J3 starts at once. t=20 J1 → 30, J2 →
// 30. t=22 J4 needs 9 seconds, [22,30) has 8 → 35 (after J2). t=30 J1 →
// 40; in order J2 → 40, J4 → 30 (one processor free over [30,40)): J4
// starts, ends at 39. t=35 J1 ends early (hold 40): J2 moves to 39.
//
// double (now + elapsed): t=10 J1 → 20, J2 → 20; t=12 J3 starts. t=20 J1
// → 40, J2 → 40. t=22 one processor is free over [22,40): J4 starts.
// t=35 J1 ends early: J2 moves to 35.
func TestOverrunRules(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 1, Estimate: 10}, Runtime: 35},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 2, Estimate: 5}, Runtime: 5},
		{Request: job.Request{ID: 2, SWFID: 3, Submit: 12, Procs: 1, Estimate: 5}, Runtime: 5},
		{Request: job.Request{ID: 3, SWFID: 4, Submit: 22, Procs: 1, Estimate: 9}, Runtime: 9},
	}
	want := map[string][3]int64{ // starts of J2, J3, J4
		"second": {35, 40, 40},
		"limit":  {39, 12, 30},
		"double": {35, 12, 22},
	}
	for _, name := range []string{"conservative", "ff-cons"} {
		for rule, w := range want {
			spec := name + ":overrun=" + rule
			s, err := policy.New(spec, 2)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(jobs, s, sim.Options{Procs: 2, NoKill: true})
			if err != nil {
				t.Fatal(err)
			}
			got := [3]int64{res.Outcomes[1].Start, res.Outcomes[2].Start, res.Outcomes[3].Start}
			if got != w {
				t.Errorf("%s: J2, J3, J4 start at %v, want %v", spec, got, w)
			}
			if rule == "limit" && res.Policy != name {
				t.Errorf("%s: named %q, want %q (limit is the default)", spec, res.Policy, name)
			}
		}
		// in kill mode no job runs past its estimate: the rule changes
		// nothing (J1 killed at 10; J2 at 10, J3 at 15, J4 at 22)
		for rule := range want {
			s, _ := policy.New(name+":overrun="+rule, 2)
			res, err := sim.Run(jobs, s, sim.Options{Procs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := [3]int64{res.Outcomes[1].Start, res.Outcomes[2].Start, res.Outcomes[3].Start}; got != [3]int64{10, 15, 22} {
				t.Errorf("%s:overrun=%s, kill mode: J2, J3, J4 start at %v, want [10 15 22]", name, rule, got)
			}
		}
		// the default is limit
		s, _ := policy.New(name, 2)
		res, err := sim.Run(jobs, s, sim.Options{Procs: 2, NoKill: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := [3]int64{res.Outcomes[1].Start, res.Outcomes[2].Start, res.Outcomes[3].Start}; got != want["limit"] {
			t.Errorf("%s: J2, J3, J4 start at %v, want limit's %v", name, got, want["limit"])
		}
	}
	if _, err := policy.New("conservative:overrun=never", 2); err == nil {
		t.Error("conservative:overrun=never accepted")
	}
}
