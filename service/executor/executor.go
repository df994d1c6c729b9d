// Package executor runs the jobs the live service starts: none, local or slurm.
//
// It runs the jobs that the live scheduler service decides
// to start: none (advisor mode: a resource manager polls the decisions and
// reports ends), local (each job's command as a local process group), and
// slurm (jobs submitted to Slurm held, released when the policy starts
// them, ends read back from Slurm).
//
// The service calls an executor from one goroutine, in the order of its
// decisions, and only after the decision is committed to the state
// database. An executor reports what it learns (a job ended, a handle)
// through Events, from any goroutine.
package executor

import (
	"fmt"
	"log/slog"
	"strings"
)

// Job is what an executor knows of a job.
type Job struct {
	// ID is the service's public job id; Tag is unique across services
	// and restarts of one state directory ("bf-<instance>-<id>"), used to
	// find a job again after a crash.
	ID  int64
	Tag string
	// Procs and Estimate (seconds) are the request.
	Procs    int
	Estimate int64
	Command  string
	User     string
	Name     string
	// Workdir is the absolute submit directory ("" if none given).
	Workdir string
	// Ref is the handle an earlier Submit or Start returned ("" if none).
	Ref string
}

// Events receives what an executor learns.
type Events interface {
	// Ended reports that job id ended by itself, with its exit status
	// (nil if unknown) and a note (e.g. "lost after restart").
	Ended(id int64, exit *int, note string)
}

// Status is a running job's state found by Reconcile.
type Status struct {
	Running bool
	Exit    *int   // when it ended
	Note    string // when it ended: how the end was learned
}

// Executor runs jobs.
type Executor interface {
	// Name is none, local or slurm.
	Name() string
	// Submit is called when a job is admitted; it returns a handle to
	// store ("" for none). Slurm submits a held job.
	Submit(j Job) (ref string, err error)
	// Start launches j now; it returns the handle to store.
	Start(j Job) (ref string, err error)
	// Kill stops running job j (its limit was reached, or it was
	// cancelled).
	Kill(j Job) error
	// Cancel drops waiting job j (cancelled before it started).
	Cancel(j Job) error
	// Reconcile is called once after a restart, before any other call,
	// with the jobs the state database says are running and waiting. It
	// returns the status of each running job (and resumes watching those
	// still running) and makes sure each waiting job is ready to start.
	Reconcile(running, waiting []Job) (map[int64]Status, error)
	// Close stops watching (running jobs are left alone).
	Close() error
}

// None is the advisor executor: it runs nothing. A resource manager polls
// the service's decisions (GET /v1/decisions) and reports ends.
type None struct{}

// Name implements Executor.
func (None) Name() string { return "none" }

// Submit implements Executor.
func (None) Submit(Job) (string, error) { return "", nil }

// Start implements Executor.
func (None) Start(Job) (string, error) { return "", nil }

// Kill implements Executor.
func (None) Kill(Job) error { return nil }

// Cancel implements Executor.
func (None) Cancel(Job) error { return nil }

// Reconcile implements Executor: running jobs stay running until the
// resource manager reports their end (or their limit passes).
func (None) Reconcile(running, _ []Job) (map[int64]Status, error) {
	out := make(map[int64]Status, len(running))
	for _, j := range running {
		out[j.ID] = Status{Running: true}
	}
	return out, nil
}

// Close implements Executor.
func (None) Close() error { return nil }

// Names lists the executors.
var Names = []string{"none", "local", "slurm"}

// Options configure New.
type Options struct {
	// Dir is the service's state directory; the executor keeps its own
	// files in it (local: DIR/run/ID, the jobs' process ids and exit
	// statuses).
	Dir string
	// Instance identifies the state directory (local: the job directory
	// and cgroups are bound to it).
	Instance string
	// JobRoot is where the local executor makes the job directories
	// (default DIR-jobs; never inside DIR).
	JobRoot string
	// RunAs is the account jobs run as (local: name or UID[:GID]);
	// RunAsMap maps service users to their own accounts.
	RunAs    string
	RunAsMap map[string]string
	// Env lists further variables passed from the service's environment
	// to jobs (beyond EnvAllowlist).
	Env []string
	// Cgroup is "auto" (default: a cgroup v2 per job where the service
	// can create them, else a logged fallback), "off", or the absolute
	// path of a delegated cgroup v2 directory (required to work).
	Cgroup string
	// Logger receives warnings (nil: discarded).
	Logger *slog.Logger
	// Procs is the machine size (local: processor slots).
	Procs int
	// Slurm: extra sbatch arguments (e.g. --partition=debug).
	SbatchArgs []string
	// Slurm: poll interval in milliseconds (default 1000).
	PollMillis int
}

// New returns the executor called name.
func New(name string, ev Events, opt Options) (Executor, error) {
	switch name {
	case "", "none":
		return None{}, nil
	case "local":
		return NewLocal(ev, opt)
	case "slurm":
		return NewSlurm(ev, opt)
	}
	return nil, fmt.Errorf("unknown executor %q (known: %s)", name, strings.Join(Names, ", "))
}
