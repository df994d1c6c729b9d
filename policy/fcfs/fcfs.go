// Package fcfs is first-come first-served scheduling.
//
// It is first-come first-served scheduling: jobs start strictly
// in arrival order; the first waiting job that does not fit blocks every
// job behind it, however small.
package fcfs

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func init() {
	policy.Register(policy.Info{
		Name: "fcfs",
		Doc:  "first-come first-served: start jobs in arrival order while the first one fits; no backfilling",
		New: func(procs int, _ policy.Params) (policy.Scheduler, error) {
			return New(procs), nil
		},
		NewK: func(caps []int, _ policy.Params) (policy.Scheduler, error) {
			return NewK(caps), nil
		},
	})
}

// Policy is the first-come first-served policy.
type Policy struct {
	free    int
	queue   []*job.Request // waiting jobs in arrival order; head at index head
	head    int
	waiting []bool // by job ID: still in the queue (grows on demand)
	// freeRes are the free units of the resources beyond the processors
	// on a K-resource machine (NewK); nil for processors only.
	freeRes []int
}

var _ policy.Scheduler = (*Policy)(nil)

// New returns FCFS for a machine of procs processors.
func New(procs int) *Policy { return &Policy{free: procs} }

// NewK returns FCFS for a machine of K = len(caps) resources (caps[0]
// processors, caps[i] units of resource i): the first waiting job starts
// when it fits in every resource. NewK([]int{P}) is New(P).
func NewK(caps []int) *Policy {
	f := New(caps[0])
	if len(caps) > 1 {
		f.freeRes = append([]int(nil), caps[1:]...)
	}
	return f
}

// fits reports whether j fits in the free resources.
func (f *Policy) fits(j *job.Request) bool {
	if j.Procs > f.free {
		return false
	}
	for k, n := range j.Res {
		if k < len(f.freeRes) && n > f.freeRes[k] {
			return false
		}
	}
	return true
}

// hold takes (sign 1) or releases (sign −1) j's resources beyond the
// processors.
func (f *Policy) hold(j *job.Request, sign int) {
	for k, n := range j.Res {
		if k < len(f.freeRes) {
			f.freeRes[k] -= sign * n
		}
	}
}

// Name implements policy.Scheduler.
func (f *Policy) Name() string { return "fcfs" }

// Insert implements policy.Scheduler.
func (f *Policy) Insert(now int64, j *job.Request) {
	f.queue = append(f.queue, j)
	for j.ID >= len(f.waiting) {
		f.waiting = append(f.waiting, false)
	}
	f.waiting[j.ID] = true
}

// Remove implements policy.Scheduler: a running job's processors are
// freed; a waiting job is dropped from the queue.
func (f *Policy) Remove(now int64, j *job.Request) {
	if j.ID >= len(f.waiting) || !f.waiting[j.ID] {
		f.free += j.Procs // a running job ended
		if f.freeRes != nil {
			f.hold(j, -1)
		}
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
func (f *Policy) Tick(now int64, start func(*job.Request)) int64 {
	for f.head < len(f.queue) && f.queue[f.head].Procs <= f.free && (f.freeRes == nil || f.fits(f.queue[f.head])) {
		j := f.queue[f.head]
		if f.freeRes != nil {
			f.hold(j, 1)
		}
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
