package executor

import "errors"

// NewSlurm returns the Slurm executor.
func NewSlurm(ev Events, opt Options) (Executor, error) {
	return nil, errors.New("slurm executor: not yet implemented")
}
