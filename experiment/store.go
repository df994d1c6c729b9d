package experiment

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/backfill-hpc/backfill/internal/parquet"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/workload"
)

// The results store. A results directory holds
//
//	experiment.yaml   the experiment file, byte for byte
//	plan.json         the expanded runs (PlanFile)
//	runs/<id>/        one directory per finished run:
//	    config.json   the run's configuration, hash and the tool's version (RunConfigFile)
//	    result.json   status, error, workload facts, metric summary (Result)
//	    jobs.parquet  per-job outcomes (JobRow), for ok runs
//	    timing.json   wall time, host and shard (the only file that differs between two executions)
//	summary.csv, summary.parquet   one row per run of the plan (Collect)
//
// A run's directory appears only when all its files are written: they are
// written into runs/.tmp-<id>-<random> and renamed. A killed sweep leaves
// at most such temporary directories, which the next execution of the same
// run removes.
const (
	PlanFile       = "plan.json"
	SpecFile       = "experiment.yaml"
	RunsDir        = "runs"
	RunConfigFile  = "config.json"
	ResultFile     = "result.json"
	JobsFile       = "jobs.parquet"
	TimingFile     = "timing.json"
	SummaryCSV     = "summary.csv"
	SummaryParquet = "summary.parquet"
	tmpPrefix      = ".tmp-"
)

// Run statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// RunConfig is the content of a run's config.json.
type RunConfig struct {
	ID         string `json:"id"`
	Hash       string `json:"hash"`
	Experiment string `json:"experiment"`
	Label      string `json:"label"`
	// Version is the version of the tool that made the run.
	Version string `json:"version"`
	Config  Config `json:"config"`
}

// Result is the content of a run's result.json.
type Result struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Error is why a failed run failed.
	Error string `json:"error,omitempty"`
	// Policy is the policy as built (awt=auto replaced by its value).
	Policy   string           `json:"policy,omitempty"`
	Workload *WorkloadInfo    `json:"workload,omitempty"`
	Summary  *metrics.Summary `json:"summary,omitempty"`
	Sim      *SimInfo         `json:"sim,omitempty"`
}

// WorkloadInfo describes the workload a run simulated.
type WorkloadInfo struct {
	Name        string         `json:"name"`
	Procs       int            `json:"procs"`
	MemCap      int64          `json:"mem_cap,omitempty"` // KB, when memory is scheduled
	ProcsSource string         `json:"procs_source"`
	Records     int            `json:"records"`
	Jobs        int            `json:"jobs"`
	Skipped     map[string]int `json:"skipped,omitempty"`
	OfferedLoad float64        `json:"offered_load"`
	Rules       []string       `json:"rules"`
}

// SimInfo are the engine's counters of a run.
type SimInfo struct {
	Killed     int `json:"killed"`
	Passes     int `json:"passes"`
	Extensions int `json:"extensions,omitempty"`
	Saved      int `json:"saved,omitempty"`
}

// Timing is the content of timing.json.
type Timing struct {
	Started string  `json:"started"`
	Seconds float64 `json:"seconds"`
	Host    string  `json:"host"`
	Shard   string  `json:"shard"`
	PID     int     `json:"pid"`
	// PanicStack is the stack of a panic that failed the run.
	PanicStack string `json:"panic_stack,omitempty"`
}

// JobRow is one row of jobs.parquet: a job's request, its actual runtime
// and what happened to it. Times in seconds.
type JobRow struct {
	JobID           int64   `parquet:"job_id"` // SWF job number
	ID              int64   `parquet:"id"`     // dense index in the simulated workload
	Submit          int64   `parquet:"submit"`
	Procs           int64   `parquet:"procs"`
	Estimate        int64   `parquet:"estimate"`
	Runtime         int64   `parquet:"runtime"`
	User            int32   `parquet:"user"`
	Group           int32   `parquet:"group"`
	Queue           int32   `parquet:"queue"`
	Partition       int32   `parquet:"partition"`
	Start           int64   `parquet:"start"`
	End             int64   `parquet:"end"`
	Wait            int64   `parquet:"wait"`
	Response        int64   `parquet:"response"`
	BoundedSlowdown float64 `parquet:"bounded_slowdown"`
	Killed          bool    `parquet:"killed"`
	Bound           int64   `parquet:"bound"`     // promised start bound, -1 if none
	Predicted       int64   `parquet:"predicted"` // first runtime prediction, 0 if none
	Corrections     int64   `parquet:"corrections"`
	Extension       int64   `parquet:"extension"`
	Rejected        bool    `parquet:"rejected"`
}

// writeJobs writes jobs.parquet: one row (JobRow) per outcome, zstd
// pages (internal/parquet); the output is a pure function of the rows.
func writeJobs(w io.Writer, outcomes []job.Outcome, tau int64) error {
	rows := make([]JobRow, len(outcomes))
	for i := range outcomes {
		o := &outcomes[i]
		rows[i] = JobRow{
			JobID: o.SWFID, ID: int64(o.ID), Submit: o.Submit, Procs: int64(o.Procs), Estimate: o.Estimate,
			Runtime: o.Runtime, User: o.User, Group: o.Group, Queue: o.Queue, Partition: o.Partition,
			Start: o.Start, End: o.End, Wait: o.Wait(), Response: o.Response(), BoundedSlowdown: o.BoundedSlowdown(tau),
			Killed: o.Killed, Bound: o.Bound, Predicted: o.Predicted, Corrections: int64(o.Corrections),
			Extension: o.Extension, Rejected: o.Rejected,
		}
	}
	return parquet.WriteRows(w, rows)
}

// ReadJobs reads a jobs.parquet file.
func ReadJobs(path string) ([]JobRow, error) {
	return parquet.ReadFile[JobRow](path)
}

// writeJSON writes v indented, with a final newline.
func writeJSON(path string, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// marshalJSON encodes v indented, without escaping <, > and &, with a
// final newline.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeAtomic writes path through a temporary file in the same directory
// and a rename, so that readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, tmpPrefix+base+"-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func writeFileWith(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fill(bw); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Store is a results directory.
type Store struct {
	Dir string
}

func (s Store) runsDir() string         { return filepath.Join(s.Dir, RunsDir) }
func (s Store) runDir(id string) string { return filepath.Join(s.Dir, RunsDir, id) }
func (s Store) path(parts ...string) string {
	return filepath.Join(append([]string{s.Dir}, parts...)...)
}

// Init creates the directory and writes the experiment file and the plan
// (atomically: shards of one sweep write identical files at the same time).
func (s Store) Init(spec []byte, plan *Plan) error {
	if err := os.MkdirAll(s.runsDir(), 0o755); err != nil {
		return err
	}
	if err := writeAtomic(s.path(SpecFile), spec); err != nil {
		return err
	}
	b, err := encodePlan(plan)
	if err != nil {
		return err
	}
	return writeAtomic(s.path(PlanFile), b)
}

func encodePlan(plan *Plan) ([]byte, error) {
	return marshalJSON(plan)
}

// ReadPlan reads the plan of a results directory.
func (s Store) ReadPlan() (*Plan, error) {
	var p Plan
	if err := readJSON(s.path(PlanFile), &p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: not a results directory of backfill sweep", s.Dir, PlanFile)
		}
		return nil, err
	}
	return &p, nil
}

// Status returns the status of run id in the store ("" when absent).
func (s Store) Status(id string) string {
	var r Result
	if err := readJSON(filepath.Join(s.runDir(id), ResultFile), &r); err != nil {
		return ""
	}
	return r.Status
}

// RunIDs lists the run directories of the store, sorted, and the number
// of temporary directories left by interrupted runs.
func (s Store) RunIDs() (ids []string, tmp int, err error) {
	ents, err := os.ReadDir(s.runsDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), tmpPrefix):
			tmp++
		case e.IsDir():
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, tmp, nil
}

// ReadRun reads the configuration and result of run id.
func (s Store) ReadRun(id string) (*RunConfig, *Result, error) {
	var rc RunConfig
	var res Result
	if err := readJSON(filepath.Join(s.runDir(id), RunConfigFile), &rc); err != nil {
		return nil, nil, err
	}
	if err := readJSON(filepath.Join(s.runDir(id), ResultFile), &res); err != nil {
		return nil, nil, err
	}
	return &rc, &res, nil
}

// cleanTemp removes the temporary directories of run id left by an
// interrupted execution.
func (s Store) cleanTemp(id string) {
	matches, _ := filepath.Glob(filepath.Join(s.runsDir(), tmpPrefix+id+"-*"))
	for _, m := range matches {
		os.RemoveAll(m)
	}
}

// output is everything a run writes.
type output struct {
	config   RunConfig
	result   Result
	outcomes []job.Outcome
	tau      int64
	timing   Timing
	// panicStack is the stack of a panic in the run, kept in timing.json.
	panicStack string
}

// save writes a run's directory atomically. An existing directory of the
// same run (a failed earlier attempt, or --force) is replaced.
func (s Store) save(o *output) error {
	id := o.config.ID
	s.cleanTemp(id)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(s.runsDir(), tmpPrefix+id+"-"+hex.EncodeToString(rnd[:]))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	fail := func(err error) error {
		os.RemoveAll(tmp)
		return err
	}
	if err := writeJSON(filepath.Join(tmp, RunConfigFile), o.config); err != nil {
		return fail(err)
	}
	if o.outcomes != nil {
		if err := writeFileWith(filepath.Join(tmp, JobsFile), func(w io.Writer) error {
			return writeJobs(w, o.outcomes, o.tau)
		}); err != nil {
			return fail(err)
		}
	}
	o.timing.PanicStack = o.panicStack
	if err := writeJSON(filepath.Join(tmp, TimingFile), o.timing); err != nil {
		return fail(err)
	}
	// result.json last: its presence marks a complete run even on file
	// systems where the rename below is not atomic
	if err := writeJSON(filepath.Join(tmp, ResultFile), o.result); err != nil {
		return fail(err)
	}
	dst := s.runDir(id)
	if _, err := os.Stat(dst); err == nil {
		old := filepath.Join(s.runsDir(), tmpPrefix+id+"-old-"+hex.EncodeToString(rnd[:]))
		if err := os.Rename(dst, old); err != nil {
			return fail(err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fail(err)
	}
	return nil
}

func skippedMap(c workload.Counts) map[string]int {
	if c.Total() == 0 {
		return nil
	}
	m := map[string]int{}
	for _, e := range c {
		m[e.Reason] = e.N
	}
	return m
}
