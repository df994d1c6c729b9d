package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// File is an open Parquet file: its schema and row count, read from the
// footer; columns are read on demand (ReadColumn).
type File struct {
	r      io.ReaderAt
	size   int64
	Rows   int64
	Schema []Field
	groups []tstruct // RowGroup metadata
	// CreatedBy is the writer's name, as recorded in the file.
	CreatedBy string
}

// Field is a column of a file's schema.
type Field struct {
	Name     string
	Type     Type
	Optional bool
}

// maxFooter bounds the footer a reader accepts (ours are a few KiB).
const maxFooter = 64 << 20

// Open reads the footer of the Parquet file r of size bytes.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 12 {
		return nil, fmt.Errorf("not a Parquet file: %d bytes", size)
	}
	tail := make([]byte, 8)
	if _, err := r.ReadAt(tail, size-8); err != nil {
		return nil, err
	}
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(tail[4:]) != magic || string(head) != magic {
		return nil, errors.New("not a Parquet file (no PAR1 magic)")
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	if n > size-12 || n > maxFooter {
		return nil, fmt.Errorf("corrupt Parquet footer: length %d in a file of %d bytes", n, size)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-8-n); err != nil {
		return nil, err
	}
	d := tdec{b: buf}
	md, err := d.readStruct()
	if err != nil {
		return nil, fmt.Errorf("corrupt Parquet footer: %w", err)
	}
	f := &File{r: r, size: size}
	f.CreatedBy, _ = md.str(6)
	rows, ok := md.i64(3)
	if !ok || rows < 0 {
		return nil, errors.New("corrupt Parquet footer: no row count")
	}
	f.Rows = rows
	schema, _ := md.list(2)
	if len(schema) == 0 {
		return nil, errors.New("corrupt Parquet footer: no schema")
	}
	root, ok := schema[0].(tstruct)
	if !ok {
		return nil, errors.New("corrupt Parquet footer: bad schema")
	}
	if nc, _ := root.i64(5); nc != int64(len(schema)-1) {
		return nil, errors.New("nested Parquet schema: only flat schemas are supported")
	}
	for _, e := range schema[1:] {
		el, ok := e.(tstruct)
		if !ok {
			return nil, errors.New("corrupt Parquet footer: bad schema element")
		}
		name, _ := el.str(4)
		if nc, ok := el.i64(5); ok && nc > 0 {
			return nil, fmt.Errorf("column %q is nested: only flat schemas are supported", name)
		}
		fd := Field{Name: name}
		rep, _ := el.i64(3)
		switch rep {
		case repRequired:
		case repOptional:
			fd.Optional = true
		default:
			return nil, fmt.Errorf("column %q is repeated: not supported", name)
		}
		pt, _ := el.i64(1)
		switch pt {
		case ptBoolean:
			fd.Type = Bool
		case ptInt32:
			fd.Type = Int32
		case ptInt64:
			fd.Type = Int64
		case ptDouble:
			fd.Type = Double
		case ptByteArray:
			fd.Type = String
		default:
			return nil, fmt.Errorf("column %q has physical type %d: not supported", name, pt)
		}
		f.Schema = append(f.Schema, fd)
	}
	groups, _ := md.list(4)
	var sum int64
	for _, g := range groups {
		rg, ok := g.(tstruct)
		if !ok {
			return nil, errors.New("corrupt Parquet footer: bad row group")
		}
		cols, _ := rg.list(1)
		n, _ := rg.i64(3)
		if len(cols) != len(f.Schema) || n < 0 {
			return nil, fmt.Errorf("corrupt Parquet footer: row group of %d columns for a schema of %d", len(cols), len(f.Schema))
		}
		sum += n
		f.groups = append(f.groups, rg)
	}
	if sum != f.Rows {
		return nil, fmt.Errorf("corrupt Parquet footer: row groups hold %d rows, the file %d", sum, f.Rows)
	}
	return f, nil
}

// Lookup returns the index of the column named name.
func (f *File) Lookup(name string) (int, bool) {
	for i, c := range f.Schema {
		if c.Name == name {
			return i, true
		}
	}
	return 0, false
}

var (
	decOnce sync.Once
	decoder *zstd.Decoder
	decErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	decOnce.Do(func() {
		decoder, decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	})
	return decoder, decErr
}

// ReadColumn reads every value of column i, over all row groups.
func (f *File) ReadColumn(i int) (*Column, error) {
	if i < 0 || i >= len(f.Schema) {
		return nil, fmt.Errorf("no column %d", i)
	}
	fd := f.Schema[i]
	c := &Column{Name: fd.Name, Type: fd.Type, Optional: fd.Optional}
	if fd.Optional {
		c.Null = make([]bool, 0)
	}
	for g, rg := range f.groups {
		cols, _ := rg.list(1)
		cc, _ := cols[i].(tstruct)
		md, ok := cc.sub(3)
		if !ok {
			return nil, fmt.Errorf("column %s, row group %d: no metadata (external column chunks are not supported)", fd.Name, g)
		}
		n, _ := rg.i64(3)
		if err := f.readChunk(c, md, n); err != nil {
			return nil, fmt.Errorf("column %s, row group %d: %w", fd.Name, g, err)
		}
	}
	if c.Len() != int(f.Rows) {
		return nil, fmt.Errorf("column %s: %d values for %d rows", fd.Name, c.Len(), f.Rows)
	}
	return c, nil
}

// readChunk appends one column chunk's rows (rows of them) to c.
func (f *File) readChunk(c *Column, md tstruct, rows int64) error {
	codec, _ := md.i64(4)
	switch codec {
	case codecNone, codecZstd, codecGzip:
	default:
		return fmt.Errorf("compression %s not supported (UNCOMPRESSED, GZIP and ZSTD are)", nameOf(codecNames, codec))
	}
	start, ok := md.i64(9)
	if dict, ok2 := md.i64(11); ok2 && dict > 0 && dict < start {
		start = dict
	}
	length, ok2 := md.i64(7)
	if !ok || !ok2 || start < 4 || length < 0 || start+length > f.size-8 {
		return fmt.Errorf("corrupt column chunk: bytes [%d, +%d) in a file of %d", start, length, f.size)
	}
	buf := make([]byte, length)
	if _, err := f.r.ReadAt(buf, start); err != nil {
		return err
	}
	var dict *Column
	want := c.Len() + int(rows)
	pos := 0
	for c.Len() < want {
		if pos >= len(buf) {
			return fmt.Errorf("the pages end after %d of %d values", c.Len()-want+int(rows), rows)
		}
		d := tdec{b: buf[pos:]}
		h, err := d.readStruct()
		if err != nil {
			return fmt.Errorf("corrupt page header: %w", err)
		}
		pos += d.pos
		typ, _ := h.i64(1)
		usize, _ := h.i64(2)
		csize, _ := h.i64(3)
		if csize < 0 || csize > int64(len(buf)-pos) || usize < 0 || usize > 1<<31 {
			return fmt.Errorf("corrupt page header: sizes %d/%d", csize, usize)
		}
		body := buf[pos : pos+int(csize)]
		pos += int(csize)
		switch typ {
		case pageDictionary:
			dh, _ := h.sub(7)
			n, _ := dh.i64(1)
			raw, err := decompress(codec, body, usize)
			if err != nil {
				return err
			}
			if n < 0 || n > int64(len(raw))*8+1 {
				return fmt.Errorf("corrupt dictionary page: %d values", n)
			}
			dict = &Column{Type: c.Type}
			if err := plain(dict, raw, int(n)); err != nil {
				return fmt.Errorf("dictionary page: %w", err)
			}
		case pageData:
			dh, _ := h.sub(5)
			n, _ := dh.i64(1)
			enc, _ := dh.i64(2)
			raw, err := decompress(codec, body, usize)
			if err != nil {
				return err
			}
			if n < 0 || int64(c.Len())+n > int64(want) {
				return fmt.Errorf("corrupt data page: %d values, more than the row group's %d", n, rows)
			}
			defs, rest := []bool(nil), raw
			if c.Optional {
				if len(raw) < 4 {
					return errors.New("corrupt data page: no definition levels")
				}
				l := binary.LittleEndian.Uint32(raw)
				if int64(l) > int64(len(raw)-4) {
					return errors.New("corrupt data page: definition levels overrun")
				}
				defs, err = levels(raw[4:4+l], int(n))
				if err != nil {
					return err
				}
				rest = raw[4+l:]
			}
			if err := values(c, dict, enc, rest, int(n), defs); err != nil {
				return err
			}
		case pageDataV2:
			dh, _ := h.sub(8)
			n, _ := dh.i64(1)
			enc, _ := dh.i64(4)
			dl, _ := dh.i64(5)
			rl, _ := dh.i64(6)
			compressed, ok := dh.boolean(7)
			if !ok {
				compressed = true
			}
			if n < 0 || int64(c.Len())+n > int64(want) {
				return fmt.Errorf("corrupt data page: %d values, more than the row group's %d", n, rows)
			}
			if rl != 0 {
				return errors.New("repetition levels in a flat column")
			}
			if dl < 0 || dl > int64(len(body)) {
				return errors.New("corrupt data page: definition levels overrun")
			}
			var defs []bool
			if c.Optional {
				if defs, err = levels(body[:dl], int(n)); err != nil {
					return err
				}
			}
			rest := body[dl:]
			if compressed {
				if rest, err = decompress(codec, rest, usize-dl); err != nil {
					return err
				}
			}
			if err := values(c, dict, enc, rest, int(n), defs); err != nil {
				return err
			}
		case pageIndex:
		default:
			return fmt.Errorf("unknown page type %d", typ)
		}
	}
	return nil
}

func decompress(codec int64, b []byte, size int64) ([]byte, error) {
	var out []byte
	var err error
	switch codec {
	case codecNone:
		out = b
	case codecZstd:
		var d *zstd.Decoder
		if d, err = zstdDecoder(); err == nil {
			out, err = d.DecodeAll(b, make([]byte, 0, size))
		}
	case codecGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			out, err = io.ReadAll(io.LimitReader(zr, size+1))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt page: %w", err)
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("corrupt page: %d bytes after decompression, the header says %d", len(out), size)
	}
	return out, nil
}

// levels decodes n definition levels of bit width 1 (RLE/bit-packing
// hybrid) into a null mask.
func levels(b []byte, n int) ([]bool, error) {
	v, err := hybrid(b, 1, n)
	if err != nil {
		return nil, fmt.Errorf("definition levels: %w", err)
	}
	null := make([]bool, n)
	for i, x := range v {
		null[i] = x == 0
	}
	return null, nil
}

// hybrid decodes n values of bit width bw (≤ 32) in the RLE/bit-packing
// hybrid encoding.
func hybrid(b []byte, bw, n int) ([]uint32, error) {
	if bw > 32 {
		return nil, fmt.Errorf("bit width %d", bw)
	}
	out := make([]uint32, 0, n)
	pos := 0
	for len(out) < n {
		h, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return nil, errors.New("truncated run")
		}
		pos += k
		if h&1 == 0 { // RLE run
			cnt := h >> 1
			w := (bw + 7) / 8
			if pos+w > len(b) || cnt > uint64(n-len(out)) {
				return nil, errors.New("bad RLE run")
			}
			var v uint32
			for i := range w {
				v |= uint32(b[pos+i]) << (8 * i)
			}
			pos += w
			for range cnt {
				out = append(out, v)
			}
		} else { // bit-packed groups of 8
			groups := h >> 1
			if groups > uint64(len(b)-pos) {
				return nil, errors.New("bad bit-packed run")
			}
			nb := int(groups) * bw
			if pos+nb > len(b) {
				return nil, errors.New("truncated bit-packed run")
			}
			bits := b[pos : pos+nb]
			pos += nb
			for i := 0; i < int(groups)*8 && len(out) < n; i++ {
				var v uint32
				for j := range bw {
					bit := i*bw + j
					v |= uint32(bits[bit/8]>>(bit%8)&1) << j
				}
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// values appends n rows (nulls where defs says so) of a page's values,
// encoded with enc, to c.
func values(c *Column, dict *Column, enc int64, b []byte, n int, defs []bool) error {
	present := n
	for _, null := range defs {
		if null {
			present--
		}
	}
	v := &Column{Type: c.Type}
	switch {
	case enc == encPlain:
		if err := plain(v, b, present); err != nil {
			return err
		}
	case enc == encRLE && c.Type == Bool:
		if len(b) < 4 || int64(binary.LittleEndian.Uint32(b)) > int64(len(b)-4) {
			return errors.New("corrupt RLE booleans")
		}
		bits, err := hybrid(b[4:4+binary.LittleEndian.Uint32(b)], 1, present)
		if err != nil {
			return fmt.Errorf("RLE booleans: %w", err)
		}
		for _, x := range bits {
			v.Bools = append(v.Bools, x != 0)
		}
	case enc == encRLEDictionary || enc == encPlainDict:
		if dict == nil {
			return errors.New("dictionary-encoded page without a dictionary page")
		}
		if len(b) < 1 {
			return errors.New("corrupt dictionary indices")
		}
		idx, err := hybrid(b[1:], int(b[0]), present)
		if err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		for _, k := range idx {
			if int(k) >= dict.Len() {
				return fmt.Errorf("dictionary index %d of %d", k, dict.Len())
			}
			appendFrom(v, dict, int(k))
		}
	case enc == encDeltaBinaryPacked && (c.Type == Int32 || c.Type == Int64):
		d, _, err := deltaBinaryPacked(b, present)
		if err != nil {
			return err
		}
		if len(d) != present {
			return fmt.Errorf("%d delta-encoded values for %d", len(d), present)
		}
		for _, x := range d {
			if c.Type == Int32 {
				v.Int32s = append(v.Int32s, int32(x))
			} else {
				v.Int64s = append(v.Int64s, x)
			}
		}
	case enc == encDeltaLengthByteArray && c.Type == String:
		lens, k, err := deltaBinaryPacked(b, present)
		if err != nil {
			return err
		}
		if len(lens) != present {
			return fmt.Errorf("%d string lengths for %d values", len(lens), present)
		}
		rest := b[k:]
		for _, l := range lens {
			if l < 0 || l > int64(len(rest)) {
				return errors.New("corrupt DELTA_LENGTH_BYTE_ARRAY data")
			}
			v.Strings = append(v.Strings, string(rest[:l]))
			rest = rest[l:]
		}
	default:
		return fmt.Errorf("encoding %s not supported (PLAIN, RLE booleans, dictionaries, DELTA_BINARY_PACKED integers and DELTA_LENGTH_BYTE_ARRAY strings are)", nameOf(encodingNames, enc))
	}
	k := 0
	for i := range n {
		null := defs != nil && defs[i]
		if c.Optional {
			c.Null = append(c.Null, null)
		}
		if null {
			appendZero(c)
			continue
		}
		appendFrom(c, v, k)
		k++
	}
	return nil
}

// plain decodes n PLAIN values into v.
func plain(v *Column, b []byte, n int) error {
	short := errors.New("page shorter than its values")
	switch v.Type {
	case Bool:
		if (n+7)/8 > len(b) {
			return short
		}
		for i := range n {
			v.Bools = append(v.Bools, b[i/8]>>(i%8)&1 == 1)
		}
	case Int32:
		if n > len(b)/4 {
			return short
		}
		for i := range n {
			v.Int32s = append(v.Int32s, int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case Int64:
		if n > len(b)/8 {
			return short
		}
		for i := range n {
			v.Int64s = append(v.Int64s, int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case Double:
		if n > len(b)/8 {
			return short
		}
		for i := range n {
			v.Doubles = append(v.Doubles, math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case String:
		if n > len(b)/4 {
			return short
		}
		pos := 0
		for range n {
			if pos+4 > len(b) {
				return short
			}
			l := int64(binary.LittleEndian.Uint32(b[pos:]))
			pos += 4
			if l > int64(len(b)-pos) {
				return short
			}
			v.Strings = append(v.Strings, string(b[pos:pos+int(l)]))
			pos += int(l)
		}
	}
	return nil
}

func appendFrom(dst, src *Column, k int) {
	switch dst.Type {
	case Bool:
		dst.Bools = append(dst.Bools, src.Bools[k])
	case Int32:
		dst.Int32s = append(dst.Int32s, src.Int32s[k])
	case Int64:
		dst.Int64s = append(dst.Int64s, src.Int64s[k])
	case Double:
		dst.Doubles = append(dst.Doubles, src.Doubles[k])
	case String:
		dst.Strings = append(dst.Strings, src.Strings[k])
	}
}

func appendZero(dst *Column) {
	switch dst.Type {
	case Bool:
		dst.Bools = append(dst.Bools, false)
	case Int32:
		dst.Int32s = append(dst.Int32s, 0)
	case Int64:
		dst.Int64s = append(dst.Int64s, 0)
	case Double:
		dst.Doubles = append(dst.Doubles, 0)
	case String:
		dst.Strings = append(dst.Strings, "")
	}
}

// deltaBinaryPacked decodes a DELTA_BINARY_PACKED run of at most max
// values and returns them and the bytes it took.
func deltaBinaryPacked(b []byte, max int) ([]int64, int, error) {
	bad := errors.New("corrupt DELTA_BINARY_PACKED data")
	pos := 0
	uv := func() (uint64, bool) {
		v, k := binary.Uvarint(b[pos:])
		if k <= 0 {
			return 0, false
		}
		pos += k
		return v, true
	}
	zz := func() (int64, bool) {
		u, ok := uv()
		return int64(u>>1) ^ -int64(u&1), ok
	}
	blockSize, ok1 := uv()
	miniblocks, ok2 := uv()
	total, ok3 := uv()
	first, ok4 := zz()
	if !ok1 || !ok2 || !ok3 || !ok4 || miniblocks == 0 || blockSize == 0 || blockSize%miniblocks != 0 ||
		blockSize > 1<<20 || total > uint64(max) {
		return nil, 0, bad
	}
	per := int(blockSize / miniblocks)
	if per%8 != 0 {
		return nil, 0, bad
	}
	out := make([]int64, 0, total)
	if total == 0 {
		return out, pos, nil
	}
	out = append(out, first)
	last := first
	for uint64(len(out)) < total {
		minDelta, ok := zz()
		if !ok || pos+int(miniblocks) > len(b) {
			return nil, 0, bad
		}
		widths := b[pos : pos+int(miniblocks)]
		pos += int(miniblocks)
		for _, bw := range widths {
			if uint64(len(out)) >= total {
				break
			}
			if bw > 64 {
				return nil, 0, bad
			}
			nb := per * int(bw) / 8
			if pos+nb > len(b) {
				return nil, 0, bad
			}
			bits := b[pos : pos+nb]
			pos += nb
			for i := 0; i < per && uint64(len(out)) < total; i++ {
				var v uint64
				for j := range int(bw) {
					bit := i*int(bw) + j
					v |= uint64(bits[bit/8]>>(bit%8)&1) << j
				}
				last += minDelta + int64(v)
				out = append(out, last)
			}
		}
	}
	return out, pos, nil
}
