package importer

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// submission is one line of testdata/slurm-harness.submitted.tsv, written
// by .ci/sacct-groundtruth.sh when it submitted the job.
type submission struct {
	tag, id, user, partition, qos string
	tasks, gpus                   int64
	limit                         string
	sleep                         int64
	expect, args                  string
}

func readSubmissions(t *testing.T, path string) []submission {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []submission
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 11 {
			t.Fatalf("%s:%d: %d columns", path, n+1, len(c))
		}
		num := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %q", path, n+1, s)
			}
			return v
		}
		out = append(out, submission{c[0], c[1], c[2], c[3], c[4], num(c[5]), num(c[6]), c[7], num(c[8]), c[9], c[10]})
	}
	return out
}

// limitOf is the time limit sbatch's --time gives, in seconds; "-" is the
// partition's MaxTime (debug: none, long: 2 h). Slurm keeps minutes. For
// a job without a limit in a partition without one, Slurm 22.05 records
// UNLIMITED, or for some jobs 365-00:00:00 (accepted as well: got).
func limitOf(t *testing.T, s submission, got int64) int64 {
	if s.limit == "-" {
		if s.partition == "long" {
			return 7200
		}
		if got == 365*86400 {
			return got
		}
		return -1
	}
	d, err := parseDuration([]byte(s.limit))
	if err != nil {
		t.Fatalf("limit %q: %v", s.limit, err)
	}
	return (d + 59) / 60 * 60
}

// TestHarnessGroundTruth imports the sacct dump recorded on a real Slurm
// cluster by .ci/sacct-groundtruth.sh and checks every job submitted
// against what the import made of it.
func TestHarnessGroundTruth(t *testing.T) {
	im, o := importFile(t, "testdata/slurm-harness.sacct.txt", Options{})
	subs := readSubmissions(t, "testdata/slurm-harness.submitted.tsv")
	if len(subs) < 200 {
		t.Fatalf("only %d submissions", len(subs))
	}
	if im.Dropped.Total() != 0 || im.Warnings.Total() != 0 {
		t.Errorf("dropped %v warnings %v (every job had ended when the dump was taken)", im.Dropped, im.Warnings)
	}
	byID := map[string][]*Job{}
	for k := 0; k < o.Len(); k++ {
		j, _ := o.Job(k)
		byID[j.ID] = append(byID[j.ID], j)
	}
	seen := map[string]bool{}
	one := func(s submission, id string) *Job {
		seen[id] = true
		js := byID[id]
		if len(js) != 1 {
			t.Errorf("%s %s: %d imported jobs, want 1", s.tag, id, len(js))
			return nil
		}
		return js[0]
	}
	common := func(s submission, j *Job, cpus int64) {
		where := fmt.Sprintf("%s %s (%s)", s.tag, j.ID, j.File+":"+strconv.Itoa(j.Line))
		if j.ReqCPUs != cpus || j.User != s.user || j.Partition != s.partition || j.Queue != s.qos {
			t.Errorf("%s: cpus %d user %s partition %s qos %s, submitted %d %s %s %s",
				where, j.ReqCPUs, j.User, j.Partition, j.Queue, cpus, s.user, s.partition, s.qos)
		}
		if s.gpus > 0 && j.GPUs != s.gpus {
			t.Errorf("%s: %d GPUs, submitted %d", where, j.GPUs, s.gpus)
		}
		if lim := limitOf(t, s, j.Limit); j.Limit != lim {
			t.Errorf("%s: limit %d, submitted %s (%d s)", where, j.Limit, s.limit, lim)
		}
	}
	ranFor := func(s submission, j *Job, lo, hi int64) {
		if !j.Ran || j.Run < lo || j.Run > hi {
			t.Errorf("%s %s: ran %v for %d s, want %d..%d", s.tag, j.ID, j.Ran, j.Run, lo, hi)
		}
	}
	const slack = 15 // seconds of start-up and accounting granularity on a loaded machine
	var prevEnd int64 = -1
	for _, s := range subs {
		switch s.tag {
		case "plain", "exclusive", "dep-head", "dependent", "steps", "failed", "timeout", "timeout-mmss":
			j := one(s, s.id)
			if j == nil {
				continue
			}
			common(s, j, s.tasks)
			want := map[string]string{"failed": "FAILED", "timeout": "TIMEOUT", "timeout-mmss": "TIMEOUT"}[s.tag]
			if want == "" {
				want = "COMPLETED"
			}
			if j.State != want || j.Status != map[string]int{"COMPLETED": 1}[want] {
				t.Errorf("%s %s: state %s status %d, want %s", s.tag, s.id, j.State, j.Status, want)
			}
			switch s.tag {
			case "timeout", "timeout-mmss":
				ranFor(s, j, j.Limit, j.Limit) // killed at the limit
			case "steps":
				ranFor(s, j, 2, 2+slack)
				if j.Steps < 4 { // batch, extern (when present) and three srun steps
					t.Errorf("steps %s: %d steps folded", s.id, j.Steps)
				}
			case "failed":
				ranFor(s, j, 1, 1+slack)
			default:
				ranFor(s, j, s.sleep, s.sleep+slack)
			}
			if s.tag == "exclusive" && j.AllocCPUs != 32 {
				t.Errorf("exclusive %s: %d CPUs allocated, want the whole node (32)", s.id, j.AllocCPUs)
			}
			if s.tag == "dependent" && (j.Eligible < prevEnd || o.im.submitOf(j) != j.Eligible) {
				t.Errorf("dependent %s: eligible %d before its predecessor's end %d", s.id, j.Eligible, prevEnd)
			}
			prevEnd = j.End
		case "cancel-running":
			if j := one(s, s.id); j != nil {
				common(s, j, s.tasks)
				if j.State != "CANCELLED" || j.Status != 5 {
					t.Errorf("%s %s: %s", s.tag, s.id, j.State)
				}
				ranFor(s, j, 0, s.sleep-1)
			}
		case "cancel-pending":
			if j := one(s, s.id); j != nil {
				common(s, j, s.tasks)
				if j.State != "CANCELLED" || j.Status != 5 || j.Ran || j.Run != -1 || j.Start != -1 {
					t.Errorf("%s %s: %s ran %v", s.tag, s.id, j.State, j.Ran)
				}
			}
		case "array", "array-step", "array-throttled", "array-cancel":
			lo, hi := arrayBounds(t, s.args)
			ran := 0
			for task := lo; task <= hi; task++ {
				id := s.id + "_" + strconv.FormatInt(task, 10)
				if s.tag == "array-cancel" && len(byID[id]) == 0 {
					// the tasks still pending when the array was
					// cancelled: sacct's time window does not list them
					continue
				}
				j := one(s, id)
				if j == nil {
					continue
				}
				common(s, j, s.tasks)
				if j.Ran {
					ran++
				}
				if s.tag != "array-cancel" {
					if j.State != "COMPLETED" {
						t.Errorf("%s %s: %s", s.tag, j.ID, j.State)
					}
					ranFor(s, j, s.sleep, s.sleep+slack)
				} else if !j.Ran && j.State != "CANCELLED" {
					t.Errorf("%s %s: never ran but %s", s.tag, j.ID, j.State)
				}
			}
			if s.tag == "array-cancel" && (ran == 0 || ran >= 4) { // %2: two at a time for 2-3 s of 20

				t.Errorf("array-cancel %s: %d of %d tasks ran, want some but not all", s.id, ran, hi-lo+1)
			}
		case "requeued", "nodefail-requeue":
			seen[s.id] = true
			js := byID[s.id]
			first := map[string]string{"requeued": "REQUEUED", "nodefail-requeue": "NODE_FAIL"}[s.tag]
			if len(js) < 2 || js[0].State != first || !js[0].Ran || js[len(js)-1].State != "COMPLETED" {
				var st []string
				for _, j := range js {
					st = append(st, j.State)
				}
				t.Errorf("%s %s: runs %v, want %s ... COMPLETED", s.tag, s.id, st, first)
				continue
			}
			for _, j := range js {
				common(s, j, s.tasks)
			}
			ranFor(s, js[len(js)-1], 2, 2+slack) // the second run sleeps 2 s
		case "nodefail":
			if j := one(s, s.id); j != nil {
				common(s, j, s.tasks)
				if j.State != "NODE_FAIL" || j.Status != 0 || !j.Ran {
					t.Errorf("nodefail %s: %s", s.id, j.State)
				}
			}
		case "held-cancel":
			// never eligible: sacct's time window does not list it
			if len(byID[s.id]) != 0 {
				t.Errorf("held-cancel %s: listed", s.id)
			}
			seen[s.id] = true
		default:
			t.Errorf("unknown tag %q", s.tag)
		}
	}
	for id := range byID {
		if !seen[id] {
			t.Errorf("imported job %s was not submitted", id)
		}
	}
}

// arrayBounds reads --array=LO-HI[%N] from the submission's arguments.
func arrayBounds(t *testing.T, args string) (int64, int64) {
	for _, a := range strings.Fields(args) {
		if v, ok := strings.CutPrefix(a, "--array="); ok {
			v, _, _ = strings.Cut(v, "%")
			lo, hi, _ := strings.Cut(v, "-")
			l, err1 := strconv.ParseInt(lo, 10, 64)
			h, err2 := strconv.ParseInt(hi, 10, 64)
			if err1 == nil && err2 == nil {
				return l, h
			}
		}
	}
	t.Fatalf("no --array=LO-HI in %q", args)
	return 0, 0
}
