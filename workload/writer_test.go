package workload

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func TestRoundTrip(t *testing.T) {
	in := "; Version: 2.2\n; Computer: IBM SP2\n; Installation: Test Center\n; UnixStartTime: 843480031\n; MaxProcs: 16\n" +
		rec(11, 0, 100, 4, 200) +
		line(12, 10, 0, 50, 3, -1, -1, -1, 40, -1, 1, 21, 22, -1, 23, 24, -1, -1) +
		rec(13, 20, 0, 16, 10)
	tr := read(t, in, Options{})
	starts := []int64{5, 105, 300}
	outs := make([]job.Outcome, len(tr.Jobs))
	for i, j := range tr.Jobs {
		o := job.Outcome{Job: j, Start: starts[i], End: starts[i] + j.Runtime, Bound: -1}
		if j.Runtime > j.Estimate {
			o.End, o.Killed = starts[i]+j.Estimate, true
		}
		outs[i] = o
	}
	shuffled := []job.Outcome{outs[2], outs[0], outs[1]}
	comments := []string{"policy: easy", "rules:\n  line one\n\n  line two  ", ""}
	var buf bytes.Buffer
	if err := WriteSchedule(&buf, tr, shuffled, comments); err != nil {
		t.Fatal(err)
	}
	if shuffled[0].ID != 2 {
		t.Error("WriteSchedule reordered its argument")
	}
	wantText := "; Version: 2.2\n; Computer: IBM SP2\n; Installation: Test Center\n; MaxProcs: 16\n; MaxJobs: 3\n; MaxRecords: 3\n" +
		"; UnixStartTime: 843480031\n; Note: policy: easy\n; Note: rules:\n;       line one\n;       line two\n; Note:\n" +
		"11 0 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 1 -1 -1\n" +
		"12 10 95 40 3 -1 -1 3 40 -1 0 21 22 -1 23 24 -1 -1\n" +
		"13 20 280 0 16 -1 -1 16 10 -1 1 7 3 -1 2 1 -1 -1\n"
	if buf.String() != wantText {
		t.Errorf("output:\n%s\nwant:\n%s", buf.String(), wantText)
	}

	rd, err := NewReader(bytes.NewReader(buf.Bytes()), "out.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, rd)
	if len(recs) != len(outs) {
		t.Fatalf("%d records back", len(recs))
	}
	for i, r := range recs {
		o := outs[i]
		status := int64(1)
		if o.Killed {
			status = 0
		}
		if r.JobNumber != o.SWFID || r.Submit != o.Submit || r.Wait != o.Wait() || r.Run != o.Run() ||
			r.AllocProcs != int64(o.Procs) || r.ReqProcs != int64(o.Procs) || r.ReqTime != o.Estimate ||
			r.Status != status || r.User != int64(o.User) || r.Group != int64(o.Group) ||
			r.Queue != int64(o.Queue) || r.Partition != int64(o.Partition) ||
			r.AvgCPU != -1 || r.UsedMem != -1 || r.ReqMem != -1 || r.Executable != -1 || r.PrecedingJob != -1 || r.ThinkTime != -1 {
			t.Errorf("record %d = %+v, outcome %+v", i, r, o)
		}
	}
	h := rd.Header()
	if h.Version != "2.2" || h.Computer != "IBM SP2" || h.Installation != "Test Center" || h.MaxProcs != 16 ||
		h.MaxJobs != 3 || h.MaxRecords != 3 || h.UnixStartTime != 843480031 ||
		!slices.Equal(h.Notes, []string{"policy: easy", "rules:\nline one\nline two", ""}) {
		t.Errorf("header back = %+v", h)
	}

	// The schedule also loads as a trace with the same jobs.
	back := read(t, buf.String(), Options{})
	for i, j := range back.Jobs {
		if j.Submit != outs[i].Submit || j.Procs != outs[i].Procs || j.Estimate != outs[i].Estimate || j.Runtime != outs[i].Run() {
			t.Errorf("job back %+v, outcome %+v", j, outs[i])
		}
	}
}

func TestWriteScheduleEdgeCases(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSchedule(&buf, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "; Version: 2.2\n; MaxProcs: 0\n; MaxJobs: 0\n; MaxRecords: 0\n" {
		t.Errorf("empty: %q", buf.String())
	}
	// Generated jobs (SWFID 0) are numbered ID+1.
	buf.Reset()
	o := job.Outcome{Job: job.Job{Request: job.Request{ID: 4, Procs: 1, Estimate: 9, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 3}, Start: 2, End: 5}
	if err := WriteSchedule(&buf, &Trace{Procs: 2, Header: emptyHeader()}, []job.Outcome{o}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "\n5 0 2 3 1 -1 -1 1 9 -1 1 -1 -1 -1 -1 -1 -1 -1\n") {
		t.Errorf("generated: %q", buf.String())
	}
	// Write errors are returned.
	big := make([]job.Outcome, 5000)
	if err := WriteSchedule(failWriter{}, nil, big, nil); err == nil {
		t.Error("write error lost")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("full") }

var _ io.Writer = failWriter{}
