package metrics

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func kout(submit, start, run int64, procs int, res ...int) job.Outcome {
	return job.Outcome{Job: job.Job{Request: job.Request{Submit: submit, Procs: procs, Res: res}, Runtime: run}, Start: start, End: start + run}
}

func TestMeanQueueAndWeightedResponse(t *testing.T) {
	o := []job.Outcome{
		kout(0, 0, 10, 2, 4),  // waits 0; weight (2/4 + 4/8)·10 = 10; response 10
		kout(0, 5, 10, 4, 0),  // waits [0,5); weight (4/4)·10 = 10; response 15
		kout(2, 12, 20, 1, 8), // waits [2,12); weight (1/4 + 8/8)·20 = 25; response 30
	}
	// over [0, 10): waiting 5 + 8 = 13 job-seconds → 1.3
	if q := MeanQueue(o, 0, 10); math.Abs(q-1.3) > 1e-12 {
		t.Errorf("MeanQueue = %g, want 1.3", q)
	}
	if f, l := ArrivalSpan(o); f != 0 || l != 2 {
		t.Errorf("ArrivalSpan = %d, %d", f, l)
	}
	caps := []int{4, 8}
	want := (10*10 + 10*15 + 25*30) / 45.0
	if w := WeightedResponse(o, caps); math.Abs(w-want) > 1e-9 {
		t.Errorf("WeightedResponse = %g, want %g", w, want)
	}
	if MeanQueue(o, 5, 5) != 0 || WeightedResponse(nil, caps) != 0 {
		t.Error("empty cases")
	}
}
