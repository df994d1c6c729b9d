package model_test

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
	_ "github.com/backfill-hpc/backfill/workload/model/all"
)

func TestRegistry(t *testing.T) {
	var names []string
	for _, m := range model.List() {
		names = append(names, m.Name)
	}
	if len(names) != 3 || names[0] != "feitelson96" || names[1] != "jann97" || names[2] != "lublin" {
		t.Fatalf("models %v", names)
	}
	for _, bad := range []string{"nope", "lublin:x", "lublin:classes=1:classes=2", "feitelson96:pow2=-1"} {
		if _, err := model.New(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	m, err := model.New("feitelson96:repeat=0:pow2=3")
	if err != nil || m.Spec() != "feitelson96:pow2=3:repeat=0" {
		t.Fatalf("spec %v, %v", m, err)
	}
	if _, err := m.Generate(model.Config{Jobs: 10, Rate: 1, Load: 1}); err == nil {
		t.Error("rate and load together accepted")
	}
}

// TestHyperErlangSampler: the sample mean and second moment of the
// sampler match the distribution's.
func TestHyperErlangSampler(t *testing.T) {
	h := model.HyperErlang{P: 0.3, Rate1: 0.01, Rate2: 0.5, N: 3}
	s := h.NewSampler(model.Stream(1, "test"))
	const n = 200000
	var m1, m2 float64
	for i := 0; i < n; i++ {
		x := s.Rand()
		m1 += x
		m2 += x * x
	}
	m1 /= n
	m2 /= n
	sd := math.Sqrt(h.Moment(2) - h.Mean()*h.Mean())
	if math.Abs(m1-h.Mean()) > 4*sd/math.Sqrt(n) {
		t.Errorf("mean %g, want %g", m1, h.Mean())
	}
	if math.Abs(m2/h.Moment(2)-1) > 0.03 {
		t.Errorf("second moment %g, want %g", m2, h.Moment(2))
	}
}

func TestFinishAndCalibrate(t *testing.T) {
	jobs := []job.Job{{Request: job.Request{Submit: 5, Procs: 1}, Runtime: 0}, {Request: job.Request{Submit: 2, Procs: 2}, Runtime: 9}, {Request: job.Request{Submit: 5, Procs: 3}, Runtime: 4}}
	exec := []int32{1, 2, 3}
	model.Finish(jobs, exec)
	if jobs[0].Procs != 2 || jobs[1].Procs != 1 || jobs[2].Procs != 3 || exec[0] != 2 || exec[1] != 1 {
		t.Fatalf("order %+v %v", jobs, exec)
	}
	for i, j := range jobs {
		if j.ID != i || j.SWFID != int64(i+1) || j.Estimate != max(j.Runtime, 1) {
			t.Fatalf("job %d: %+v", i, j)
		}
	}
	// load of span-scaled jobs is reached exactly
	base := []job.Job{{Request: job.Request{Submit: 0, Procs: 4}, Runtime: 1000}, {Request: job.Request{Submit: 1000, Procs: 4}, Runtime: 1000}}
	got, k, l, err := model.Calibrate(0.25, 8, func(k float64) ([]job.Job, error) {
		out := append([]job.Job(nil), base...)
		out[1].Submit = int64(1000 * k)
		return out, nil
	})
	if err != nil || math.Abs(l-0.25) > 1e-3 || math.Abs(k-4) > 0.01 || got[1].Submit != 4000 {
		t.Fatalf("k %g load %g err %v", k, l, err)
	}
}
