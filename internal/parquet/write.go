package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// PageRows is the number of rows in a data page (the last page of a
// column holds the rest): 64 Ki rows, at most 512 KiB of a 64-bit column
// before compression.
const PageRows = 1 << 16

// CreatedBy is written in every file's metadata.
const CreatedBy = "backfill (internal/parquet)"

var (
	encOnce sync.Once
	encoder *zstd.Encoder
)

// zstdEncoder is one shared encoder: EncodeAll is safe for concurrent
// use, and with one goroutine and the default level its output is a pure
// function of the input.
func zstdEncoder() *zstd.Encoder {
	encOnce.Do(func() {
		var err error
		encoder, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			panic(err) // only for invalid options
		}
	})
	return encoder
}

// Write writes cols as one Parquet file with one row group: every column
// must have the same number of rows, a name, and Null set exactly when it
// is optional (nil is allowed for an optional column without nulls). The
// output is a pure function of cols.
func Write(w io.Writer, cols []Column) error {
	if len(cols) == 0 {
		return fmt.Errorf("parquet: no columns")
	}
	rows := cols[0].Len()
	seen := map[string]bool{}
	for i := range cols {
		c := &cols[i]
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("parquet: column %d: empty or duplicate name %q", i, c.Name)
		}
		seen[c.Name] = true
		if c.Type < Bool || c.Type > String {
			return fmt.Errorf("parquet: column %s: unknown type %d", c.Name, c.Type)
		}
		if c.Len() != rows {
			return fmt.Errorf("parquet: column %s has %d rows, column %s %d", c.Name, c.Len(), cols[0].Name, rows)
		}
		if c.Null != nil && (!c.Optional || len(c.Null) != rows) {
			return fmt.Errorf("parquet: column %s: null mask on a required column or of the wrong length", c.Name)
		}
	}
	out := &countWriter{w: w}
	out.write([]byte(magic))
	type chunk struct {
		offset, compressed, uncompressed, values int64
	}
	chunks := make([]chunk, len(cols))
	for i := range cols {
		c := &cols[i]
		ch := chunk{offset: out.n, values: int64(rows)}
		for lo := 0; lo < rows || lo == 0; lo += PageRows {
			hi := min(rows, lo+PageRows)
			raw := pageBody(c, lo, hi)
			comp := zstdEncoder().EncodeAll(raw, nil)
			var h tenc
			h.begin()
			h.i32(1, pageData)
			h.i32(2, int32(len(raw)))
			h.i32(3, int32(len(comp)))
			h.structField(5) // DataPageHeader
			h.i32(1, int32(hi-lo))
			h.i32(2, encPlain)
			h.i32(3, encRLE)
			h.i32(4, encRLE)
			h.end()
			h.end()
			out.write(h.b)
			out.write(comp)
			ch.compressed += int64(len(h.b) + len(comp))
			ch.uncompressed += int64(len(h.b) + len(raw))
			if rows == 0 {
				break
			}
		}
		chunks[i] = ch
	}

	// the footer: FileMetaData
	var m tenc
	m.begin()
	m.i32(1, 2) // version
	m.listField(2, ctStruct, len(cols)+1)
	m.begin() // the root
	m.str(4, "schema")
	m.i32(5, int32(len(cols)))
	m.end()
	for i := range cols {
		c := &cols[i]
		m.begin()
		m.i32(1, physical(c.Type))
		rep := int32(repRequired)
		if c.Optional {
			rep = repOptional
		}
		m.i32(3, rep)
		m.str(4, c.Name)
		switch c.Type {
		case String:
			m.i32(6, convUTF8)
			m.structField(10) // LogicalType
			m.structField(1)  // STRING
			m.end()
			m.end()
		case Int32, Int64:
			conv, bits := int32(convInt32), int8(32)
			if c.Type == Int64 {
				conv, bits = convInt64, 64
			}
			m.i32(6, conv)
			m.structField(10) // LogicalType
			m.structField(10) // INTEGER
			m.byte8(1, bits)
			m.boolean(2, true)
			m.end()
			m.end()
		}
		m.end()
	}
	m.i64(3, int64(rows))
	m.listField(4, ctStruct, 1) // one RowGroup
	m.begin()
	m.listField(1, ctStruct, len(cols))
	var total, totalComp int64
	for i := range cols {
		c, ch := &cols[i], chunks[i]
		total += ch.uncompressed
		totalComp += ch.compressed
		m.begin() // ColumnChunk
		m.i64(2, ch.offset)
		m.structField(3) // ColumnMetaData
		m.i32(1, physical(c.Type))
		if c.Optional {
			m.listField(2, ctI32, 2)
			m.varint(encPlain)
			m.varint(encRLE)
		} else {
			m.listField(2, ctI32, 1)
			m.varint(encPlain)
		}
		m.listField(3, ctBinary, 1)
		m.uvarint(uint64(len(c.Name)))
		m.b = append(m.b, c.Name...)
		m.i32(4, codecZstd)
		m.i64(5, ch.values)
		m.i64(6, ch.uncompressed)
		m.i64(7, ch.compressed)
		m.i64(9, ch.offset)
		m.end()
		m.end()
	}
	m.i64(2, total)
	m.i64(3, int64(rows))
	m.i64(5, chunks[0].offset)
	m.i64(6, totalComp)
	m.end()
	m.str(6, CreatedBy)
	m.end()
	out.write(m.b)
	out.write(binary.LittleEndian.AppendUint32(nil, uint32(len(m.b))))
	out.write([]byte(magic))
	return out.err
}

func physical(t Type) int32 {
	switch t {
	case Bool:
		return ptBoolean
	case Int32:
		return ptInt32
	case Int64:
		return ptInt64
	case Double:
		return ptDouble
	}
	return ptByteArray
}

// pageBody is the uncompressed body of a version-1 data page holding rows
// [lo, hi) of c: for an optional column the definition levels (4-byte
// length, then runs of the RLE/bit-packing hybrid with bit width 1),
// then the non-null values, PLAIN.
func pageBody(c *Column, lo, hi int) []byte {
	var b []byte
	if c.Optional {
		var lv []byte
		for i := lo; i < hi; {
			j := i
			for j < hi && c.IsNull(j) == c.IsNull(i) {
				j++
			}
			lv = binary.AppendUvarint(lv, uint64(j-i)<<1) // an RLE run of j-i equal levels
			if c.IsNull(i) {
				lv = append(lv, 0)
			} else {
				lv = append(lv, 1)
			}
			i = j
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(lv)))
		b = append(b, lv...)
	}
	switch c.Type {
	case Bool:
		var bits byte
		k := 0
		for i := lo; i < hi; i++ {
			if c.IsNull(i) {
				continue
			}
			if c.Bools[i] {
				bits |= 1 << (k % 8)
			}
			k++
			if k%8 == 0 {
				b = append(b, bits)
				bits = 0
			}
		}
		if k%8 != 0 {
			b = append(b, bits)
		}
	case Int32:
		for i := lo; i < hi; i++ {
			if !c.IsNull(i) {
				b = binary.LittleEndian.AppendUint32(b, uint32(c.Int32s[i]))
			}
		}
	case Int64:
		for i := lo; i < hi; i++ {
			if !c.IsNull(i) {
				b = binary.LittleEndian.AppendUint64(b, uint64(c.Int64s[i]))
			}
		}
	case Double:
		for i := lo; i < hi; i++ {
			if !c.IsNull(i) {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.Doubles[i]))
			}
		}
	case String:
		for i := lo; i < hi; i++ {
			if !c.IsNull(i) {
				b = binary.LittleEndian.AppendUint32(b, uint32(len(c.Strings[i])))
				b = append(b, c.Strings[i]...)
			}
		}
	}
	return b
}

// countWriter counts the bytes written and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	k, err := c.w.Write(b)
	c.n += int64(k)
	c.err = err
}
