package importer

import (
	"bufio"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/backfill-hpc/backfill/workload"
)

// SWFFields returns the 18 SWF fields of the k-th job in output order:
// job number k+1; submit (seconds from UnixStartTime); wait = start −
// submit and run time, both -1 for a job that never started; allocated
// processors; average CPU time -1; used memory -1; requested processors;
// requested time = the time limit (-1 when none); requested memory = KB
// per requested processor, rounded up (-1 unknown); status (1 completed,
// 0 failed or killed, 5 cancelled); user and group numbers; executable
// -1; queue number (Slurm: the QOS); partition number; preceding job and think time
// -1. Numbers of names are those of WriteNames (-1 for no name).
func (o *Output) SWFFields(k int) [18]int64 {
	j, sub := o.Job(k)
	wait, run := int64(-1), int64(-1)
	if j.Ran {
		wait = j.Start - (sub + o.t0)
		run = j.Run
	}
	mem := int64(-1)
	if j.ReqMemKB > 0 && j.ReqCPUs > 0 {
		mem = (j.ReqMemKB + j.ReqCPUs - 1) / j.ReqCPUs
	}
	n := o.names
	return [18]int64{
		int64(k + 1), sub, wait, run, j.AllocCPUs, -1, -1,
		j.ReqCPUs, j.Limit, mem, int64(j.Status),
		int64(n["user"].ids[j.User]) | neg(j.User), int64(n["group"].ids[j.Group]) | neg(j.Group), -1,
		int64(n["queue"].ids[j.Queue]) | neg(j.Queue), int64(n["partition"].ids[j.Partition]) | neg(j.Partition), -1, -1,
	}
}

// neg is -1 (all bits set) for an empty name, so that id|neg is -1.
func neg(s string) int64 {
	if s == "" {
		return -1
	}
	return 0
}

// swfTime formats t as the archive's StartTime/EndTime headers do.
func swfTime(t int64, loc *time.Location) string {
	return time.Unix(t, 0).In(loc).Format("Mon Jan _2 15:04:05 MST 2006")
}

// WriteSWF writes the jobs as SWF 2.2 with the Parallel Workloads
// Archive's header conventions: Version, Computer and Installation (when
// given), Conversion, MaxJobs, MaxRecords, UnixStartTime, TimeZoneString,
// StartTime and EndTime, MaxNodes and MaxProcs (when known), MaxQueues,
// Queues, MaxPartitions and Partitions (the numbers' names), then the
// ingestion rules as Note lines. See SWFFields for the data lines.
func WriteSWF(w io.Writer, o *Output, conversion string) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	im := o.im
	key := func(k, v string) {
		bw.WriteString("; " + k + ":")
		if v != "" {
			bw.WriteString(" " + v)
		}
		bw.WriteByte('\n')
	}
	n := strconv.Itoa(o.Len())
	key("Version", "2.2")
	if im.Options.Computer != "" {
		key("Computer", im.Options.Computer)
	}
	if im.Options.Installation != "" {
		key("Installation", im.Options.Installation)
	}
	key("Conversion", conversion)
	key("MaxJobs", n)
	key("MaxRecords", n)
	if o.Len() > 0 {
		end := o.t0
		for i := range im.Jobs {
			end = max(end, im.Jobs[i].End, im.Jobs[i].Submit)
		}
		key("UnixStartTime", strconv.FormatInt(o.t0, 10))
		key("TimeZoneString", im.Options.Location.String())
		key("StartTime", swfTime(o.t0, im.Options.Location))
		key("EndTime", swfTime(end, im.Options.Location))
	}
	if im.Options.Nodes > 0 {
		key("MaxNodes", strconv.FormatInt(im.Options.Nodes, 10))
	}
	if im.Options.Procs > 0 {
		key("MaxProcs", strconv.FormatInt(im.Options.Procs, 10))
	}
	list := func(kind string) string {
		var b strings.Builder
		for i, s := range o.names[kind].names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(i+1) + " = " + s)
		}
		return b.String()
	}
	key("MaxQueues", strconv.Itoa(len(o.names["queue"].names)))
	key("Queues", list("queue"))
	key("MaxPartitions", strconv.Itoa(len(o.names["partition"].names)))
	key("Partitions", list("partition"))
	for _, r := range o.Rules {
		key("Note", r)
	}
	var line []byte
	for k := 0; k < o.Len(); k++ {
		f := o.SWFFields(k)
		line = workload.AppendSWFLine(line[:0], f)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// SidecarHeader are the columns of WriteSidecar.
var SidecarHeader = []string{
	"job_number", "job_id", "state", "user", "group", "account", "partition", "queue",
	"submit", "eligible", "start", "end", "time_limit",
	"req_cpus", "alloc_cpus", "req_nodes", "alloc_nodes", "gpus", "req_mem_kb",
	"components", "steps", "source", "exclusive",
}

// WriteSidecar writes one CSV row per job, in SWF order (job_number is the
// SWF job number): the original job id and state, the names, the Unix
// times (-1 unknown), the time limit in seconds (-1 none), the counts
// (-1 unknown), heterogeneous components and steps, FILE:LINE of the
// record, and exclusive (1 when the log says the job had whole nodes).
func WriteSidecar(w io.Writer, o *Output) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	line := []byte(strings.Join(SidecarHeader, ",") + "\n")
	if _, err := bw.Write(line); err != nil {
		return err
	}
	for k := 0; k < o.Len(); k++ {
		j, _ := o.Job(k)
		line = strconv.AppendInt(line[:0], int64(k+1), 10)
		for _, f := range [...]string{j.ID, j.State, j.User, j.Group, j.Account, j.Partition, j.Queue} {
			line = appendCSV(append(line, ','), f)
		}
		for _, v := range [...]int64{j.Submit, j.Eligible, j.Start, j.End, j.Limit,
			j.ReqCPUs, j.AllocCPUs, j.ReqNodes, j.AllocNodes, j.GPUs, j.ReqMemKB, int64(j.Components), int64(j.Steps)} {
			line = strconv.AppendInt(append(line, ','), v, 10)
		}
		if needsQuote(j.File) {
			line = appendCSV(append(line, ','), loc(j.File, j.Line))
		} else {
			line = append(append(line, ','), j.File...)
			line = strconv.AppendInt(append(line, ':'), int64(j.Line), 10)
		}
		if j.Exclusive {
			line = append(line, ",1\n"...)
		} else {
			line = append(line, ",0\n"...)
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// needsQuote reports whether s must be quoted in CSV.
func needsQuote(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	return false
}

// appendCSV appends s as one CSV field (RFC 4180: quoted, with quotes
// doubled, when it holds a comma, a quote, a line break or leading or
// trailing space — as encoding/csv writes it).
func appendCSV(b []byte, s string) []byte {
	if !needsQuote(s) {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// WriteNames writes the CSV "kind,number,name": for each kind (user,
// group, account, partition, queue) the names in number order. Numbers are
// given by first appearance in SWF order, from 1.
func WriteNames(w io.Writer, o *Output) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"kind", "number", "name"}); err != nil {
		return err
	}
	for _, k := range nameKinds {
		for i, s := range o.names[k].names {
			if err := cw.Write([]string{k, strconv.Itoa(i + 1), s}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
