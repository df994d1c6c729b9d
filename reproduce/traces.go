package reproduce

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/backfill-hpc/backfill/workload"
)

// ErrNothingToRun is returned when a reproduction finds none of its
// inputs (every trace missing from the traces directory).
var ErrNothingToRun = errors.New("nothing to run")

// loadTrace reads file from dir with opts. A missing file gives a nil
// trace and a note, except the embedded KTH SP2 log, which falls back to
// the copy built into the binary (with a note).
func loadTrace(dir, file string, opts workload.Options) (*workload.Trace, string, error) {
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); err != nil {
		if file == workload.BuiltinName {
			tr, err := workload.Builtin(opts)
			return tr, fmt.Sprintf("%s not in %s: using the embedded copy", file, dir), err
		}
		return nil, fmt.Sprintf("missing: %s (not in %s): skipped", file, dir), nil
	}
	tr, err := workload.Load(path, opts)
	return tr, "", err
}

// nothing is the error of a reproduction that found no trace to run.
func nothing(dir string, files []string) error {
	return fmt.Errorf("%w: none of %v is in the traces directory %s (give it with --traces)", ErrNothingToRun, files, dir)
}
