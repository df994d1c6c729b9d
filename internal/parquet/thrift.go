package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Parquet's metadata (the footer and the page headers) is serialized with
// Thrift's compact protocol. This file holds a writer of the few
// structures we emit and a generic reader that decodes any struct into a
// tree (tstruct), skipping nothing it does not understand, so that files
// written by other libraries (with fields we never write) still read.

// compact protocol type codes
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// tenc builds one compact-protocol message.
type tenc struct {
	b    []byte
	last []int16 // last field id, per open struct
}

func (e *tenc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *tenc) varint(v int64)   { e.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

// field writes a field header.
func (e *tenc) field(id int16, typ byte) {
	top := len(e.last) - 1
	if d := id - e.last[top]; d > 0 && d <= 15 {
		e.b = append(e.b, byte(d)<<4|typ)
	} else {
		e.b = append(e.b, typ)
		e.varint(int64(id))
	}
	e.last[top] = id
}

func (e *tenc) begin() { e.last = append(e.last, 0) }
func (e *tenc) end() {
	e.b = append(e.b, ctStop)
	e.last = e.last[:len(e.last)-1]
}

func (e *tenc) i32(id int16, v int32) { e.field(id, ctI32); e.varint(int64(v)) }
func (e *tenc) i64(id int16, v int64) { e.field(id, ctI64); e.varint(v) }
func (e *tenc) byte8(id int16, v int8) {
	e.field(id, ctByte)
	e.b = append(e.b, byte(v))
}
func (e *tenc) boolean(id int16, v bool) {
	if v {
		e.field(id, ctTrue)
	} else {
		e.field(id, ctFalse)
	}
}
func (e *tenc) str(id int16, s string) {
	e.field(id, ctBinary)
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// structField opens a struct-valued field; close it with end.
func (e *tenc) structField(id int16) {
	e.field(id, ctStruct)
	e.begin()
}

// listField writes a list field's header.
func (e *tenc) listField(id int16, elem byte, n int) {
	e.field(id, ctList)
	if n < 15 {
		e.b = append(e.b, byte(n)<<4|elem)
	} else {
		e.b = append(e.b, 0xF0|elem)
		e.uvarint(uint64(n))
	}
}

// tstruct is a decoded struct: field id → value (int64 for integers,
// bool, float64, []byte, []any for lists and sets, tstruct; maps are
// skipped).
type tstruct map[int16]any

func (s tstruct) i64(id int16) (int64, bool) {
	v, ok := s[id].(int64)
	return v, ok
}

func (s tstruct) str(id int16) (string, bool) {
	v, ok := s[id].([]byte)
	return string(v), ok
}

func (s tstruct) sub(id int16) (tstruct, bool) {
	v, ok := s[id].(tstruct)
	return v, ok
}

func (s tstruct) list(id int16) ([]any, bool) {
	v, ok := s[id].([]any)
	return v, ok
}

func (s tstruct) boolean(id int16) (bool, bool) {
	v, ok := s[id].(bool)
	return v, ok
}

// tdec decodes compact-protocol data from a byte slice.
type tdec struct {
	b     []byte
	pos   int
	depth int
}

var errThrift = errors.New("malformed thrift metadata")

// maxDepth bounds the nesting of a hostile file's metadata.
const maxDepth = 32

func (d *tdec) byte1() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, errThrift
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

func (d *tdec) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		return 0, errThrift
	}
	d.pos += n
	return v, nil
}

func (d *tdec) varint() (int64, error) {
	u, err := d.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// readStruct decodes one struct (after its opening, up to its stop).
func (d *tdec) readStruct() (tstruct, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		return nil, fmt.Errorf("%w: nested too deep", errThrift)
	}
	s := tstruct{}
	var last int16
	for {
		h, err := d.byte1()
		if err != nil {
			return nil, err
		}
		typ := h & 0x0F
		if typ == ctStop {
			return s, nil
		}
		id := last + int16(h>>4)
		if h>>4 == 0 {
			v, err := d.varint()
			if err != nil {
				return nil, err
			}
			if v < math.MinInt16 || v > math.MaxInt16 {
				return nil, errThrift
			}
			id = int16(v)
		}
		last = id
		var v any
		switch typ {
		case ctTrue:
			v = true
		case ctFalse:
			v = false
		default:
			v, err = d.value(typ)
			if err != nil {
				return nil, err
			}
		}
		s[id] = v
	}
}

// value decodes one value of type typ (not a struct field's bool).
func (d *tdec) value(typ byte) (any, error) {
	switch typ {
	case ctTrue, ctFalse: // a bool inside a list: one byte
		c, err := d.byte1()
		return c == ctTrue, err
	case ctByte:
		c, err := d.byte1()
		return int64(int8(c)), err
	case ctI16, ctI32, ctI64:
		return d.varint()
	case ctDouble:
		if d.pos+8 > len(d.b) {
			return nil, errThrift
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.pos:]))
		d.pos += 8
		return v, nil
	case ctBinary:
		n, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.b)-d.pos) {
			return nil, errThrift
		}
		v := d.b[d.pos : d.pos+int(n)]
		d.pos += int(n)
		return v, nil
	case ctList, ctSet:
		h, err := d.byte1()
		if err != nil {
			return nil, err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = d.uvarint(); err != nil {
				return nil, err
			}
		}
		if n > uint64(len(d.b)-d.pos) { // every element takes a byte at least
			return nil, errThrift
		}
		elem := h & 0x0F
		out := make([]any, 0, n)
		for range n {
			v, err := d.value(elem)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case ctMap:
		n, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		if n > uint64(len(d.b)-d.pos) {
			return nil, errThrift
		}
		kv, err := d.byte1()
		if err != nil {
			return nil, err
		}
		for range n {
			if _, err := d.value(kv >> 4); err != nil {
				return nil, err
			}
			if _, err := d.value(kv & 0x0F); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case ctStruct:
		return d.readStruct()
	}
	return nil, fmt.Errorf("%w: unknown type %d", errThrift, typ)
}
