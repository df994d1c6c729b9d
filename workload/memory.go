package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// Memory as a second resource (K-resource scheduling, Leinberger, Karypis
// & Kumar): with Options.Mem, every kept job gets Res = [memory], its
// total requested memory in KB, from SWF field 10 (requested memory, KB
// per processor) times its size, and the trace gets the machine's total
// memory (Trace.MemCap, KB), so that jobs hold (processors, memory).
//
// The machine's memory, in KB, is the first of: Options.MemCap;
// Options.MemPerProc × P; the header's MaxMemory × P (read as KB per
// processor, the unit of field 10); the published memory of a known
// archive log (KnownMemory); the largest job's memory.
//
// A job without a requested memory (field 10 ≤ 0, SWF's −1) gets, by
// Options.MemMissing: "mode" (the default) the most common per-processor
// request of the trace's kept jobs (ties: the smaller), taken as the
// site's default, or 0 if no job has one; "zero" no memory; "skip" is
// skipped (SkipNoMem). A job needing more memory than the machine is
// skipped (SkipTooMuchMem), or with Options.Clamp given the whole memory
// (AdjMemClamped).

// Memory skip and adjustment reasons.
const (
	// SkipNoMem: no requested memory (field 10 ≤ 0) with MemMissing "skip".
	SkipNoMem = "requested memory unknown (field 10 <= 0)"
	// SkipTooMuchMem: total requested memory > the machine's, without Clamp.
	SkipTooMuchMem = "needs more memory than the machine"
	// AdjMemMode: no requested memory, the trace's most common one used.
	AdjMemMode = "no requested memory: the trace's most common per-processor request"
	// AdjMemZero: no requested memory, 0 used.
	AdjMemZero = "no requested memory: none required"
	// AdjMemClamped: memory > the machine's, reduced to it (Clamp).
	AdjMemClamped = "memory clamped to the machine's"
)

// Memory sources (Trace.MemSource).
const (
	MemFromOption     = "--mem"
	MemFromPerProc    = "--mem-per-proc × P"
	MemFromHeader     = "MaxMemory header (KB per processor) × P"
	MemFromLargestJob = "largest job (no --mem, no MaxMemory header)"
)

// KnownMemory lists the published memory of archive logs whose header
// does not give it, matched by the start of the file's base name.
var KnownMemory = []struct {
	Prefix string
	KB     int64 // the whole machine
	Source string
}{
	{"HPC2N-2002", 120 << 20, "PWA page for HPC2N-2002 (120 nodes, 1 GB each, shared by 2 processors)"},
	{"RICC-2010", 1024 * 12 << 20, "PWA page for RICC-2010 (1024 nodes, 12 GB each, 8 cores)"},
}

// ParseMem parses a memory amount in KB, with an optional binary suffix
// K (KB, the default), M, G, T or P: "512M" is 524288 KB.
func ParseMem(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			t = t[:n-1]
		case 'M':
			shift, t = 10, t[:n-1]
		case 'G':
			shift, t = 20, t[:n-1]
		case 'T':
			shift, t = 30, t[:n-1]
		case 'P':
			shift, t = 40, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 1 || v > math.MaxInt64>>shift {
		return 0, fmt.Errorf("memory %q: expected a positive number of KB, with an optional suffix K, M, G, T or P", s)
	}
	return v << shift, nil
}

// applyMemory gives the jobs, whose Res[0] holds field 10 (KB per
// processor) from pass 1, their total memory, sets tr.MemCap and
// tr.MemSource, and drops the jobs skipped for memory (req is kept
// parallel to jobs).
func (tr *Trace) applyMemory(jobs []job.Job, req []int64, opts Options, loc func(int) string) ([]job.Job, []int64, error) {
	missing := opts.MemMissing
	if missing == "" {
		missing = "mode"
	}
	if missing != "mode" && missing != "zero" && missing != "skip" {
		return nil, nil, fmt.Errorf("workload: unknown memory rule %q for jobs without requested memory (want mode, zero or skip)", missing)
	}
	// the most common per-processor request
	var mode int64
	if missing == "mode" {
		count := map[int64]int{}
		best := 0
		for i := range jobs {
			if v := int64(jobs[i].Res[0]); v > 0 {
				count[v]++
			}
		}
		for v, n := range count {
			if n > best || n == best && v < mode {
				mode, best = v, n
			}
		}
	}
	// totals; -1 marks a job to skip
	var largest int64
	for i := range jobs {
		j := &jobs[i]
		per := int64(j.Res[0])
		if per <= 0 {
			switch missing {
			case "mode":
				per = mode
				tr.Adjusted.add(AdjMemMode, 1, loc(j.Line))
			case "zero":
				per = 0
				tr.Adjusted.add(AdjMemZero, 1, loc(j.Line))
			case "skip":
				tr.Skipped.add(SkipNoMem, 1, loc(j.Line))
				j.Res[0] = -1
				continue
			}
		}
		total := int64(math.MaxInt64)
		if per <= math.MaxInt64/int64(j.Procs) {
			total = per * int64(j.Procs)
		}
		j.Res[0] = int(total)
		largest = max(largest, total)
	}
	P := int64(tr.Procs)
	switch {
	case opts.MemCap > 0:
		tr.MemCap, tr.MemSource = opts.MemCap, MemFromOption
	case opts.MemPerProc > 0:
		if opts.MemPerProc > math.MaxInt64/P {
			return nil, nil, fmt.Errorf("workload: memory per processor %d KB × %d processors is too large", opts.MemPerProc, P)
		}
		tr.MemCap, tr.MemSource = opts.MemPerProc*P, MemFromPerProc
	default:
		if v := headerInt(tr.Header, "MaxMemory"); v > 0 && v <= math.MaxInt64/P {
			tr.MemCap, tr.MemSource = v*P, MemFromHeader
			break
		}
		if k, ok := knownMemory(tr.Name); ok {
			tr.MemCap, tr.MemSource = k.KB, k.Source
			break
		}
		tr.MemCap, tr.MemSource = max(largest, 1), MemFromLargestJob
	}
	n := 0
	for i := range jobs {
		j := jobs[i]
		if j.Res[0] < 0 {
			continue
		}
		if int64(j.Res[0]) > tr.MemCap {
			if !opts.Clamp {
				tr.Skipped.add(SkipTooMuchMem, 1, loc(j.Line))
				continue
			}
			j.Res[0] = int(tr.MemCap)
			tr.Adjusted.add(AdjMemClamped, 1, loc(j.Line))
		}
		jobs[n], req[n] = j, req[i]
		n++
	}
	tr.MemMode = mode
	return jobs[:n:n], req[:n:n], nil
}

// memRule describes the memory rules of tr in one line.
func memRule(tr *Trace) string {
	missing := tr.Options.MemMissing
	switch missing {
	case "", "mode":
		missing = fmt.Sprintf("the most common per-processor request (%d KB)", tr.MemMode)
	case "zero":
		missing = "none"
	case "skip":
		missing = "skipped"
	}
	return fmt.Sprintf("memory (K = 2): total = field 10 (KB per processor) × size; machine %d KB (%s); jobs without field 10: %s", tr.MemCap, tr.MemSource, missing)
}

func headerInt(h Header, key string) int64 {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Key, key) {
			v, err := strconv.ParseInt(strings.Fields(f.Value + " x")[0], 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return 0
}

func knownMemory(name string) (struct {
	Prefix string
	KB     int64
	Source string
}, bool) {
	base := name
	if i := strings.LastIndexAny(base, "/\\"); i >= 0 {
		base = base[i+1:]
	}
	for _, k := range KnownMemory {
		if strings.HasPrefix(base, k.Prefix) {
			return k, true
		}
	}
	return KnownMemory[0], false
}

// ResCaps are the capacities of the trace's resources beyond the
// processors, for sim.Options.Res: [MemCap] with Options.Mem, else nil.
func (tr *Trace) ResCaps() []int {
	if tr.MemCap > 0 {
		return []int{int(tr.MemCap)}
	}
	return nil
}

// Caps is the machine's capacity vector: [Procs] or [Procs, MemCap].
func (tr *Trace) Caps() []int {
	return append([]int{tr.Procs}, tr.ResCaps()...)
}
