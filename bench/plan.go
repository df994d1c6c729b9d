package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/backfill-hpc/backfill/policy"
)

// Plan is what one bench run measures: every policy (after "none",
// loading alone) on every trace file at every offered load, each in a
// child process of Exe, and with Whole a whole simulate process beside it.
type Plan struct {
	Exe      string        // the program run as child and whole process
	Files    []string      // the traces, in order
	Policies []string      // the policies measured after "none"
	Loads    []float64     // the offered loads (0: the trace's arrival times)
	Whole    bool          // also time a whole simulate process per trace and policy
	Limit    time.Duration // stop a child still running after this long (0: no limit)
	// SkipKey, if not nil, names the runs that can only take longer than
	// an earlier run with the same key: once a run was stopped at the
	// limit, the later runs with its key are not made and are reported as
	// over the limit (Line.NotRun). "" never skips.
	SkipKey func(file, pol string, load float64) string
	// OfferedOf, if not nil, is Line.Offered of the runs on file at load
	// (else Offered(load)): for workloads generated at their own load.
	OfferedOf func(file string, load float64) string

	// ChildArgs is the command line of the child measuring pol on file at
	// load; WholeArgs that of the whole simulate process, writing its
	// output files into the directory out (removed after the run).
	ChildArgs func(file, pol string, load float64) []string
	WholeArgs func(file, pol string, load float64, out string) []string
}

// Run measures every load, trace and policy of p in that order and
// returns the lines; with tb not nil, it prints each line's row of tb on
// out as the line is finished (ErrorRow for a failed one). Progress goes
// to status.
func (p *Plan) Run(out io.Writer, tb *Table, status *Status) ([]Line, error) {
	var all []Line
	capped := map[string]bool{}
	for _, load := range p.Loads {
		for _, file := range p.Files {
			var easy Baseline // EASY's sim s on this trace and load
			for _, pol := range append([]string{"none"}, p.Policies...) {
				var key string
				if p.SkipKey != nil && pol != "none" {
					key = p.SkipKey(file, pol, load)
				}
				var l Line
				var failed bool
				if key != "" && capped[key] {
					l = Line{Trace: filepath.Base(file), Policy: pol, LimitSec: p.Limit.Seconds(), NotRun: true}
				} else {
					var err error
					if l, failed, err = p.run(file, pol, load, status); err != nil {
						return nil, err
					}
				}
				if key != "" && l.LimitSec > 0 {
					capped[key] = true
				}
				if pol != "none" {
					l.Asked = pol
				}
				l.Offered = Offered(load)
				if p.OfferedOf != nil {
					l.Offered = p.OfferedOf(file, load)
				}
				easy.Relate(&l, pol)
				all = append(all, l)
				switch {
				case tb == nil:
				case failed:
					fmt.Fprintln(out, tb.ErrorRow(l, pol))
				default:
					fmt.Fprintln(out, tb.Row(l, pol != "none"))
				}
			}
		}
	}
	return all, nil
}

// run measures policy pol on file at load in a child process and, with
// Whole, times a whole simulate process; failed says whether the
// measurement failed (l.Error says why).
func (p *Plan) run(file, pol string, load float64, status *Status) (l Line, failed bool, err error) {
	defer status.Clear()
	name := filepath.Base(file)
	l, failed, err = RunChildLimit(p.Exe, p.ChildArgs(file, pol, load), file, pol, p.Limit, func(done, total int) {
		status.Show("%s %s: %d of %d jobs ended (%d%%)", name, pol, done, total, 100*done/max(1, total))
	})
	if err != nil || failed || !p.Whole || pol == "none" || l.LimitSec > 0 {
		return l, failed, err
	}
	status.Show("%s %s: whole simulate process", name, pol)
	dir, err := os.MkdirTemp("", "backfill-bench-")
	if err != nil {
		return l, failed, err
	}
	defer os.RemoveAll(dir)
	l.WholeSec, l.WholeCPUSec, l.WholeRSSKB, err = RunWhole(p.Exe, p.WholeArgs(file, pol, load, dir))
	if err != nil {
		l.Error, failed = "whole process: "+err.Error(), true
	}
	return l, failed, nil
}

// SkipAtLaterLoads is a Plan.SkipKey for traces measured at increasing
// loads: a policy over the limit on a trace is not run on it at the loads
// after.
func SkipAtLaterLoads(file, pol string, _ float64) string { return file + " " + pol }

// AllPolicies is every registered policy, EASY first (the baseline of
// × EASY): bench's --policy all.
func AllPolicies() []string {
	out := []string{"easy"}
	for _, in := range policy.List() {
		if in.Name != "easy" {
			out = append(out, in.Name)
		}
	}
	return out
}

// TraceFlags are the trace options (backfill's trace flags) that a
// measuring child and a whole simulate process are given.
type TraceFlags struct {
	Estimate, Fallback          string // --estimate, --estimate-fallback
	Seed                        uint64
	Procs                       int // --procs, when > 0
	Clamp, Lenient              bool
	Mem, MemPerProc, MemMissing string // --mem, --mem-per-proc, --mem-missing
	NoKill                      bool   // --no-kill
}

// ChildArgs is the command line of the child measuring pol on file at
// offered load (0: the trace's own), for Plan.ChildArgs.
func (t TraceFlags) ChildArgs(file, pol string, load float64) []string {
	return append([]string{"bench", "--child", "--policy", pol}, t.args(file, load)...)
}

// WholeArgs is the command line of the whole simulate process running
// pol on file at offered load, for Plan.WholeArgs: it writes its files
// (per-job CSV, SWF schedule, summary) into out, as a user's run would.
func (t TraceFlags) WholeArgs(file, pol string, load float64, out string) []string {
	return append([]string{"simulate", "--workers", "1", "--policy", pol, "--out", out}, t.args(file, load)...)
}

// args are the flags that load file as t says, at offered load (0: the
// trace's own) in place of --load.
func (t TraceFlags) args(file string, load float64) []string {
	args := []string{"--trace", file, "--estimate", t.Estimate, "--estimate-fallback", t.Fallback, "--seed", strconv.FormatUint(t.Seed, 10)}
	if t.Procs > 0 {
		args = append(args, "--procs", fmt.Sprint(t.Procs))
	}
	if load > 0 {
		args = append(args, "--load", strconv.FormatFloat(load, 'g', -1, 64))
	}
	if t.Clamp {
		args = append(args, "--clamp")
	}
	if t.Lenient {
		args = append(args, "--lenient")
	}
	if t.Mem != "" {
		args = append(args, "--mem", t.Mem)
	}
	if t.MemPerProc != "" {
		args = append(args, "--mem-per-proc", t.MemPerProc)
	}
	if t.Mem != "" || t.MemPerProc != "" {
		args = append(args, "--mem-missing", t.MemMissing)
	}
	if t.NoKill {
		args = append(args, "--no-kill")
	}
	return args
}
