// Package importer turns a site's accounting records (Slurm sacct, PBS) into SWF workloads.
//
// It turns a site's own accounting records into standard
// workloads: Slurm `sacct` dumps (ReadSacct) and PBS/Torque/OpenPBS
// accounting logs (ReadPBS) become an Import, which WriteSWF writes as
// Standard Workload Format (with the Parallel Workloads Archive's header
// conventions), WriteSidecar as a CSV of what SWF cannot hold (partition,
// account, queue or QOS, GPUs, node counts, original job ids) and WriteNames
// as the mapping of user, group, account, partition and queue names to the numbers
// used in the SWF file.
//
// Every record is accounted for: written as a job, folded into another
// (job steps, heterogeneous job components), or dropped, each counted by
// reason (Import.Dropped, Merged, Adjusted, Warnings) and listed in the
// SWF header. The rules, field by field, are in docs/workload.md
// ("Importing accounting logs").
package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/backfill-hpc/backfill/workload"
)

// Job is one job of an accounting log, in absolute (Unix) seconds. -1
// means unknown throughout.
type Job struct {
	// ID is the scheduler's job id: "123", an array task "123_4", a
	// heterogeneous job "123" (its components "123+0", "123+1" are folded).
	ID string
	// Line is the line of the record the job came from (the first
	// component of a heterogeneous job); File its input file.
	Line int
	File string
	// State is the final state, upper case, without decorations
	// ("CANCELLED by 0" is "CANCELLED").
	State string
	// Submit, Eligible, Start and End are Unix times; Start and End are
	// -1 for a job that never started.
	Submit, Eligible, Start, End int64
	// Run is the run time in seconds, -1 when the job never ran.
	Run int64
	// Limit is the time limit in seconds, -1 when there is none
	// (UNLIMITED, Partition_Limit, absent).
	Limit int64
	// ReqCPUs, AllocCPUs, ReqNodes and AllocNodes are counts; ReqMemKB is
	// the total requested memory in KB; GPUs the GPUs requested (else
	// allocated).
	ReqCPUs, AllocCPUs, ReqNodes, AllocNodes, ReqMemKB, GPUs int64
	// User, Group, Account, Partition and Queue are names, "" when
	// unknown. Queue is what SWF's queue field (15) numbers: Slurm's QOS,
	// PBS's queue (PBS has no partitions).
	User, Group, Account, Partition, Queue string
	// Exclusive is true when the log says the job had its nodes to
	// itself (PBS place=excl or exclhost, Torque naccesspolicy=singlejob);
	// Slurm's sacct does not say it (simulate infers it from the counts).
	Exclusive bool
	// Components is the number of heterogeneous job components (1 for an
	// ordinary job); Steps the number of job steps folded into the job.
	Components, Steps int
	// Status is the SWF status (field 11): 1 completed, 0 failed or
	// killed, 5 cancelled.
	Status int
	// Ran is false for a job that never started (written with wait and
	// run time -1, as the archive does).
	Ran bool
}

// Import is the result of reading an accounting log.
type Import struct {
	// Format names the reader: "slurm sacct" or "pbs accounting".
	Format string
	// Sources are the input names, with the number of lines of each.
	Sources []Source
	// Records is the number of data records read (excluding the header
	// line and blank lines), Tasks the number of extra array tasks
	// expanded from pending ranges such as 123_[5-9].
	Records, Tasks int
	// Jobs are the jobs to write, in input order (WriteSWF sorts them).
	Jobs []Job
	// Dropped counts records (or expanded tasks) not written, by reason;
	// Merged records folded into another job (steps, components);
	// Adjusted written jobs whose values were derived or changed;
	// Warnings malformed records skipped in lenient mode.
	Dropped, Merged, Adjusted, Warnings workload.Counts
	// Options are the options used.
	Options Options

	prepared *Output
	seen     map[dupKey]struct{}
}

// dupKey identifies a record for duplicate detection: the job id with its
// submit and start times (a requeued run has another start).
type dupKey struct {
	id            string
	submit, start int64
}

// duplicate reports whether a record with this id, submit and start time
// was seen before, and remembers it.
func (im *Import) duplicate(id string, submit, start int64) bool {
	if im.seen == nil {
		im.seen = map[dupKey]struct{}{}
	}
	k := dupKey{id, submit, start}
	if _, ok := im.seen[k]; ok {
		return true
	}
	im.seen[k] = struct{}{}
	return false
}

// dupErr returns the strict-mode error for a duplicate record, or counts
// it as dropped in lenient mode (nil).
func (im *Import) dupErr(file string, line int, id string) error {
	if !im.Options.Lenient {
		return &workload.ParseError{File: file, Line: line, Msg: fmt.Sprintf(
			"JobID: %s: duplicate record (same job id, submit and start time as an earlier record)", id)}
	}
	return nil
}

// Source is one input file.
type Source struct {
	Name  string
	Lines int
}

// Options control an import.
type Options struct {
	// Lenient skips malformed records, counting each as a warning,
	// instead of failing on the first.
	Lenient bool
	// Location is the time zone of times written without one (sacct's
	// "2024-05-01T10:00:00", PBS's record time stamps); nil means UTC.
	Location *time.Location
	// SubmitFrom says which time becomes the SWF submit time: "eligible"
	// (the default when empty: the later of Submit and Eligible, so that
	// held jobs, --begin and dependencies are replayed when they could
	// first run) or "submit".
	SubmitFrom string
	// Procs and Nodes are the machine's processor and node counts for the
	// SWF header (MaxProcs, MaxNodes); 0: unknown, left out.
	Procs, Nodes int64
	// Computer and Installation go into the SWF header when not empty.
	Computer, Installation string
}

func (o *Options) fill() error {
	if o.Location == nil {
		o.Location = time.UTC
	}
	switch o.SubmitFrom {
	case "":
		o.SubmitFrom = "eligible"
	case "eligible", "submit":
	default:
		return fmt.Errorf("importer: submit time from %q: want \"eligible\" or \"submit\"", o.SubmitFrom)
	}
	if o.Procs < 0 || o.Nodes < 0 {
		return fmt.Errorf("importer: machine size must not be negative")
	}
	return nil
}

// Drop, merge and adjustment reasons (Import.Dropped, Merged, Adjusted).
const (
	DropUnfinished         = "not finished when dumped (PENDING, RUNNING, SUSPENDED, REQUEUE_HOLD, ...): not written"
	DropRevoked            = "REVOKED (a federated job that ran on another cluster): not written"
	DropNoSubmit           = "submit time unknown: not written"
	DropNoEnd              = "started but no end time: not written"
	DropNoSize             = "no processor count (requested and allocated unknown): not written"
	DropStepOfDropped      = "job step of a job not written: dropped with it"
	DropComponentOfDropped = "heterogeneous job component of a job not written: dropped with it"
	DropDuplicate          = "duplicate record (same job id, submit and start time as an earlier record): not written"
	MergeStep              = "job step folded into its job"
	MergeComponent         = "heterogeneous job component folded into its job (sizes added)"
	AdjEligible            = "submit = eligible time (held, --begin or dependency)"
	AdjNeverRan            = "never started (cancelled, failed or expired while pending): written with wait and run time -1"
	AdjTimeoutClamp        = "TIMEOUT: run time above the time limit clamped to the limit (killed at the limit)"
	AdjNoLimit             = "no time limit (UNLIMITED, Partition_Limit or absent): requested time -1"
	AdjReqFromAlloc        = "requested processors unknown: taken from allocated"
	AdjAllocFromReq        = "allocated processors unknown: taken from requested"
	AdjRunFromTimes        = "run time = end - start (elapsed time absent)"
	AdjRequeued            = "REQUEUED: a run that Slurm requeued, written as its own job (the later run is another)"
	AdjHetState            = "heterogeneous components ended in different states: the first component's state kept"
	AdjStartEarly          = "start before submit time: wait 0 (submit = start)"
)

// warnf counts a lenient-mode warning or returns the strict-mode error.
func (im *Import) warnf(file string, line int, field, format string, a ...any) error {
	msg := field + ": " + fmt.Sprintf(format, a...)
	e := &workload.ParseError{File: file, Line: line, Msg: msg}
	if !im.Options.Lenient {
		return e
	}
	addEx(&im.Warnings, "malformed record skipped: "+field, e.Error())
	return nil
}

// addEx adds one occurrence of reason to c, keeping the first example.
func addEx(c *workload.Counts, reason, example string) {
	for i := range *c {
		if (*c)[i].Reason == reason {
			(*c)[i].N++
			return
		}
	}
	*c = append(*c, workload.Count{Reason: reason, N: 1, Example: example})
}

// addAt adds one occurrence of reason to c, with FILE:LINE as the example
// of the first (formatted only then).
func addAt(c *workload.Counts, reason, file string, line int) {
	for i := range *c {
		if (*c)[i].Reason == reason {
			(*c)[i].N++
			return
		}
	}
	*c = append(*c, workload.Count{Reason: reason, N: 1, Example: loc(file, line)})
}

func loc(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// submitOf is the SWF submit time of j under the options.
func (im *Import) submitOf(j *Job) int64 {
	if im.Options.SubmitFrom == "eligible" && j.Eligible > j.Submit && j.Submit >= 0 {
		if j.Start < 0 || j.Eligible <= j.Start {
			return j.Eligible
		}
	}
	return j.Submit
}

// Output is an Import ready to write: jobs sorted by submit time and
// numbered, names mapped to numbers.
type Output struct {
	im    *Import
	order []int   // indices into im.Jobs, in output order
	sub   []int64 // SWF submit time (absolute), parallel to order
	t0    int64   // UnixStartTime
	names map[string]*nameMap
	// Rules are the ingestion-rule lines written into the SWF header.
	Rules []string
}

// nameMap numbers names by first appearance in output order, from 1.
type nameMap struct {
	ids   map[string]int
	names []string
}

func (m *nameMap) id(s string) int {
	if s == "" {
		return -1
	}
	if n, ok := m.ids[s]; ok {
		return n
	}
	m.names = append(m.names, s)
	m.ids[s] = len(m.names)
	return len(m.names)
}

// nameKinds are the name spaces mapped to numbers, in the order written.
var nameKinds = []string{"user", "group", "account", "partition", "queue"}

// Prepare sorts the jobs by SWF submit time (ties in input order),
// numbers them 1..N and maps names to numbers. It counts the adjustments
// made to submit times, so it is computed once; later calls return the
// same Output.
func (im *Import) Prepare() *Output {
	if im.prepared != nil {
		return im.prepared
	}
	out := &Output{im: im, names: map[string]*nameMap{}}
	im.prepared = out
	for _, k := range nameKinds {
		out.names[k] = &nameMap{ids: map[string]int{}}
	}
	n := len(im.Jobs)
	out.order = make([]int, n)
	subs := make([]int64, n)
	for i := range im.Jobs {
		out.order[i] = i
		j := &im.Jobs[i]
		subs[i] = im.submitOf(j)
		if subs[i] != j.Submit {
			addAt(&im.Adjusted, AdjEligible, j.File, j.Line)
		}
		if j.Ran && j.Start < subs[i] {
			subs[i] = j.Start
			addAt(&im.Adjusted, AdjStartEarly, j.File, j.Line)
		}
	}
	sort.SliceStable(out.order, func(a, b int) bool { return subs[out.order[a]] < subs[out.order[b]] })
	out.sub = make([]int64, n)
	for k, i := range out.order {
		out.sub[k] = subs[i]
	}
	if n > 0 {
		out.t0 = out.sub[0]
	}
	for _, i := range out.order {
		j := &im.Jobs[i]
		out.names["user"].id(j.User)
		out.names["group"].id(j.Group)
		out.names["account"].id(j.Account)
		out.names["partition"].id(j.Partition)
		out.names["queue"].id(j.Queue)
	}
	out.Rules = out.rules()
	return out
}

// rules are the ingestion-rule lines, in the style of workload.Trace.Rules.
func (o *Output) rules() []string {
	im := o.im
	mode := "strict (a malformed record is an error)"
	if im.Options.Lenient {
		mode = "lenient (malformed records skipped and counted as warnings)"
	}
	var src []string
	for _, s := range im.Sources {
		src = append(src, fmt.Sprintf("%s (%d lines)", s.Name, s.Lines))
	}
	written := len(im.Jobs)
	ran := 0
	for i := range im.Jobs {
		if im.Jobs[i].Ran {
			ran++
		}
	}
	sub := "submit time = the later of Submit and Eligible (when the job could first run)"
	if im.Options.SubmitFrom == "submit" {
		sub = "submit time = Submit"
	}
	return []string{
		fmt.Sprintf("import: %s from %s", im.Format, strings.Join(src, ", ")),
		"input: " + mode,
		fmt.Sprintf("records: %d read, %d array tasks expanded from pending ranges; %d jobs written (%d ran, %d never started)",
			im.Records, im.Tasks, written, ran, written-ran),
		sub + "; times in seconds from UnixStartTime",
		"job number = position in submit order (the original id is in the sidecar)",
		"dropped: " + im.Dropped.String(),
		"merged: " + im.Merged.String(),
		"adjusted: " + im.Adjusted.String(),
		"warnings: " + im.Warnings.String(),
	}
}

// Len returns the number of jobs.
func (o *Output) Len() int { return len(o.order) }

// Names returns the names of a kind ("user", "group", "account",
// "partition", "queue"); name i has number i+1.
func (o *Output) Names(kind string) []string {
	if m, ok := o.names[kind]; ok {
		return append([]string(nil), m.names...)
	}
	return nil
}

// UnixStartTime is the Unix time of SWF time 0: the first submit time.
func (o *Output) UnixStartTime() int64 { return o.t0 }

// Job returns the k-th job in output order (job number k+1) and its SWF
// submit time in seconds from UnixStartTime.
func (o *Output) Job(k int) (*Job, int64) {
	return &o.im.Jobs[o.order[k]], o.sub[k] - o.t0
}
