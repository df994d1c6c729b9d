// Package parquet writes and reads Apache Parquet files with a flat
// schema: one row group, columns of booleans, 32- and 64-bit integers,
// doubles and UTF-8 strings, required or optional, PLAIN encoding, pages
// compressed with zstd.
//
// It is the subset the experiment store uses (jobs.parquet,
// summary.parquet), small enough to keep a first build fast (the
// general-purpose library it replaces cost about 22 CPU-seconds to
// compile and 50 MB of modules, docs/PERFORMANCE.md). The reader also
// accepts what other writers commonly produce for such a schema — several
// row groups, data pages version 1 and 2, dictionary encoding, RLE
// booleans, delta-encoded integers and string lengths, uncompressed, gzip or zstd pages — and answers anything else
// (nested schemas, other encodings or codecs) with an error naming it.
// Files written by the earlier library (zstd, data pages version 2,
// PLAIN) read unchanged; pandas/pyarrow read the files written here.
//
// The format: https://parquet.apache.org/docs/file-format/ and
// parquet.thrift in apache/parquet-format.
package parquet

import (
	"fmt"
)

// Type is a column's value type.
type Type int

// The column types.
const (
	Bool   Type = iota // BOOLEAN
	Int32              // INT32, logical type INT(32, signed)
	Int64              // INT64, logical type INT(64, signed)
	Double             // DOUBLE
	String             // BYTE_ARRAY, logical type STRING
)

func (t Type) String() string {
	switch t {
	case Bool:
		return "boolean"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Double:
		return "double"
	case String:
		return "string"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column is a column's values: exactly the slice of its Type is used, with
// one entry a row (an entry at a null row is ignored). Null is nil for a
// required column; for an optional one, Null[i] says row i has no value.
type Column struct {
	Name     string
	Type     Type
	Optional bool

	Bools   []bool
	Int32s  []int32
	Int64s  []int64
	Doubles []float64
	Strings []string
	Null    []bool
}

// Len is the column's number of rows.
func (c *Column) Len() int {
	switch c.Type {
	case Bool:
		return len(c.Bools)
	case Int32:
		return len(c.Int32s)
	case Int64:
		return len(c.Int64s)
	case Double:
		return len(c.Doubles)
	case String:
		return len(c.Strings)
	}
	return 0
}

// IsNull reports whether row i of c has no value.
func (c *Column) IsNull(i int) bool { return c.Null != nil && c.Null[i] }

// Parquet's enumerations (parquet.thrift).
const (
	ptBoolean   = 0
	ptInt32     = 1
	ptInt64     = 2
	ptInt96     = 3
	ptFloat     = 4
	ptDouble    = 5
	ptByteArray = 6
	ptFixed     = 7

	repRequired = 0
	repOptional = 1
	repRepeated = 2

	encPlain                = 0
	encPlainDict            = 2
	encRLE                  = 3
	encBitPacked            = 4
	encDeltaBinaryPacked    = 5
	encDeltaLengthByteArray = 6
	encRLEDictionary        = 8

	codecNone = 0
	codecGzip = 2
	codecZstd = 6

	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3

	convUTF8  = 0
	convInt32 = 17
	convInt64 = 18
)

var codecNames = map[int64]string{0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 3: "LZO", 4: "BROTLI", 5: "LZ4", 6: "ZSTD", 7: "LZ4_RAW"}

var encodingNames = map[int64]string{0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
	6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}

func nameOf(m map[int64]string, v int64) string {
	if s, ok := m[v]; ok {
		return s
	}
	return fmt.Sprint(v)
}

// magic begins and ends every Parquet file.
const magic = "PAR1"
