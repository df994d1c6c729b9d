package workload

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadSchedule(t *testing.T) {
	// job 1: submit 0, wait 5, run 10, 4 allocated, requested 20 s, completed;
	// job 2: no allocated size (requested 2), no requested time, failed;
	// job 3: wait unknown; job 4: size unknown.
	swf := "; MaxProcs: 8\n" +
		"1 0 5 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"2 3 0 7 -1 -1 -1 2 -1 -1 0 -1 -1 -1 -1 -1 -1 -1\n" +
		"3 4 -1 7 1 -1 -1 1 9 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"4 4 1 7 -1 -1 -1 -1 9 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
	path := filepath.Join(t.TempDir(), "s.swf")
	if err := os.WriteFile(path, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	outs, P, skipped, err := ReadSchedule(path, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if P != 8 || len(outs) != 2 || skipped.Total() != 2 {
		t.Fatalf("P %d, %d outcomes, %d skipped (%s); want 8, 2, 2", P, len(outs), skipped.Total(), skipped.String())
	}
	a, b := outs[0], outs[1]
	if a.ID != 0 || a.SWFID != 1 || a.Start != 5 || a.End != 15 || a.Procs != 4 || a.Estimate != 20 || a.Killed {
		t.Errorf("job 1: %+v", a)
	}
	if b.ID != 1 || b.Start != 3 || b.End != 10 || b.Procs != 2 || b.Estimate != 1<<62-1 || !b.Killed {
		t.Errorf("job 2: %+v", b)
	}
	if _, P, _, _ := ReadSchedule(path, 3, false); P != 3 {
		t.Errorf("procs given: P = %d, want 3", P)
	}
	noHeader := filepath.Join(t.TempDir(), "n.swf")
	os.WriteFile(noHeader, []byte("1 0 5 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n"), 0o644)
	if _, _, _, err := ReadSchedule(noHeader, 0, false); !errors.Is(err, ErrNoMachineSize) {
		t.Errorf("no header: err %v, want ErrNoMachineSize", err)
	}
}
