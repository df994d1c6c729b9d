package experiment

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CollectReport is what Collect found.
type CollectReport struct {
	// Planned is the number of runs of the plan; Present of them were
	// found, OK of those succeeded.
	Planned, Present, OK int
	// Missing lists the planned runs not found; Duplicated the runs found
	// in more than one directory (with the directories); Failed the failed
	// runs with their errors; Corrupt the run directories whose files are
	// unreadable or do not match the plan.
	Missing    []*Run
	Duplicated map[string][]string
	Failed     []Failure
	Corrupt    []string
	// Extra counts run directories that are not part of the plan (left by
	// an earlier version of the sweep); they are ignored. Temp counts
	// temporary directories left by interrupted runs.
	Extra, Temp int
	// Copied counts run directories copied into the output directory.
	Copied int
}

// Complete reports whether every planned run is present once, intact and
// successful.
func (r *CollectReport) Complete() bool {
	return len(r.Missing) == 0 && len(r.Duplicated) == 0 && len(r.Failed) == 0 && len(r.Corrupt) == 0
}

// Problems describes what is wrong, one line each (nil when complete).
func (r *CollectReport) Problems() []string {
	var out []string
	for _, m := range r.Missing {
		out = append(out, fmt.Sprintf("missing run %s (#%d: %s %s)", m.ID, m.Index, m.Label, m.Config.Describe()))
	}
	for _, id := range sortedKeys(r.Duplicated) {
		out = append(out, fmt.Sprintf("duplicated run %s, found in %s", id, strings.Join(r.Duplicated[id], " and ")))
	}
	for _, f := range r.Failed {
		out = append(out, fmt.Sprintf("failed run %s (#%d: %s %s): %s", f.Run.ID, f.Run.Index, f.Run.Label, f.Run.Config.Describe(), FirstLine(f.Err)))
	}
	out = append(out, r.Corrupt...)
	return out
}

// FirstLine is the first line of s (an error message).
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Collect merges the results of a sweep found in dirs (one results
// directory, or several: for example one per machine or per shard) into
// out, and checks them against the plan: every planned run must be found
// exactly once, its configuration must hash to its ID and equal the
// plan's, and it must have succeeded. The plan is read from dirs (all
// plans found must be identical). Run directories found outside out are
// copied into it. Then out/summary.csv and out/summary.parquet are
// written with one row per run found, in plan order. Collect returns an
// error only when it cannot do its work; problems with the runs are in
// the report.
func Collect(dirs []string, out string) (*CollectReport, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("collect: no results directory given")
	}
	var plan *Plan
	var planBytes, specBytes []byte
	var planDir string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, PlanFile))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		if planBytes == nil {
			p, err := Store{Dir: d}.ReadPlan()
			if err != nil {
				return nil, err
			}
			plan, planBytes, planDir = p, b, d
			specBytes, _ = os.ReadFile(filepath.Join(d, SpecFile))
			continue
		}
		if !bytes.Equal(b, planBytes) {
			return nil, fmt.Errorf("collect: %s and %s hold different plans (results of different sweeps, or of different versions of one sweep)", filepath.Join(planDir, PlanFile), filepath.Join(d, PlanFile))
		}
	}
	if plan == nil {
		return nil, fmt.Errorf("collect: no %s in %s: not results of backfill sweep", PlanFile, strings.Join(dirs, ", "))
	}
	rep := &CollectReport{Planned: len(plan.Runs), Duplicated: map[string][]string{}}
	where := map[string][]string{} // run ID → directories holding it
	planned := map[string]bool{}
	for _, r := range plan.Runs {
		planned[r.ID] = true
	}
	for _, d := range dirs {
		ids, tmp, err := Store{Dir: d}.RunIDs()
		if err != nil {
			return nil, err
		}
		rep.Temp += tmp
		for _, id := range ids {
			if !planned[id] {
				rep.Extra++
				continue
			}
			where[id] = append(where[id], d)
		}
	}
	dst := Store{Dir: out}
	if err := os.MkdirAll(filepath.Join(out, RunsDir), 0o755); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(out, PlanFile), planBytes); err != nil {
		return nil, err
	}
	if specBytes != nil {
		if err := writeAtomic(filepath.Join(out, SpecFile), specBytes); err != nil {
			return nil, err
		}
	}
	var stored []StoredRun
	for i := range plan.Runs {
		r := &plan.Runs[i]
		ds := where[r.ID]
		if len(ds) == 0 {
			rep.Missing = append(rep.Missing, r)
			continue
		}
		if len(ds) > 1 {
			rep.Duplicated[r.ID] = ds
		}
		src := Store{Dir: ds[0]}
		rc, res, err := src.ReadRun(r.ID)
		if err != nil {
			rep.Corrupt = append(rep.Corrupt, fmt.Sprintf("run %s in %s: %v", r.ID, ds[0], err))
			continue
		}
		if msg := checkRun(r, rc, res); msg != "" {
			rep.Corrupt = append(rep.Corrupt, fmt.Sprintf("run %s in %s: %s", r.ID, ds[0], msg))
			continue
		}
		if !sameDir(ds[0], out) {
			if err := copyDir(src.runDir(r.ID), dst.runDir(r.ID)); err != nil {
				return nil, err
			}
			rep.Copied++
		}
		rep.Present++
		if res.Status == StatusOK {
			rep.OK++
		} else {
			rep.Failed = append(rep.Failed, Failure{Run: r, Err: res.Error})
		}
		stored = append(stored, StoredRun{Index: r.Index, Config: rc, Result: res})
	}
	if len(rep.Duplicated) == 0 {
		rep.Duplicated = nil
	}
	if err := WriteSummaries(out, RunTable(stored)); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkRun verifies a stored run against its plan entry.
func checkRun(r *Run, rc *RunConfig, res *Result) string {
	switch {
	case rc.ID != r.ID || res.ID != r.ID:
		return "its files name another run"
	case rc.Config.Hash() != rc.Hash || rc.Hash != r.Hash:
		return "its configuration does not hash to its ID (edited or corrupt)"
	case !bytes.Equal(rc.Config.Canonical(), r.Config.Canonical()):
		return "its configuration differs from the plan's"
	case res.Status != StatusOK && res.Status != StatusFailed:
		return fmt.Sprintf("unknown status %q", res.Status)
	}
	return ""
}

// WriteSummaries writes t as summary.csv and summary.parquet in dir.
func WriteSummaries(dir string, t *Table) error {
	var csvBuf, pqBuf bytes.Buffer
	if err := t.WriteCSV(&csvBuf); err != nil {
		return err
	}
	if err := t.WriteParquet(&pqBuf); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, SummaryCSV), csvBuf.Bytes()); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, SummaryParquet), pqBuf.Bytes())
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// copyDir copies the regular files of src into dst (through a temporary
// directory and a rename, like a run's own directory).
func copyDir(src, dst string) error {
	if sameDir(src, dst) {
		return nil
	}
	tmp := filepath.Join(filepath.Dir(dst), tmpPrefix+filepath.Base(dst)+"-copy")
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.Create(filepath.Join(tmp, d.Name()))
		if err != nil {
			return err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return err
		}
		return o.Close()
	})
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	os.RemoveAll(dst)
	return os.Rename(tmp, dst)
}

// ReadStore reads every run of a results directory: the runs of its plan
// in plan order (those present), then, when all is set, the runs that are
// not in the plan, by ID.
func ReadStore(dir string, all bool) ([]StoredRun, *Plan, error) {
	st := Store{Dir: dir}
	ids, _, err := st.RunIDs()
	if err != nil {
		return nil, nil, err
	}
	plan, perr := st.ReadPlan()
	if perr != nil && len(ids) == 0 {
		return nil, nil, perr
	}
	var out []StoredRun
	inPlan := map[string]bool{}
	present := map[string]bool{}
	for _, id := range ids {
		present[id] = true
	}
	if plan != nil {
		for _, r := range plan.Runs {
			inPlan[r.ID] = true
			if !present[r.ID] {
				continue
			}
			rc, res, err := st.ReadRun(r.ID)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, StoredRun{Index: r.Index, Config: rc, Result: res})
		}
	}
	if all || plan == nil {
		for _, id := range ids {
			if inPlan[id] {
				continue
			}
			rc, res, err := st.ReadRun(id)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, StoredRun{Index: -1, Config: rc, Result: res})
		}
	}
	return out, plan, nil
}
