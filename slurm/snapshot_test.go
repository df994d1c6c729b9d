package slurm

import (
	"encoding/json"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestMultifactorSnapshotVersions: a snapshot restored into a fresh
// priority gives back the same state (its own snapshot is the same
// bytes), from the current encoding (version 2: job rows) and from the
// first one (version 1: job objects), which snapshots saved before still
// hold; and the restored priority then decides like the original.
func TestMultifactorSnapshotVersions(t *testing.T) {
	c := DefaultConf()
	c.WeightFairshare, c.WeightAge, c.WeightJobSize, c.CalcPeriod, c.DecayHalfLife = 10000, 1000, 100, 60, 600
	reqs := map[int]*job.Request{}
	m := NewMultifactor(c, nil, 64, nil, 0)
	for i := 0; i < 40; i++ {
		j := req(i, int64(i*37), 1+i%16, int32(i%5), int32(i%2))
		reqs[i] = j
		m.Submitted(j.Submit, j)
		if i%3 == 0 {
			m.Started(j.Submit+5, j)
		}
		if i%7 == 6 {
			m.Ended(j.Submit+20, reqs[i-3])
			delete(reqs, i-3)
		}
	}
	m.Advance(2000)
	v2, err := m.SnapshotOrder()
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(id int) *job.Request { return reqs[id] }
	// version 1: the same state with the jobs as objects
	var s mfSnapshot
	if err := json.Unmarshal(v2, &s); err != nil {
		t.Fatal(err)
	}
	back := NewMultifactor(c, nil, 64, nil, 0)
	if err := back.RestoreOrder(2000, v2, lookup); err != nil {
		t.Fatal(err)
	}
	s.Jobs = back.savedJobs()
	s.V, s.Rows = 1, nil
	v1, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"v1": v1, "v2": v2} {
		r := NewMultifactor(c, nil, 64, nil, 0)
		if err := r.RestoreOrder(2000, data, lookup); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := r.SnapshotOrder()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(v2) {
			t.Fatalf("%s: restored, the state is\n%s\nnot\n%s", name, again, v2)
		}
	}
	// the restored priority decides like the original: priorities and
	// factors after the calculations up to 5,000
	r := NewMultifactor(c, nil, 64, nil, 0)
	if err := r.RestoreOrder(2000, v2, lookup); err != nil {
		t.Fatal(err)
	}
	r.Advance(5000)
	m.Advance(5000)
	for id, j := range reqs {
		if r.Priority(j) != m.Priority(j) || r.Factors(j) != m.Factors(j) {
			t.Fatalf("job %d at 5000: priority %d, want %d", id, r.Priority(j), m.Priority(j))
		}
	}
}

// savedJobs lists the jobs as version 1 saved them.
func (m *Multifactor) savedJobs() []mfJobState {
	var out []mfJobState
	for _, x := range m.jobs {
		if x != nil {
			out = append(out, mfJobState{ID: x.j.ID, Start: x.start, Prio: x.prio, F: x.f})
		}
	}
	return out
}
