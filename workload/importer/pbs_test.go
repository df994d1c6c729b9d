package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/workload"
)

func readPBSFiles(t *testing.T, opts Options, names ...string) (*Import, error) {
	t.Helper()
	var in []PBSInput
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in = append(in, PBSInput{Name: n, R: f})
	}
	return ReadPBS(in, opts)
}

// TestPBSForms checks Torque and PBS Pro E records against values worked
// out by hand (comments).
func TestPBSForms(t *testing.T) {
	im, err := readPBSFiles(t, Options{}, "testdata/pbs-torque.log", "testdata/pbs-pro.log")
	if err != nil {
		t.Fatal(err)
	}
	o := im.Prepare()
	want := []string{
		// 100: nodes=2:ppn=2, exec_host n01/0+n01/1+n02/0-1 (4 CPUs, 2 hosts), 8gb / 4 CPUs
		"1 0 5 600 4 -1 -1 4 3600 2097152 1 1 1 -1 1 -1 -1 -1",
		// 102: eligible 10 s after queued; walltime used 30:10 >= 30:00, exit -11: TIMEOUT at the limit
		"2 190 10 1800 4 -1 -1 4 1800 -1 0 2 1 -1 2 -1 -1 -1",
		// 200: PBS Pro, ncpus=8, exec_host c1/0*4+c2/0*4, mem=16gb / 8
		"3 7200 60 3600 8 -1 -1 8 7200 2097152 1 3 2 -1 3 -1 -1 -1",
		// 201[1]: subjob, Exit_status 271 = signal 15 (qdel): cancelled; select mem=1gb
		"4 7500 60 240 1 -1 -1 1 600 1048576 5 3 2 -1 3 -1 -1 -1",
		// 202: failed, exit 1
		"5 8400 10 10 2 -1 -1 2 300 -1 0 4 2 -1 3 -1 -1 -1",
	}
	got := swfLines(t, o)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SWF lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if im.Records != 13 || im.Merged.Get(MergePBSOther) != 7 || im.Dropped.Get(DropPBSNoEnd) != 1 ||
		im.Dropped.Get(DropArrayParent) != 1 || im.Adjusted.Get(AdjPBSTimeout) != 1 || im.Adjusted.Get(AdjSignal) != 1 ||
		im.Adjusted.Get(AdjTimeoutClamp) != 1 || im.Adjusted.Get(AdjEligible) != 1 {
		t.Errorf("records %d merged %v dropped %v adjusted %v", im.Records, im.Merged, im.Dropped, im.Adjusted)
	}
	// every E record is written or dropped; the other records are merged
	if w := len(im.Jobs) + im.Merged.Total() + im.Dropped.Total() - im.Dropped.Get(DropPBSNoEnd); w != im.Records {
		t.Errorf("accounted %d of %d records", w, im.Records)
	}
	j, _ := o.Job(1)
	if j.ID != "102" || j.GPUs != 2 || j.ReqNodes != 1 || j.AllocNodes != 1 || j.State != "TIMEOUT" {
		t.Errorf("job 2: %+v", *j)
	}
	j, _ = o.Job(2)
	if j.ID != "200" || j.GPUs != 2 || j.ReqNodes != 2 || j.AllocNodes != 2 || j.Account != "proj1" || j.Queue != "workq" {
		t.Errorf("job 3: %+v", *j)
	}
	if j, _ = o.Job(3); j.ID != "201[1]" {
		t.Errorf("job 4: %+v", *j)
	}
}

func TestPBSErrors(t *testing.T) {
	good := "03/01/2024 12:20:00;E;202.pbspro;user=dan queue=workq qtime=1709295600 start=1709295610 end=1709295620 Resource_List.ncpus=2 Exit_status=0"
	cases := []struct{ rec, want string }{
		{"garbage", `p.log:2: record: expected DATE TIME;TYPE;JOBID;ATTRIBUTES`},
		{"03/01/2024 12:20:00;EE;1.x;", `p.log:2: type: expected a one-letter record type`},
		{strings.Replace(good, "qtime=1709295600", "qtime=soon", 1), `p.log:2: qtime: expected Unix seconds, found "soon"`},
		{good + " Resource_List.walltime=1:2:3:4", `p.log:2: Resource_List.walltime: expected HH:MM:SS`},
		{good + " Resource_List.mem=lots", `p.log:2: Resource_List.mem: expected a size`},
		{good + " Resource_List.select=2:ncpus", `p.log:2: Resource_List.select: expected N:key=value`},
		{good + " Resource_List.nodes=:ppn=2", `p.log:2: Resource_List.nodes: expected N[:ppn=P]`},
		{good + " exec_host=c1", `p.log:2: exec_host: expected HOST/SLOTS`},
		{strings.Replace(good, "end=1709295620", "end=1709295605", 1), `p.log:2: end: end 1709295605 before start 1709295610`},
		{strings.Replace(good, "Exit_status=0", "Exit_status=x", 1), `p.log:2: Exit_status: expected an integer`},
	}
	for _, c := range cases {
		in := good + "\n" + c.rec + "\n" + strings.Replace(good, ";202.", ";203.", 1) + "\n"
		_, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(in)}}, Options{})
		var pe *workload.ParseError
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.rec, err, c.want)
			continue
		}
		im, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(in)}}, Options{Lenient: true})
		if err != nil || len(im.Jobs) != 2 || im.Warnings.Total() != 1 {
			t.Errorf("%q lenient: %v, %d jobs, warnings %v", c.rec, err, len(im.Jobs), im.Warnings)
		}
	}
}

func TestPBSParts(t *testing.T) {
	sizes := map[string]int64{"8gb": 8 << 20, "512mb": 512 << 10, "1000kb": 1000, "1024": 1, "1025b": 2, "1kw": 8, "2GB": 2 << 20}
	for s, want := range sizes {
		if got, err := parsePBSSize(s); err != nil || got != want {
			t.Errorf("parsePBSSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	c, n, err := parseExecHost("n1/0+n1/1+n2/0-3,5+n3/0*4")
	if err != nil || c != 11 || n != 3 {
		t.Errorf("parseExecHost: %d %d %v", c, n, err)
	}
	cpus, gpus, nodes, err := parseTorqueNodes("2:ppn=4+node07:ppn=2:gpus=1:bigmem")
	if err != nil || cpus != 10 || gpus != 1 || nodes != 3 {
		t.Errorf("parseTorqueNodes: %d %d %d %v", cpus, gpus, nodes, err)
	}
	cpus, gpus, mem, chunks, err := parsePBSSelect("2:ncpus=4:mem=4gb:ngpus=1+1:ncpus=2+3")
	if err != nil || cpus != 13 || gpus != 2 || mem != 8<<20 || chunks != 6 {
		t.Errorf("parsePBSSelect: %d %d %d %d %v", cpus, gpus, mem, chunks, err)
	}
}

// TestPBSDuplicate: the same E record twice is one job (a counted drop in
// lenient mode, an error naming the second line in strict mode).
func TestPBSDuplicate(t *testing.T) {
	rec := "03/01/2024 12:20:00;E;202.pbspro;user=dan queue=workq qtime=1709295600 start=1709295610 end=1709295620 Resource_List.ncpus=2 Exit_status=0"
	in := rec + "\n" + rec + "\n"
	_, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(in)}}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "p.log:2: JobID: 202: duplicate record") {
		t.Errorf("strict: %v", err)
	}
	im, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(in)}}, Options{Lenient: true})
	if err != nil || len(im.Jobs) != 1 || im.Dropped.Total() != 1 || im.Dropped[0].Reason != DropDuplicate || im.Dropped[0].Example != "p.log:2" {
		t.Errorf("lenient: %v, %d jobs, dropped %+v", err, len(im.Jobs), im.Dropped)
	}
	// a rerun (another start) is another job
	other := strings.Replace(strings.Replace(rec, "start=1709295610", "start=1709295700", 1), "end=1709295620", "end=1709295800", 1)
	im, err = ReadPBS([]PBSInput{{"p.log", strings.NewReader(rec + "\n" + other + "\n")}}, Options{})
	if err != nil || len(im.Jobs) != 2 {
		t.Errorf("rerun: %v, %d jobs", err, len(im.Jobs))
	}
}

// TestPBSExclusive: place=excl (alone or after pack/scatter), exclhost and
// Torque's naccesspolicy=singlejob mark whole-node jobs; the sidecar's
// exclusive column says so (1), and 0 for the others.
func TestPBSExclusive(t *testing.T) {
	base := "03/01/2024 12:20:00;E;%d.pbspro;user=dan queue=workq qtime=1709295600 start=1709295610 end=1709295620 Resource_List.ncpus=2 Exit_status=0"
	var in strings.Builder
	for i, extra := range []string{" Resource_List.place=scatter:excl", " Resource_List.place=exclhost", " Resource_List.naccesspolicy=singlejob",
		" Resource_List.place=pack:shared", " Resource_List.place=free", ""} {
		fmt.Fprintf(&in, base+extra+"\n", 300+i)
	}
	im, err := ReadPBS([]PBSInput{{"x.log", strings.NewReader(in.String())}}, Options{})
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
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[1]+"="+r[len(r)-1])
	}
	if want := "300=1 301=1 302=1 303=0 304=0 305=0"; strings.Join(got, " ") != want || rows[0][len(rows[0])-1] != "exclusive" {
		t.Errorf("exclusive column %q, want %s", got, want)
	}
}
