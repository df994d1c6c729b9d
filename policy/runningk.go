package policy

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// RunningK is Running for K-resource policies: the running jobs held in a
// multi-resource profile (profile.Multi), each over [start, start+dur) with
// its requirement vector. Its methods are Running's (Extend, CatchUp, …),
// on vectors.
type RunningK struct {
	tracker[[]int, *profile.Multi]
}

// NewRunningK returns a tracker with an empty profile of the given
// capacities (caps[0] processors).
func NewRunningK(caps []int) (*RunningK, error) {
	m, err := profile.NewMulti(caps)
	if err != nil {
		return nil, err
	}
	return &RunningK{tracker[[]int, *profile.Multi]{Prof: m}}, nil
}

// NeedVector is j's requirement vector on a machine of k resources:
// Need(0), …, Need(k−1). Requirements of resources beyond k are ignored
// (the engine refuses such jobs on a machine that lacks the resource).
func NeedVector(j *job.Request, k int) []int {
	v := make([]int, k)
	for i := range v {
		v[i] = j.Need(i)
	}
	return v
}

// StartFor records that j, with requirement vector need, started at now and
// holds need for dur seconds (≥ 1).
func (r *RunningK) StartFor(now int64, j *job.Request, need []int, dur int64) error {
	return r.startFor(now, j, need, dur)
}
