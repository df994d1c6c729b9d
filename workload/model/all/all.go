// Package all imports every workload model for its registration.
package all

import (
	_ "github.com/backfill-hpc/backfill/workload/model/feitelson96" // Feitelson 1996
	_ "github.com/backfill-hpc/backfill/workload/model/jann97"      // Jann et al. 1997
	_ "github.com/backfill-hpc/backfill/workload/model/lublin"      // Lublin & Feitelson 2003
)
