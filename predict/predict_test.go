package predict

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func req(id int, user int32, est int64) *job.Request {
	return &job.Request{ID: id, User: user, Estimate: est, Procs: 1}
}

func TestHistoryMeanOfLastK(t *testing.T) {
	h := NewHistory(2)
	a := req(0, 7, 1000)
	if got := h.Predict(0, a); got != 1000 {
		t.Fatalf("no history: got %d, want the estimate 1000", got)
	}
	h.Ended(10, req(1, 7, 500), 100)
	if got := h.Predict(10, a); got != 1000 {
		t.Fatalf("one ended job of two: got %d, want the estimate", got)
	}
	h.Ended(20, req(2, 7, 500), 301)
	if got := h.Predict(20, a); got != 200 { // (100+301)/2 rounded down
		t.Fatalf("got %d, want 200", got)
	}
	h.Ended(30, req(3, 7, 500), 501) // evicts 100
	if got := h.Predict(30, a); got != 401 {
		t.Fatalf("got %d, want (301+501)/2 = 401", got)
	}
	// other users and unknown users have their own (no) history
	if got := h.Predict(30, req(4, 8, 50)); got != 50 {
		t.Fatalf("other user: got %d, want its estimate", got)
	}
	h.Ended(40, req(5, -1, 9), 1)
	h.Ended(40, req(6, -1, 9), 1)
	if got := h.Predict(40, req(7, -1, 60)); got != 60 {
		t.Fatalf("unknown user: got %d, want its estimate", got)
	}
}

func TestPlanClampsToEstimate(t *testing.T) {
	pl := NewPlan(NewHistory(1), ToEstimate{})
	pl.P.Ended(0, req(0, 1, 10), 5000)
	if d := pl.Submit(0, req(1, 1, 600)); d != 600 {
		t.Fatalf("prediction above the estimate: planned %d, want 600", d)
	}
	pl.P.Ended(0, req(2, 1, 10), 0)
	if d := pl.Submit(0, req(3, 1, 600)); d != 1 {
		t.Fatalf("prediction 0: planned %d, want 1", d)
	}
	if first, n, ok := pl.Prediction(req(3, 1, 600)); !ok || first != 1 || n != 0 {
		t.Fatalf("Prediction = %d %d %v", first, n, ok)
	}
	if _, _, ok := Default().Prediction(req(3, 1, 600)); ok {
		t.Fatal("the estimate plan reports a prediction")
	}
}

// A job predicted to run 100 s (estimate 10000) started at 1000 and still
// runs at 1100, 1200, ...
func TestCorrectToEstimate(t *testing.T) {
	pl := NewPlan(NewHistory(1), ToEstimate{})
	j := req(1, 1, 10000)
	pl.P.Ended(0, req(0, 1, 10), 100)
	pl.Submit(0, j)
	if end := pl.Extender(1100)(j, 1000, 1100); end != 11000 {
		t.Fatalf("corrected end %d, want start+estimate 11000", end)
	}
	if _, n, _ := pl.Prediction(j); n != 1 {
		t.Fatalf("%d corrections, want 1", n)
	}
	// past the estimate (no-kill): now+1, not a correction
	if end := pl.Extender(11000)(j, 1000, 11000); end != 11001 {
		t.Fatalf("overrun end %d, want 11001", end)
	}
	if _, n, _ := pl.Prediction(j); n != 1 {
		t.Fatalf("%d corrections after an estimate overrun, want 1", n)
	}
}

// The stepwise rule gives the same result whether the policy looks at
// every predicted end or only much later.
func TestStepIndependentOfPassTimes(t *testing.T) {
	mk := func() (*Plan, *job.Request) {
		pl := NewPlan(NewHistory(1), Step{})
		pl.P.Ended(0, req(0, 1, 10), 100)
		j := req(1, 1, 50000)
		pl.Submit(0, j)
		return pl, j
	}
	const start = 1000
	a, ja := mk()
	end := int64(start + 100)
	var ends []int64
	for end <= start+3000 {
		end = a.Extender(end)(ja, start, end)
		ends = append(ends, end)
	}
	want := []int64{start + 160, start + 400, start + 1000, start + 1900, start + 3700}
	if len(ends) != len(want) {
		t.Fatalf("ends %v, want %v", ends, want)
	}
	for i := range want {
		if ends[i] != want[i] {
			t.Fatalf("ends %v, want %v", ends, want)
		}
	}
	b, jb := mk()
	if got := b.Extender(start+3000)(jb, start, start+100); got != start+3700 {
		t.Fatalf("one late look: end %d, want %d", got, start+3700)
	}
	_, na, _ := a.Prediction(ja)
	_, nb, _ := b.Prediction(jb)
	if na != 5 || nb != 5 {
		t.Fatalf("corrections %d (each end) and %d (one look), want 5 and 5", na, nb)
	}
	// the ladder ends at the estimate
	c, jc := mk()
	if got := c.Extender(start+49999)(jc, start, start+100); got != start+50000 {
		t.Fatalf("end %d, want start+estimate", got)
	}
}

func TestParse(t *testing.T) {
	for _, ok := range [][2]string{{"", ""}, {"estimate", "estimate"}, {"history", "step"}, {"history-1", ""}, {"history-1000", "step"}} {
		pl, err := Parse(ok[0], ok[1])
		if err != nil {
			t.Fatalf("Parse(%q, %q): %v", ok[0], ok[1], err)
		}
		if ok[0] == "history" && pl.P.Name() != "history-2" {
			t.Fatalf("history is %s, want history-2", pl.P.Name())
		}
	}
	for _, bad := range [][2]string{{"history-0", ""}, {"history-x", ""}, {"history-1001", ""}, {"history2", ""}, {"", "x"}, {"nope", ""}} {
		if _, err := Parse(bad[0], bad[1]); err == nil {
			t.Errorf("Parse(%q, %q) succeeded", bad[0], bad[1])
		}
	}
	if p := Default().Params(); p != "" {
		t.Errorf("default params %q", p)
	}
	pl, _ := Parse("history-3", "step")
	if p := pl.Params(); p != ":predict=history-3:correct=step" {
		t.Errorf("params %q", p)
	}
}
