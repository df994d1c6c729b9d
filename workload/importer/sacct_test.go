package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/workload"
)

// importFile reads a sacct fixture and prepares it.
func importFile(t *testing.T, path string, opts Options) (*Import, *Output) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := ReadSacct(f, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return im, im.Prepare()
}

func swfLines(t *testing.T, o *Output) []string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSWF(&b, o, "test"); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, ";") {
			out = append(out, l)
		}
	}
	return out
}

// TestSacctForms checks every odd form of testdata/sacct-forms.txt against
// values worked out by hand (see the comments).
func TestSacctForms(t *testing.T) {
	im, o := importFile(t, "testdata/sacct-forms.txt", Options{})
	// SWF time 0 is 2024-03-01T10:00:00 UTC (job 100's submit).
	if want := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC).Unix(); o.UnixStartTime() != want {
		t.Errorf("UnixStartTime %d, want %d", o.UnixStartTime(), want)
	}
	want := []string{
		// 100: 4 CPUs, 1G = 1048576 KB / 4 = 262144 KB per CPU, limit 5 min, 3 steps folded
		"1 0 10 60 4 -1 -1 4 300 262144 1 1 1 -1 1 1 -1 -1",
		// 101_4: TIMEOUT, elapsed 1:00:30 clamped to the limit 3600; 64000M = 65536000 KB / 16
		"2 5 15 3600 16 -1 -1 16 3600 4096000 0 2 1 -1 2 2 -1 -1",
		// 101_[5-9]: cancelled while pending: five tasks that never ran
		"3 5 -1 -1 -1 -1 -1 16 3600 4096000 5 2 1 -1 2 2 -1 -1",
		"4 5 -1 -1 -1 -1 -1 16 3600 4096000 5 2 1 -1 2 2 -1 -1",
		"5 5 -1 -1 -1 -1 -1 16 3600 4096000 5 2 1 -1 2 2 -1 -1",
		"6 5 -1 -1 -1 -1 -1 16 3600 4096000 5 2 1 -1 2 2 -1 -1",
		"7 5 -1 -1 -1 -1 -1 16 3600 4096000 5 2 1 -1 2 2 -1 -1",
		// 102+0, 102+1: 2 + 8 CPUs, 2G + 4G = 6291456 KB / 10 rounded up; limit 1-00:00:00
		"8 120 60 600 10 -1 -1 10 86400 629146 1 3 2 -1 1 1 -1 -1",
		// 107 NODE_FAIL, limit 30:00 (MM:SS); 100M = 102400 KB
		"9 360 0 600 1 -1 -1 1 1800 102400 0 4 1 -1 1 1 -1 -1",
		// 108's first run, REQUEUED; limit 2-00 (D-HH); 1.5G = 1572864 KB / 2
		"10 420 30 60 2 -1 -1 2 172800 786432 0 4 1 -1 1 1 -1 -1",
		// 109 OUT_OF_MEMORY, submitted 10:08 but eligible 10:09; limit 5 (minutes); 4K
		"11 540 5 15 1 -1 -1 1 300 4 0 5 1 -1 1 1 -1 -1",
		// 110 PREEMPTED, limit 2-00:30 (D-HH:MM), no memory
		"12 540 0 600 1 -1 -1 1 174600 -1 0 5 1 -1 1 1 -1 -1",
		// 111 FAILED at once
		"13 600 0 0 1 -1 -1 1 60 -1 0 6 1 -1 1 1 -1 -1",
		// 108's second run: eligible 10:10:31
		"14 631 29 60 2 -1 -1 2 172800 786432 1 4 1 -1 1 1 -1 -1",
		// 112 cancelled before start, Eligible Unknown, Partition_Limit
		"15 660 -1 -1 -1 -1 -1 3 -1 -1 5 6 1 -1 1 1 -1 -1",
		// 113 cancelled after 10 s of running
		"16 720 10 10 3 -1 -1 3 600 -1 5 6 1 -1 1 1 -1 -1",
	}
	got := swfLines(t, o)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SWF lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if im.Records != 21 || im.Tasks != 4 {
		t.Errorf("records %d tasks %d, want 21 and 4", im.Records, im.Tasks)
	}
	counts := map[string]int{
		"merged " + MergeStep: 5, "merged " + MergeComponent: 1,
		"dropped " + DropUnfinished: 2, "dropped " + DropStepOfDropped: 1,
		"adjusted " + AdjEligible: 2, "adjusted " + AdjNeverRan: 6, "adjusted " + AdjTimeoutClamp: 1,
		"adjusted " + AdjNoLimit: 1, "adjusted " + AdjRequeued: 1,
	}
	for k, n := range counts {
		var c workload.Counts
		switch {
		case strings.HasPrefix(k, "merged "):
			c = im.Merged
		case strings.HasPrefix(k, "dropped "):
			c = im.Dropped
		default:
			c = im.Adjusted
		}
		reason := k[strings.IndexByte(k, ' ')+1:]
		if c.Get(reason) != n {
			t.Errorf("%s: %d, want %d", k, c.Get(reason), n)
		}
	}
	// every record accounted for: 12 written records + 6 merged + 3 dropped
	if w := 12 + im.Merged.Total() + im.Dropped.Total(); w != im.Records {
		t.Errorf("written+merged+dropped = %d, want %d records", w, im.Records)
	}
	if im.Adjusted.Total() != 11 || im.Warnings.Total() != 0 {
		t.Errorf("adjusted %v warnings %v", im.Adjusted, im.Warnings)
	}
	// sidecar: GPUs and nodes of the heterogeneous job, the original ids
	j, _ := o.Job(7)
	if j.ID != "102" || j.GPUs != 3 || j.ReqNodes != 3 || j.AllocNodes != 3 || j.Components != 2 || j.Steps != 1 {
		t.Errorf("job 8: %+v", *j)
	}
	j, _ = o.Job(1)
	if j.ID != "101_4" || j.GPUs != 2 || j.AllocNodes != 2 || j.Steps != 1 || j.Account != "chem" || j.Queue != "high" {
		t.Errorf("job 2: %+v", *j)
	}
	if j, _ = o.Job(6); j.ID != "101_9" || j.State != "CANCELLED" {
		t.Errorf("job 7: %+v", *j)
	}
	if got := strings.Join(o.Names("user"), ","); got != "alice,bob,carol,dave,erin,frank" {
		t.Errorf("users %s", got)
	}
	if got := strings.Join(o.Names("account"), ","); got != "physics,chem" {
		t.Errorf("accounts %s", got)
	}
}

// TestSacctHeaderless: the same dump without the header line gives the
// same jobs; with its columns permuted (header present) too.
func TestSacctHeaderless(t *testing.T) {
	data, err := os.ReadFile("testdata/sacct-forms.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, o := importFile(t, "testdata/sacct-forms.txt", Options{})
	ref := swfLines(t, o)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	noHeader := strings.Join(lines[1:], "\n") + "\n"
	im, err := ReadSacct(strings.NewReader(noHeader), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := swfLines(t, im.Prepare()); strings.Join(got, "\n") != strings.Join(ref, "\n") {
		t.Errorf("without header:\n%s", strings.Join(got, "\n"))
	}
	// reverse the columns, keep the header; add a trailing '|' (--parsable)
	var b strings.Builder
	for _, l := range lines {
		f := strings.Split(l, "|")
		for i, k := 0, len(f)-1; i < k; i, k = i+1, k-1 {
			f[i], f[k] = f[k], f[i]
		}
		b.WriteString(strings.Join(f, "|") + "|\r\n")
	}
	// the reversed header starts with AllocTRES: name the first column JobID
	// detection needs JobID first, so move JobID to the front
	rev := b.String()
	im, err = ReadSacct(strings.NewReader(moveJobIDFirst(rev)), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := swfLines(t, im.Prepare()); strings.Join(got, "\n") != strings.Join(ref, "\n") {
		t.Errorf("permuted columns:\n%s", strings.Join(got, "\n"))
	}
}

// moveJobIDFirst swaps the JobID column (last after reversal) with the first.
func moveJobIDFirst(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\r\n"), "\r\n") {
		f := strings.Split(strings.TrimSuffix(l, "|"), "|")
		f[0], f[len(f)-1] = f[len(f)-1], f[0]
		out = append(out, strings.Join(f, "|")+"|")
	}
	return strings.Join(out, "\r\n") + "\r\n"
}

// TestSacctErrors: strict mode names file, line and field; lenient mode
// counts a warning and goes on.
func TestSacctErrors(t *testing.T) {
	good := "100|100|COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:00:10|2024-03-01T10:01:10|00:01:00|00:05:00|alice|staff|physics|debug|normal|1|4|cpu=4|cpu=4"
	mut := func(col int, v string) string {
		f := strings.Split(good, "|")
		f[col] = v
		return strings.Join(f, "|")
	}
	cases := []struct{ line, want string }{
		{"100|100|COMPLETED", "d.txt:2: line: expected 18 fields"},
		{mut(cState, "EXPLODED"), `d.txt:2: State: unknown Slurm job state "EXPLODED"`},
		{mut(cSubmit, "2024-13-01T10:00:00"), `d.txt:2: Submit: expected YYYY-MM-DDTHH:MM:SS`},
		{mut(cStart, "yesterday"), `d.txt:2: Start: expected`},
		{mut(cElapsed, "1:2:3:4"), `d.txt:2: Elapsed: expected [D-]HH:MM:SS`},
		{mut(cTimelimit, "forever"), `d.txt:2: Timelimit: expected UNLIMITED, Partition_Limit or a duration`},
		{mut(cReqTRES, "cpu=four"), `d.txt:2: ReqTRES: cpu: expected a count, found "four"`},
		{mut(cAllocTRES, "mem=lots"), `d.txt:2: AllocTRES: mem: expected a size`},
		{mut(cAllocTRES, "cpu"), `d.txt:2: AllocTRES: expected NAME=VALUE`},
		{mut(cNCPUS, "x"), `d.txt:2: NCPUS: expected a count`},
		{mut(cJobID, "abc"), `d.txt:2: JobID: expected JOB, JOB_TASK`},
		{mut(cJobID, "12+x"), `d.txt:2: JobID: expected a heterogeneous job component`},
		{mut(cJobID, "12_[3-1]"), `d.txt:2: JobID: array range "12_[3-1]": expected N-M with N <= M`},
		{mut(cEnd, "2024-03-01T10:00:05"), `d.txt:2: End: end 2024-03-01T10:00:05 before start 2024-03-01T10:00:10`},
		{mut(cJobID, "99.batch"), `d.txt:2: JobID: step "99.batch" of a job not seen before it`},
	}
	for _, c := range cases {
		in := good + "\n" + c.line + "\n" + strings.Replace(good, "100|100|", "101|101|", 1) + "\n"
		_, err := ReadSacct(strings.NewReader(in), "d.txt", Options{})
		var pe *workload.ParseError
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.line, err, c.want)
			continue
		}
		im, err := ReadSacct(strings.NewReader(in), "d.txt", Options{Lenient: true})
		if err != nil {
			t.Errorf("%q lenient: %v", c.line, err)
			continue
		}
		if len(im.Jobs) != 2 || im.Warnings.Total() != 1 || !strings.HasPrefix(im.Warnings[0].Example, c.want) {
			t.Errorf("%q lenient: %d jobs, warnings %+v", c.line, len(im.Jobs), im.Warnings)
		}
	}
	// a header without a required column
	_, err := ReadSacct(strings.NewReader("JobID|State|Submit|Start\n"), "h.txt", Options{})
	if err == nil || !strings.Contains(err.Error(), "h.txt:1: header: no End column") {
		t.Errorf("header: %v", err)
	}
}

func TestParseForms(t *testing.T) {
	dur := map[string]int64{
		"00:00:00": 0, "00:01:00": 60, "1-00:00:00": 86400, "12:34": 754, "5": 300, "2-00": 172800,
		"2-00:30": 174600, "100-01:02:03": 100*86400 + 3723, "01:02.345": 62, "1:00:00": 3600,
	}
	for s, want := range dur {
		if got, err := parseDuration([]byte(s)); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"UNLIMITED", "Partition_Limit"} {
		if got, err := parseLimit([]byte(s)); err != nil || got != -1 {
			t.Errorf("parseLimit(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "-", "1-", "a:b", "1:2:3:4", "1-2:3:4:5", ":", "1.5"} {
		if _, err := parseDuration([]byte(s)); err == nil {
			t.Errorf("parseDuration(%q) accepted", s)
		}
	}
	mem := map[string]int64{"mem=1G": 1 << 20, "mem=100M": 102400, "mem=4K": 4, "mem=0": 0, "mem=1.5G": 1572864,
		"mem=2T": 2 << 30, "mem=512": 512 * 1024}
	for s, want := range mem {
		tr, err := parseTRES([]byte(s))
		if err != nil || tr.memKB != want {
			t.Errorf("parseTRES(%q) = %d KB, %v; want %d", s, tr.memKB, err, want)
		}
	}
	tr, err := parseTRES([]byte("billing=3,cpu=3,gres/gpu=2,gres/gpu:a100=2,mem=100M,node=1,energy=10"))
	if err != nil || tr.cpu != 3 || tr.gpu != 2 || tr.node != 1 {
		t.Errorf("parseTRES: %+v %v", tr, err)
	}
	tasks, err := expandArray([]byte("1-3,7,10-14:2%4"))
	if err != nil || len(tasks) != 7 || tasks[4] != 10 || tasks[6] != 14 {
		t.Errorf("expandArray: %v %v", tasks, err)
	}
	ts := map[string]int64{"1970-01-01T00:00:00": 0, "2000-02-29T12:00:00": 951825600, "1709287200": 1709287200,
		"Unknown": -1, "None": -1}
	for s, want := range ts {
		if got, err := parseSlurmTime([]byte(s), time.UTC); err != nil || got != want {
			t.Errorf("parseSlurmTime(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err == nil {
		if got, _ := parseSlurmTime([]byte("2024-07-01T12:00:00"), paris); got != time.Date(2024, 7, 1, 10, 0, 0, 0, time.UTC).Unix() {
			t.Errorf("Paris summer time: %d", got)
		}
	}
	for _, s := range []string{"2023-02-29T00:00:00", "2024-01-01 10:00:00", "2024-01-01T24:00:00", "Tue Jan 2"} {
		if _, err := parseSlurmTime([]byte(s), time.UTC); err == nil {
			t.Errorf("parseSlurmTime(%q) accepted", s)
		}
	}
}

// TestSWFReadsBack: the SWF output reads strictly with package workload;
// the jobs that ran keep size, runtime and estimate; those that never
// started are skipped there as "run time unknown".
func TestSWFReadsBack(t *testing.T) {
	_, o := importFile(t, "testdata/sacct-forms.txt", Options{Procs: 64, Nodes: 4})
	var b bytes.Buffer
	if err := WriteSWF(&b, o, "test"); err != nil {
		t.Fatal(err)
	}
	tr, err := workload.Read(&b, "out.swf", workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Procs != 64 || tr.Header.MaxNodes != 4 || len(tr.Jobs) != 10 || tr.Skipped.Get(workload.SkipNegRuntime) != 6 {
		t.Errorf("P %d nodes %d jobs %d skipped %v", tr.Procs, tr.Header.MaxNodes, len(tr.Jobs), tr.Skipped)
	}
	if tr.Header.TimeZoneString != "UTC" || tr.Header.UnixStartTime != o.UnixStartTime() {
		t.Errorf("header %+v", tr.Header)
	}
	if j := tr.Jobs[1]; j.Procs != 16 || j.Runtime != 3600 || j.Estimate != 3600 || j.Submit != 5 {
		t.Errorf("job 2: %+v", j)
	}
}

// TestSacctStepsAnywhere: steps moved after every job (not right after
// their own) fold into the same jobs, dropped ones included: the same
// output and counts.
func TestSacctStepsAnywhere(t *testing.T) {
	data, err := os.ReadFile("testdata/sacct-forms.txt")
	if err != nil {
		t.Fatal(err)
	}
	ref, o := importFile(t, "testdata/sacct-forms.txt", Options{})
	want := swfLines(t, o)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var jobs, steps []string
	for _, l := range lines[1:] {
		id, _, _ := strings.Cut(l, "|")
		if strings.Contains(id, ".") {
			steps = append(steps, l)
		} else {
			jobs = append(jobs, l)
		}
	}
	in := strings.Join(append(append([]string{lines[0]}, jobs...), steps...), "\n") + "\n"
	im, err := ReadSacct(strings.NewReader(in), "moved", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := swfLines(t, im.Prepare()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps moved:\n%s", strings.Join(got, "\n"))
	}
	for _, c := range append(append(workload.Counts{}, ref.Merged...), ref.Dropped...) {
		if im.Merged.Get(c.Reason)+im.Dropped.Get(c.Reason) != c.N {
			t.Errorf("%s: merged %v dropped %v, want %d", c.Reason, im.Merged, im.Dropped, c.N)
		}
	}
	if im.Merged.Total() != ref.Merged.Total() || im.Dropped.Total() != ref.Dropped.Total() {
		t.Errorf("merged %v dropped %v, want %v %v", im.Merged, im.Dropped, ref.Merged, ref.Dropped)
	}
	for k := 0; k < len(want); k++ {
		a, _ := o.Job(k)
		b, _ := im.prepared.Job(k)
		if a.Steps != b.Steps {
			t.Errorf("job %s: %d steps, want %d", b.ID, b.Steps, a.Steps)
		}
	}
}

// TestSidecarCSV: the sidecar reads back with encoding/csv, odd names
// (commas, quotes) included, one row per job with the header's columns.
func TestSidecarCSV(t *testing.T) {
	in := "JobID|State|Submit|Start|End|User|Account|AllocTRES\n" +
		"1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T00:00:05|a,b|\"q\" x| cpu=2\n"
	in = strings.Replace(in, "| cpu=2", "|cpu=2", 1)
	im, err := ReadSacct(strings.NewReader(in), "odd", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSidecar(&b, im.Prepare()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(rows[1]) != len(SidecarHeader) || rows[1][3] != "a,b" || rows[1][5] != `"q" x` || rows[1][13] != "2" || rows[1][21] != "odd:2" {
		t.Errorf("%q", rows)
	}
}

// TestSacctDuplicate: the same record twice is one job (a counted drop in
// lenient mode, an error naming the second line in strict mode); a
// requeued run (another start time) stays a job of its own.
func TestSacctDuplicate(t *testing.T) {
	rec := "100|100|COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:00:10|2024-03-01T10:01:10|00:01:00|00:05:00|alice|staff|physics|debug|normal|1|4|cpu=4|cpu=4"
	in := rec + "\n" + rec + "\n"
	_, err := ReadSacct(strings.NewReader(in), "d.txt", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "d.txt:2: JobID: 100: duplicate record") {
		t.Errorf("strict: %v", err)
	}
	im, err := ReadSacct(strings.NewReader(in+"100.batch|100.batch|COMPLETED|||||||||||||||\n"), "d.txt", Options{Lenient: true})
	if err != nil || len(im.Jobs) != 1 || im.Dropped.Total() != 2 || im.Warnings.Total() != 0 {
		t.Fatalf("lenient: %v, %d jobs, dropped %v, warnings %v", err, len(im.Jobs), im.Dropped, im.Warnings)
	}
	if im.Dropped[0].Reason != DropDuplicate || im.Dropped[0].Example != "d.txt:2" {
		t.Errorf("dropped %+v", im.Dropped)
	}
	requeued := strings.Replace(strings.Replace(rec, "COMPLETED", "REQUEUED", 1), "2024-03-01T10:00:10|2024-03-01T10:01:10", "2024-03-01T09:59:00|2024-03-01T09:59:30", 1)
	requeued = strings.Replace(requeued, "2024-03-01T10:00:00|2024-03-01T10:00:00|", "2024-03-01T09:58:00|2024-03-01T09:58:00|", 1)
	im, err = ReadSacct(strings.NewReader(requeued+"\n"+rec+"\n"), "d.txt", Options{})
	if err != nil || len(im.Jobs) != 2 {
		t.Errorf("requeued: %v, %d jobs", err, len(im.Jobs))
	}
	// same id and submit, another start: distinct
	other := strings.Replace(rec, "2024-03-01T10:00:10|2024-03-01T10:01:10", "2024-03-01T10:02:10|2024-03-01T10:03:10", 1)
	im, err = ReadSacct(strings.NewReader(rec+"\n"+other+"\n"), "d.txt", Options{})
	if err != nil || len(im.Jobs) != 2 {
		t.Errorf("another start: %v, %d jobs", err, len(im.Jobs))
	}
}

// TestSacctTaskCap: the tasks expanded from pending array ranges are
// bounded over the whole import, not only per record (here with the limit
// lowered to 10; without -short also at the real limit).
func TestSacctTaskCap(t *testing.T) {
	rec := func(id, n int) string {
		return strconv.Itoa(id) + "_[1-" + strconv.Itoa(n) + "]|" + strconv.Itoa(id) + "|CANCELLED|2024-01-01T00:00:00|2024-01-01T00:00:00|None|2024-01-01T00:05:00|00:00:00|01:00:00|alice|users|acct|debug|normal|1|4|cpu=4|"
	}
	check := func(n, limit int) {
		in := rec(1, n) + "\n" + rec(2, n) + "\n" + rec(3, n) + "\n"
		_, err := ReadSacct(strings.NewReader(in), "a.txt", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "a.txt:3: JobID: array range") || !strings.Contains(err.Error(), "above "+strconv.Itoa(limit)) {
			t.Errorf("strict: %v", err)
		}
		im, err := ReadSacct(strings.NewReader(in), "a.txt", Options{Lenient: true})
		if err != nil || len(im.Jobs) != 2*n || im.Tasks != 2*n-2 || im.Warnings.Total() != 1 {
			t.Errorf("lenient: %v, %d jobs, warnings %v", err, len(im.Jobs), im.Warnings)
		}
	}
	// 4 + 4 tasks: 6 extra expanded; the third range would make 9 > 8
	defer func(v int) { maxImportTasks = v }(maxImportTasks)
	maxImportTasks = 8
	check(4, 8)
	maxImportTasks = maxTasks
	if !testing.Short() {
		check(500000, maxTasks)
	}
}

// TestSacctDuplicateComponent: a heterogeneous job component listed twice
// (123+1 twice) is a duplicate like a whole record: an error naming the
// second line in strict mode, a counted drop in lenient mode (its sizes
// are not added twice to the job).
func TestSacctDuplicateComponent(t *testing.T) {
	c0 := "123+0|123|COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:00:10|2024-03-01T10:01:10|00:01:00|00:05:00|alice|staff|physics|debug|normal|1|2|cpu=2,node=1|cpu=2,node=1"
	c1 := "123+1|124|COMPLETED|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:00:10|2024-03-01T10:01:10|00:01:00|00:05:00|alice|staff|physics|debug|normal|1|8|cpu=8,node=1|cpu=8,node=1"
	in := c0 + "\n" + c1 + "\n" + c1 + "\n"
	_, err := ReadSacct(strings.NewReader(in), "h.txt", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "h.txt:3: JobID: 123+1: duplicate record") {
		t.Errorf("strict: %v", err)
	}
	im, err := ReadSacct(strings.NewReader(in), "h.txt", Options{Lenient: true})
	if err != nil || len(im.Jobs) != 1 || im.Dropped.Total() != 1 {
		t.Fatalf("lenient: %v, %d jobs, dropped %v", err, len(im.Jobs), im.Dropped)
	}
	if im.Dropped[0].Reason != DropDuplicate || im.Dropped[0].Example != "h.txt:3" {
		t.Errorf("dropped %+v", im.Dropped)
	}
	if j := im.Jobs[0]; j.ReqCPUs != 10 || j.AllocCPUs != 10 || j.Components != 2 || j.ReqNodes != 2 {
		t.Errorf("job %+v: want 10 CPUs on 2 nodes in 2 components", j)
	}
}
