// Package trivial is the smallest complete policy.
//
// It is first-come first-served in 40 lines, registered as
// "test-trivial".
//
// It exists to show (policytest.TestNewPolicyIsCovered) that adding a
// policy takes one package and one registry line: the conformance suite
// finds it through the registry and checks it like every other policy.
package trivial

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Policy starts waiting jobs in arrival order while the first one fits.
type Policy struct {
	free    int
	waiting []*job.Request
}

func init() {
	policy.Register(policy.Info{Name: "test-trivial", Doc: "tests only: FCFS in 40 lines",
		New: func(procs int, _ policy.Params) (policy.Scheduler, error) { return &Policy{free: procs}, nil }})
}

// Name implements policy.Scheduler.
func (p *Policy) Name() string { return "test-trivial" }

// Insert implements policy.Scheduler.
func (p *Policy) Insert(_ int64, j *job.Request) { p.waiting = append(p.waiting, j) }

// Remove implements policy.Scheduler: a running job gives its processors
// back; a waiting one (cancelled) leaves the queue.
func (p *Policy) Remove(_ int64, j *job.Request) {
	for i, w := range p.waiting {
		if w == j {
			p.waiting = append(p.waiting[:i], p.waiting[i+1:]...)
			return
		}
	}
	p.free += j.Procs
}

// Tick implements policy.Scheduler.
func (p *Policy) Tick(_ int64, start func(*job.Request)) int64 {
	for len(p.waiting) > 0 && p.waiting[0].Procs <= p.free {
		p.free -= p.waiting[0].Procs
		start(p.waiting[0])
		p.waiting = p.waiting[1:]
	}
	return policy.NoWake
}
