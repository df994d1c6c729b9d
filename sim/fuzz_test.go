package sim_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// FuzzSimulate decodes a workload from the fuzz input (4 bytes a job:
// arrival gap, size, estimate, runtime) and checks that every policy
// completes it with a schedule the auditor accepts, in kill and no-kill
// mode.
func FuzzSimulate(f *testing.F) {
	f.Add(uint8(8), []byte{0, 8, 10, 10, 1, 4, 5, 20, 0, 8, 3, 1, 2, 2, 100, 50})
	f.Add(uint8(1), []byte{0, 1, 1, 0, 0, 1, 1, 0})
	f.Add(uint8(64), []byte{5, 64, 255, 255, 0, 1, 1, 255, 0, 63, 9, 9})
	f.Fuzz(func(t *testing.T, procs uint8, data []byte) {
		P := int(procs%64) + 1
		var jobs []job.Job
		var now int64
		for i := 0; i+3 < len(data) && len(jobs) < 200; i += 4 {
			now += int64(data[i] % 16)
			size := int(data[i+1])%P + 1
			est := int64(data[i+2]) + 1
			run := int64(data[i+3])
			id := len(jobs)
			jobs = append(jobs, job.Job{Request: job.Request{ID: id, SWFID: int64(id + 1), Submit: now, Procs: size, Estimate: est}, Runtime: run})
		}
		for _, noKill := range []bool{false, true} {
			for _, spec := range []string{"fcfs", "easy", "easy:depth=3", "conservative"} {
				s, err := policy.New(spec, P)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(jobs, s, sim.Options{Procs: P, NoKill: noKill})
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: P, Kill: !noKill, KnownRuntime: true, FCFS: policy.InArrivalOrder(s), Expect: len(jobs)})
				if !rep.OK() {
					t.Fatalf("%s noKill=%v: %s", spec, noKill, rep.String())
				}
			}
		}
	})
}
