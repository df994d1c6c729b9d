// Package fcfs is first-come first-served scheduling.
//
// Jobs start strictly in queue order, arrival by default: the first
// waiting job that does not fit blocks every job behind it, however small.
// With another queue order (parameter order, policy.Order: sjf, Slurm's
// multifactor priority, …) it is strict priority scheduling without
// backfilling, as a production scheduler's main loop without its backfill
// pass.
package fcfs

import (
	"github.com/backfill-hpc/backfill/internal/jobq"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func init() {
	policy.Register(policy.Info{
		Name:   "fcfs",
		Doc:    "first-come first-served: start jobs in arrival order while the first one fits; no backfilling",
		Params: []policy.Param{policy.OrderParam("fcfs")},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			c, err := config(p, procs)
			if err != nil {
				return nil, err
			}
			return New(procs, c), nil
		},
		NewK: func(caps []int, p policy.Params) (policy.Scheduler, error) {
			c, err := config(p, caps[0])
			if err != nil {
				return nil, err
			}
			return NewK(caps, c), nil
		},
	})
}

// config is the Config of the parameters p.
func config(p policy.Params, procs int) (Config, error) {
	o, err := policy.NewOrder(p, "fcfs", procs)
	if err != nil {
		return Config{}, err
	}
	return Config{Order: o}, nil
}

// Config is FCFS's configuration.
type Config struct {
	// Order is the queue order: jobs start in this order while the first
	// fits. nil or policy.FCFS: arrival (first-come first-served).
	Order policy.Order
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
	// with an order other than arrival (Config.Order): the waiting jobs
	// in q instead of queue, and the order's plumbing
	q   *jobq.Queue
	ord policy.Ordering
}

var _ policy.Scheduler = (*Policy)(nil)

// New returns FCFS for a machine of procs processors.
func New(procs int, c Config) *Policy {
	f := &Policy{free: procs, ord: policy.NewOrdering(c.Order)}
	if !policy.IsArrival(f.ord.O) {
		f.q = jobq.New(f.ord.Key)
	}
	return f
}

// NewK returns FCFS for a machine of K = len(caps) resources (caps[0]
// processors, caps[i] units of resource i): the first waiting job starts
// when it fits in every resource. NewK([]int{P}, c) is New(P, c).
func NewK(caps []int, c Config) *Policy {
	f := New(caps[0], c)
	if len(caps) > 1 {
		f.freeRes = append([]int(nil), caps[1:]...)
	}
	return f
}

// StartsInArrivalOrder implements policy.ArrivalOrdered: true with
// arrival order, the classic FCFS the auditor checks.
func (f *Policy) StartsInArrivalOrder() bool { return f.q == nil }

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

// Name implements policy.Scheduler: "fcfs", with its order when not
// arrival.
func (f *Policy) Name() string {
	if f.q != nil {
		return "fcfs:order=" + f.ord.O.Name()
	}
	return "fcfs"
}

// Insert implements policy.Scheduler.
func (f *Policy) Insert(now int64, j *job.Request) {
	for j.ID >= len(f.waiting) {
		f.waiting = append(f.waiting, false)
	}
	f.waiting[j.ID] = true
	if f.q != nil {
		f.ord.Submitted(now, j)
		f.q.Push(j)
		return
	}
	f.queue = append(f.queue, j)
}

// Remove implements policy.Scheduler: a running job's processors are
// freed; a waiting job is dropped from the queue.
func (f *Policy) Remove(now int64, j *job.Request) {
	if f.q != nil {
		f.ord.Ended(now, j)
		if j.ID < len(f.waiting) && f.waiting[j.ID] {
			f.waiting[j.ID] = false
			f.q.Cancel(j)
			return
		}
	}
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
	if f.q != nil {
		return f.tickOrdered(now, start)
	}
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

// tickOrdered is Tick in an order other than arrival: a dynamic order is
// brought to now and the queue sorted in it (ties by arrival), then jobs
// start from the head while the head fits.
func (f *Policy) tickOrdered(now int64, start func(*job.Request)) int64 {
	if f.ord.Dynamic {
		f.ord.Advance(now)
		f.q.Resort(now, f.ord.O)
	}
	start = f.ord.Wrap(now, start)
	for {
		i, j := f.q.Head()
		if j == nil || j.Procs > f.free || (f.freeRes != nil && !f.fits(j)) {
			break
		}
		if f.freeRes != nil {
			f.hold(j, 1)
		}
		f.q.Take(i)
		f.waiting[j.ID] = false
		f.free -= j.Procs
		start(j)
	}
	f.q.Compact()
	return policy.NoWake
}
