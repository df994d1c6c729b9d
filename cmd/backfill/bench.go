package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

type benchFlags struct {
	traceFlags
	dir      string
	policies []string
	child    bool
	only     string
	format   string
}

// benchLine is what one child process reports.
type benchLine struct {
	Trace    string  `json:"trace"`
	Policy   string  `json:"policy"`
	Jobs     int     `json:"jobs"`
	Procs    int     `json:"procs"`
	LoadSec  float64 `json:"load_s"`
	SimSec   float64 `json:"sim_s"`
	Alloc    uint64  `json:"sim_alloc_bytes"`
	MaxRSSKB int64   `json:"max_rss_kb"`
	Error    string  `json:"error,omitempty"`
}

func newBench() *cobra.Command {
	f := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulation speed (jobs/s) and memory per policy on every trace of a directory",
		Long: `bench runs each policy on each trace (*.swf, *.swf.gz, also one level down) in
its own child process, so that the peak memory of each run is measured alone.
It prints the trace load time, the simulation time, simulated jobs per second
of wall time, the bytes the simulation allocated per job, and the peak
resident memory of the process (trace loading included), beside the same for
loading alone. The machine is shared: compare figures from one run as ratios.`,
		Example: `  backfill bench --traces ../shared/traces --policy easy,conservative
  backfill bench --traces ../shared/traces --only KTH`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.child {
				return benchChild(cmd, f)
			}
			return benchParent(cmd, f)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of SWF traces")
	fl.StringSliceVar(&f.policies, "policy", []string{"fcfs", "easy", "conservative"}, "policies to measure")
	fl.StringVar(&f.only, "only", "", "only traces whose file name contains this")
	fl.StringVarP(&f.format, "format", "f", "table", "output: table (printed as each run finishes), json or csv (printed at the end)")
	fl.BoolVar(&f.child, "child", false, "internal: run one measurement and print it as JSON")
	_ = fl.MarkHidden("child")
	return cmd
}

func benchChild(cmd *cobra.Command, f *benchFlags) error {
	t0 := time.Now()
	tr, err := f.load(f.trace)
	if err != nil {
		return err
	}
	line := benchLine{Trace: filepath.Base(f.trace), Policy: "(load only)", Jobs: len(tr.Jobs), Procs: tr.Procs,
		LoadSec: time.Since(t0).Seconds()}
	if len(f.policies) == 1 && f.policies[0] != "none" {
		s, err := policy.NewK(f.policies[0], tr.Caps())
		if err != nil {
			return err
		}
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t1 := time.Now()
		res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, Res: tr.ResCaps()})
		line.SimSec = time.Since(t1).Seconds()
		if err != nil {
			return err
		}
		runtime.ReadMemStats(&m1)
		line.Alloc = m1.TotalAlloc - m0.TotalAlloc
		line.Policy = res.Policy
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(line)
}

func benchTraces(dir, only string) ([]string, error) {
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

func benchParent(cmd *cobra.Command, f *benchFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	var all []benchLine
	files, err := benchTraces(f.dir, f.only)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if f.format == "table" {
		fmt.Fprintf(cmd.OutOrStdout(), "# version: %s\n", toolVersion())
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "trace\tjobs\tP\tpolicy\tload s\tsim s\tjobs/s\talloc B/job\tpeak RSS MB\t")
	for _, file := range files {
		for _, p := range append([]string{"none"}, f.policies...) {
			args := []string{"bench", "--child", "--trace", file, "--policy", p,
				"--estimate", f.estimate, "--estimate-fallback", f.fallback, "--seed", strconv.FormatUint(f.seed, 10)}
			if f.procs > 0 {
				args = append(args, "--procs", fmt.Sprint(f.procs))
			}
			if f.clamp {
				args = append(args, "--clamp")
			}
			if f.lenient {
				args = append(args, "--lenient")
			}
			if f.mem != "" {
				args = append(args, "--mem", f.mem)
			}
			if f.memPerProc != "" {
				args = append(args, "--mem-per-proc", f.memPerProc)
			}
			if f.mem != "" || f.memPerProc != "" {
				args = append(args, "--mem-missing", f.memMissing)
			}
			c := exec.Command(exe, args...)
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			if err := c.Run(); err != nil {
				all = append(all, benchLine{Trace: filepath.Base(file), Policy: p, Error: strings.TrimSpace(errb.String())})
				if f.format == "table" {
					fmt.Fprintf(w, "%s\t\t\t%s\terror: %s\t\n", filepath.Base(file), p, strings.TrimSpace(errb.String()))
				}
				continue
			}
			var l benchLine
			if err := json.Unmarshal(out.Bytes(), &l); err != nil {
				return fmt.Errorf("bench child: %w", err)
			}
			if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
				l.MaxRSSKB = ru.Maxrss
			}
			all = append(all, l)
			if f.format != "table" {
				continue
			}
			rate, perJob := "", ""
			if l.SimSec > 0 {
				rate = fmt.Sprintf("%.0f", float64(l.Jobs)/l.SimSec)
				perJob = fmt.Sprintf("%.0f", float64(l.Alloc)/float64(max(1, l.Jobs)))
			}
			sim := ""
			if p != "none" {
				sim = fmt.Sprintf("%.3f", l.SimSec)
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%.3f\t%s\t%s\t%s\t%.1f\t\n", l.Trace, l.Jobs, l.Procs, l.Policy,
				l.LoadSec, sim, rate, perJob, float64(l.MaxRSSKB)/1024)
			w.Flush()
		}
	}
	switch f.format {
	case "json":
		return writeJSON(cmd.OutOrStdout(), map[string]any{"version": toolVersion(), "runs": all})
	case "csv":
		var rows [][]string
		for _, l := range all {
			rows = append(rows, []string{l.Trace, l.Policy, strconv.Itoa(l.Jobs), strconv.Itoa(l.Procs), strconv.FormatFloat(l.LoadSec, 'f', 3, 64),
				strconv.FormatFloat(l.SimSec, 'f', 3, 64), strconv.FormatUint(l.Alloc, 10), strconv.FormatInt(l.MaxRSSKB, 10), l.Error})
		}
		return writeCSV(cmd.OutOrStdout(), []string{"trace", "policy", "jobs", "procs", "load_s", "sim_s", "sim_alloc_bytes", "max_rss_kb", "error"}, rows)
	}
	return w.Flush()
}
