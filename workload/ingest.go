package workload

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/hugepage"
	"github.com/backfill-hpc/backfill/job"
)

// Options control how SWF records become simulated jobs.
type Options struct {
	// Procs is the machine size P; 0 means take it from the trace (see
	// Load). Negative values are an error.
	Procs int
	// Estimate is the runtime-estimate model: "user" (the default when
	// empty) uses the requested time (field 9); "exact" uses the actual
	// runtime, i.e. perfect estimates.
	Estimate string
	// EstimateFallback says what the "user" model does for a job whose
	// requested time is ≤ 0 (no user estimate): "runtime" (the default
	// when empty) uses the job's runtime, at least 1 s; "max" uses the
	// largest requested time among the kept jobs, or their largest
	// runtime when none has a requested time (at least 1 s).
	EstimateFallback string
	// Clamp gives jobs larger than the machine (size > P) size P instead
	// of skipping them; they are counted as AdjClamped.
	Clamp bool
	// Lenient skips malformed lines, ends the input at gzip damage and
	// sorts out-of-order submit times, counting each as a warning, instead
	// of failing.
	Lenient bool
	// Mem adds memory as a second resource (K = 2): each job's Res[0] is
	// its total requested memory in KB, and Trace.MemCap the machine's
	// (see memory.go for the rules).
	Mem bool
	// MemCap is the machine's total memory in KB; 0: MemPerProc, else the
	// header, else a known log's, else the largest job's.
	MemCap int64
	// MemPerProc is the machine's memory per processor in KB (used when
	// MemCap is 0).
	MemPerProc int64
	// MemMissing says what a job without requested memory gets: "mode"
	// (the default when empty), "zero" or "skip".
	MemMissing string
}

// Skip reasons (Trace.Skipped). A record is counted under the first reason
// that applies, in this order.
const (
	// SkipNegSubmit: submit time (field 2) < 0.
	SkipNegSubmit = "submit time unknown (< 0)"
	// SkipNegRuntime: run time (field 4) < 0.
	SkipNegRuntime = "run time unknown (< 0, typically cancelled before start)"
	// SkipNoProcs: requested (field 8) and allocated (field 5)
	// processors both ≤ 0.
	SkipNoProcs = "processor count unknown (requested and allocated <= 0)"
	// SkipTooBig: size > P, when Options.Clamp is not set.
	SkipTooBig = "larger than the machine (size > P)"
)

// Adjustment reasons (Trace.Adjusted), counted over kept jobs.
const (
	// AdjAllocProcs: requested processors ≤ 0, size = allocated processors.
	AdjAllocProcs = "size from allocated processors (requested <= 0)"
	// AdjClamped: size > P reduced to P (Options.Clamp).
	AdjClamped = "clamped to the machine size (size > P)"
	// AdjFallbackRuntime: no user estimate, estimate = runtime.
	AdjFallbackRuntime = "no user estimate: estimate = runtime"
	// AdjFallbackMax: no user estimate, estimate = the largest requested
	// time among the kept jobs.
	AdjFallbackMax = "no user estimate: estimate = largest requested time"
	// AdjFallbackMaxRun: no user estimate and no kept job has one,
	// estimate = the largest runtime among the kept jobs.
	AdjFallbackMaxRun = "no user estimate: estimate = largest runtime"
	// AdjRaised: an estimate below 1 s was raised to 1 s.
	AdjRaised = "estimate raised to 1 s"
	// AdjIDOverflow: an identifier did not fit in int32 and became -1.
	AdjIDOverflow = "user/group/queue/partition outside int32 set to -1"
)

// WarnUnsorted counts (in lenient mode) kept jobs submitted before the
// previous kept job; the jobs are then sorted stably by submit time.
const WarnUnsorted = "submit time before the previous job's (jobs sorted by submit time)"

// Machine-size sources (Trace.ProcsSource).
const (
	// ProcsFromOption: Options.Procs.
	ProcsFromOption = "--procs"
	// ProcsFromMaxProcs: the header's MaxProcs.
	ProcsFromMaxProcs = "MaxProcs header"
	// ProcsFromMaxNodes: the header's MaxNodes (no MaxProcs).
	ProcsFromMaxNodes = "MaxNodes header"
	// ProcsFromJobs: the largest job size (neither header value).
	ProcsFromJobs = "largest job (no header)"
)

// Trace is a workload ready for simulation.
type Trace struct {
	// Name is the name given to Read (the path for Load).
	Name string
	// Header is the SWF header of the input.
	Header Header
	// Procs is the machine size P (≥ 1) and ProcsSource where it came from
	// (one of the ProcsFrom constants).
	Procs       int
	ProcsSource string
	// Options are the options used, with defaults filled in.
	Options Options
	// Records is the number of data records read (kept + skipped).
	Records int
	// Jobs are the kept jobs in submission order; Jobs[i].ID == i.
	Jobs []job.Job
	// Requested is the requested time (SWF field 9) of each job, parallel
	// to Jobs; ≤ 0 means the user gave no estimate.
	Requested []int64
	// Skipped counts records not turned into jobs, by reason (Skip...).
	Skipped Counts
	// Adjusted counts kept jobs whose values were derived or changed, by
	// reason (Adj...).
	Adjusted Counts
	// Warnings counts input problems tolerated (Warn...).
	Warnings Counts
	// Rules describes, one human-readable line each, the rules in force
	// and their effect; meant for the header of every output.
	Rules []string
	// MemCap is the machine's total memory in KB and MemSource where it
	// came from (Options.Mem only; 0 and "" otherwise). MemMode is the
	// most common per-processor request, given to jobs without one.
	MemCap    int64
	MemSource string
	MemMode   int64
}

// Load reads the SWF file at path (plain or gzip) into a Trace; see Read.
// The path is used as the trace name and in error messages.
func Load(path string, opts Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory: expected an SWF trace file, plain or gzip (the commands that take a directory of traces have --traces DIR)", path)
	}
	return Read(f, path, opts)
}

// Per-job flags kept during ingestion.
const (
	flagAlloc   = 1 << iota // size came from allocated processors
	flagIDClamp             // an identifier did not fit in int32
	flagHuge                // size does not fit in int32 (always > P)
)

// Read turns the SWF input r into a Trace using these rules:
//
//   - size = requested processors (field 8), or allocated processors
//     (field 5) when the requested count is ≤ 0;
//   - runtime = run time (field 4); jobs with runtime 0 are kept;
//   - P = opts.Procs if > 0, else the header's MaxProcs if > 0, else its
//     MaxNodes if > 0, else, for a known archive log whose header was
//     stripped (see KnownMachines), the machine size the Parallel
//     Workloads Archive publishes, else the largest job size (at least 1);
//   - records are skipped, and counted by reason, when submit < 0, run
//     time < 0, size ≤ 0, or size > P (unless opts.Clamp);
//   - kept jobs must have non-decreasing submit times (an error naming
//     the line, or in lenient mode a warning and a stable sort);
//   - estimate per opts.Estimate and opts.EstimateFallback, at least 1 s;
//   - ID = index in submission order, SWFID = field 1, Line = source line.
//
// Errors about the input are *ParseError; a bad option is a plain error.
func Read(r io.Reader, name string, opts Options) (*Trace, error) {
	if opts.Estimate == "" {
		opts.Estimate = "user"
	}
	if opts.EstimateFallback == "" {
		opts.EstimateFallback = "runtime"
	}
	if opts.Estimate != "user" && opts.Estimate != "exact" {
		return nil, fmt.Errorf("workload: unknown estimate model %q (want \"user\" or \"exact\")", opts.Estimate)
	}
	if opts.EstimateFallback != "runtime" && opts.EstimateFallback != "max" {
		return nil, fmt.Errorf("workload: unknown estimate fallback %q (want \"runtime\" or \"max\")", opts.EstimateFallback)
	}
	if opts.Procs < 0 {
		return nil, fmt.Errorf("workload: machine size must be positive, got %d", opts.Procs)
	}

	rd, err := NewReader(r, name, opts.Lenient)
	if err != nil {
		return nil, err
	}
	tr := &Trace{Name: name, Options: opts}
	loc := func(line int) string { return name + ":" + strconv.Itoa(line) }

	// Pass 1: rules that do not depend on P. jobs, req and flags are
	// parallel; Procs holds the size (capped, see flagHuge).
	var (
		jobs    []job.Job
		req     []int64
		flags   []uint8
		maxSize int64
	)
	if h := rd.Header(); h.MaxRecords > 0 || h.MaxJobs > 0 {
		n := min(max(h.MaxRecords, h.MaxJobs), 1<<22) // a hint only
		jobs, req, flags = make([]job.Job, 0, n), make([]int64, 0, n), make([]uint8, 0, n)
		hugepage.Advise(jobs)
	}
	var rec Record
	for {
		err := rd.next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size, fl := rec.ReqProcs, uint8(0)
		if size <= 0 {
			size, fl = rec.AllocProcs, flagAlloc
		}
		switch {
		case rec.Submit < 0:
			tr.Skipped.addAt(SkipNegSubmit, name, rec.Line)
			continue
		case rec.Run < 0:
			tr.Skipped.addAt(SkipNegRuntime, name, rec.Line)
			continue
		case size <= 0:
			tr.Skipped.addAt(SkipNoProcs, name, rec.Line)
			continue
		}
		if len(jobs) == cap(jobs) { // grow by doubling: fewer, cheaper copies than append's 1.25x
			n := max(2*cap(jobs), 1024)
			grown := make([]job.Job, 0, n)
			hugepage.Advise(grown)
			jobs = append(grown, jobs...)
			req = append(make([]int64, 0, n), req...)
			flags = append(make([]uint8, 0, n), flags...)
		}
		jobs = jobs[:len(jobs)+1] // filled in place
		j := &jobs[len(jobs)-1]
		j.SWFID = rec.JobNumber
		j.Submit = rec.Submit
		j.Runtime = rec.Run
		j.Line = rec.Line
		j.Procs = int(min(size, math.MaxInt32))
		if opts.Mem {
			// KB per processor for now; totals in applyMemory
			j.Res = []int{int(max(rec.ReqMem, -1))}
		}
		if size > math.MaxInt32 {
			fl |= flagHuge
		}
		var bad bool
		j.User, bad = id32(rec.User, false)
		j.Group, bad = id32(rec.Group, bad)
		j.Queue, bad = id32(rec.Queue, bad)
		j.Partition, bad = id32(rec.Partition, bad)
		if bad {
			fl |= flagIDClamp
		}
		maxSize = max(maxSize, size)
		req = append(req, rec.ReqTime)
		flags = append(flags, fl)
	}
	tr.Records = rd.Records()
	tr.Header = rd.Header()

	// Machine size.
	var p int64
	switch {
	case opts.Procs > 0:
		p, tr.ProcsSource = int64(opts.Procs), ProcsFromOption
	case tr.Header.MaxProcs > 0:
		p, tr.ProcsSource = tr.Header.MaxProcs, ProcsFromMaxProcs
	case tr.Header.MaxNodes > 0:
		p, tr.ProcsSource = tr.Header.MaxNodes, ProcsFromMaxNodes
	default:
		if k, ok := knownMachine(name); ok && int64(k.procs) >= maxSize {
			p, tr.ProcsSource = int64(k.procs), k.source
		} else {
			p, tr.ProcsSource = max(maxSize, 1), ProcsFromJobs
		}
	}
	if p > math.MaxInt32 {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("machine size %d (%s) is too large", p, tr.ProcsSource)}
	}
	tr.Procs = int(p)

	// Pass 2, in place: size against P, submit order, adjustments.
	n := 0
	var prev int64
	unsorted := false
	for i := range jobs {
		j := &jobs[i] // changed in place, moved down to n when jobs were skipped
		if j.Procs > tr.Procs || flags[i]&flagHuge != 0 {
			if !opts.Clamp {
				tr.Skipped.addAt(SkipTooBig, name, j.Line)
				continue
			}
			j.Procs = tr.Procs
			tr.Adjusted.addAt(AdjClamped, name, j.Line)
		}
		if n > 0 && j.Submit < prev {
			if !opts.Lenient {
				return nil, &ParseError{File: name, Line: j.Line, Msg: fmt.Sprintf(
					"submit time %d is before the previous job's %d (SWF requires non-decreasing submit times)",
					j.Submit, prev)}
			}
			tr.Warnings.add(WarnUnsorted, 1, (&ParseError{File: name, Line: j.Line, Msg: fmt.Sprintf(
				"submit time %d is before the previous job's %d", j.Submit, prev)}).Error())
			unsorted = true
		}
		prev = j.Submit
		if flags[i]&flagAlloc != 0 {
			tr.Adjusted.addAt(AdjAllocProcs, name, j.Line)
		}
		if flags[i]&flagIDClamp != 0 {
			tr.Adjusted.addAt(AdjIDOverflow, name, j.Line)
		}
		if n != i {
			jobs[n], req[n] = *j, req[i]
		}
		n++
	}
	jobs, req = jobs[:n:n], req[:n:n]
	if unsorted {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		sort.SliceStable(perm, func(a, b int) bool { return jobs[perm[a]].Submit < jobs[perm[b]].Submit })
		sj, sr := make([]job.Job, n), make([]int64, n)
		for i, k := range perm {
			sj[i], sr[i] = jobs[k], req[k]
		}
		jobs, req = sj, sr
	}

	if opts.Mem {
		jobs, req, err = tr.applyMemory(jobs, req, opts, loc)
		if err != nil {
			return nil, err
		}
	}

	// Estimates and IDs.
	var fallback int64 // for EstimateFallback "max"
	fallbackReason := AdjFallbackMax
	if opts.Estimate == "user" && opts.EstimateFallback == "max" {
		for _, r := range req {
			fallback = max(fallback, r)
		}
		if fallback <= 0 {
			fallbackReason = AdjFallbackMaxRun
			for i := range jobs {
				fallback = max(fallback, jobs[i].Runtime)
			}
		}
		fallback = max(fallback, 1)
	}
	for i := range jobs {
		j := &jobs[i]
		j.ID = i
		switch {
		case opts.Estimate == "exact":
			j.Estimate = j.Runtime
		case req[i] > 0:
			j.Estimate = req[i]
		case opts.EstimateFallback == "max":
			j.Estimate = fallback
			tr.Adjusted.addAt(fallbackReason, name, j.Line)
		default:
			j.Estimate = j.Runtime
			tr.Adjusted.addAt(AdjFallbackRuntime, name, j.Line)
		}
		if j.Estimate < 1 {
			j.Estimate = 1
			tr.Adjusted.addAt(AdjRaised, name, j.Line)
		}
	}
	tr.Jobs, tr.Requested = jobs, req
	if tr.Jobs == nil {
		tr.Jobs, tr.Requested = []job.Job{}, []int64{}
	}

	for _, w := range rd.Warnings() {
		tr.Warnings.add(w.Reason, w.N, w.Example)
	}
	// Reader warnings come first: they happened first.
	if n := len(tr.Warnings); n > 0 && tr.Warnings[0].Reason == WarnUnsorted {
		tr.Warnings = append(tr.Warnings[1:], tr.Warnings[0])
	}
	tr.Rules = rules(tr, fallback, fallbackReason)
	if opts.Mem {
		tr.Rules = append(tr.Rules, memRule(tr))
	}
	return tr, nil
}

// id32 converts an SWF identifier to int32, mapping values that do not
// fit to -1 and noting it in flag.
func id32(v int64, flag bool) (int32, bool) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return -1, true
	}
	return int32(v), flag
}

// rules describes the ingestion of tr in human-readable lines.
func rules(tr *Trace, fallback int64, fallbackReason string) []string {
	o := tr.Options
	mode := "strict (malformed input is an error)"
	if o.Lenient {
		mode = "lenient (malformed lines skipped and counted as warnings; out-of-order submits sorted)"
	}
	est := ""
	switch {
	case o.Estimate == "exact":
		est = "exact: estimate = actual runtime (at least 1 s)"
	case o.EstimateFallback == "max":
		what := "largest requested time among kept jobs"
		if fallbackReason == AdjFallbackMaxRun {
			what = "largest runtime among kept jobs (no job has a requested time)"
		}
		est = fmt.Sprintf("user: estimate = requested time (field 9); when <= 0: %s = %d s", what, fallback)
	default:
		est = "user: estimate = requested time (field 9); when <= 0: the job's runtime (at least 1 s)"
	}
	over := "skipped"
	if o.Clamp {
		over = "clamped to P"
	}
	return []string{
		fmt.Sprintf("trace: %s (%d records, %d jobs kept)", tr.Name, tr.Records, len(tr.Jobs)),
		"input: " + mode,
		fmt.Sprintf("machine size: P = %d (%s)", tr.Procs, tr.ProcsSource),
		"job size: requested processors (field 8); allocated processors (field 5) when requested <= 0",
		"runtime: run time (field 4); jobs with runtime 0 are kept",
		"estimate: " + est,
		"oversized jobs (size > P): " + over,
		"skipped: " + tr.Skipped.String(),
		"adjusted: " + tr.Adjusted.String(),
		"warnings: " + tr.Warnings.String(),
	}
}

// KnownMachine is the published machine size of a Parallel Workloads
// Archive log, used when a copy of the log has lost its header.
type KnownMachine struct {
	// Prefix is matched against the start of the file's base name.
	Prefix string
	procs  int
	source string
}

// KnownMachines lists the archive logs that circulate without their
// header, with the processor counts from their archive pages. They apply
// only when the header gives neither MaxProcs nor MaxNodes and --procs is
// not set, and only if no job is larger.
var KnownMachines = []KnownMachine{
	{"METACENTRUM-2009", 806, "PWA page for METACENTRUM-2009 (806 processors in 14 clusters; header missing)"},
	{"RICC-2010", 8192, "PWA page for RICC-2010 (8192 cores, massively parallel cluster; header missing)"},
}

func knownMachine(name string) (KnownMachine, bool) {
	base := name
	if i := strings.LastIndexAny(base, "/\\"); i >= 0 {
		base = base[i+1:]
	}
	for _, k := range KnownMachines {
		if strings.HasPrefix(base, k.Prefix) {
			return k, true
		}
	}
	return KnownMachine{}, false
}
