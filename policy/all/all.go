// Package all links every policy into the registry; import it for its side
// effects.
package all

import (
	// Each import registers its policies with package policy.
	_ "github.com/backfill-hpc/backfill/policy/conservative"
	_ "github.com/backfill-hpc/backfill/policy/deadline"
	_ "github.com/backfill-hpc/backfill/policy/easy"
	_ "github.com/backfill-hpc/backfill/policy/fcfs"
	_ "github.com/backfill-hpc/backfill/policy/kresource"
	_ "github.com/backfill-hpc/backfill/policy/lookahead"
	_ "github.com/backfill-hpc/backfill/policy/multiqueue"
	_ "github.com/backfill-hpc/backfill/policy/slack"
	_ "github.com/backfill-hpc/backfill/policy/slurm"
)
