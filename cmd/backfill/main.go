// Command backfill simulates and runs parallel-job schedulers.
//
// It replays Standard Workload Format traces under scheduling policies
// (FCFS, EASY and conservative backfilling, …) and reports the metrics
// the papers use; it also runs a policy as a live service. This package
// holds only flags and wiring. Run `backfill --help`.
package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/spf13/cobra"

	buildversion "github.com/backfill-hpc/backfill/internal/version"
)

// version is the tool's version; release builds set it with
// -ldflags "-X main.version=v1.2.3".
var version = ""

// toolVersion is the version with the VCS revision and the Go version
// when the build recorded them (package internal/version).
func toolVersion() string { return buildversion.String(version) }

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
		Version:       toolVersion(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagErrorHint)
	root.AddCommand(newSimulate(), newInfo(), newCheck(), newPolicies(), newBench(), newReproduceCmd(), newReport(), newPlot(), newGenerate(), newImport())
	root.AddCommand(serviceCommands()...)
	root.AddCommand(newSweep(), newResults(), newCollect())
	return root
}

var (
	shortValueRe = regexp.MustCompile(`invalid argument "([^"]*)" for "-(\w), --`)
	shorthandRe  = regexp.MustCompile(`unknown shorthand flag: '.' in -([\w-]+)`)
)

// flagErrorHint explains a long flag written with one dash (-policy
// easy): pflag reads it as shorthands (-p olicy), which gives a confusing
// message about another flag.
func flagErrorHint(cmd *cobra.Command, err error) error {
	name := ""
	if m := shortValueRe.FindStringSubmatch(err.Error()); m != nil {
		name = m[2] + m[1]
	} else if m := shorthandRe.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	}
	if name != "" && cmd.Flags().Lookup(name) != nil {
		return fmt.Errorf("-%s: long flags take two dashes: --%s (see '%s --help')", name, name, cmd.CommandPath())
	}
	return err
}
