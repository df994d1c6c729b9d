package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/workload"
)

// SacctFields is the documented sacct field list, in the order a dump
// without a header line must have.
var SacctFields = []string{
	"JobID", "JobIDRaw", "State", "Submit", "Eligible", "Start", "End", "Elapsed", "Timelimit",
	"User", "Group", "Account", "Partition", "QOS", "NNodes", "NCPUS", "ReqTRES", "AllocTRES",
}

// SacctCommand is the command that produces what ReadSacct reads (set
// --starttime to the start of the period wanted).
const SacctCommand = "TZ=UTC sacct --allusers --duplicates --parsable2 --noheader --starttime=2024-01-01 --endtime=now " +
	"--format=JobID,JobIDRaw,State,Submit,Eligible,Start,End,Elapsed,Timelimit,User,Group,Account,Partition,QOS,NNodes,NCPUS,ReqTRES,AllocTRES"

// column indices into SacctFields
const (
	cJobID = iota
	cJobIDRaw
	cState
	cSubmit
	cEligible
	cStart
	cEnd
	cElapsed
	cTimelimit
	cUser
	cGroup
	cAccount
	cPartition
	cQOS
	cNNodes
	cNCPUS
	cReqTRES
	cAllocTRES
	nCols
)

// required columns when a header line names the columns.
var sacctRequired = []int{cJobID, cState, cSubmit, cStart, cEnd}

// stateInfo describes what a final Slurm state means for the import.
type stateInfo struct {
	status   int  // SWF status when written
	finished bool // the record is final (else: dropped as unfinished)
	requeued bool // a run that Slurm requeued
}

// sacctStates is the state table of docs/workload.md.
var sacctStates = map[string]stateInfo{
	"COMPLETED":     {status: 1, finished: true},
	"FAILED":        {status: 0, finished: true},
	"TIMEOUT":       {status: 0, finished: true},
	"CANCELLED":     {status: 5, finished: true},
	"NODE_FAIL":     {status: 0, finished: true},
	"PREEMPTED":     {status: 0, finished: true},
	"OUT_OF_MEMORY": {status: 0, finished: true},
	"BOOT_FAIL":     {status: 0, finished: true},
	"DEADLINE":      {status: 0, finished: true},
	"SPECIAL_EXIT":  {status: 0, finished: true},
	"REQUEUED":      {status: 0, finished: true, requeued: true},
	"PENDING":       {},
	"RUNNING":       {},
	"SUSPENDED":     {},
	"REQUEUE_HOLD":  {},
	"REQUEUE_FED":   {},
	"RESIZING":      {},
	"SIGNALING":     {},
	"STAGE_OUT":     {},
	"STOPPED":       {},
	"RESV_DEL_HOLD": {},
	"REVOKED":       {},
}

// sacctReader holds the state of one ReadSacct call.
type sacctReader struct {
	im    *Import
	name  string
	col   [nCols]int // column index of each field, -1 absent
	ncols int
	// The latest record of each job id, for its steps and components:
	// index in im.Jobs, or -1 for a record dropped. sacct prints steps
	// right after their job, so the last record answers almost always
	// (lastID, lastK); byID is built on the first lookup it does not
	// answer, from hist (the dropped records, by position), and kept up
	// to date from then on.
	lastID string
	lastK  int
	byID   map[string]int
	hist   []dropMark
	intern map[string]string
	fields [][]byte
}

// ReadSacct reads the output of SacctCommand (with or without the header
// line; with it, the columns may come in any order and extra columns are
// ignored) from r; name is used in messages. Errors about the input are
// *workload.ParseError "FILE:LINE: FIELD: REASON".
func ReadSacct(r io.Reader, name string, opts Options) (*Import, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	im := &Import{Format: "slurm sacct", Options: opts}
	s := &sacctReader{im: im, name: name, lastK: -2, intern: map[string]string{}}
	for i := range s.col {
		s.col[i] = i
	}
	s.ncols = nCols
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	first := true
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, &workload.ParseError{File: name, Line: line + 1, Msg: "line longer than 1 MiB"}
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				return nil, err
			}
			break
		}
		line++
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if first {
			first = false
			if isHeader(b) {
				if err := s.header(b, line); err != nil {
					return nil, err
				}
				continue
			}
		}
		im.Records++
		if err := s.record(b, line); err != nil {
			return nil, err
		}
	}
	im.Sources = append(im.Sources, Source{Name: name, Lines: line})
	return im, nil
}

// isHeader reports whether the line is sacct's header line (its first
// column is named JobID or JobIDRaw).
func isHeader(b []byte) bool {
	f, _, _ := bytes.Cut(b, []byte{'|'})
	f = bytes.TrimSpace(f)
	return bytes.EqualFold(f, []byte("JobID")) || bytes.EqualFold(f, []byte("JobIDRaw"))
}

func (s *sacctReader) header(b []byte, line int) error {
	for i := range s.col {
		s.col[i] = -1
	}
	names := bytes.Split(b, []byte{'|'})
	if len(names) > 0 && len(bytes.TrimSpace(names[len(names)-1])) == 0 {
		names = names[:len(names)-1] // --parsable: a trailing '|'
	}
	s.ncols = len(names)
	for k, nm := range names {
		nm = bytes.TrimSpace(nm)
		for c, want := range SacctFields {
			if bytes.EqualFold(nm, []byte(want)) && s.col[c] < 0 {
				s.col[c] = k
			}
		}
	}
	for _, c := range sacctRequired {
		if s.col[c] < 0 {
			return &workload.ParseError{File: s.name, Line: line, Msg: fmt.Sprintf(
				"header: no %s column (the dump needs at least %s; see backfill import slurm --help)",
				SacctFields[c], "JobID, State, Submit, Start, End")}
		}
	}
	return nil
}

// get returns column c of the current record ("" when absent).
func (s *sacctReader) get(c int) []byte {
	k := s.col[c]
	if k < 0 {
		return nil
	}
	return s.fields[k]
}

// str interns a name.
func (s *sacctReader) str(b []byte) string {
	if v, ok := s.intern[string(b)]; ok {
		return v
	}
	v := string(b)
	s.intern[v] = v
	return v
}

// record parses one data line.
func (s *sacctReader) record(b []byte, line int) error {
	im := s.im
	s.fields = s.fields[:0]
	for {
		i := bytes.IndexByte(b, '|')
		if i < 0 {
			s.fields = append(s.fields, b)
			break
		}
		s.fields = append(s.fields, b[:i])
		b = b[i+1:]
	}
	if len(s.fields) == s.ncols+1 && len(s.fields[s.ncols]) == 0 {
		s.fields = s.fields[:s.ncols] // --parsable: a trailing '|'
	}
	if len(s.fields) != s.ncols {
		return im.warnf(s.name, line, "line", "expected %d fields separated by '|' (%s), found %d",
			s.ncols, strings.Join(SacctFields, ","), len(s.fields))
	}
	id := s.get(cJobID)
	if len(id) == 0 {
		return im.warnf(s.name, line, "JobID", "empty")
	}
	// steps: 123.batch, 123.0, 123_4.extern, 123+0.1
	if dot := bytes.IndexByte(id, '.'); dot >= 0 {
		parent := id[:dot]
		if p := bytes.IndexByte(parent, '+'); p >= 0 {
			parent = parent[:p]
		}
		k, ok := s.lookup(parent)
		if !ok {
			return im.warnf(s.name, line, "JobID", "step %q of a job not seen before it (sacct lists a job before its steps)", id)
		}
		if k < 0 {
			addAt(&im.Dropped, DropStepOfDropped, s.name, line)
			return nil
		}
		im.Jobs[k].Steps++
		addAt(&im.Merged, MergeStep, s.name, line)
		return nil
	}
	var j Job
	j.File, j.Line, j.Components = s.name, line, 1
	jobID, comp := id, -1
	if p := bytes.IndexByte(id, '+'); p >= 0 {
		n, err := strconv.Atoi(string(id[p+1:]))
		if err != nil || n < 0 {
			return im.warnf(s.name, line, "JobID", "expected a heterogeneous job component JOB+N, found %q", id)
		}
		jobID, comp = id[:p], n
	}
	if !validJobID(jobID) {
		return im.warnf(s.name, line, "JobID", "expected JOB, JOB_TASK, JOB_[RANGES], JOB+N or JOB.STEP, found %q", id)
	}

	// state
	st := s.get(cState)
	if sp := bytes.IndexByte(st, ' '); sp >= 0 {
		st = st[:sp] // "CANCELLED by 1000"
	}
	st = bytes.TrimRight(st, "+") // a "+" marks more states in some versions
	info, ok := sacctStates[string(st)]
	if !ok {
		return im.warnf(s.name, line, "State", "unknown Slurm job state %q", s.get(cState))
	}
	j.State = s.str(st)

	var err error
	tm := func(c int, dst *int64) bool {
		if err != nil {
			return false
		}
		*dst, err = parseSlurmTime(s.get(c), im.Options.Location)
		if err != nil {
			err = im.warnf(s.name, line, SacctFields[c], "%v", err)
			return false
		}
		return true
	}
	j.Eligible = -1
	if !tm(cSubmit, &j.Submit) || !tm(cStart, &j.Start) || !tm(cEnd, &j.End) || (s.col[cEligible] >= 0 && !tm(cEligible, &j.Eligible)) {
		return err // nil in lenient mode: counted
	}
	if j.Start >= 0 && j.End >= 0 && j.End < j.Start {
		return im.warnf(s.name, line, "End", "end %s before start %s",
			s.get(cEnd), s.get(cStart))
	}
	elapsed := int64(-1)
	if v := s.get(cElapsed); len(v) > 0 {
		if elapsed, err = parseDuration(v); err != nil {
			return im.warnf(s.name, line, "Elapsed", "%v", err)
		}
	}
	j.Limit = -1
	if v := s.get(cTimelimit); len(v) > 0 {
		if j.Limit, err = parseLimit(v); err != nil {
			return im.warnf(s.name, line, "Timelimit", "%v", err)
		}
	}
	j.User, j.Group = s.str(s.get(cUser)), s.str(s.get(cGroup))
	j.Account, j.Partition, j.Queue = s.str(s.get(cAccount)), s.str(s.get(cPartition)), s.str(s.get(cQOS))
	nn, nc := int64(-1), int64(-1)
	if v := s.get(cNNodes); len(v) > 0 {
		if nn, err = parseCount(v); err != nil {
			return im.warnf(s.name, line, "NNodes", "%v", err)
		}
	}
	if v := s.get(cNCPUS); len(v) > 0 {
		if nc, err = parseCount(v); err != nil {
			return im.warnf(s.name, line, "NCPUS", "%v", err)
		}
	}
	var req, alloc tres
	if req, err = parseTRES(s.get(cReqTRES)); err != nil {
		return im.warnf(s.name, line, "ReqTRES", "%v", err)
	}
	if alloc, err = parseTRES(s.get(cAllocTRES)); err != nil {
		return im.warnf(s.name, line, "AllocTRES", "%v", err)
	}
	j.ReqCPUs, j.ReqNodes, j.ReqMemKB = req.cpu, req.node, req.memKB
	j.AllocCPUs, j.AllocNodes = alloc.cpu, alloc.node
	allocated := len(s.get(cAllocTRES)) > 0
	if j.AllocCPUs < 0 && allocated && nc > 0 {
		j.AllocCPUs = nc
	}
	if j.AllocNodes < 0 && allocated && nn > 0 {
		j.AllocNodes = nn
	}
	if j.ReqNodes < 0 && !allocated && nn > 0 {
		j.ReqNodes = nn // a pending job's NNodes is its request
	}
	if j.ReqCPUs < 0 && !allocated && nc > 0 {
		j.ReqCPUs = nc
	}
	j.GPUs = req.gpu
	if j.GPUs < 0 {
		j.GPUs = alloc.gpu
	}

	if comp <= 0 && im.duplicate(string(jobID), j.Submit, j.Start) {
		if err := im.dupErr(s.name, line, string(jobID)); err != nil {
			return err
		}
		s.drop(DropDuplicate, jobID, line)
		return nil
	}
	// a component after the first (123+1) repeated: keyed by its full id,
	// so that its sizes are not added to the job twice; only the record is
	// dropped (the job and its other components stay)
	if comp > 0 && im.duplicate(string(id), j.Submit, j.Start) {
		if err := im.dupErr(s.name, line, string(id)); err != nil {
			return err
		}
		addAt(&im.Dropped, DropDuplicate, s.name, line)
		return nil
	}

	// what happened
	switch {
	case !info.finished:
		if string(st) == "REVOKED" {
			s.drop(DropRevoked, jobID, line)
		} else {
			s.drop(DropUnfinished, jobID, line)
		}
		return nil
	case j.Submit < 0:
		s.drop(DropNoSubmit, jobID, line)
		return nil
	}
	j.Status = info.status
	// A job cancelled while pending has Start = End = the cancel time in
	// Slurm 22.05's records (Start None in others), and nothing allocated.
	j.Ran = j.Start >= 0
	if j.Ran && s.col[cAllocTRES] >= 0 && len(s.get(cAllocTRES)) == 0 {
		j.Ran = false
	} else if j.Ran && s.col[cAllocTRES] < 0 && string(st) == "CANCELLED" && j.End == j.Start && elapsed <= 0 {
		j.Ran = false
	}
	if j.Ran {
		switch {
		case elapsed >= 0:
			j.Run = elapsed
		case j.End >= j.Start:
			j.Run = j.End - j.Start
			addAt(&im.Adjusted, AdjRunFromTimes, s.name, line)
		default:
			s.drop(DropNoEnd, jobID, line)
			return nil
		}
		if j.End < 0 {
			j.End = j.Start + j.Run
		}
		if string(st) == "TIMEOUT" && j.Limit >= 0 && j.Run > j.Limit {
			j.Run = j.Limit
			addAt(&im.Adjusted, AdjTimeoutClamp, s.name, line)
		}
	} else {
		j.Start, j.End, j.Run = -1, -1, -1
	}

	// heterogeneous components after the first fold into the job
	if comp > 0 {
		k, ok := s.lookup(jobID)
		if ok && k < 0 {
			addAt(&im.Dropped, DropComponentOfDropped, s.name, line)
			return nil
		}
		if ok {
			p := &im.Jobs[k]
			p.Components++
			p.ReqCPUs = addKnown(p.ReqCPUs, j.ReqCPUs)
			p.AllocCPUs = addKnown(p.AllocCPUs, j.AllocCPUs)
			p.ReqNodes = addKnown(p.ReqNodes, j.ReqNodes)
			p.AllocNodes = addKnown(p.AllocNodes, j.AllocNodes)
			p.ReqMemKB = addKnown(p.ReqMemKB, j.ReqMemKB)
			p.GPUs = addKnown(p.GPUs, j.GPUs)
			if j.Ran && p.Ran {
				p.End = max(p.End, j.End)
				p.Run = max(p.Run, j.Run)
			}
			if p.State != j.State {
				addAt(&im.Adjusted, AdjHetState, s.name, line)
			}
			addAt(&im.Merged, MergeComponent, s.name, line)
			return nil
		}
	}

	if info.requeued && j.Ran {
		addAt(&im.Adjusted, AdjRequeued, s.name, line)
	}
	if !j.Ran {
		addAt(&im.Adjusted, AdjNeverRan, s.name, line)
	}
	if j.Limit < 0 {
		addAt(&im.Adjusted, AdjNoLimit, s.name, line)
	}
	switch {
	case j.ReqCPUs <= 0 && j.AllocCPUs <= 0:
		s.drop(DropNoSize, jobID, line)
		return nil
	case j.ReqCPUs <= 0:
		j.ReqCPUs = j.AllocCPUs
		addAt(&im.Adjusted, AdjReqFromAlloc, s.name, line)
	case j.AllocCPUs <= 0 && j.Ran:
		j.AllocCPUs = j.ReqCPUs
		addAt(&im.Adjusted, AdjAllocFromReq, s.name, line)
	}

	// pending array ranges 123_[5-9%2]: one job per task
	if lb := bytes.IndexByte(jobID, '['); lb >= 0 {
		tasks, err := expandArray(jobID[lb+1 : len(jobID)-1])
		if err != nil {
			return im.warnf(s.name, line, "JobID", "array range %q: %v", jobID, err)
		}
		if im.Tasks+len(tasks)-1 > maxImportTasks {
			return im.warnf(s.name, line, "JobID", "array range %q: %d tasks would bring the tasks expanded from pending ranges in this import above %d (the limit for the whole import)",
				jobID, len(tasks), maxImportTasks)
		}
		base := string(jobID[:lb])
		for n, t := range tasks {
			jt := j
			jt.ID = base + strconv.FormatInt(t, 10)
			im.Jobs = append(im.Jobs, jt)
			s.remember(jt.ID, len(im.Jobs)-1)
			if n > 0 {
				im.Tasks++
				// the per-record counts above, once more for each extra task
				if !j.Ran {
					addAt(&im.Adjusted, AdjNeverRan, s.name, line)
				}
				if j.Limit < 0 {
					addAt(&im.Adjusted, AdjNoLimit, s.name, line)
				}
			}
		}
		return nil
	}
	j.ID = string(jobID)
	if comp >= 0 {
		j.Components = 1
	}
	im.Jobs = append(im.Jobs, j)
	s.remember(j.ID, len(im.Jobs)-1)
	return nil
}

// drop counts a record that is not written; its steps (and later
// heterogeneous components) are dropped with it.
func (s *sacctReader) drop(reason string, jobID []byte, line int) {
	addAt(&s.im.Dropped, reason, s.name, line)
	id := string(jobID)
	s.hist = append(s.hist, dropMark{id, len(s.im.Jobs)})
	s.remember(id, -1)
}

// dropMark is a dropped record: its job id and the number of jobs
// written before it.
type dropMark struct {
	id  string
	pos int
}

// remember records that the latest record of id is k (-1: dropped).
func (s *sacctReader) remember(id string, k int) {
	s.lastID, s.lastK = id, k
	if s.byID != nil {
		s.byID[id] = k
	}
}

// lookup returns the latest record of id: its index in im.Jobs, or -1
// when it was dropped; ok is false for an id not seen.
func (s *sacctReader) lookup(id []byte) (int, bool) {
	if s.lastK != -2 && string(id) == s.lastID {
		return s.lastK, true
	}
	if s.byID == nil {
		// build the index once: jobs and dropped records in input order
		s.byID = make(map[string]int, len(s.im.Jobs)+len(s.hist))
		h := 0
		for i := range s.im.Jobs {
			for h < len(s.hist) && s.hist[h].pos <= i {
				s.byID[s.hist[h].id] = -1
				h++
			}
			s.byID[s.im.Jobs[i].ID] = i
		}
		for ; h < len(s.hist); h++ {
			s.byID[s.hist[h].id] = -1
		}
	}
	k, ok := s.byID[string(id)]
	return k, ok
}

// addKnown adds b to a, where -1 is unknown.
func addKnown(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return a + b
}

// validJobID accepts 123, 123_4 and 123_[ranges].
func validJobID(b []byte) bool {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	if i == len(b) {
		return true
	}
	if b[i] != '_' {
		return false
	}
	rest := b[i+1:]
	if len(rest) >= 2 && rest[0] == '[' && rest[len(rest)-1] == ']' {
		return true
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(rest) > 0
}
