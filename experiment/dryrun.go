package experiment

import (
	"fmt"
	"io"
)

// WriteDryRun lists the runs of plan's shard with their status in the
// store at out ("todo" when not run), then how many are done.
func WriteDryRun(w io.Writer, out string, plan *Plan, shard Shard) error {
	st := Store{Dir: out}
	done := 0
	fmt.Fprintf(w, "%-5s  %-16s  %-6s  %-20s  %s\n", "#", "run", "status", "workload", "configuration")
	for _, r := range plan.Shard(shard) {
		status := st.Status(r.ID)
		if status == StatusOK {
			done++
		}
		if status == "" {
			status = "todo"
		}
		fmt.Fprintf(w, "%-5d  %-16s  %-6s  %-20s  %s\n", r.Index, r.ID, status, r.Label, r.Config.Describe())
	}
	n := len(plan.Shard(shard))
	_, err := fmt.Fprintf(w, "%d runs (shard %s), %d done, %d to do\n", n, shard, done, n-done)
	return err
}
