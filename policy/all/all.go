// Package all links every policy into the registry; import it for its side
// effects.
package all

import (
	// Each import registers its policies with package policy.
	_ "backfill/policy/conservative"
	_ "backfill/policy/deadline"
	_ "backfill/policy/easy"
	_ "backfill/policy/fcfs"
	_ "backfill/policy/kresource"
	_ "backfill/policy/lookahead"
	_ "backfill/policy/multiqueue"
	_ "backfill/policy/slack"
)
