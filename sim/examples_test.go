package sim_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/sim"
)

// j builds a job: submit, processors, estimate, actual runtime.
func j(submit int64, procs int, est, run int64) job.Job {
	return job.Job{Request: job.Request{Submit: submit, Procs: procs, Estimate: est, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: run}
}

func number(jobs []job.Job) []job.Job {
	for i := range jobs {
		jobs[i].ID = i
		jobs[i].SWFID = int64(i + 1)
	}
	return jobs
}

func run(t *testing.T, spec string, procs int, jobs []job.Job) []int64 {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	starts := make([]int64, len(jobs))
	for i, o := range res.Outcomes {
		starts[i] = o.Start
	}
	return starts
}

func expectStarts(t *testing.T, spec string, got, want []int64) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: job J%d starts at %d, want %d (all starts %v)", spec, i+1, got[i], want[i], got)
		}
	}
}

// EASY's two backfill criteria (Talby & Feitelson §3.1, Feitelson's slides):
// 10 processors; J1 holds 6 until 10; J2 (8 processors) is first in the
// queue, so the shadow time is 10 and the extra nodes are 10−8 = 2; 4 are
// free now.
func TestEASYCriterion1EndsByShadow(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 6, 10, 10), // J1 running
		j(1, 8, 10, 10), // J2 head: shadow 10, extra 2
		j(2, 4, 8, 8),   // J3: 4 ≤ free 4, ends at 10 ≤ shadow → backfills
	})
	expectStarts(t, "easy", run(t, "easy", 10, jobs), []int64{0, 10, 2})
}

func TestEASYCriterion2ExtraNodes(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 6, 10, 10),   // J1 running
		j(1, 8, 10, 10),   // J2 head: shadow 10, extra 2
		j(2, 2, 100, 100), // J3: ends after the shadow, but 2 ≤ min(free 4, extra 2) → backfills
		j(3, 2, 100, 100), // J4: free 2 now but extra nodes used up by J3 → waits for J2
	})
	expectStarts(t, "easy", run(t, "easy", 10, jobs), []int64{0, 10, 2, 20})
}

func TestEASYRefusesJobThatWouldDelayHead(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 6, 10, 10), // J1 running
		j(1, 8, 10, 10), // J2 head: shadow 10, extra 2
		j(2, 4, 9, 9),   // J3: ends at 11 > shadow, and 4 > extra 2 → may not backfill
	})
	expectStarts(t, "easy", run(t, "easy", 10, jobs), []int64{0, 10, 20})
}

// The §3.1 scenario: J1, J2 and JX run; the queue is J3 (whole machine),
// J4, J5. When J1 ends early, EASY backfills J5, which does not delay the
// first job J3 but delays J4 (from 10 to 40). Conservative refuses: J4
// holds a reservation at 10, so J5 must start after J3 (at the end of the
// profile).
func TestSection31EASYDelaysSecondJobConservativeRefuses(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 3, 10, 2),  // J1: ends early at 2
		j(0, 3, 10, 10), // J2: ends at 10
		j(0, 4, 30, 30), // JX: ends at 30
		j(1, 10, 10, 10),
		j(1, 6, 15, 15), // J4
		j(1, 3, 25, 25), // J5
	})
	expectStarts(t, "easy", run(t, "easy", 10, jobs), []int64{0, 0, 0, 30, 40, 2})
	expectStarts(t, "conservative", run(t, "conservative", 10, jobs), []int64{0, 0, 0, 30, 10, 40})
	// with reservations for the first two jobs, EASY protects J4 as well
	expectStarts(t, "easy:depth=2", run(t, "easy:depth=2", 10, jobs), []int64{0, 0, 0, 30, 10, 40})
}

// Conservative compression: J2 is guaranteed a start at 100 (J1's
// estimated end); J1 ends at 10, and the compressed schedule starts J2 at
// 10. The guarantee stays 100.
func TestConservativeCompression(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 10, 100, 10),
		j(1, 5, 50, 50),
		j(2, 5, 200, 200), // fits beside J2 after compression
	})
	s, _ := policy.New("conservative", 10)
	res, err := sim.Run(jobs, s, sim.Options{Procs: 10})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes
	if o[1].Bound != 100 || o[1].Start != 10 {
		t.Errorf("J2: bound %d start %d, want bound 100 start 10", o[1].Bound, o[1].Start)
	}
	if o[2].Bound != 100 || o[2].Start != 10 {
		t.Errorf("J3: bound %d start %d, want bound 100 start 10", o[2].Bound, o[2].Start)
	}
}

// Compression re-places jobs in the order of their current reservations:
// after J1 ends early, J3 (reserved earlier than J2) is re-placed first.
func TestConservativeCompressionOrder(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 10, 100, 5),  // J1: whole machine, ends early at 5
		j(1, 6, 100, 100), // J2: reserved at 100
		j(2, 4, 50, 50),   // J3: reserved at 100 beside J2
		j(3, 6, 20, 20),   // J4: reserved at 200 (after J2)
	})
	// at 5 the order is J2 (100), J3 (100), J4 (200): J2 → 5, J3 → 5, J4 → 105
	expectStarts(t, "conservative", run(t, "conservative", 10, jobs), []int64{0, 5, 5, 105})
}

// FCFS blocks behind a wide job: J2 needs the whole machine, so the tiny
// J3 waits behind it under FCFS, while EASY backfills J3 at once.
func TestFCFSBlocksBehindWideJob(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 5, 100, 100),
		j(1, 10, 100, 100),
		j(2, 1, 5, 5),
	})
	expectStarts(t, "fcfs", run(t, "fcfs", 10, jobs), []int64{0, 100, 200})
	expectStarts(t, "easy", run(t, "easy", 10, jobs), []int64{0, 100, 2})
	expectStarts(t, "conservative", run(t, "conservative", 10, jobs), []int64{0, 100, 2})
}

// Jobs past their estimate are killed at the estimate by default and run on
// with NoKill.
func TestKillAndNoKill(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 10, 10, 50),
		j(1, 10, 10, 10),
	})
	for _, spec := range []string{"fcfs", "easy", "conservative"} {
		s, _ := policy.New(spec, 10)
		res, err := sim.Run(jobs, s, sim.Options{Procs: 10})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; !o.Killed || o.End != 10 || res.Outcomes[1].Start != 10 {
			t.Errorf("%s kill: J1 end %d killed %v, J2 start %d", spec, o.End, o.Killed, res.Outcomes[1].Start)
		}
		s, _ = policy.New(spec, 10)
		res, err = sim.Run(jobs, s, sim.Options{Procs: 10, NoKill: true})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Killed || o.End != 50 || res.Outcomes[1].Start != 50 {
			t.Errorf("%s no-kill: J1 end %d killed %v, J2 start %d", spec, o.End, o.Killed, res.Outcomes[1].Start)
		}
	}
}
