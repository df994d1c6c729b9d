package workload

import (
	"bytes"
	_ "embed" // for the built-in workload
)

// BuiltinName is the name of the trace embedded in the binary.
const BuiltinName = "KTH-SP2-1996-2.1-cln.swf.gz"

//go:embed builtin/KTH-SP2-1996-2.1-cln.swf.gz
var builtinData []byte

// Builtin returns the embedded default workload (BuiltinName: the cleaned
// KTH SP2 log from the Parallel Workloads Archive, 28476 records, P = 100)
// read with opts, so that the tools work without any trace on disk.
func Builtin(opts Options) (*Trace, error) {
	return Read(bytes.NewReader(builtinData), BuiltinName, opts)
}
