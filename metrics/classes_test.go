package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The default short/long split is the class rule runtime:3600.
func TestClassesRuntimeIsShortLong(t *testing.T) {
	for _, opt := range []Options{{Procs: 4}, {Procs: 4, WarmUp: 15}, {Procs: 4, Drain: 15}} {
		s := Summarize(sample(), opt)
		rule, err := ParseClassRule("runtime:3600")
		if err != nil {
			t.Fatal(err)
		}
		c := Classes(sample(), opt, rule)
		if len(c) != 2 || c[0].Stats != s.Short || c[1].Stats != s.Long {
			t.Fatalf("%+v: classes %+v, want short %+v long %+v", opt, c, s.Short, s.Long)
		}
		if c[0].Label != "runtime <= 3600" || c[1].Label != "runtime > 3600" {
			t.Fatalf("labels %q %q", c[0].Label, c[1].Label)
		}
	}
}

// By size with three classes: sizes 2, 1, 4, 3, 1 (ids 0..4).
func TestClassesBySize(t *testing.T) {
	rule, err := ParseClassRule("size:1,3")
	if err != nil {
		t.Fatal(err)
	}
	c := Classes(sample(), Options{}, rule)
	want := []struct {
		label string
		jobs  int
		wait  float64
	}{{"size <= 1", 2, (10 + 4060) / 2.0}, {"1 < size <= 3", 2, (0 + 4070) / 2.0}, {"size > 3", 1, 80}}
	for i, w := range want {
		if c[i].Label != w.label || c[i].Stats.Jobs != w.jobs || c[i].Stats.MeanWait != w.wait {
			t.Errorf("class %d: %q %d jobs mean wait %.1f, want %q %d %.1f", i, c[i].Label, c[i].Stats.Jobs, c[i].Stats.MeanWait, w.label, w.jobs, w.wait)
		}
	}
	var buf bytes.Buffer
	if err := WriteClassTable(&buf, rule, []ClassRow{{"easy", c}}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "class (size:1,3)") || strings.Contains(got, "pred MAE") || strings.Count(got, "\n") != 4 {
		t.Fatalf("table:\n%s", got)
	}
	// an empty class (no job above size 100) has no means: "—", not 0.0
	rule, err = ParseClassRule("size:100")
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := WriteClassTable(&buf, rule, []ClassRow{{"easy", Classes(sample(), Options{}, rule)}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "easy") || strings.Count(lines[2], "—") != 4 || strings.Contains(lines[2], "0.0") {
		t.Fatalf("empty class table:\n%s", buf.String())
	}
}

// Predictions: ids 0..4 ran 100, 5, 4000, 7200, 0 s. Predicted 50 (under
// by 50), 5 (exact), 5000 (over by 1000, 2 corrections), 7200 (exact), and
// none for id 4.
func TestPredictionStats(t *testing.T) {
	outs := sample()
	pred := map[int][2]int64{0: {50, 1}, 1: {5, 0}, 2: {5000, 2}, 3: {7200, 0}}
	for i := range outs {
		if p, ok := pred[outs[i].ID]; ok {
			outs[i].Predicted, outs[i].Corrections = p[0], int(p[1])
		}
	}
	p := Predictions(outs, Options{})
	if p == nil || p.Jobs != 4 || p.MAE != (50+0+1000+0)/4.0 || p.Under != 0.25 || p.Corrections != 3 || p.Corrected != 2 {
		t.Fatalf("Predictions = %+v", p)
	}
	if Predictions(sample(), Options{}) != nil {
		t.Fatal("predictions reported for a schedule without any")
	}
	s := Summarize(outs, Options{Procs: 4})
	if s.Prediction == nil || *s.Prediction != *p {
		t.Fatalf("Summary.Prediction = %+v", s.Prediction)
	}
	rule, _ := ParseClassRule("runtime:3600")
	c := Classes(outs, Options{}, rule)
	if c[0].Prediction.Jobs != 2 || c[1].Prediction.Jobs != 2 || math.Abs(c[1].Prediction.MAE-500) > 1e-9 {
		t.Fatalf("per-class predictions %+v %+v", c[0].Prediction, c[1].Prediction)
	}
	// the table gets a prediction block, the JSON a prediction object;
	// without predictions neither appears
	var tb, js bytes.Buffer
	rows := []Row{{"easy++", s}, {"easy", Summarize(sample(), Options{Procs: 4})}}
	if err := WriteTable(&tb, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "pred MAE") || !strings.Contains(tb.String(), "262.5") {
		t.Fatalf("table lacks the prediction block:\n%s", tb.String())
	}
	if err := WriteJSON(&js, rows); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back[0]["prediction"]; !ok {
		t.Fatal("JSON lacks prediction for easy++")
	}
	if _, ok := back[1]["prediction"]; ok {
		t.Fatal("JSON has prediction for a policy without predictions")
	}
	tb.Reset()
	if err := WriteTable(&tb, rows[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tb.String(), "pred") {
		t.Fatal("prediction block without predictions")
	}
}

func TestParseClassRule(t *testing.T) {
	for _, ok := range []string{"runtime:3600", "size:1,8,64", "estimate:900,3600,36000", "runtime:-1"} {
		r, err := ParseClassRule(ok)
		if err != nil || r.String() != ok {
			t.Errorf("ParseClassRule(%q) = %v, %v", ok, r, err)
		}
	}
	for _, bad := range []string{"", "runtime", "runtime:", "wait:10", "size:8,1", "size:1,1", "size:x"} {
		if _, err := ParseClassRule(bad); err == nil {
			t.Errorf("ParseClassRule(%q) succeeded", bad)
		}
	}
}
