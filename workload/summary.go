package workload

import (
	"fmt"
	"io"
	"strings"
)

// Info summarizes a Trace (for "backfill info").
type Info struct {
	// Name, Computer and Installation identify the trace.
	Name, Computer, Installation string
	// Records is the number of data records read; Jobs the number kept.
	Records, Jobs int
	// Procs is the machine size P and ProcsSource where it came from.
	Procs       int
	ProcsSource string
	// FirstSubmit and LastSubmit are the earliest and latest submit times
	// of the kept jobs; Span = LastSubmit − FirstSubmit (0 with no jobs).
	FirstSubmit, LastSubmit, Span int64
	// Work is Σ size × runtime over the jobs, in processor-seconds.
	Work float64
	// OfferedLoad = Work / (P × Span); 0 when Span is 0.
	OfferedLoad float64
	// UserEstimates is the number of jobs with a real user estimate
	// (requested time > 0); NoUserEstimate the others.
	UserEstimates, NoUserEstimate int
	// Accuracy is the mean of runtime / requested time over the jobs with
	// a user estimate (0 when there are none).
	Accuracy float64
	// UserOverruns counts jobs with a user estimate whose runtime exceeds
	// it; UserOverrunFraction = UserOverruns / UserEstimates.
	UserOverruns        int
	UserOverrunFraction float64
	// Overruns counts jobs whose runtime exceeds the estimate used in the
	// simulation (the jobs a kill-at-estimate policy kills);
	// OverrunFraction = Overruns / Jobs.
	Overruns        int
	OverrunFraction float64
	// Skipped, Adjusted and Warnings are the trace's counts.
	Skipped, Adjusted, Warnings Counts
	// Rules are the trace's rule lines.
	Rules []string
}

// Summarize computes the Info of tr.
func Summarize(tr *Trace) Info {
	in := Info{
		Name: tr.Name, Computer: tr.Header.Computer, Installation: tr.Header.Installation,
		Records: tr.Records, Jobs: len(tr.Jobs), Procs: tr.Procs, ProcsSource: tr.ProcsSource,
		Skipped: tr.Skipped.clone(), Adjusted: tr.Adjusted.clone(), Warnings: tr.Warnings.clone(),
		Rules: append([]string(nil), tr.Rules...),
	}
	var accSum float64
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		if i == 0 || j.Submit < in.FirstSubmit {
			in.FirstSubmit = j.Submit
		}
		if i == 0 || j.Submit > in.LastSubmit {
			in.LastSubmit = j.Submit
		}
		in.Work += float64(j.Procs) * float64(j.Runtime)
		if j.Runtime > j.Estimate {
			in.Overruns++
		}
		var req int64
		if i < len(tr.Requested) {
			req = tr.Requested[i]
		}
		if req <= 0 {
			in.NoUserEstimate++
			continue
		}
		in.UserEstimates++
		accSum += float64(j.Runtime) / float64(req)
		if j.Runtime > req {
			in.UserOverruns++
		}
	}
	in.Span = in.LastSubmit - in.FirstSubmit
	if in.Span > 0 && in.Procs > 0 {
		in.OfferedLoad = in.Work / (float64(in.Procs) * float64(in.Span))
	}
	if in.UserEstimates > 0 {
		in.Accuracy = accSum / float64(in.UserEstimates)
		in.UserOverrunFraction = float64(in.UserOverruns) / float64(in.UserEstimates)
	}
	if in.Jobs > 0 {
		in.OverrunFraction = float64(in.Overruns) / float64(in.Jobs)
	}
	return in
}

// WriteText prints the summary readably, one "label  value" per line,
// followed by the counts by reason and the rules.
func (in Info) WriteText(w io.Writer) error {
	var b strings.Builder
	row := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-19s %s\n", label, fmt.Sprintf(format, args...))
	}
	row("trace", "%s", in.Name)
	if m := strings.TrimSpace(strings.Join(nonEmpty(firstLine(in.Computer), firstLine(in.Installation)), ", ")); m != "" {
		row("machine", "%s", m)
	}
	row("records", "%d", in.Records)
	row("jobs", "%d kept, %d skipped", in.Jobs, in.Skipped.Total())
	row("machine size P", "%d (%s)", in.Procs, in.ProcsSource)
	row("first submit", "%d s", in.FirstSubmit)
	row("last submit", "%d s", in.LastSubmit)
	row("span", "%d s (%.1f days)", in.Span, float64(in.Span)/86400)
	if in.Span > 0 {
		note := ""
		if in.OfferedLoad > 1 {
			note = "; above 1: P is probably smaller than the real machine"
		}
		row("offered load", "%.3f (sum size*runtime / (P * span)%s)", in.OfferedLoad, note)
	} else {
		row("offered load", "n/a (span is 0)")
	}
	row("user estimates", "%d jobs (%s); %d jobs without", in.UserEstimates, pct(in.UserEstimates, in.Jobs), in.NoUserEstimate)
	if in.UserEstimates > 0 {
		row("estimate accuracy", "%.3f (mean runtime / requested time)", in.Accuracy)
		row("user overruns", "%d jobs (%s) ran longer than requested", in.UserOverruns, pct(in.UserOverruns, in.UserEstimates))
	}
	row("estimate overruns", "%d jobs (%s) run longer than their simulated estimate", in.Overruns, pct(in.Overruns, in.Jobs))
	counts := func(label string, c Counts) {
		row(label, "%d", c.Total())
		for _, x := range c {
			ex := ""
			if x.Example != "" {
				ex = " (first: " + x.Example + ")"
			}
			fmt.Fprintf(&b, "  %8d  %s%s\n", x.N, x.Reason, ex)
		}
	}
	counts("skipped", in.Skipped)
	counts("adjusted", in.Adjusted)
	counts("warnings", in.Warnings)
	if len(in.Rules) > 0 {
		b.WriteString("rules\n")
		for _, r := range in.Rules {
			b.WriteString("  " + r + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
