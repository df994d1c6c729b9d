package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/backfill-hpc/backfill/bench"
)

type benchFlags struct {
	traceFlags
	dir      string
	policies []string
	child    bool
	only     string
	format   string
	whole    bool
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
loading alone. Beside them (--whole, the default) are the wall and CPU
seconds and peak memory of a whole 'backfill simulate' process on the same
trace and policy (--workers 1; start-up, loading, simulation, audit and
output), run after the measuring child. While a run lasts, its progress (jobs
ended) is shown on standard error: on one line rewritten in place when
standard error is a terminal, else a line every 30 s. The machine is shared:
compare figures from one run as ratios.`,
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
	fl.BoolVar(&f.whole, "whole", true, "also time a whole 'backfill simulate' process per trace and policy (whole s, whole CPU s, whole RSS MB)")
	fl.BoolVar(&f.child, "child", false, "internal: run one measurement and print it as JSON")
	_ = fl.MarkHidden("child")
	return cmd
}

// benchChild loads one trace and measures one policy on it, printing the
// measurement as JSON for the parent.
func benchChild(cmd *cobra.Command, f *benchFlags) error {
	t0 := time.Now()
	tr, err := f.load(f.trace)
	if err != nil {
		return err
	}
	spec := "none"
	if len(f.policies) == 1 {
		spec = f.policies[0]
	}
	// progress for the parent, at most four times a second
	errw := cmd.ErrOrStderr()
	last := time.Now()
	progress := func(done int) {
		if now := time.Now(); now.Sub(last) >= 250*time.Millisecond {
			last = now
			fmt.Fprintf(errw, "%s%d %d\n", bench.ProgressPrefix, done, len(tr.Jobs))
		}
	}
	line, err := bench.Measure(filepath.Base(f.trace), tr, time.Since(t0).Seconds(), spec, progress)
	if err != nil {
		return err
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(line)
}

// benchChildArgs is the command line of the child measuring pol on file,
// with the trace flags of f.
func benchChildArgs(f *benchFlags, file, pol string) []string {
	return append([]string{"bench", "--child", "--policy", pol}, benchTraceArgs(f, file)...)
}

// benchWholeArgs is the command line of the whole simulate process
// running pol on file, with the trace flags of f.
func benchWholeArgs(f *benchFlags, file, pol string) []string {
	return append([]string{"simulate", "--workers", "1", "--policy", pol}, benchTraceArgs(f, file)...)
}

// benchTraceArgs is the flags that load file as f says.
func benchTraceArgs(f *benchFlags, file string) []string {
	args := []string{"--trace", file,
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
	return args
}

// benchParent runs a child per trace and policy (none first: loading
// alone), and a whole simulate process per trace and policy with --whole,
// and prints the measurements.
func benchParent(cmd *cobra.Command, f *benchFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	var all []bench.Line
	files, err := bench.Traces(f.dir, f.only)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.format == "table" {
		fmt.Fprintf(out, "# version: %s\n", toolVersion())
	}
	// Fixed column widths, known before the first run, so that rows
	// printed as they finish line up: each column as wide as its header,
	// the trace and policy columns as their longest name, numbers at least
	// 8 characters.
	header := strings.Split(strings.TrimSuffix(bench.TableHeader, "\t"), "\t")
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = max(utf8.RuneCountInString(h), 8)
	}
	for _, file := range files {
		widths[0] = max(widths[0], utf8.RuneCountInString(filepath.Base(file)))
	}
	widths[3] = max(widths[3], utf8.RuneCountInString(bench.LoadOnly))
	for _, p := range f.policies {
		widths[3] = max(widths[3], utf8.RuneCountInString(p))
	}
	if f.format == "table" {
		fmt.Fprintln(out, alignRow(header, widths))
	}
	status := newBenchStatus(cmd.ErrOrStderr())
	for _, file := range files {
		for _, p := range append([]string{"none"}, f.policies...) {
			name := filepath.Base(file)
			l, failed, err := bench.RunChild(exe, benchChildArgs(f, file, p), file, p, func(done, total int) {
				status.show("%s %s: %d of %d jobs ended (%d%%)", name, p, done, total, 100*done/max(1, total))
			})
			if err != nil {
				status.clear()
				return err
			}
			if !failed && f.whole && p != "none" {
				status.show("%s %s: whole simulate process", name, p)
				l.WholeSec, l.WholeCPUSec, l.WholeRSSKB, err = bench.RunWhole(exe, benchWholeArgs(f, file, p))
				if err != nil {
					l.Error, failed = "whole process: "+err.Error(), true
				}
			}
			status.clear()
			all = append(all, l)
			if f.format != "table" {
				continue
			}
			if failed {
				fmt.Fprintln(out, alignRow([]string{l.Trace, "", "", p, "error: " + l.Error}, widths))
				continue
			}
			fmt.Fprintln(out, alignRow(strings.Split(strings.TrimSuffix(l.TableRow(p != "none"), "\t"), "\t"), widths))
		}
	}
	switch f.format {
	case "json":
		return writeJSON(out, map[string]any{"version": toolVersion(), "runs": all})
	case "csv":
		var rows [][]string
		for _, l := range all {
			rows = append(rows, l.CSV())
		}
		return writeCSV(out, bench.CSVHeader, rows)
	}
	return nil
}

// alignRow right-aligns cells to widths, two spaces apart; a cell wider
// than its column pushes the rest of the row right; the last cell (an
// error message) may run past the columns.
func alignRow(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		if i == len(cells)-1 && strings.HasPrefix(c, "error: ") {
			b.WriteString(c)
			break
		}
		if i < len(widths) {
			b.WriteString(strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(c))))
		}
		b.WriteString(c)
	}
	return strings.TrimRight(b.String(), " ")
}

// benchStatus is bench's progress on standard error: one line rewritten
// in place on a terminal, else a line at most every 30 s.
type benchStatus struct {
	w     io.Writer
	tty   bool
	last  time.Time
	shown bool
}

func newBenchStatus(w io.Writer) *benchStatus {
	s := &benchStatus{w: w, last: time.Now()}
	if fd, ok := w.(interface{ Fd() uintptr }); ok {
		s.tty = term.IsTerminal(int(fd.Fd()))
	}
	return s
}

// show prints the status line (on a terminal, or when 30 s have passed
// since the row began or the last line).
func (s *benchStatus) show(format string, args ...any) {
	if s.tty {
		fmt.Fprintf(s.w, "\r\033[K"+format, args...)
		s.shown = true
		return
	}
	if now := time.Now(); now.Sub(s.last) >= 30*time.Second {
		fmt.Fprintf(s.w, format+"\n", args...)
		s.last = now
	}
}

// clear removes the status line from a terminal, and starts the next
// row's 30 s.
func (s *benchStatus) clear() {
	s.last = time.Now()
	if s.tty && s.shown {
		fmt.Fprint(s.w, "\r\033[K")
		s.shown = false
	}
}
