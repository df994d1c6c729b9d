package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/workload"
)

// PBS drop and merge reasons.
const (
	MergePBSOther   = "PBS record other than E (Q, S, D, A, R, ...): not a job of its own"
	DropPBSNoEnd    = "PBS job queued (Q record) but no E record (deleted before start, or unfinished at the end of the logs): not written"
	DropArrayParent = "PBS array parent E record (its subjobs are the jobs): not written"
	AdjSignal       = "PBS exit status above 256 (killed by a signal, e.g. qdel): CANCELLED"
	AdjPBSTimeout   = "PBS walltime used reached Resource_List.walltime with a non-zero exit: TIMEOUT (killed at the limit)"
)

// PBSInput is one accounting log file.
type PBSInput struct {
	Name string
	R    io.Reader
}

// ReadPBS reads PBS/Torque/OpenPBS accounting logs (the daily files of
// server_priv/accounting, given in time order). Each line is
// "MM/DD/YYYY HH:MM:SS;TYPE;JOBID;key=value key=value ...". E (end)
// records become jobs; see docs/workload.md for the attributes used.
// Other record types are counted; a job with a Q record and no E record is
// counted as dropped.
func ReadPBS(inputs []PBSInput, opts Options) (*Import, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	im := &Import{Format: "pbs accounting", Options: opts}
	queued := map[string]string{} // job id → FILE:LINE of its Q record, until its E record
	var qorder []string
	for _, in := range inputs {
		br := bufio.NewReaderSize(in.R, 1<<20)
		line := 0
		for {
			b, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				return nil, &workload.ParseError{File: in.Name, Line: line + 1, Msg: "line longer than 1 MiB"}
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
			im.Records++
			parts := bytes.SplitN(b, []byte{';'}, 4)
			if len(parts) < 3 {
				if err := im.warnf(in.Name, line, "record", "expected DATE TIME;TYPE;JOBID;ATTRIBUTES, found %q", trunc(b)); err != nil {
					return nil, err
				}
				continue
			}
			typ, id := string(parts[1]), string(parts[2])
			var msg []byte
			if len(parts) == 4 {
				msg = parts[3]
			}
			switch typ {
			case "Q":
				if _, ok := queued[id]; !ok {
					qorder = append(qorder, id)
				}
				queued[id] = loc(in.Name, line)
				addAt(&im.Merged, MergePBSOther, in.Name, line)
				continue
			case "E":
			default:
				if len(typ) != 1 {
					if err := im.warnf(in.Name, line, "type", "expected a one-letter record type, found %q", typ); err != nil {
						return nil, err
					}
					continue
				}
				addAt(&im.Merged, MergePBSOther, in.Name, line)
				continue
			}
			delete(queued, id)
			if err := pbsEnd(im, in.Name, line, id, msg); err != nil {
				return nil, err
			}
		}
		im.Sources = append(im.Sources, Source{Name: in.Name, Lines: line})
	}
	for _, id := range qorder {
		if where, ok := queued[id]; ok {
			addEx(&im.Dropped, DropPBSNoEnd, where)
		}
	}
	return im, nil
}

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// pbsAttrs splits "k=v k=v" into attributes; a token without '=' belongs
// to the previous value (values such as job names may hold spaces).
func pbsAttrs(msg []byte) map[string]string {
	a := map[string]string{}
	last := ""
	for _, tok := range strings.Fields(string(msg)) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			if last != "" {
				a[last] += " " + tok
			}
			continue
		}
		a[k] = v
		last = k
	}
	return a
}

// pbsEnd turns one E record into a job.
func pbsEnd(im *Import, file string, line int, id string, msg []byte) error {
	err := pbsJob(im, file, line, id, msg)
	if err == errSkip {
		return nil
	}
	return err
}

// pbsJob does the work of pbsEnd; a malformed attribute is the strict
// error or, in lenient mode, errSkip (counted).
func pbsJob(im *Import, file string, line int, id string, msg []byte) error {
	a := pbsAttrs(msg)
	if strings.Contains(id, "[]") {
		addAt(&im.Dropped, DropArrayParent, file, line)
		return nil
	}
	j := Job{File: file, Line: line, Components: 1, Eligible: -1, Start: -1, End: -1, Run: -1, Limit: -1,
		ReqCPUs: -1, AllocCPUs: -1, ReqNodes: -1, AllocNodes: -1, ReqMemKB: -1, GPUs: -1}
	// the job id without the server name: 123.server → 123, 123[4].server → 123[4]
	j.ID = id
	if i := strings.IndexByte(id, '.'); i > 0 {
		j.ID = id[:i]
	}
	j.User, j.Group, j.Account, j.Queue = a["user"], a["group"], a["account"], a["queue"]
	if j.Account == "" {
		j.Account = a["Account_Name"]
	}
	bad := func(field, format string, args ...any) error {
		if err := im.warnf(file, line, field, format, args...); err != nil {
			return err
		}
		return errSkip
	}
	epoch := func(key string) (int64, error) {
		v, ok := a[key]
		if !ok || v == "" || v == "0" {
			return -1, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > 1<<40 {
			return 0, bad(key, "expected Unix seconds, found %q", v)
		}
		return n, nil
	}
	var ctime int64
	var err error
	for _, e := range []struct {
		k string
		d *int64
	}{{"ctime", &ctime}, {"qtime", &j.Submit}, {"etime", &j.Eligible}, {"start", &j.Start}, {"end", &j.End}} {
		if *e.d, err = epoch(e.k); err != nil {
			return err
		}
	}
	if j.Submit < 0 {
		j.Submit = ctime
	}
	if j.Start >= 0 && j.End >= 0 && j.End < j.Start {
		return bad("end", "end %d before start %d", j.End, j.Start)
	}
	dur := func(key string) (int64, error) {
		v, ok := a[key]
		if !ok || v == "" {
			return -1, nil
		}
		d, err := parsePBSDuration([]byte(v))
		if err != nil {
			return 0, bad(key, "expected HH:MM:SS, MM:SS or seconds, found %q", v)
		}
		return d, nil
	}
	if j.Limit, err = dur("Resource_List.walltime"); err != nil {
		return err
	}
	used, err := dur("resources_used.walltime")
	if err != nil {
		return err
	}
	count := func(key string) (int64, error) {
		v, ok := a[key]
		if !ok || v == "" {
			return -1, nil
		}
		n, err := parseCount([]byte(v))
		if err != nil {
			return 0, bad(key, "expected a count, found %q", v)
		}
		return n, nil
	}
	if j.ReqCPUs, err = count("Resource_List.ncpus"); err != nil {
		return err
	}
	if j.ReqNodes, err = count("Resource_List.nodect"); err != nil {
		return err
	}
	if j.GPUs, err = count("Resource_List.ngpus"); err != nil {
		return err
	}
	if v := a["Resource_List.mem"]; v != "" {
		if j.ReqMemKB, err = parsePBSSize(v); err != nil {
			return bad("Resource_List.mem", "%v", err)
		}
	}
	if sel := a["Resource_List.select"]; sel != "" {
		c, g, m, n, err := parsePBSSelect(sel)
		if err != nil {
			return bad("Resource_List.select", "%v", err)
		}
		if j.ReqCPUs < 0 {
			j.ReqCPUs = c
		}
		if j.GPUs < 0 {
			j.GPUs = g
		}
		if j.ReqMemKB < 0 {
			j.ReqMemKB = m
		}
		if j.ReqNodes < 0 {
			j.ReqNodes = n
		}
	}
	if nodes := a["Resource_List.nodes"]; nodes != "" {
		c, g, n, err := parseTorqueNodes(nodes)
		if err != nil {
			return bad("Resource_List.nodes", "%v", err)
		}
		if j.ReqCPUs < 0 {
			j.ReqCPUs = c
		}
		if j.GPUs < 0 {
			j.GPUs = g
		}
		if j.ReqNodes < 0 {
			j.ReqNodes = n
		}
	}
	if j.ReqCPUs < 0 {
		if j.ReqCPUs, err = count("Resource_List.procs"); err != nil {
			return err
		}
	}
	// whole nodes: PBS Pro's place=excl, exclhost (alone or with
	// pack/scatter/vscatter), Torque's naccesspolicy=singlejob
	for _, p := range strings.Split(a["Resource_List.place"], ":") {
		if p == "excl" || p == "exclhost" {
			j.Exclusive = true
		}
	}
	if a["Resource_List.naccesspolicy"] == "singlejob" {
		j.Exclusive = true
	}
	if eh := a["exec_host"]; eh != "" {
		c, n, err := parseExecHost(eh)
		if err != nil {
			return bad("exec_host", "%v", err)
		}
		j.AllocCPUs, j.AllocNodes = c, n
	}
	if j.AllocCPUs < 0 {
		if j.AllocCPUs, err = count("resources_used.ncpus"); err != nil {
			return err
		}
	}
	usedOK := used >= 0

	// state
	exit := int64(0)
	if v, ok := a["Exit_status"]; ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("Exit_status", "expected an integer, found %q", v)
		}
		exit = n
	}
	if im.duplicate(j.ID, j.Submit, j.Start) {
		if err := im.dupErr(file, line, j.ID); err != nil {
			return err
		}
		addAt(&im.Dropped, DropDuplicate, file, line)
		return nil
	}
	j.Ran = j.Start >= 0
	switch {
	case !j.Ran:
		j.State, j.Status = "CANCELLED", 5
	case exit == 0:
		j.State, j.Status = "COMPLETED", 1
	case j.Limit >= 0 && usedOK && used >= j.Limit:
		j.State, j.Status = "TIMEOUT", 0
		addAt(&im.Adjusted, AdjPBSTimeout, file, line)
	case exit > 256:
		j.State, j.Status = "CANCELLED", 5
		addAt(&im.Adjusted, AdjSignal, file, line)
	default:
		j.State, j.Status = "FAILED", 0
	}
	if j.Submit < 0 {
		addAt(&im.Dropped, DropNoSubmit, file, line)
		return nil
	}
	if j.Ran {
		switch {
		case usedOK:
			j.Run = used
		case j.End >= j.Start:
			j.Run = j.End - j.Start
			addAt(&im.Adjusted, AdjRunFromTimes, file, line)
		default:
			addAt(&im.Dropped, DropNoEnd, file, line)
			return nil
		}
		if j.End < 0 {
			j.End = j.Start + j.Run
		}
		if j.State == "TIMEOUT" && j.Run > j.Limit {
			j.Run = j.Limit
			addAt(&im.Adjusted, AdjTimeoutClamp, file, line)
		}
	} else {
		j.Start, j.End, j.Run = -1, -1, -1
		addAt(&im.Adjusted, AdjNeverRan, file, line)
	}
	if j.Limit < 0 {
		addAt(&im.Adjusted, AdjNoLimit, file, line)
	}
	switch {
	case j.ReqCPUs <= 0 && j.AllocCPUs <= 0:
		addAt(&im.Dropped, DropNoSize, file, line)
		return nil
	case j.ReqCPUs <= 0:
		j.ReqCPUs = j.AllocCPUs
		addAt(&im.Adjusted, AdjReqFromAlloc, file, line)
	case j.AllocCPUs <= 0 && j.Ran:
		j.AllocCPUs = j.ReqCPUs
		addAt(&im.Adjusted, AdjAllocFromReq, file, line)
	}
	im.Jobs = append(im.Jobs, j)
	return nil
}

// errSkip marks a malformed record skipped in lenient mode (counted).
var errSkip = errors.New("record skipped")

// parsePBSSize parses a PBS size: an integer with an optional unit b, kb,
// mb, gb, tb, pb (binary multiples, case-insensitive) or w, kw, ... (8-byte
// words); no unit means bytes. Returns KB, rounded up.
func parsePBSSize(v string) (int64, error) {
	s := strings.ToLower(v)
	word := int64(1)
	if strings.HasSuffix(s, "w") {
		word, s = 8, s[:len(s)-1]
	} else {
		s = strings.TrimSuffix(s, "b")
	}
	shift := uint(0)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k':
			shift = 10
		case 'm':
			shift = 20
		case 'g':
			shift = 30
		case 't':
			shift = 40
		case 'p':
			shift = 50
		}
		if shift > 0 {
			s = s[:n-1]
		}
	}
	n, ok := num([]byte(s))
	if !ok || n > 1<<50>>shift {
		return 0, fmt.Errorf("expected a size such as 4gb, 512mb or 1000kb, found %q", v)
	}
	bytes := n << shift * word
	return (bytes + 1023) / 1024, nil
}

// parsePBSSelect parses PBS Pro's select: "2:ncpus=4:mem=4gb:ngpus=1+1:ncpus=2",
// chunks separated by '+', each an optional count then key=value items.
// Returns total CPUs (ncpus, default 1 a chunk), GPUs, memory (KB) and
// chunks (nodes, an upper bound: chunks may share a node).
func parsePBSSelect(sel string) (cpus, gpus, memKB, chunks int64, err error) {
	gpus, memKB = -1, -1
	for _, chunk := range strings.Split(sel, "+") {
		items := strings.Split(chunk, ":")
		n := int64(1)
		if k, ok := num([]byte(items[0])); ok {
			n, items = k, items[1:]
		}
		c := int64(1)
		for _, it := range items {
			k, v, ok := strings.Cut(it, "=")
			if !ok {
				return 0, 0, 0, 0, fmt.Errorf("expected N:key=value:... chunks separated by '+', found %q", chunk)
			}
			switch k {
			case "ncpus":
				if c, ok = num([]byte(v)); !ok {
					return 0, 0, 0, 0, fmt.Errorf("ncpus: expected a count, found %q", v)
				}
			case "ngpus":
				g, ok := num([]byte(v))
				if !ok {
					return 0, 0, 0, 0, fmt.Errorf("ngpus: expected a count, found %q", v)
				}
				gpus = addKnown(gpus, n*g)
			case "mem":
				m, err := parsePBSSize(v)
				if err != nil {
					return 0, 0, 0, 0, err
				}
				memKB = addKnown(memKB, n*m)
			}
		}
		cpus += n * c
		chunks += n
	}
	return cpus, gpus, memKB, chunks, nil
}

// parseTorqueNodes parses Torque's nodes: "2:ppn=4+1:ppn=2:gpus=1" or
// "node01:ppn=8" (a host name counts as one node). Returns CPUs (ppn,
// default 1 per node), GPUs and nodes.
func parseTorqueNodes(spec string) (cpus, gpus, nodes int64, err error) {
	gpus = -1
	for _, part := range strings.Split(spec, "+") {
		items := strings.Split(part, ":")
		n := int64(1)
		if k, ok := num([]byte(items[0])); ok {
			n = k
		} else if items[0] == "" {
			return 0, 0, 0, fmt.Errorf("expected N[:ppn=P] or HOST[:ppn=P] parts separated by '+', found %q", part)
		}
		ppn := int64(1)
		for _, it := range items[1:] {
			k, v, ok := strings.Cut(it, "=")
			if !ok {
				continue // a node property such as "gpu" or "bigmem"
			}
			switch k {
			case "ppn":
				if ppn, ok = num([]byte(v)); !ok {
					return 0, 0, 0, fmt.Errorf("ppn: expected a count, found %q", v)
				}
			case "gpus":
				g, ok := num([]byte(v))
				if !ok {
					return 0, 0, 0, fmt.Errorf("gpus: expected a count, found %q", v)
				}
				gpus = addKnown(gpus, n*g)
			}
		}
		cpus += n * ppn
		nodes += n
	}
	return cpus, gpus, nodes, nil
}

// parseExecHost counts the CPUs and distinct hosts of exec_host:
// Torque "n1/0+n1/1+n2/0-3,5" and PBS Pro "n1/0*4+n2/0*4".
func parseExecHost(eh string) (cpus, nodes int64, err error) {
	hosts := map[string]bool{}
	for _, part := range strings.Split(eh, "+") {
		host, slot, ok := strings.Cut(part, "/")
		if !ok || host == "" {
			return 0, 0, fmt.Errorf("expected HOST/SLOTS parts separated by '+', found %q", part)
		}
		hosts[host] = true
		if s, mult, ok := strings.Cut(slot, "*"); ok {
			m, ok2 := num([]byte(mult))
			if _, ok3 := num([]byte(s)); !ok2 || !ok3 {
				return 0, 0, fmt.Errorf("expected HOST/N*COUNT, found %q", part)
			}
			cpus += m
			continue
		}
		for _, r := range strings.Split(slot, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, ok := num([]byte(lo))
			if !ok {
				return 0, 0, fmt.Errorf("expected HOST/N, HOST/N-M or HOST/N*COUNT, found %q", part)
			}
			if !isRange {
				cpus++
				continue
			}
			b, ok := num([]byte(hi))
			if !ok || b < a {
				return 0, 0, fmt.Errorf("expected HOST/N-M with N <= M, found %q", part)
			}
			cpus += b - a + 1
		}
	}
	return cpus, int64(len(hosts)), nil
}
