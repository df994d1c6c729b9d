package policy

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestDecodeSnapshot: the common start of Restore refuses a policy that
// is not fresh, data that is not the snapshot's JSON and another
// version, each error naming the policy; a good snapshot decodes.
func TestDecodeSnapshot(t *testing.T) {
	type snap struct {
		V    int   `json:"v"`
		Wait []int `json:"wait"`
	}
	for _, c := range []struct {
		fresh bool
		data  string
		want  string // error part; "" for none
	}{
		{true, `{"v":1,"wait":[3,4]}`, ""},
		{false, `{"v":1}`, "not fresh"},
		{true, `{"v":1,"wait":"x"}`, "snapshot:"},
		{true, `[`, "snapshot:"},
		{true, `{"v":2}`, "version 2, expected 1"},
		{true, `{}`, "version 0, expected 1"},
	} {
		var s snap
		err := DecodeSnapshot("pol", c.fresh, []byte(c.data), &s, &s.V, 1)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.data, err)
		case c.want == "" && (len(s.Wait) != 2 || s.Wait[1] != 4):
			t.Errorf("%s: decoded %+v", c.data, s)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "pol: ")):
			t.Errorf("%s (fresh %v): error %v, want one with %q naming the policy", c.data, c.fresh, err, c.want)
		}
	}
}

// TestSnapshotJobAndReinsert: a snapshot's job IDs must be IDs of known
// jobs, listed once, and in arrival order when the policy keeps that
// order; the jobs are inserted in the order listed.
func TestSnapshotJobAndReinsert(t *testing.T) {
	jobs := map[int]*job.Request{1: {ID: 1}, 2: {ID: 2}, 5: {ID: 5}}
	lookup := func(id int) *job.Request { return jobs[id] }
	if _, err := SnapshotJob("pol", lookup, -1); err == nil || !strings.Contains(err.Error(), "bad job ID") {
		t.Errorf("ID -1: %v", err)
	}
	if _, err := SnapshotJob("pol", lookup, 1<<62); err == nil {
		t.Error("an unknown huge ID was accepted")
	}
	if j, err := SnapshotJob("pol", lookup, 5); err != nil || j != jobs[5] {
		t.Errorf("ID 5: %v, %v", j, err)
	}
	for _, c := range []struct {
		ids     []int
		arrival bool
		want    string // inserted IDs, or the error part
	}{
		{[]int{1, 2, 5}, true, "1 2 5"},
		{[]int{5, 1, 2}, false, "5 1 2"},
		{[]int{2, 1}, true, "out of arrival order"},
		{[]int{1, 1}, true, "listed twice"},
		{[]int{5, 1, 5}, false, "listed twice"},
		{[]int{1, 3}, true, "unknown job 3"},
	} {
		var got []string
		err := ReinsertWaiting("pol", c.ids, c.arrival, lookup, func(j *job.Request) { got = append(got, string(rune('0'+j.ID))) })
		if err != nil {
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v (arrival %v): %v, want %q", c.ids, c.arrival, err, c.want)
			}
			continue
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%v (arrival %v): inserted %s, want %s", c.ids, c.arrival, s, c.want)
		}
	}
}
