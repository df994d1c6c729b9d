// Package firstfit is a scheduling policy written outside the backfill
// repository, against its public API only: "first fit", which starts, in
// arrival order, every waiting job that fits in the free processors. It
// backfills aggressively and promises nothing: a wide job can starve
// behind a stream of small ones (the reason EASY reserves a start for the
// first waiting job). See docs/library.md of the backfill repository.
package firstfit

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Name is the name the policy is registered under.
const Name = "firstfit"

// Register makes the policy available by name to everything that finds
// policies in backfill's registry: the simulator's callers, the
// experiment workbench (sweeps) and the live service. Call it once, from
// main (or an init function).
func Register() {
	policy.Register(policy.Info{
		Name: Name,
		Doc:  "first fit: start, in arrival order, every waiting job that fits in the free processors (no reservation)",
		Params: []policy.Param{
			{Name: "max", Default: "all", Doc: "jobs started per pass at most (all = no limit)"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			max, err := p.Int("max", 0, 0)
			if err != nil {
				return nil, err
			}
			return New(procs, max), nil
		},
	})
}

// FirstFit is the policy's state: the free processors and the waiting
// jobs in arrival order. It sees only the jobs' requests (size, estimate),
// never their runtimes: it learns that a job ended from Remove.
type FirstFit struct {
	free    int
	max     int // jobs started per Tick at most; 0: no limit
	queue   []*job.Request
	running map[int]bool // by job ID
}

// New returns the policy for a machine of procs processors.
func New(procs, max int) *FirstFit {
	return &FirstFit{free: procs, max: max, running: map[int]bool{}}
}

// Name implements policy.Scheduler.
func (f *FirstFit) Name() string { return Name }

// Insert implements policy.Scheduler: j waits at the end of the queue.
func (f *FirstFit) Insert(now int64, j *job.Request) { f.queue = append(f.queue, j) }

// Remove implements policy.Scheduler: a running job ended (its processors
// are free), or a waiting job was cancelled (it leaves the queue).
func (f *FirstFit) Remove(now int64, j *job.Request) {
	if f.running[j.ID] {
		delete(f.running, j.ID)
		f.free += j.Procs
		return
	}
	for i, q := range f.queue {
		if q.ID == j.ID {
			f.queue = append(f.queue[:i], f.queue[i+1:]...)
			return
		}
	}
}

// Tick implements policy.Scheduler: it starts every waiting job that fits,
// in arrival order, and needs no wake-up call (nothing changes until a job
// ends or arrives).
func (f *FirstFit) Tick(now int64, start func(j *job.Request)) int64 {
	kept := f.queue[:0]
	started := 0
	for _, j := range f.queue {
		if j.Procs <= f.free && (f.max == 0 || started < f.max) {
			f.free -= j.Procs
			f.running[j.ID] = true
			started++
			start(j)
			continue
		}
		kept = append(kept, j)
	}
	f.queue = kept
	return policy.NoWake
}
