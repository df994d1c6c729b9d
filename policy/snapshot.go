package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// Snapshotter is implemented by policies that can save their state and
// restore it, so that a long-running driver (the live service) restarts
// from a snapshot and replays only the events after it, instead of
// replaying its whole history through the policy.
//
// The contract: a policy restored at now from Snapshot's data, given the
// same *job.Request of every job it knew (lookup, by job ID), makes
// exactly the decisions — starts, wake-ups, reservations, guarantees —
// that the policy which took the snapshot makes from then on, for any
// later events. Snapshot is taken between instants' protocol steps (the
// live service takes it right after a pass) and does not change the
// policy. Restore is called on a freshly built policy with the same
// parameters and machine, before any other call; lookup returns nil for
// an unknown ID, which Restore reports as an error.
//
// Snapshot returns an error when the policy cannot save its current
// configuration (for example conservative backfilling with a runtime
// predictor, whose learned history is not saved); a driver then falls
// back to replaying its full history (documented in docs/service.md).
// Policies without the capability are always replayed in full. A policy
// that embeds another and keeps state of its own must override Snapshot
// (and Restore), or it would inherit a snapshot that misses that state.
type Snapshotter interface {
	// Snapshot encodes the policy's state.
	Snapshot() ([]byte, error)
	// Restore sets the state of a fresh policy from data, at now.
	Restore(now int64, data []byte, lookup func(id int) *job.Request) error
}

// RunningHold is one running job's hold, as saved by RunningState.
type RunningHold struct {
	ID         int   // job ID
	Start, End int64 // [Start, End) in the profile
}

// Holds lists the running jobs' holds in job-ID order (a snapshot's
// content: Restore rebuilds the tracker from them).
func (r *Running) Holds() []RunningHold {
	out := make([]RunningHold, 0, r.run.Len())
	for _, it := range r.run.Items() {
		out = append(out, RunningHold{ID: it.ID, Start: it.Val.start, End: it.Key})
	}
	slices.SortFunc(out, func(a, b RunningHold) int { return a.ID - b.ID })
	return out
}

// Restore adds the running job j with its hold [start, end) to an empty
// or partly restored tracker (a snapshot's holds, in any order): the
// profile holds j's processors over [start, end).
func (r *Running) Restore(j *job.Request, start, end int64) error {
	return r.StartFor(start, j, end-start)
}

// Adopter is implemented by policies that can take over running jobs
// from another policy: the live service changes its policy or machine
// size (a reconfiguration) by building a fresh policy, handing it the
// running jobs with Adopt, then inserting the waiting jobs again in
// arrival order. Adopt is called on a freshly built policy before any
// other call; each hold is [start, start + estimate) of a running job
// (jobs are killed at their estimates), and lookup returns its request.
// It fails for a configuration that cannot plan with the holds given
// (e.g. a runtime predictor, which would hold a running job for its
// prediction, unknown to a fresh policy).
type Adopter interface {
	Adopt(now int64, holds []RunningHold, lookup func(id int) *job.Request) error
}

// AdoptHolds adds the running jobs' holds to a fresh tracker (Adopt's
// common part): every hold must be a known job with start < end.
func (r *Running) AdoptHolds(name string, holds []RunningHold, lookup func(id int) *job.Request) error {
	return r.addHolds(name+": adopt", holds, lookup)
}

// RestoreHolds adds a snapshot's running holds to a fresh tracker
// (Restore's common part), as AdoptHolds; errors say "snapshot".
func (r *Running) RestoreHolds(name string, holds []RunningHold, lookup func(id int) *job.Request) error {
	return r.addHolds(name+": snapshot", holds, lookup)
}

func (r *Running) addHolds(prefix string, holds []RunningHold, lookup func(id int) *job.Request) error {
	for _, h := range holds {
		j := lookup(h.ID)
		if j == nil {
			return fmt.Errorf("%s: unknown job %d", prefix, h.ID)
		}
		if h.End <= h.Start {
			return fmt.Errorf("%s: job %d holds [%d, %d)", prefix, h.ID, h.Start, h.End)
		}
		if err := r.Restore(j, h.Start, h.End); err != nil {
			return fmt.Errorf("%s: %w", prefix, err)
		}
	}
	return nil
}

// DecodeSnapshot is the common start of a Snapshotter's Restore: it
// refuses a policy that is not fresh (Restore is called before any other
// call), decodes the JSON data into snap (a pointer to the policy's
// snapshot struct) and checks that the version it holds, *version once
// decoded, is want. Errors name the policy.
func DecodeSnapshot(name string, fresh bool, data []byte, snap any, version *int, want int) error {
	if !fresh {
		return errors.New(name + ": restore into a policy that is not fresh")
	}
	if err := json.Unmarshal(data, snap); err != nil {
		return fmt.Errorf("%s: snapshot: %w", name, err)
	}
	if *version != want {
		return fmt.Errorf("%s: snapshot version %d, expected %d", name, *version, want)
	}
	return nil
}

// SnapshotJob is the request of job id for a Restore (lookup), or an
// error naming the policy when id is not a job ID or is unknown.
func SnapshotJob(name string, lookup func(id int) *job.Request, id int64) (*job.Request, error) {
	if id < 0 || id > int64(int(^uint(0)>>1)) {
		return nil, fmt.Errorf("%s: snapshot: bad job ID %d", name, id)
	}
	j := lookup(int(id))
	if j == nil {
		return nil, fmt.Errorf("%s: snapshot: unknown job %d", name, id)
	}
	return j, nil
}

// ReinsertWaiting inserts again (insert) the waiting jobs a snapshot
// lists by ID (Restore's common part for the queue-based policies):
// every ID must be known, listed once, and, when arrival, the IDs
// increase (arrival order).
func ReinsertWaiting(name string, ids []int, arrival bool, lookup func(id int) *job.Request, insert func(*job.Request)) error {
	last, seen := -1, map[int]bool{}
	for _, id := range ids {
		j, err := SnapshotJob(name, lookup, int64(id))
		if err != nil {
			return err
		}
		if (arrival && id <= last) || seen[id] {
			return fmt.Errorf("%s: snapshot: waiting jobs out of arrival order or listed twice", name)
		}
		seen[id], last = true, id
		insert(j)
	}
	return nil
}

// OrderSnapshotter is implemented by queue orders that keep state of
// their own (an OrderObserver such as Slurm's multifactor priority, whose
// fair-share usage, calculation clock and priorities follow from the
// whole history) and can save it, so that the policies over them take
// snapshots too (policy.Snapshotter's contract, for the order).
//
// SnapshotOrder is taken between protocol steps. RestoreOrder is called
// on a freshly built order with the same parameters and machine, before
// any other call; lookup returns the request of each job the order knew
// (waiting or running) by ID, nil for an unknown one. The policy that
// owns the order restores it first and then re-inserts its own jobs
// without reporting them to the order again (Ordering.Quiet).
type OrderSnapshotter interface {
	// SnapshotOrder encodes the order's state.
	SnapshotOrder() ([]byte, error)
	// RestoreOrder sets the state of a fresh order from data, at now.
	RestoreOrder(now int64, data []byte, lookup func(id int) *job.Request) error
}

// Snapshot saves the order's own state for a policy's snapshot: nil for a
// stateless order (nothing to save), an error for a stateful one that
// cannot save it (not an OrderSnapshotter).
func (r Ordering) Snapshot() ([]byte, error) {
	if r.Stateless() {
		return nil, nil
	}
	sn, ok := r.O.(OrderSnapshotter)
	if !ok {
		if r.obs == nil {
			return nil, nil // a dynamic order that observes nothing: a function of the jobs and the time
		}
		return nil, fmt.Errorf("order %s cannot save its state", r.O.Name())
	}
	return sn.SnapshotOrder()
}

// Restore sets a fresh order's state from Snapshot's data (nil for an
// order that saved none).
func (r Ordering) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	sn, ok := r.O.(OrderSnapshotter)
	if len(data) == 0 {
		if ok && r.obs != nil {
			return fmt.Errorf("order %s: the snapshot holds no state of it", r.O.Name())
		}
		return nil
	}
	if !ok {
		return fmt.Errorf("order %s cannot restore a state", r.O.Name())
	}
	return sn.RestoreOrder(now, data, lookup)
}

// RestoreQuiet is the order's part of a policy's Restore: it restores *r
// from data (Restore; an error names the policy) and keeps *r quiet
// (Quiet) until the returned function is called, so that the policy
// re-inserts its restored jobs without the order seeing them submitted
// again:
//
//	done, err := p.ord.RestoreQuiet("name", now, s.Order, lookup)
//	if err != nil {
//		return err
//	}
//	defer done()
func (r *Ordering) RestoreQuiet(name string, now int64, data []byte, lookup func(id int) *job.Request) (func(), error) {
	if err := r.Restore(now, data, lookup); err != nil {
		return nil, fmt.Errorf("%s: snapshot: %w", name, err)
	}
	saved := *r
	*r = r.Quiet()
	return func() { *r = saved }, nil
}

// Quiet is r without its observer: a policy re-inserts its restored jobs
// through it, so that the restored order does not see them submitted
// again.
func (r Ordering) Quiet() Ordering {
	r.obs = nil
	return r
}
