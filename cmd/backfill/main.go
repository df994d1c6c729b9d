// Command backfill simulates parallel-job scheduling policies (FCFS, EASY
// and conservative backfilling, …) on Standard Workload Format traces and
// reports the metrics the papers use. Run `backfill --help`.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "backfill:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "backfill",
		Short: "Simulate and compare backfilling schedulers for parallel machines",
		Long: `backfill replays parallel-job workloads (Standard Workload Format traces from
the Parallel Workloads Archive) under scheduling policies such as FCFS, EASY
and conservative backfilling, and reports wait time, response time, bounded
slowdown and utilization.

With no --trace, the embedded KTH SP2 trace (28,476 jobs, 100 processors) is used.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulate(), newInfo(), newCheck(), newPolicies(), newBench(), newReproduceCmd(), newReport(), newPlot(), newGenerate(), newImport())
	root.AddCommand(serviceCommands()...)
	root.AddCommand(newSweep(), newResults(), newCollect())
	return root
}
