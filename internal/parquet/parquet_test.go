package parquet

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// dump formats a file as testdata's .tsv files do: a header line, then a
// line per row, strings quoted, nulls as null.
func dump(t *testing.T, f *File) string {
	t.Helper()
	var b strings.Builder
	cols := make([]*Column, len(f.Schema))
	for i, fd := range f.Schema {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(fd.Name)
		c, err := f.ReadColumn(i)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = c
	}
	b.WriteByte('\n')
	for r := range int(f.Rows) {
		for i, c := range cols {
			if i > 0 {
				b.WriteByte('\t')
			}
			switch {
			case c.IsNull(r):
				b.WriteString("null")
			case c.Type == Bool:
				b.WriteString(strconv.FormatBool(c.Bools[r]))
			case c.Type == Int32:
				b.WriteString(strconv.Itoa(int(c.Int32s[r])))
			case c.Type == Int64:
				b.WriteString(strconv.FormatInt(c.Int64s[r], 10))
			case c.Type == Double:
				b.WriteString(strconv.FormatFloat(c.Doubles[r], 'g', -1, 64))
			case c.Type == String:
				b.WriteString(strconv.Quote(c.Strings[r]))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func openBytes(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Stores written before this package (by parquet-go v0.32.0: zstd, data
// pages version 2, INT(64,true) logical types, optional string and int
// columns with nulls) read exactly as that library reads them.
func TestReadsFilesOfTheEarlierLibrary(t *testing.T) {
	for _, name := range []string{"jobs", "summary"} {
		b, err := os.ReadFile("testdata/" + name + "-parquet-go-v0.32.0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/" + name + "-parquet-go-v0.32.0.tsv")
		if os.IsNotExist(err) {
			var z []byte
			if z, err = os.ReadFile("testdata/" + name + "-parquet-go-v0.32.0.tsv.gz"); err == nil {
				var zr *gzip.Reader
				if zr, err = gzip.NewReader(bytes.NewReader(z)); err == nil {
					want, err = io.ReadAll(zr)
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		f := openBytes(t, b)
		got := dump(t, f)
		if got != string(want) {
			gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s: line %d differs:\n got %s\nwant %s", name, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%s: %d lines, want %d", name, len(gl), len(wl))
		}
		if f.Rows == 0 || !strings.Contains(f.CreatedBy, "parquet-go") {
			t.Errorf("%s: %d rows, created by %q", name, f.Rows, f.CreatedBy)
		}
	}
}

// sample builds columns of every type, optional ones with nulls, over
// rows rows.
func sample(rows int, seed uint64) []Column {
	rng := rand.New(rand.NewPCG(seed, 1))
	cols := []Column{
		{Name: "b", Type: Bool}, {Name: "i32", Type: Int32}, {Name: "i64", Type: Int64},
		{Name: "d", Type: Double}, {Name: "s", Type: String},
		{Name: "ob", Type: Bool, Optional: true}, {Name: "oi64", Type: Int64, Optional: true},
		{Name: "od", Type: Double, Optional: true}, {Name: "os", Type: String, Optional: true},
	}
	for i := range cols {
		c := &cols[i]
		for r := range rows {
			null := c.Optional && rng.IntN(3) == 0
			if c.Optional {
				c.Null = append(c.Null, null)
			}
			switch c.Type {
			case Bool:
				c.Bools = append(c.Bools, !null && rng.IntN(2) == 0)
			case Int32:
				c.Int32s = append(c.Int32s, int32(rng.Uint32()))
			case Int64:
				v := int64(rng.Uint64())
				if r%5 == 0 {
					v = int64(r) // compressible runs too
				}
				if null {
					v = 0
				}
				c.Int64s = append(c.Int64s, v)
			case Double:
				v := rng.NormFloat64() * 1e6
				if r == 1 {
					v = math.Inf(-1)
				}
				if null {
					v = 0
				}
				c.Doubles = append(c.Doubles, v)
			case String:
				s := strings.Repeat("é\t\"x", rng.IntN(4))
				if null {
					s = ""
				}
				c.Strings = append(c.Strings, s)
			}
		}
	}
	return cols
}

// What is written reads back identically: every type, nulls, several
// pages (PageRows+…), and no rows at all; the bytes are a pure function of
// the columns.
func TestRoundTrip(t *testing.T) {
	for _, rows := range []int{0, 1, 9, PageRows + 1234} {
		cols := sample(rows, uint64(rows))
		var buf bytes.Buffer
		if err := Write(&buf, cols); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		Write(&again, cols)
		if !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Errorf("%d rows: two writes differ", rows)
		}
		f := openBytes(t, buf.Bytes())
		if f.Rows != int64(rows) || len(f.Schema) != len(cols) {
			t.Fatalf("%d rows: read %d rows, %d columns", rows, f.Rows, len(f.Schema))
		}
		for i, want := range cols {
			if f.Schema[i] != (Field{want.Name, want.Type, want.Optional}) {
				t.Errorf("schema %d: %+v", i, f.Schema[i])
			}
			got, err := f.ReadColumn(i)
			if err != nil {
				t.Fatalf("%d rows, column %s: %v", rows, want.Name, err)
			}
			if rows == 0 {
				if got.Len() != 0 {
					t.Errorf("empty file: column %s has %d values", want.Name, got.Len())
				}
				continue
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("%d rows, column %s differs", rows, want.Name)
			}
		}
	}
}

// The RLE/bit-packing hybrid, worked by hand from the format's
// specification: values 0…7 with bit width 3 bit-packed are the bytes
// 10001000 11000110 11111010 (after a header 1 group << 1 | 1); an RLE
// run of 5 ones is the header 5 << 1 and the value byte.
func TestHybridByHand(t *testing.T) {
	got, err := hybrid([]byte{3, 0x88, 0xC6, 0xFA}, 3, 8)
	if err != nil || !reflect.DeepEqual(got, []uint32{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("bit-packed: %v %v", got, err)
	}
	got, err = hybrid([]byte{10, 1, 3, 0b101}, 1, 8)
	if err != nil || !reflect.DeepEqual(got, []uint32{1, 1, 1, 1, 1, 1, 0, 1}) {
		t.Errorf("RLE then bit-packed: %v %v", got, err)
	}
	if _, err := hybrid([]byte{10, 1}, 1, 4); err == nil {
		t.Errorf("a run longer than the values asked for is accepted")
	}
}

// Thrift's compact protocol, worked by hand: field 1 (delta 1) of type
// i32 (5) is the byte 0x15, the value 2 zigzag-encoded is 4; field 20
// after 1 (delta 19 > 15) is the type byte, then the id zigzag-encoded
// (40); a string is its length and bytes; the struct ends with 0.
func TestThriftCompactByHand(t *testing.T) {
	var e tenc
	e.begin()
	e.i32(1, 2)
	e.i64(20, -3)
	e.str(21, "ab")
	e.boolean(22, true)
	e.end()
	want := []byte{0x15, 4, 0x06, 40, 5, 0x18, 2, 'a', 'b', 0x11, 0}
	if !bytes.Equal(e.b, want) {
		t.Fatalf("encoded % x, want % x", e.b, want)
	}
	d := tdec{b: e.b}
	s, err := d.readStruct()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.i64(1); v != 2 {
		t.Errorf("field 1 = %v", s[1])
	}
	if v, _ := s.i64(20); v != -3 {
		t.Errorf("field 20 = %v", s[20])
	}
	if v, _ := s.str(21); v != "ab" {
		t.Errorf("field 21 = %v", s[21])
	}
	if v, _ := s.boolean(22); !v {
		t.Errorf("field 22 = %v", s[22])
	}
}

// A damaged file is an error, never a panic or a huge allocation: every
// byte of a small file is changed in turn, and the file is cut at every
// length.
func TestCorruptFilesAreErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(40, 7)); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	try := func(b []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic on a damaged file: %v", r)
			}
		}()
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for i := range f.Schema {
			f.ReadColumn(i)
		}
	}
	for i := range good {
		for _, x := range []byte{0x00, 0xFF, good[i] ^ 0x01, good[i] ^ 0x80} {
			b := bytes.Clone(good)
			b[i] = x
			try(b)
		}
	}
	for n := range len(good) {
		try(good[:n])
	}
	if _, err := Open(bytes.NewReader([]byte("PAR1 not really PAR1")), 20); err == nil {
		t.Errorf("garbage between magics accepted")
	}
}

func TestWriteRefusesInconsistentColumns(t *testing.T) {
	for name, cols := range map[string][]Column{
		"none":           nil,
		"lengths":        {{Name: "a", Type: Int64, Int64s: []int64{1}}, {Name: "b", Type: Int64}},
		"duplicate":      {{Name: "a", Type: Bool}, {Name: "a", Type: Bool}},
		"unnamed":        {{Type: Bool}},
		"required nulls": {{Name: "a", Type: Int64, Int64s: []int64{1}, Null: []bool{true}}},
	} {
		if err := Write(io.Discard, cols); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// DELTA_BINARY_PACKED, worked by hand from the format's specification:
// 7, 5, 3, 1, 2, 3, 4, 5 has deltas −2, −2, −2, 1, 1, 1, 1; with the
// minimum delta −2 they are 0, 0, 0, 3, 3, 3, 3, bit width 2, packed
// LSB first into 0xC0 0x3F then zeros (a miniblock of 32 values is 8
// bytes). Header: block size 128, 4 miniblocks, 8 values, first value 7
// (zigzag 14); the block: minimum delta (zigzag 3), the 4 widths, the one
// miniblock that holds values.
func TestDeltaBinaryPackedByHand(t *testing.T) {
	b := []byte{0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0, 'x'}
	got, n, err := deltaBinaryPacked(b, 8)
	if err != nil || n != 18 || !reflect.DeepEqual(got, []int64{7, 5, 3, 1, 2, 3, 4, 5}) {
		t.Errorf("got %v, %d bytes, %v", got, n, err)
	}
	// 1…5: every delta is the minimum 1, bit width 0, no miniblock bytes
	got, n, err = deltaBinaryPacked([]byte{0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0}, 5)
	if err != nil || n != 10 || !reflect.DeepEqual(got, []int64{1, 2, 3, 4, 5}) {
		t.Errorf("got %v, %d bytes, %v", got, n, err)
	}
	if _, _, err := deltaBinaryPacked(b, 7); err == nil {
		t.Errorf("more values than the page holds are accepted")
	}
}
