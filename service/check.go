package service

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service/store"
)

// Check verifies the state directory dir offline, without changing it
// (`backfill serve --check DIR`): the files against the high-water mark,
// the log's continuity, the snapshots' checksums, the admin user, and a
// replay of the log through the policy it was written with, which must
// decide as logged. It writes a report to w and returns an error when the
// directory would be refused at start (or could not be replayed).
func Check(dir string, w io.Writer) error {
	st, in, err := store.OpenReadOnly(dir)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	fmt.Fprintf(w, "state directory %s\n", dir)
	for _, f := range in.Files() {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if in.ReadErr == nil && in.DBSize > 0 {
		fmt.Fprintf(w, "  store %s; policy %q, procs %s\n", in.StoreID, in.Meta["policy"], in.Meta["procs"])
		fmt.Fprintf(w, "  log: %d records", in.Records)
		if in.Records > 0 {
			fmt.Fprintf(w, " (%d..%d)", in.MinSeq, in.MaxSeq)
		}
		fmt.Fprintf(w, "; %d snapshots", in.Snapshots)
		if in.Base > 0 {
			fmt.Fprintf(w, " (latest at record %d)", in.Base)
		}
		fmt.Fprintf(w, "; %d users, admin %v\n", in.Users, in.Admin)
	}
	for _, n := range in.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	var problems []string
	if p := in.Problem(); p != nil {
		problems = append(problems, p.Error())
	}
	if in.ReadErr == nil && in.HasState && !in.Admin {
		problems = append(problems, "the admin user is missing (start with --accept-loss to create it again)")
	}
	if !in.HasState && !in.HasMark {
		if fileExists(filepath.Join(dir, "admin.token")) {
			problems = append(problems, "state.db is missing or empty, but admin.token exists: the directory has held a service")
		} else {
			fmt.Fprintln(w, "  no state yet (a first start will create it)")
		}
	}
	if st != nil && in.HasState && in.ReadErr == nil {
		if err := checkReplay(st, in, w); err != nil {
			problems = append(problems, "replay: "+err.Error())
		}
	}
	if len(problems) == 0 {
		fmt.Fprintln(w, "OK")
		return nil
	}
	for _, p := range problems {
		fmt.Fprintf(w, "PROBLEM: %s\n", p)
	}
	return fmt.Errorf("%s: %d problems", dir, len(problems))
}

// checkReplay replays the log (from the latest snapshot) through a fresh
// policy, as Open does.
func checkReplay(st *store.Store, in *store.Inspection, w io.Writer) error {
	procs, err := strconv.Atoi(in.Meta["procs"])
	if err != nil {
		return fmt.Errorf("the database has no valid machine size (meta procs %q)", in.Meta["procs"])
	}
	if _, err := policy.New(in.Meta["policy"], procs); err != nil {
		return fmt.Errorf("the database's policy: %w", err)
	}
	eng, n, _, err := loadState(st, newEngineFor, in.Meta["policy"], procs, func(eng *Engine) error {
		eng.TakeFinished()
		return nil
	})
	if err != nil {
		return err
	}
	wt, rn, _ := eng.Counts()
	fmt.Fprintf(w, "  replayed %d records: %d jobs, %d waiting, %d running, now %d; policy %s on %d processors\n", n, eng.jobs.Len(), wt, rn, eng.cur, eng.Policy(), eng.procs)
	return nil
}
