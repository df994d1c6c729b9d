package slurm

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/sim"
)

// ticks counts the passes a policy is asked for.
type ticks struct {
	*Policy
	n int
}

func (c *ticks) Tick(now int64, start func(*job.Request)) int64 {
	c.n++
	return c.Policy.Tick(now, start)
}

// TestIdleWaitIsNotTicked: a job waits behind one that runs for
// 999,999,999,999,999,999 s (an estimate a trace may hold: SWF fields have
// up to 18 digits, and the reader takes them). With Slurm's default
// configuration every priority is 1 and nothing changes while the first
// job runs. The policy used to ask for a pass every
// bf_interval/sched_interval (a pass per 30 s of simulated time: the run
// never ended; fixed by the quiet wake-ups of b801884), and the
// multifactor clock then stepped through every PriorityCalcPeriod in
// between (10¹⁵ steps; fixed in Multifactor.Advance, 380fb77). Found by the audit
// of 2026-11-25.
func TestIdleWaitIsNotTicked(t *testing.T) {
	const long = 999_999_999_999_999_999
	js := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 1, Estimate: long, User: 1, Group: 1, Queue: -1, Partition: -1}, Runtime: long},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 4, Estimate: 5, User: 1, Group: 1, Queue: -1, Partition: -1}, Runtime: 5},
	}
	c := &ticks{Policy: New(4, Options{})}
	res, err := sim.Run(js, c, sim.Options{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outcomes[1].Start; got != long+3 {
		t.Errorf("job 1 starts at %d, want %d (job 0 starts at 3, batch_sched_delay after slurmctld starts, and job 1 at its end)", got, long+3)
	}
	if c.n > 100 {
		t.Errorf("%d passes for two jobs", c.n)
	}
}
