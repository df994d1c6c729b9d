// Package enginetest has policies that break the scheduling protocol.
//
// They break it on purpose, to test that the simulator and the live
// service refuse them.
package enginetest

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Greedy is a policy that, at every pass, starts every waiting job in
// submission order without looking at the free processors: as soon as two
// jobs wait whose sizes add up to more than the machine, it starts a job
// beyond capacity.
type Greedy struct {
	waiting []*job.Request
}

// Name implements policy.Scheduler.
func (g *Greedy) Name() string { return "test-greedy" }

// Insert implements policy.Scheduler.
func (g *Greedy) Insert(now int64, j *job.Request) { g.waiting = append(g.waiting, j) }

// Remove implements policy.Scheduler.
func (g *Greedy) Remove(now int64, j *job.Request) {
	for i, w := range g.waiting {
		if w == j {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return
		}
	}
}

// Tick implements policy.Scheduler.
func (g *Greedy) Tick(now int64, start func(*job.Request)) int64 {
	for _, j := range g.waiting {
		start(j)
	}
	g.waiting = g.waiting[:0]
	return policy.NoWake
}

// Sleepy is a policy that never starts a job and asks for no wake-up: it
// leaves jobs waiting on an idle machine.
type Sleepy struct{}

// Name implements policy.Scheduler.
func (Sleepy) Name() string { return "test-sleepy" }

// Insert implements policy.Scheduler.
func (Sleepy) Insert(int64, *job.Request) {}

// Remove implements policy.Scheduler.
func (Sleepy) Remove(int64, *job.Request) {}

// Tick implements policy.Scheduler.
func (Sleepy) Tick(int64, func(*job.Request)) int64 { return policy.NoWake }

// Jobs returns two jobs submitted at 0 on a machine of procs processors,
// each needing procs/2+1 processors (procs ≥ 2), so that they cannot run
// together.
func Jobs(procs int) []job.Job {
	n := procs/2 + 1
	return []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: n, Estimate: 100, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 50},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 0, Procs: n, Estimate: 100, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 50},
	}
}
