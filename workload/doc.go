// Package workload reads SWF job traces into the jobs the simulator replays.
//
// It reads job traces in the Standard Workload Format (SWF)
// of the Parallel Workloads Archive and turns them into the jobs that the
// simulator replays.
//
// Reader streams raw Records (plain or gzip input, detected by content);
// Load and Read apply the ingestion rules (machine size, skips, estimates;
// see Read and docs/workload.md) and return a Trace; WriteSchedule writes a
// simulated schedule back as SWF; Summarize describes a Trace; Builtin
// returns an embedded default trace.
package workload
