package workload

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// checkErr fails unless err is a *ParseError with a sensible line.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line < 0 || pe.File != "fuzz" {
		t.Fatalf("error %v (%T) is not a *ParseError with Line >= 0", err, err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(rec(1, 0, 10, 4, 100) + rec(2, 5, 0, 1, -1)))
	f.Add([]byte("; MaxProcs: 4\n;\tmore\n\n1 2 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			rd, err := NewReader(bytes.NewReader(data), "fuzz", lenient)
			if err != nil {
				checkErr(t, err)
			} else {
				var last error
				for i := 0; ; i++ {
					if i > 2000*len(data)+10 { // gzip expands at most ~1032x
						t.Fatal("Next does not terminate")
					}
					r, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						checkErr(t, err)
						if lenient {
							var pe *ParseError
							if errors.As(err, &pe) && !strings.HasPrefix(pe.Msg, "read error") {
								t.Fatalf("lenient reader returned %v", err)
							}
						}
						if err == last { // a final stream error repeats
							break
						}
						last = err
						continue
					}
					if r.Line < 1 {
						t.Fatalf("record line %d", r.Line)
					}
				}
				rd.Header()
				_ = rd.Warnings().String()
			}

			for _, opts := range []Options{{Lenient: lenient}, {Lenient: lenient, Clamp: true, EstimateFallback: "max"}} {
				tr, err := Read(bytes.NewReader(data), "fuzz", opts)
				if err != nil {
					checkErr(t, err)
					continue
				}
				if len(tr.Jobs)+tr.Skipped.Total() != tr.Records || tr.Procs < 1 || len(tr.Requested) != len(tr.Jobs) {
					t.Fatalf("inconsistent trace: %d jobs, %v skipped, %d records, P=%d", len(tr.Jobs), tr.Skipped, tr.Records, tr.Procs)
				}
				outs := make([]job.Outcome, len(tr.Jobs))
				for i, j := range tr.Jobs {
					if j.ID != i || j.Procs < 1 || j.Procs > tr.Procs || j.Estimate < 1 || j.Runtime < 0 || j.Submit < 0 ||
						(i > 0 && j.Submit < tr.Jobs[i-1].Submit) {
						t.Fatalf("bad job %d: %+v (P=%d)", i, j, tr.Procs)
					}
					outs[i] = job.Outcome{Job: j, Start: j.Submit, End: j.Submit + j.Runtime}
				}
				var buf bytes.Buffer
				if err := WriteSchedule(&buf, tr, outs, tr.Rules); err != nil {
					t.Fatal(err)
				}
				back, err := Read(&buf, "fuzz", Options{})
				if err != nil {
					t.Fatalf("written schedule does not read back: %v", err)
				}
				if len(back.Jobs) != len(tr.Jobs) {
					t.Fatalf("round trip: %d jobs, want %d", len(back.Jobs), len(tr.Jobs))
				}
				Summarize(tr).WriteText(io.Discard)
			}
		}
	})
}

// FuzzParseFast checks that the one-pass parser of common lines agrees
// with the field-by-field one wherever it takes a line.
func FuzzParseFast(f *testing.F) {
	for _, s := range parseFastCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkParseFast(t, b)
	})
}

// parseFastCases are lines at the edges of parseFast's fast path.
var parseFastCases = []string{
	" 1 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"1\t0\t5\t10\t4\t88.00\t-1\t4\t100\t-1\t1\t3\t3\t-1\t-1\t-1\t-1\t-1\r\n",
	"1 0 5 10 4 1.5e3 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1",
	"1 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1 7\n",
	"1 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1\n",
	"+1 -0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"999999999999999999 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"9223372036854775807 -9223372036854775808 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"9223372036854775808 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"1 0 5 10x 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"1 0 5 10 4 NaN -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"1 0 5 - 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
	"1 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\v\f\n",
	"1 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1 ;\n",
	"00000000000000000001 0 5 10 4 -1 -1 4 100 -1 1 3 3 -1 -1 -1 -1 -1\n",
}

func TestParseFastCases(t *testing.T) {
	for _, s := range parseFastCases {
		checkParseFast(t, []byte(s))
	}
}

// checkParseFast fails when parseFast takes b but parses it otherwise than
// parseRecordFull, or when parseRecord's answer is not parseRecordFull's.
func checkParseFast(t *testing.T, b []byte) {
	t.Helper()
	full, msg, reason := parseRecordFull(b)
	var fast Record
	if parseFast(b, &fast) && (msg != "" || fast != full) {
		t.Fatalf("%q: fast path %+v, full parse %+v %q", b, fast, full, msg)
	}
	got, gmsg, greason := parseRecord(b)
	if got != full || gmsg != msg || greason != reason {
		t.Fatalf("%q: parseRecord %+v %q %q, want %+v %q %q", b, got, gmsg, greason, full, msg, reason)
	}
}
