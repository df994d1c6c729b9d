package sim_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the real-trace regressions (say why in the commit)")

// checkGolden compares got with the golden file testdata/dir/name, or
// rewrites the file with -update. The goldens change only on purpose: run
// with -update and say why in the commit message.
func checkGolden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./sim -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(want, got) {
		t.Errorf("summary metrics changed (%s)\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}
