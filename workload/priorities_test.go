package workload

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func jobsN(n int) []job.Job {
	js := make([]job.Job, n)
	for i := range js {
		js[i].ID, js[i].SWFID, js[i].Group = i, int64(100+i), int32(i%3)
	}
	return js
}

func TestPrioritiesEvery(t *testing.T) {
	js := jobsN(10)
	if err := ApplyPriorities(js, "every:5"); err != nil {
		t.Fatal(err)
	}
	for i, j := range js {
		want := 0.0
		if i == 4 || i == 9 {
			want = 1
		}
		if j.UP != want || j.PP != want {
			t.Errorf("job %d: UP %v PP %v, want %v", i, j.UP, j.PP, want)
		}
	}
}

func TestPrioritiesCSV(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.csv")
	os.WriteFile(f, []byte("job_id,up,pp\n101,0.5,0.25\n103,1,-inf\n"), 0o644)
	js := jobsN(5)
	if err := ApplyPriorities(js, "csv:"+f); err != nil {
		t.Fatal(err)
	}
	if js[1].UP != 0.5 || js[1].PP != 0.25 || !math.IsInf(js[3].PP, -1) || js[0].UP != 0 {
		t.Errorf("got %+v", js)
	}
	g := filepath.Join(dir, "g.csv")
	os.WriteFile(g, []byte("id,up,pp\n2,0,1\n"), 0o644)
	if err := ApplyPriorities(js, "group:"+g); err != nil {
		t.Fatal(err)
	}
	if js[2].PP != 1 || js[1].PP != 0 {
		t.Errorf("group mapping: %+v", js)
	}
	for _, bad := range []string{"job_id,up,pp\n1,2,0\n", "job_id,up,pp\nx,0,0\n", "id,up\n", "job_id,up,pp\n1,0,0\n1,0,0\n"} {
		os.WriteFile(f, []byte(bad), 0o644)
		err := ApplyPriorities(js, "csv:"+f)
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%q: error %v does not name the file", bad, err)
		}
	}
	for _, spec := range []string{"every:0", "every:x", "csv:", "bogus"} {
		if err := ApplyPriorities(js, spec); err == nil {
			t.Errorf("%q accepted", spec)
		}
	}
}
