package workload

import (
	"strings"
	"testing"
)

// mline is a job line with size procs and requested memory mem (KB per
// processor; -1 for none).
func mline(id, procs int, mem int64) string {
	return line(int64(id), int64(id), 0, 10, int64(procs), -1, -1, int64(procs), 100, mem, 1, 1, 1, -1, 1, 1, -1, -1)
}

func TestMemory(t *testing.T) {
	in := "; MaxProcs: 8\n" +
		mline(1, 2, 100) + // 200 KB
		mline(2, 4, 100) + // 400 KB
		mline(3, 1, 300) + // 300 KB
		mline(4, 2, -1) + // none: mode 100 → 200 KB
		mline(5, 8, 500) // 4000 KB
	tr := read(t, in, Options{Mem: true})
	want := []int{200, 400, 300, 200, 4000}
	for i, j := range tr.Jobs {
		if len(j.Res) != 1 || j.Res[0] != want[i] {
			t.Errorf("job %d: Res %v, want [%d]", i, j.Res, want[i])
		}
	}
	if tr.MemCap != 4000 || tr.MemSource != MemFromLargestJob || tr.MemMode != 100 {
		t.Errorf("MemCap %d (%s), mode %d", tr.MemCap, tr.MemSource, tr.MemMode)
	}
	if tr.Adjusted.Get(AdjMemMode) != 1 {
		t.Errorf("adjusted %v", tr.Adjusted)
	}
	if r := strings.Join(tr.Rules, "\n"); !strings.Contains(r, "memory (K = 2)") || !strings.Contains(r, "(100 KB)") {
		t.Errorf("rules %q", r)
	}

	// per-processor capacity: 8 × 300 = 2400; the 4000 KB job is skipped,
	// or clamped
	tr = read(t, in, Options{Mem: true, MemPerProc: 300})
	if tr.MemCap != 2400 || len(tr.Jobs) != 4 || tr.Skipped.Get(SkipTooMuchMem) != 1 {
		t.Errorf("per-proc: cap %d, %d jobs, skipped %v", tr.MemCap, len(tr.Jobs), tr.Skipped)
	}
	tr = read(t, in, Options{Mem: true, MemCap: 1000, Clamp: true, MemMissing: "zero"})
	if tr.MemCap != 1000 || len(tr.Jobs) != 5 || tr.Jobs[4].Res[0] != 1000 || tr.Jobs[3].Res[0] != 0 ||
		tr.Adjusted.Get(AdjMemClamped) != 1 || tr.Adjusted.Get(AdjMemZero) != 1 {
		t.Errorf("clamp/zero: %+v %v", tr.Jobs, tr.Adjusted)
	}
	tr = read(t, in, Options{Mem: true, MemCap: 5000, MemMissing: "skip"})
	if len(tr.Jobs) != 4 || tr.Skipped.Get(SkipNoMem) != 1 || tr.Jobs[3].SWFID != 5 || tr.Jobs[3].ID != 3 {
		t.Errorf("skip: %+v %v", tr.Jobs, tr.Skipped)
	}
	// the header's MaxMemory is KB per processor
	tr = read(t, "; MaxProcs: 8\n; MaxMemory: 1000\n"+in[len("; MaxProcs: 8\n"):], Options{Mem: true})
	if tr.MemCap != 8000 || tr.MemSource != MemFromHeader {
		t.Errorf("header: %d %s", tr.MemCap, tr.MemSource)
	}
	// without Mem, jobs have no Res
	tr = read(t, in, Options{})
	if tr.Jobs[0].Res != nil || tr.MemCap != 0 {
		t.Error("memory without Options.Mem")
	}
	if _, err := Read(strings.NewReader(in), "x", Options{Mem: true, MemMissing: "guess"}); err == nil {
		t.Error("bad MemMissing accepted")
	}
}

func TestKnownMemory(t *testing.T) {
	tr, err := Read(strings.NewReader("; MaxProcs: 240\n"+mline(1, 2, 409600)), "/x/HPC2N-2002-2.2-cln.swf.gz", Options{Mem: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.MemCap != 120*1024*1024 || !strings.HasPrefix(tr.MemSource, "PWA page for HPC2N") {
		t.Errorf("HPC2N memory %d (%s)", tr.MemCap, tr.MemSource)
	}
}

func TestParseMem(t *testing.T) {
	for in, want := range map[string]int64{"512": 512, "512K": 512, "512M": 512 << 10, "1G": 1 << 20, "120GB": 120 << 20, "2t": 2 << 30} {
		if got, err := ParseMem(in); err != nil || got != want {
			t.Errorf("ParseMem(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "0", "x", "1Q", "99999999999P"} {
		if _, err := ParseMem(bad); err == nil {
			t.Errorf("ParseMem(%q) accepted", bad)
		}
	}
}
