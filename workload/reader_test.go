package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// line builds an SWF data line from 18 values.
func line(v ...int64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(itoa(x))
	}
	return b.String() + "\n"
}

// rec is a typical job line: number, submit, run, procs, requested time.
func rec(num, submit, run, procs, req int64) string {
	return line(num, submit, 0, run, procs, -1, -1, procs, req, -1, 1, 7, 3, -1, 2, 1, -1, -1)
}

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAll reads every record, failing the test on an error.
func readAll(t *testing.T, rd *Reader) []Record {
	t.Helper()
	var out []Record
	for {
		r, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

const sampleHeader = `;   --- free text before any key ---
; Version: 2.2
; Computer: IBM SP2
; Installation: Test Center
; Acknowledge: Someone
; Information: http://example.org/
;              http://example.org/other
; Conversion: by hand
; MaxJobs: 120
; MaxRecords: 100
; Preemption: No
; UnixStartTime: 843480031
; TimeZone: -18000
; TimeZoneString: Europe/Stockholm
; StartTime: Mon Sep 23 14:00:31 CEST 1996
; EndTime:   Fri Aug 29 10:55:01 CEST 1997
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: 400
; Note: first note
;	see: http://example.org/notes
; Queue:  1 DSI
;
; Note: THIS IS A CLEANED VERSION OF THE LOG!
;       The filter used to produce it was
;         job<=14 (14 jobs removed)
`

func TestHeader(t *testing.T) {
	in := sampleHeader + rec(1, 0, 10, 4, 100) + "; Note: late note\n" + rec(2, 5, 10, 4, 100)
	rd, err := NewReader(strings.NewReader(in), "h.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, rd)
	if len(recs) != 2 || recs[0].Line != 26 || recs[1].Line != 28 {
		t.Fatalf("records %+v", recs)
	}
	h := rd.Header()
	str := []struct{ got, want string }{
		{h.Version, "2.2"}, {h.Computer, "IBM SP2"}, {h.Installation, "Test Center"},
		{h.Acknowledge, "Someone"}, {h.Information, "http://example.org/\nhttp://example.org/other"},
		{h.Conversion, "by hand"}, {h.Preemption, "No"}, {h.TimeZoneString, "Europe/Stockholm"},
		{h.StartTime, "Mon Sep 23 14:00:31 CEST 1996"}, {h.EndTime, "Fri Aug 29 10:55:01 CEST 1997"},
	}
	for i, c := range str {
		if c.got != c.want {
			t.Errorf("string field %d = %q, want %q", i, c.got, c.want)
		}
	}
	num := []struct{ got, want int64 }{
		{h.MaxJobs, 120}, {h.MaxRecords, 100}, {h.UnixStartTime, 843480031}, {h.TimeZone, -18000},
		{h.MaxNodes, 338}, {h.MaxProcs, 400},
	}
	for i, c := range num {
		if c.got != c.want {
			t.Errorf("numeric field %d = %d, want %d", i, c.got, c.want)
		}
	}
	wantNotes := []string{
		"first note\nsee: http://example.org/notes",
		"THIS IS A CLEANED VERSION OF THE LOG!\nThe filter used to produce it was\njob<=14 (14 jobs removed)",
		"late note",
	}
	if strings.Join(h.Notes, "|") != strings.Join(wantNotes, "|") {
		t.Errorf("notes = %q, want %q", h.Notes, wantNotes)
	}
	if len(h.Lines) != 26 || h.Lines[0] != ";   --- free text before any key ---" ||
		h.Lines[19] != ";\tsee: http://example.org/notes" || h.Lines[25] != "; Note: late note" {
		t.Errorf("lines = %q", h.Lines)
	}
	var queue *HeaderField
	for i := range h.Fields {
		if h.Fields[i].Key == "Queue" {
			queue = &h.Fields[i]
		}
	}
	if queue == nil || queue.Value != "1 DSI" || queue.Line != 21 {
		t.Errorf("Queue field = %+v", queue)
	}
	if w := rd.Warnings(); w.Total() != 0 {
		t.Errorf("warnings %v", w)
	}
}

func TestHeaderAbsentAndBad(t *testing.T) {
	rd, err := NewReader(strings.NewReader("; MaxProcs: many\n; MaxNodes: 12x\n"+rec(1, 0, 1, 1, 1)), "b.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, rd)
	h := rd.Header()
	if h.MaxProcs != -1 || h.MaxNodes != -1 || h.MaxJobs != -1 || h.UnixStartTime != -1 || h.TimeZone != -1 || h.Version != "" {
		t.Errorf("header %+v", h)
	}
	if n := rd.Warnings().Get(WarnHeaderNumber); n != 2 {
		t.Errorf("header-number warnings = %d, want 2", n)
	}
	// No header at all.
	rd, err = NewReader(strings.NewReader(rec(1, 0, 1, 1, 1)), "n.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	if recs := readAll(t, rd); len(recs) != 1 || recs[0].Line != 1 || len(rd.Header().Lines) != 0 {
		t.Errorf("records %+v header %+v", recs, rd.Header())
	}
}

func TestRecordFields(t *testing.T) {
	in := "\n  \r\n1 2 3 4 5 142.25 7 8 9 10 11 12 13 14 15 16 17 18\r\n" +
		"\t-1\t-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1" // no final newline
	rd, err := NewReader(strings.NewReader(in), "f.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, rd)
	want := Record{1, 2, 3, 4, 5, 142.25, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 3}
	if len(recs) != 2 || recs[0] != want || recs[1].ThinkTime != -1 || recs[1].AvgCPU != -1 || recs[1].Line != 4 {
		t.Errorf("records %+v", recs)
	}
	if rd.Records() != 2 {
		t.Errorf("Records() = %d", rd.Records())
	}
	for _, s := range []string{"0.03", "552.21", "7.38", "1e3", "-0.5", "12345678901234567890.5"} {
		f, ok := parseFloat([]byte(s))
		if !ok {
			t.Errorf("parseFloat(%q) failed", s)
		}
		if g, _ := strconv.ParseFloat(s, 64); f != g {
			t.Errorf("parseFloat(%q) = %v, want %v", s, f, g)
		}
	}
	for _, s := range []string{"", "-", ".", "1..2", "NaN", "inf", "0x10", "1e999"} {
		if _, ok := parseFloat([]byte(s)); ok {
			t.Errorf("parseFloat(%q) succeeded", s)
		}
	}
	for s, v := range map[string]int64{"9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63, "+5": 5, "-0": 0} {
		if x, ok := parseInt([]byte(s)); !ok || x != v {
			t.Errorf("parseInt(%q) = %d, %v", s, x, ok)
		}
	}
	for _, s := range []string{"9223372036854775808", "-9223372036854775809", "99999999999999999999", "", "+", "1-"} {
		if _, ok := parseInt([]byte(s)); ok {
			t.Errorf("parseInt(%q) succeeded", s)
		}
	}
}

func TestMalformedLines(t *testing.T) {
	good := rec(1, 0, 10, 4, 100)
	cases := []struct {
		bad, msg, reason string
	}{
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", "m.swf:3: expected 18 fields, found 17", WarnFieldCount},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n", "m.swf:3: expected 18 fields, found 19", WarnFieldCount},
		{"1 2 3 abc 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", `m.swf:3: field 4 (run time): expected an integer, found "abc"`, WarnBadNumber},
		{"1 2 3 4 5 x 7 8 9 10 11 12 13 14 15 16 17 18\n", `m.swf:3: field 6 (average CPU time): expected a number, found "x"`, WarnBadNumber},
		{"1 99999999999999999999 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", `m.swf:3: field 2 (submit time): integer out of range, found "99999999999999999999"`, WarnBadNumber},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 1.5\n", `m.swf:3: field 18 (think time): expected an integer, found "1.5"`, WarnBadNumber},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 x\n", "m.swf:3: expected 18 fields, found 17", WarnFieldCount},
	}
	for _, c := range cases {
		in := "; Version: 2.2\n" + good + c.bad + rec(3, 20, 10, 4, 100)
		// Strict: the error names the line; reading can continue.
		rd, err := NewReader(strings.NewReader(in), "m.swf", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		_, err = rd.Next()
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != c.msg || pe.Line != 3 || pe.File != "m.swf" {
			t.Errorf("error = %v, want %s", err, c.msg)
		}
		if r, err := rd.Next(); err != nil || r.JobNumber != 3 {
			t.Errorf("after error: %+v, %v", r, err)
		}
		// Lenient: the line is skipped and counted.
		rd, err = NewReader(strings.NewReader(in), "m.swf", true)
		if err != nil {
			t.Fatal(err)
		}
		if recs := readAll(t, rd); len(recs) != 2 {
			t.Errorf("lenient: %d records", len(recs))
		}
		w := rd.Warnings()
		if w.Total() != 1 || w.Get(c.reason) != 1 || w[0].Example != c.msg {
			t.Errorf("lenient warnings = %+v", w)
		}
	}
	// The malformed line may be the first data line (read by NewReader).
	rd, err := NewReader(strings.NewReader("; x\nbad\n"+good), "m.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err == nil || err.Error() != "m.swf:2: expected 18 fields, found 1" {
		t.Errorf("error = %v", err)
	}
}

func TestLongLine(t *testing.T) {
	in := rec(1, 0, 1, 1, 1) + strings.Repeat("7 ", maxLine) + "\n" + rec(2, 0, 1, 1, 1)
	rd, err := NewReader(strings.NewReader(in), "l.swf", false)
	if err != nil {
		t.Fatal(err)
	}
	rd.Next()
	if _, err := rd.Next(); err == nil || err.Error() != "l.swf:2: line is longer than 1 MiB" {
		t.Errorf("error = %v", err)
	}
	if r, err := rd.Next(); err != nil || r.Line != 3 {
		t.Errorf("after long line: %+v %v", r, err)
	}
	rd, err = NewReader(strings.NewReader(in), "l.swf", true)
	if err != nil {
		t.Fatal(err)
	}
	if recs := readAll(t, rd); len(recs) != 2 || rd.Warnings().Get(WarnLongLine) != 1 {
		t.Errorf("lenient: %d records, warnings %v", len(recs), rd.Warnings())
	}
}

func TestGzip(t *testing.T) {
	var plain strings.Builder
	plain.WriteString("; MaxProcs: 8\n")
	for i := int64(1); i <= 2000; i++ {
		plain.WriteString(rec(i, i*10, 5, 2, 60))
	}
	full := gz(t, plain.String())
	rd, err := NewReader(bytes.NewReader(full), "z.swf.gz", false)
	if err != nil {
		t.Fatal(err)
	}
	if recs := readAll(t, rd); len(recs) != 2000 || rd.Header().MaxProcs != 8 {
		t.Fatalf("gzip: %d records", len(recs))
	}

	cut := full[:len(full)/2]
	rd, err = NewReader(bytes.NewReader(cut), "z.swf.gz", false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err = rd.Next()
		if err != nil {
			break
		}
		n++
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Msg != "truncated gzip stream" || pe.Line != n+2 || n == 0 || n >= 2000 {
		t.Fatalf("truncated strict: %d records then %v", n, err)
	}
	if _, err2 := rd.Next(); err2 != err {
		t.Errorf("stream error not sticky: %v", err2)
	}

	rd, err = NewReader(bytes.NewReader(cut), "z.swf.gz", true)
	if err != nil {
		t.Fatal(err)
	}
	if recs := readAll(t, rd); len(recs) != n {
		t.Errorf("truncated lenient: %d records, want %d", len(recs), n)
	}
	if w := rd.Warnings(); w.Total() != 1 || w.Get(WarnTruncated) != 1 {
		t.Errorf("truncated lenient warnings %v", w)
	}

	// The same through Read.
	if _, err := Read(bytes.NewReader(cut), "z.swf.gz", Options{}); err == nil || !strings.HasSuffix(err.Error(), ": truncated gzip stream") {
		t.Errorf("Read strict: %v", err)
	}
	tr, err := Read(bytes.NewReader(cut), "z.swf.gz", Options{Lenient: true})
	if err != nil || len(tr.Jobs) != n || tr.Warnings.Get(WarnTruncated) != 1 ||
		!strings.Contains(strings.Join(tr.Rules, "\n"), "warnings: "+WarnTruncated+": 1") {
		t.Errorf("Read lenient: %v", err)
	}

	// Truncated inside the gzip header: NewReader itself fails (strict).
	if _, err := NewReader(bytes.NewReader(full[:5]), "z.swf.gz", false); err == nil || err.Error() != "z.swf.gz: truncated gzip stream" {
		t.Errorf("header truncated: %v", err)
	}
	rd, err = NewReader(bytes.NewReader(full[:5]), "z.swf.gz", true)
	if err != nil || rd.Warnings().Get(WarnTruncated) != 1 {
		t.Fatalf("header truncated lenient: %v", err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after truncation: %v", err)
	}

	// Corrupt checksum.
	bad := append([]byte(nil), full...)
	bad[len(bad)-6] ^= 0xff
	rd, err = NewReader(bytes.NewReader(bad), "z.swf.gz", false)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = rd.Next()
	}
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, "corrupt gzip stream") {
		t.Errorf("corrupt: %v", err)
	}
}

type failReader struct{ n int }

func (f *failReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		s := rec(1, 0, 1, 1, 1)
		f.n--
		return copy(p, s), nil
	}
	return 0, errors.New("disk on fire")
}

func TestReadError(t *testing.T) {
	rd, err := NewReader(&failReader{n: 1}, "e.swf", true)
	if err != nil {
		t.Fatal(err)
	}
	rd.Next()
	_, err = rd.Next()
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != "e.swf:2: read error: disk on fire" {
		t.Errorf("error = %v", err)
	}
}

// TestBytesReaderPath: input in memory (*bytes.Reader, read without a
// buffer of its own) gives what any other reader of the same bytes gives:
// records, warnings and errors, on whole, truncated and damaged gzip.
func TestBytesReaderPath(t *testing.T) {
	whole := builtinData
	damaged := bytes.Clone(whole)
	for i := 200000; i < 200400; i++ {
		damaged[i] ^= 0x5a
	}
	inputs := map[string][]byte{"whole": whole, "truncated": whole[:150000], "damaged": damaged,
		"plain": []byte(rec(1, 0, 10, 4, 100) + rec(2, 5, 0, 1, -1)), "short": {0x1f}}
	for name, in := range inputs {
		for _, lenient := range []bool{false, true} {
			a, errA := Read(bytes.NewReader(in), "in", Options{Lenient: lenient})
			b, errB := Read(io.MultiReader(bytes.NewReader(in)), "in", Options{Lenient: lenient})
			if fmt.Sprint(errA) != fmt.Sprint(errB) {
				t.Fatalf("%s lenient=%t: error %v from a bytes.Reader, %v from another reader", name, lenient, errA, errB)
			}
			if bad := name == "truncated" || name == "damaged"; bad && !lenient && errA == nil || bad && lenient && errA == nil && a.Warnings.Total() == 0 {
				t.Fatalf("%s lenient=%t: no error and no warning", name, lenient)
			}
			if errA == nil && (len(a.Jobs) != len(b.Jobs) || a.Records != b.Records || a.Warnings.String() != b.Warnings.String()) {
				t.Fatalf("%s lenient=%t: %d jobs, %d records, %s; want %d, %d, %s", name, lenient,
					len(a.Jobs), a.Records, a.Warnings, len(b.Jobs), b.Records, b.Warnings)
			}
		}
	}
}
