package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tracesDir is where the shared real traces live, relative to the package.
var tracesDir = filepath.Join("..", "..", "shared", "traces")

// manifest returns the job counts listed in MANIFEST.tsv, by file name.
func manifest(t testing.TB) map[string]int {
	f, err := os.Open(filepath.Join(tracesDir, "MANIFEST.tsv"))
	if err != nil {
		t.Skipf("real traces not available: %v", err)
	}
	defer f.Close()
	m := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 {
			continue
		}
		if n, err := strconv.Atoi(cols[1]); err == nil {
			m[cols[0]] = n
		}
	}
	return m
}

// expectedSkips are the skip counts observed on the real traces (strict
// mode, default options); see docs/workload.md.
var expectedSkips = map[string]map[string]int{
	"CEA-Curie-2011-2.1-cln.swf.gz":    {SkipNoProcs: 19},
	"KTH-SP2-1996-2.1-cln.swf.gz":      {SkipNoProcs: 1},
	"LLNL-Atlas-2006-2.1-cln.swf.gz":   {SkipNoProcs: 4571},
	"LLNL-Thunder-2007-1.1-cln.swf.gz": {SkipNegSubmit: 1190, SkipNoProcs: 1058},
	"SDSC-BLUE-2000-4.2-cln.swf.gz":    {SkipNegRuntime: 10744},
	"SDSC-SP2-1998-4.2-cln.swf.gz":     {SkipNegRuntime: 5671},
}

func TestRealTraces(t *testing.T) {
	want := manifest(t)
	if len(want) != 17 {
		t.Fatalf("MANIFEST.tsv lists %d traces, want 17 (14 real + 3 synthetic)", len(want))
	}
	for name, records := range want {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr, err := Load(filepath.Join(tracesDir, name), Options{})
			if err != nil {
				t.Fatalf("strict load: %v", err)
			}
			if tr.Records != records {
				t.Errorf("records = %d, MANIFEST says %d", tr.Records, records)
			}
			if got := len(tr.Jobs) + tr.Skipped.Total(); got != tr.Records {
				t.Errorf("kept %d + skipped %d = %d, want records %d", len(tr.Jobs), tr.Skipped.Total(), got, tr.Records)
			}
			if len(tr.Jobs) < records*8/10 {
				t.Errorf("only %d of %d records kept", len(tr.Jobs), records)
			}
			if tr.Warnings.Total() != 0 {
				t.Errorf("warnings: %v", tr.Warnings)
			}
			exp := expectedSkips[filepath.Base(name)]
			for _, c := range tr.Skipped {
				if c.N != exp[c.Reason] {
					t.Errorf("skipped %q: %d, want %d", c.Reason, c.N, exp[c.Reason])
				}
			}
			if tr.Skipped.Total() == 0 && len(exp) != 0 {
				t.Errorf("no skips, want %v", exp)
			}
			noHeader := strings.Contains(name, "noheader")
			fromHeader := tr.ProcsSource == ProcsFromMaxProcs || tr.ProcsSource == ProcsFromMaxNodes
			if noHeader == fromHeader {
				t.Errorf("P = %d from %s", tr.Procs, tr.ProcsSource)
			}
			// the two headerless archive logs get their published sizes
			wantP := map[string]int{"METACENTRUM-2009-2.noheader.swf.gz": 806, "RICC-2010-2.noheader.swf.gz": 8192}
			if w, ok := wantP[filepath.Base(name)]; ok && tr.Procs != w {
				t.Errorf("P = %d from %s, want the archive's %d", tr.Procs, tr.ProcsSource, w)
			}
			for i, j := range tr.Jobs {
				if j.ID != i || j.Procs < 1 || j.Procs > tr.Procs || j.Estimate < 1 || j.Runtime < 0 ||
					(i > 0 && j.Submit < tr.Jobs[i-1].Submit) {
					t.Fatalf("bad job %d: %+v", i, j)
				}
			}
			t.Logf("%d records, %d jobs, P=%d (%s), skipped: %v; adjusted: %v",
				tr.Records, len(tr.Jobs), tr.Procs, tr.ProcsSource, tr.Skipped, tr.Adjusted)
		})
	}
}

func TestBuiltin(t *testing.T) {
	tr, err := Builtin(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != BuiltinName || tr.Records != 28476 || len(tr.Jobs) != 28475 || tr.Procs != 100 ||
		tr.ProcsSource != ProcsFromMaxProcs || tr.Header.Computer != "IBM SP2" {
		t.Errorf("builtin: name %q, %d records, %d jobs, P=%d (%s), computer %q",
			tr.Name, tr.Records, len(tr.Jobs), tr.Procs, tr.ProcsSource, tr.Header.Computer)
	}
}

func BenchmarkLoad(b *testing.B) {
	path := filepath.Join(tracesDir, "RICC-2010-2.noheader.swf.gz")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("trace not available: %v", err)
	}
	jobs := 0
	for b.Loop() {
		tr, err := Load(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		jobs = len(tr.Jobs)
	}
	b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkBuiltin reads the embedded KTH trace (gzip inflate, SWF
// parsing, ingestion): the loading part of a default `backfill simulate`.
func BenchmarkBuiltin(b *testing.B) {
	for b.Loop() {
		if _, err := Builtin(Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(builtinData)))
}

// BenchmarkParse parses the data lines of the embedded KTH trace (already
// inflated and split): the SWF parser alone.
func BenchmarkParse(b *testing.B) {
	zr, err := gzip.NewReader(bytes.NewReader(builtinData))
	if err != nil {
		b.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.SplitAfter(text, []byte("\n")) {
		if classify(l) == lineData {
			lines = append(lines, l)
		}
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for _, l := range lines {
			if _, msg, _ := parseRecord(l); msg != "" {
				b.Fatal(msg)
			}
		}
	}
}
