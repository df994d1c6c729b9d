package deadline_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// FuzzAdmission decodes a workload with deadlines from the fuzz input (5
// bytes a job: arrival gap, size, estimate, runtime, slack; a slack byte
// of 255 means no deadline) and checks that QoPS, MSB and MRT complete it
// with a schedule the auditor accepts, deadline check included, in kill
// and no-kill mode.
func FuzzAdmission(f *testing.F) {
	f.Add(uint8(4), []byte{0, 4, 10, 10, 0, 1, 2, 5, 5, 3, 0, 4, 10, 10, 20, 0, 1, 30, 30, 255})
	f.Add(uint8(1), []byte{0, 1, 1, 0, 0, 0, 1, 1, 1, 0})
	f.Add(uint8(63), []byte{5, 64, 255, 255, 255, 0, 1, 1, 255, 0, 0, 63, 9, 9, 9})
	f.Fuzz(func(t *testing.T, procs uint8, data []byte) {
		P := int(procs%64) + 1
		var jobs []job.Job
		var now int64
		for i := 0; i+4 < len(data) && len(jobs) < 150; i += 5 {
			now += int64(data[i] % 16)
			id := len(jobs)
			j := job.Job{Request: job.Request{ID: id, SWFID: int64(id + 1), Submit: now,
				Procs: int(data[i+1])%P + 1, Estimate: int64(data[i+2]) + 1}, Runtime: int64(data[i+3])}
			if data[i+4] != 255 {
				j.Deadline = now + j.Estimate + int64(data[i+4])*int64(data[i+4]%8)
			}
			jobs = append(jobs, j)
		}
		for _, noKill := range []bool{false, true} {
			for _, spec := range []string{"qops", "qops:k=0:h=llf", "msb", "mrt", "mrt:backtrack=0:nd=reject"} {
				s, err := policy.New(spec, P)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(jobs, s, sim.Options{Procs: P, NoKill: noKill})
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: P, Kill: !noKill, KnownRuntime: true, Expect: len(jobs), Deadlines: true})
				if !rep.OK() || (!noKill && rep.OverrunMisses > 0) {
					t.Fatalf("%s noKill=%v: %s", spec, noKill, rep.String())
				}
			}
		}
	})
}
