package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/backfill-hpc/backfill/internal/fileout"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/report"
	"github.com/backfill-hpc/backfill/workload"
)

// Header is the provenance written into every output of a batch: the
// tool's version, the trace, the ingestion rules in force, and the
// simulation settings of opt (kill mode, τ, the averages' window).
func Header(tr *workload.Trace, version string, opt Options) []string {
	h := []string{
		"version: " + version,
		"trace: " + tr.Name,
		fmt.Sprintf("machine: %d processors (%s)", tr.Procs, tr.ProcsSource),
		fmt.Sprintf("jobs simulated: %d", len(tr.Jobs)),
	}
	for _, r := range tr.Rules {
		h = append(h, "rule: "+r)
	}
	kill := "jobs are killed at their estimate"
	switch {
	case opt.NoKill:
		kill = "jobs run past their estimate (--overrun run)"
	case opt.Extend:
		kill = "a job still running at its estimate is offered an extension by policies with the tick strategy (--overrun extend), killed by the others"
	}
	m := opt.Metrics
	h = append(h, "kill: "+kill, fmt.Sprintf("bounded slowdown tau: %d s", m.Tau))
	if m.WarmUp > 0 || m.Drain > 0 {
		h = append(h, fmt.Sprintf("averages exclude jobs submitted in the first %d s and the last %d s", m.WarmUp, m.Drain))
	}
	return h
}

// AllocNotes are, for the results that placed jobs on a machine's cores,
// each policy's fragmentation: jobs split across more nodes than they
// need, jobs not on one interval of core ids, and the cores idle while
// jobs waited (machine.IdleWhileWaiting).
func AllocNotes(results []*Result) []string {
	var notes []string
	for _, r := range results {
		if r.Alloc == nil {
			continue
		}
		st := r.Alloc.Stats
		idle := machine.IdleWhileWaiting(r.Sim.Outcomes, r.Sim.Procs)
		share := 0.0
		if idle.Waiting > 0 {
			share = 100 * float64(idle.CoreSeconds) / (float64(idle.Waiting) * float64(r.Sim.Procs))
		}
		note := fmt.Sprintf("allocation: %s: %d jobs placed; %d span more nodes than they need (%d extra nodes); %d not one interval of core ids; while jobs waited (%d s) %.1f %% of the cores were idle (%d core-seconds)",
			r.Policy, st.Jobs, st.Split, st.ExtraNodes, st.Scattered, idle.Waiting, share, idle.CoreSeconds)
		if r.Alloc.Constrained() {
			f := metrics.NodeFragmentation(r.Sim.Outcomes, r.Sim.NodeIdle, idle.CoreSeconds)
			note += fmt.Sprintf("; fragmentation: %d jobs waited for their nodes after the policy started them (%d s in all, %.1f s per job started); %d core-seconds free but unusable while they waited (%.1f %% of the idle core-seconds while jobs waited)",
				f.Jobs, f.Wait, f.MeanWait, f.UnusableCoreSeconds, f.UnusableShare)
		}
		notes = append(notes, note)
	}
	return notes
}

// ExtensionNotes are, when opt.Extend, the extensions every policy granted
// by the tick strategy and the jobs they saved (completed instead of being
// killed); nil otherwise.
func ExtensionNotes(opt Options, results []*Result) []string {
	if !opt.Extend {
		return nil
	}
	var notes []string
	for _, r := range results {
		notes = append(notes, fmt.Sprintf("tick strategy: %s granted %d extensions; %d jobs saved, %d killed",
			r.Policy, r.Sim.Extensions, r.Sim.Saved, r.Sim.Killed))
	}
	return notes
}

// WriteSummary writes the summary rows of a batch on the trace named
// trace of procs processors in format table (a text table after the
// header as '#' lines; durations as days and hours when human), json (an
// object with the trace, procs, header and results) or csv (the header as
// '#' lines, then metrics.WriteCSV).
func WriteSummary(w io.Writer, format, trace string, procs int, rows []metrics.Row, header []string, human bool) error {
	switch format {
	case "json":
		var buf bytes.Buffer
		if err := metrics.WriteJSON(&buf, rows); err != nil {
			return err
		}
		env := struct {
			Trace   string          `json:"trace"`
			Procs   int             `json:"procs"`
			Header  []string        `json:"header"`
			Results json.RawMessage `json:"results"`
		}{trace, procs, header, json.RawMessage(bytes.TrimSpace(buf.Bytes()))}
		b, err := json.MarshalIndent(env, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "csv":
		for _, h := range header {
			fmt.Fprintf(w, "# %s\n", h)
		}
		return metrics.WriteCSV(w, rows)
	default:
		for _, h := range header {
			fmt.Fprintf(w, "# %s\n", h)
		}
		fmt.Fprintln(w)
		return metrics.WriteTableWith(w, rows, metrics.TableOptions{Human: human})
	}
}

// WriteClassTables writes, for each rule, one table with the per-class
// metrics (metrics.Classes with opt) of every result, each after an empty
// line.
func WriteClassTables(w io.Writer, rules []metrics.ClassRule, results []*Result, opt metrics.Options) error {
	for _, rule := range rules {
		rows := make([]metrics.ClassRow, len(results))
		for i, r := range results {
			rows[i] = metrics.ClassRow{Label: r.Policy, Classes: metrics.Classes(r.Sim.Outcomes, opt, rule)}
		}
		fmt.Fprintln(w)
		if err := metrics.WriteClassTable(w, rule, rows); err != nil {
			return err
		}
	}
	return nil
}

// FileName turns a policy spec into a file-name-safe stem
// (easy:depth=4 → easy_depth-4).
func FileName(spec string) string {
	r := strings.NewReplacer(":", "_", "=", "-", "/", "_", " ", "_")
	return r.Replace(spec)
}

// DirOptions are what WriteDir writes beside the schedules.
type DirOptions struct {
	// Tau is the bounded-slowdown threshold of the per-job CSV.
	Tau int64
	// PlainCSV also writes POLICY.plain.csv, the per-job CSV without its
	// '#' provenance lines, and the provenance in POLICY.provenance.txt.
	PlainCSV bool
}

// WriteDir writes a batch's outputs into dir (created if needed): per
// result, POLICY.jobs.csv (Batsim's jobs.csv columns, the header as '#'
// lines) and POLICY.swf (the schedule), with opt.PlainCSV the plain CSV
// and its provenance; and the summary as summary.txt, summary.json and
// summary.csv (WriteSummary). POLICY is FileName of the policy.
func WriteDir(dir string, tr *workload.Trace, results []*Result, rows []metrics.Row, header []string, opt DirOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range results {
		if err := writeRun(dir, tr, r, header, opt); err != nil {
			return err
		}
	}
	for _, format := range []string{"table", "json", "csv"} {
		ext := map[string]string{"table": "txt", "json": "json", "csv": "csv"}[format]
		if err := fileout.Write(filepath.Join(dir, "summary."+ext), func(w io.Writer) error {
			return WriteSummary(w, format, tr.Name, tr.Procs, rows, header, false)
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeRun writes one result's files of WriteDir.
func writeRun(dir string, tr *workload.Trace, r *Result, header []string, opt DirOptions) error {
	stem := filepath.Join(dir, FileName(r.Policy))
	comments := append([]string{"policy: " + r.Policy}, header...)
	var alloc func(int) string
	if r.Alloc != nil {
		alloc = r.Alloc.String
	}
	if err := fileout.Write(stem+".jobs.csv", func(w io.Writer) error {
		return metrics.WriteJobsCSVAlloc(w, r.Sim.Outcomes, tr.Name, opt.Tau, comments, alloc)
	}); err != nil {
		return err
	}
	if opt.PlainCSV {
		if err := writePlain(stem, tr, r, comments, alloc, opt.Tau); err != nil {
			return err
		}
	}
	return fileout.Write(stem+".swf", func(w io.Writer) error {
		return workload.WriteSchedule(w, tr, r.Sim.Outcomes, comments)
	})
}

// writePlain writes the same rows as the jobs.csv without the comment
// lines, for CSV readers that do not skip comments (evalys, pandas
// without comment='#'), and the provenance beside it. Without a machine,
// allocated_resources holds the processors of the report's drawing rule
// (report.Assign), which evalys needs to draw.
func writePlain(stem string, tr *workload.Trace, r *Result, comments []string, alloc func(int) string, tau int64) error {
	if alloc == nil {
		alloc = AssignedProcs(r.Sim.Outcomes, tr.Procs)
		comments = append(slices.Clone(comments), "allocated_resources: processor numbers by the report's drawing rule (report.Assign: lowest-numbered free processors, first fit); the simulator itself counts processors")
	}
	if err := fileout.Write(stem+".plain.csv", func(w io.Writer) error {
		return metrics.WriteJobsCSVAlloc(w, r.Sim.Outcomes, tr.Name, tau, nil, alloc)
	}); err != nil {
		return err
	}
	return fileout.Write(stem+".provenance.txt", func(w io.Writer) error {
		for _, c := range comments {
			if _, err := fmt.Fprintln(w, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// AssignedProcs numbers the processors of a schedule by the report's
// drawing rule (report.Assign) and returns each job's as a Batsim
// interval set ("0-3 8").
func AssignedProcs(outs []job.Outcome, procs int) func(id int) string {
	pl := report.Assign(outs, procs)
	byJob := map[int][][2]int{}
	for _, rc := range pl.Rects {
		id := outs[rc.Job].ID
		byJob[id] = append(byJob[id], [2]int{int(rc.Lo), int(rc.Lo + rc.N - 1)})
	}
	return func(id int) string {
		iv := byJob[id]
		slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
		return machine.FormatIntervals(iv)
	}
}

// ReportResults are the results of a batch on tr as the runs of an HTML
// report (package report), each with the header after its policy line and
// the metrics options opt.
func ReportResults(tr *workload.Trace, results []*Result, header []string, opt metrics.Options) *report.Results {
	res := &report.Results{Kind: "simulation", Path: tr.Name}
	for _, r := range results {
		name, params := report.SplitSpec(r.Policy)
		run := &report.Run{
			Label: r.Policy, Policy: name, Params: params, Trace: tr.Name, Procs: tr.Procs,
			Header:   append([]string{"policy: " + r.Policy}, header...),
			Opt:      opt,
			Outcomes: r.Sim.Outcomes, Summary: r.Summary, Source: strings.TrimSpace(tr.Name),
		}
		run.SetAxes()
		res.Runs = append(res.Runs, run)
	}
	return res
}
