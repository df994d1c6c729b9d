package policy

import (
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
	out := make([]RunningHold, 0, len(r.run.h))
	for _, it := range r.run.h {
		out = append(out, RunningHold{ID: it.id, Start: it.start, End: it.end})
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
