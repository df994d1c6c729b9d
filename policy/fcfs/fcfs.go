// Package fcfs is first-come first-served scheduling: jobs start strictly
// in arrival order; the first waiting job that does not fit blocks every
// job behind it, however small.
package fcfs

import (
	"backfill/job"
	"backfill/policy"
)

func init() {
	policy.Register(policy.Info{
		Name: "fcfs",
		Doc:  "first-come first-served: start jobs in arrival order while the first one fits; no backfilling",
		New: func(procs int, _ policy.Params) (policy.Scheduler, error) {
			return New(procs), nil
		},
	})
}

// FCFS is the first-come first-served policy.
type FCFS struct {
	free    int
	queue   []*job.Request // waiting jobs in arrival order; head at index head
	head    int
	waiting []bool // by job ID: still in the queue (grows on demand)
}

var _ policy.Scheduler = (*FCFS)(nil)

// New returns FCFS for a machine of procs processors.
func New(procs int) *FCFS { return &FCFS{free: procs} }

// Name implements policy.Scheduler.
func (f *FCFS) Name() string { return "fcfs" }

// Insert implements policy.Scheduler.
func (f *FCFS) Insert(now int64, j *job.Request) {
	f.queue = append(f.queue, j)
	for j.ID >= len(f.waiting) {
		f.waiting = append(f.waiting, false)
	}
	f.waiting[j.ID] = true
}

// Remove implements policy.Scheduler: a running job's processors are
// freed; a waiting job is dropped from the queue.
func (f *FCFS) Remove(now int64, j *job.Request) {
	if j.ID >= len(f.waiting) || !f.waiting[j.ID] {
		f.free += j.Procs // a running job ended
		return
	}
	f.waiting[j.ID] = false
	for i := f.head; i < len(f.queue); i++ {
		if f.queue[i] == j {
			copy(f.queue[i:], f.queue[i+1:])
			f.queue = f.queue[:len(f.queue)-1]
			return
		}
	}
}

// Tick implements policy.Scheduler.
func (f *FCFS) Tick(now int64, start func(*job.Request)) int64 {
	for f.head < len(f.queue) && f.queue[f.head].Procs <= f.free {
		j := f.queue[f.head]
		f.queue[f.head] = nil
		f.waiting[j.ID] = false
		f.head++
		f.free -= j.Procs
		start(j)
	}
	if f.head == len(f.queue) || f.head > 1024 && f.head*2 > len(f.queue) {
		n := copy(f.queue, f.queue[f.head:])
		f.queue = f.queue[:n]
		f.head = 0
	}
	return policy.NoWake
}
