// Package bench measures simulation speed and memory, one run per child
// process.
//
// The parent (`backfill bench`) finds the traces (Traces) and, for each
// trace and policy, runs the same binary as a child (RunChild) that loads
// the trace, simulates it once (Measure) and prints one Line as JSON; the
// parent adds the child's peak resident memory from its rusage. A child per
// run makes each run's peak memory its own. The machine may be shared:
// compare figures of one run as ratios.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// LoadOnly is the policy name of a run that only loads the trace.
const LoadOnly = "(load only)"

// Line is one run's measurement, as a child reports it.
type Line struct {
	Trace   string  `json:"trace"`
	Policy  string  `json:"policy"`
	Jobs    int     `json:"jobs"`
	Procs   int     `json:"procs"`
	LoadSec float64 `json:"load_s"`
	SimSec  float64 `json:"sim_s"`
	// SimCPUSec is the CPU seconds (user + system, all threads) of the
	// child during the simulation: on a shared machine a steadier figure
	// than SimSec, the wall time.
	SimCPUSec float64 `json:"sim_cpu_s,omitempty"`
	Alloc     uint64  `json:"sim_alloc_bytes"`
	MaxRSSKB  int64   `json:"max_rss_kb"`
	// WholeSec and WholeCPUSec are the wall and CPU (user + system)
	// seconds of a whole `backfill simulate` process on the same trace and
	// policy (start-up, loading, simulation, audit and output), when
	// measured; WholeRSSKB is its peak resident memory.
	WholeSec    float64 `json:"whole_s,omitempty"`
	WholeCPUSec float64 `json:"whole_cpu_s,omitempty"`
	WholeRSSKB  int64   `json:"whole_max_rss_kb,omitempty"`
	// Offered is the offered load the trace was scaled to (--load), empty
	// at the trace's original load.
	Offered string `json:"offered,omitempty"`
	// LimitSec, when not 0, says the run was stopped at this limit of wall
	// seconds (loading included) with Done of Jobs ended: its simulation
	// takes longer than LimitSec, and SimSec is 0.
	LimitSec float64 `json:"limit_s,omitempty"`
	Done     int     `json:"done,omitempty"`
	// NotRun, with LimitSec, says the run was not made: the same policy
	// was already over the limit on a run that takes less (Plan.SkipKey).
	NotRun bool `json:"not_run,omitempty"`
	// NoKill says jobs ran past their estimate to their full runtime
	// (bench --no-kill).
	NoKill bool `json:"no_kill,omitempty"`
	// Asked is the policy as asked (Policy is the scheduler's own name).
	Asked string `json:"asked,omitempty"`
	// XEasy is SimCPUSec over EASY's on the same trace and load in the
	// same run (SimSec over EASY's when a CPU time is missing; the parent
	// fills it in when it measured EASY first), or, for a run stopped at
	// its limit, LimitSec over EASY's SimSec (both wall times): a lower
	// bound.
	XEasy float64 `json:"x_easy,omitempty"`
	Error string  `json:"error,omitempty"`
}

// CSVHeader is the header of Line.CSV's rows.
var CSVHeader = []string{"trace", "policy", "jobs", "procs", "load_s", "sim_s", "sim_alloc_bytes", "max_rss_kb",
	"whole_s", "whole_cpu_s", "whole_max_rss_kb", "error", "offered", "limit_s", "done", "x_easy", "sim_cpu_s"}

// CSV is l as a row under CSVHeader.
func (l Line) CSV() []string {
	return []string{l.Trace, l.Policy, strconv.Itoa(l.Jobs), strconv.Itoa(l.Procs), strconv.FormatFloat(l.LoadSec, 'f', 3, 64),
		strconv.FormatFloat(l.SimSec, 'f', 3, 64), strconv.FormatUint(l.Alloc, 10), strconv.FormatInt(l.MaxRSSKB, 10),
		strconv.FormatFloat(l.WholeSec, 'f', 3, 64), strconv.FormatFloat(l.WholeCPUSec, 'f', 3, 64), strconv.FormatInt(l.WholeRSSKB, 10), l.Error,
		l.Offered, strconv.FormatFloat(l.LimitSec, 'f', 0, 64), strconv.Itoa(l.Done), strconv.FormatFloat(l.XEasy, 'f', 2, 64),
		strconv.FormatFloat(l.SimCPUSec, 'f', 3, 64)}
}

// TableHeader is the header of Line.TableRow's rows (tab-separated): the
// child's figures (load and simulation alone), then the whole simulate
// process's wall and CPU seconds and peak memory.
// The offered column is the load the trace was scaled to (orig: as
// recorded); × EASY is the simulation time over EASY's on the same trace
// and load in the same run. A run stopped at the time limit shows "> N"
// as its sim s (and a lower bound as × EASY) and the share of jobs ended
// by then in place of jobs/s, or "(not run)" when it was not made because
// a run that takes less was already over the limit.
const TableHeader = "trace\tjobs\tP\toffered\tpolicy\tload s\tsim s\tsim CPU s\t× EASY\tjobs/s\talloc B/job\tpeak RSS MB\twhole s\twhole CPU s\twhole RSS MB\t"

// TableRow is l as a tab-separated row under TableHeader: jobs per second
// of simulation and allocated bytes per job when it simulated; simulated
// says whether it did (the policy asked was not "none"). The whole-process
// cells are empty when not measured.
func (l Line) TableRow(simulated bool) string {
	rate, perJob := "", ""
	if l.SimSec > 0 {
		rate = fmt.Sprintf("%.0f", float64(l.Jobs)/l.SimSec)
		perJob = fmt.Sprintf("%.0f", float64(l.Alloc)/float64(max(1, l.Jobs)))
	}
	sim, cpu, x := "", "", ""
	if simulated {
		sim = fmt.Sprintf("%.3f", l.SimSec)
	}
	if l.SimCPUSec > 0 {
		cpu = fmt.Sprintf("%.3f", l.SimCPUSec)
	}
	if l.XEasy > 0 {
		x = fmt.Sprintf("%.2f", l.XEasy)
	}
	if l.LimitSec > 0 {
		sim = fmt.Sprintf("> %.0f", l.LimitSec)
		rate = fmt.Sprintf("(%d%%)", 100*l.Done/max(1, l.Jobs))
		if l.NotRun {
			rate = "(not run)"
		}
		if l.XEasy > 0 {
			x = fmt.Sprintf("> %.0f", l.XEasy)
		}
	}
	whole, wholeCPU, wholeRSS := "", "", ""
	if l.WholeSec > 0 {
		whole, wholeCPU = fmt.Sprintf("%.3f", l.WholeSec), fmt.Sprintf("%.3f", l.WholeCPUSec)
		wholeRSS = fmt.Sprintf("%.1f", float64(l.WholeRSSKB)/1024)
	}
	offered := l.Offered
	if offered == "" {
		offered = "orig"
	}
	rss := ""
	if l.MaxRSSKB > 0 {
		rss = fmt.Sprintf("%.1f", float64(l.MaxRSSKB)/1024)
	}
	jobs, procs, load := strconv.Itoa(l.Jobs), strconv.Itoa(l.Procs), fmt.Sprintf("%.3f", l.LoadSec)
	if l.LimitSec > 0 { // the child said nothing but its progress
		procs, load = "", ""
		if l.Jobs == 0 {
			jobs = ""
			if !l.NotRun {
				rate = ""
			}
		}
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", l.Trace, jobs, procs, offered, l.Policy,
		load, sim, cpu, x, rate, perJob, rss, whole, wholeCPU, wholeRSS)
}

// Measure simulates tr once under policy spec (none: no simulation) and
// returns the measurement; loadSec is the time the trace took to load.
// progress, if not nil, is called during the simulation with the number of
// jobs ended so far (sim.Options.Progress).
func Measure(name string, tr *workload.Trace, loadSec float64, spec string, progress func(done int)) (Line, error) {
	return MeasureNoKill(name, tr, loadSec, spec, false, progress)
}

// MeasureNoKill is Measure, with jobs running past their estimate to
// their full runtime when noKill is set (sim.Options.NoKill).
func MeasureNoKill(name string, tr *workload.Trace, loadSec float64, spec string, noKill bool, progress func(done int)) (Line, error) {
	line := Line{Trace: name, Policy: LoadOnly, Jobs: len(tr.Jobs), Procs: tr.Procs, LoadSec: loadSec, NoKill: noKill}
	if spec == "none" {
		return line, nil
	}
	s, err := policy.NewK(spec, tr.Caps())
	if err != nil {
		return line, err
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := cpuSeconds()
	t1 := time.Now()
	res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, Res: tr.ResCaps(), NoKill: noKill, Progress: progress})
	line.SimSec = time.Since(t1).Seconds()
	line.SimCPUSec = cpuSeconds() - c0
	if err != nil {
		return line, err
	}
	runtime.ReadMemStats(&m1)
	line.Alloc = m1.TotalAlloc - m0.TotalAlloc
	line.Policy = res.Policy
	return line, nil
}

// Traces is the SWF traces (*.swf, *.swf.gz, also one level down) of dir
// whose file name contains only (all when empty), sorted.
func Traces(dir, only string) ([]string, error) {
	var files []string
	for _, pat := range []string{"*.swf", "*.swf.gz", "*/*.swf", "*/*.swf.gz"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	out := files[:0]
	for _, f := range files {
		if only == "" || strings.Contains(filepath.Base(f), only) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no SWF traces in %s", dir)
	}
	return out, nil
}

// ProgressPrefix starts a line of progress a child writes on its standard
// error: ProgressPrefix, the jobs ended so far, a space, the jobs in all.
const ProgressPrefix = "bench-progress "

// ChildProgress is a child's progress reporter for Measure: it writes, at
// most four times a second, the jobs ended so far of total as a
// ProgressPrefix line on w (the child's standard error), which RunChild
// reads.
func ChildProgress(w io.Writer, total int) func(done int) {
	last := time.Now()
	return func(done int) {
		if now := time.Now(); now.Sub(last) >= 250*time.Millisecond {
			last = now
			fmt.Fprintf(w, "%s%d %d\n", ProgressPrefix, done, total)
		}
	}
}

// RunChild runs exe with args, a child that prints one Line as JSON, and
// adds the child's peak resident memory. The child's progress lines on
// standard error (ProgressPrefix) go to progress, if not nil, as they come;
// the rest of its standard error is kept. A child that fails gives a Line
// with that standard error as Error, and failed true; err is for an answer
// that is not a Line.
func RunChild(exe string, args []string, trace, pol string, progress func(done, total int)) (l Line, failed bool, err error) {
	return RunChildLimit(exe, args, trace, pol, 0, progress)
}

// RunChildLimit is RunChild with a limit on the child's wall time (none
// when 0): a child still running at the limit is killed, and its Line
// says so (LimitSec, and Done and Jobs from its last progress line).
func RunChildLimit(exe string, args []string, trace, pol string, limit time.Duration, progress func(done, total int)) (l Line, failed bool, err error) {
	ctx := context.Background()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	c := exec.CommandContext(ctx, exe, args...)
	var lastDone, lastTotal int
	var out, errb bytes.Buffer
	c.Stdout = &out
	pr, pw := io.Pipe()
	c.Stderr = pw
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			var done, total int
			if strings.HasPrefix(line, ProgressPrefix) {
				if _, err := fmt.Sscanf(line[len(ProgressPrefix):], "%d %d", &done, &total); err == nil {
					lastDone, lastTotal = done, total
					if progress != nil {
						progress(done, total)
					}
					continue
				}
			}
			errb.WriteString(line)
			errb.WriteByte('\n')
		}
		_, _ = io.Copy(io.Discard, pr) // a line over 1 MiB: drain the rest
	}()
	runErr := c.Run()
	pw.Close()
	<-copied
	if runErr != nil && limit > 0 && ctx.Err() == context.DeadlineExceeded {
		return Line{Trace: filepath.Base(trace), Policy: pol, Jobs: lastTotal, Done: lastDone, LimitSec: limit.Seconds()}, false, nil
	}
	if err := runErr; err != nil {
		return Line{Trace: filepath.Base(trace), Policy: pol, Error: strings.TrimSpace(errb.String())}, true, nil
	}
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		return l, false, fmt.Errorf("bench child: %w", err)
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		l.MaxRSSKB = ru.Maxrss
	}
	return l, false, nil
}

// RunWhole runs exe with args (a whole `backfill simulate`) with its
// output thrown away, and returns its wall seconds, CPU seconds (user +
// system, from its rusage) and peak resident memory in KB; err has the
// process's standard error when it fails.
func RunWhole(exe string, args []string) (wall, cpu float64, rssKB int64, err error) {
	c := exec.Command(exe, args...)
	var errb bytes.Buffer
	c.Stdout, c.Stderr = io.Discard, &errb
	t0 := time.Now()
	if err := c.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	wall = time.Since(t0).Seconds()
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKB = ru.Maxrss
	}
	cpu = (c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Seconds()
	return wall, cpu, rssKB, nil
}

// cpuSeconds is the CPU time (user + system) of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
