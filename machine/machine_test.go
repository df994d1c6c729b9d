package machine

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func TestParse(t *testing.T) {
	m, err := Parse([]byte(`name: site
nodes:
  - count: 2
    cores: 4
    memory: 16G
    partitions: [batch]
    prefix: cn
  - cores: 8
    gpus: 4
    partitions: [gpu]
`), "site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m.Procs() != 16 || len(m.Nodes) != 3 || m.Offset(2) != 8 || m.MaxCores() != 8 ||
		m.Nodes[0].Name != "cn0" || m.Nodes[2].Name != "node2" || m.Nodes[1].MemoryKB != 16<<20 || m.Nodes[2].GPUs != 4 {
		t.Errorf("%+v", m)
	}
	for _, c := range []struct{ in, want string }{
		{"nodes: []", "site.yaml: nodes: expected at least one entry"},
		{"nodes:\n  - count: 0\n    cores: 4", "site.yaml: nodes[0]: count: expected at least 1, found 0"},
		{"nodes:\n  - cores: 0", "site.yaml: nodes[0]: cores: expected at least 1, found 0"},
		{"nodes:\n  - cores: 2\n    memory: lots", `site.yaml: nodes[0]: memory: expected a size such as 192G or 512M, found "lots"`},
		{"nodes:\n  - cores: 2\n    cpus: 3", "site.yaml: line 3: field cpus not found"},
		{"nodes: [", "site.yaml: line 1: did not find expected node content"},
	} {
		if _, err := Parse([]byte(c.in), "site.yaml"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// place places jobs (id, k) in order and returns their interval sets.
func place(t *testing.T, a *Allocator, jobs ...[2]int) []string {
	t.Helper()
	var out []string
	for _, j := range jobs {
		if err := a.Place(j[0], j[1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, a.String(j[0]))
	}
	return out
}

// TestRules: three nodes of 4 cores (cores 0-3, 4-7, 8-11), worked by hand.
func TestRules(t *testing.T) {
	m, _ := Uniform(3, 4)
	// job 0: 3 cores, job 1: 2 cores, release job 0, job 2: 3 cores, job 3: 2 cores
	type step struct {
		rule Rule
		want []string
	}
	for _, c := range []step{
		// first fit: 0: 0-2; 1: 3-4 (node 0's last core, then node 1); after
		// releasing 0: 2 takes 0-2; 3 takes 5-6
		{FirstFit, []string{"0-2", "3-4", "0-2", "5-6"}},
		// best fit: 0: all nodes have 4 free, lowest index: 0-2 (node 0 has 1
		// left); 1: fewest free >= 2 is node 1 (4): 4-5; release 0 (node 0
		// back to 4); 2: fewest free >= 3: nodes 0 (4) and 2 (4), node 1 has
		// 2: node 0: 0-2; 3: 2 cores: node 1 has exactly 2: 6-7
		{BestFit, []string{"0-2", "4-5", "0-2", "6-7"}},
		// contiguous: 0: 0-2; 1: 3-4; release 0; 2: the lowest run of 3 is
		// 0-2; 3: lowest run of 2 after: 5-6
		{Contiguous, []string{"0-2", "3-4", "0-2", "5-6"}},
	} {
		a := NewAllocator(m, c.rule, 4)
		got := place(t, a, [2]int{0, 3}, [2]int{1, 2})
		if err := a.Release(0); err != nil {
			t.Fatal(err)
		}
		got = append(got, place(t, a, [2]int{2, 3}, [2]int{3, 2})...)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%v: %v, want %v", c.rule, got, c.want)
		}
		if a.Free() != 12-7 {
			t.Errorf("%v: %d free", c.rule, a.Free())
		}
	}
}

// TestBestFitSpans: a job larger than any node's free cores takes the
// emptiest nodes first, then best-fits the rest.
func TestBestFitSpans(t *testing.T) {
	m, _ := Uniform(3, 4)
	a := NewAllocator(m, BestFit, 4)
	// 0: 1 core on node 0 (0); 1: 3 cores: fewest free >= 3 is node 0 (3): 1-3;
	// 2: 1 core: fewest free >= 1: node 1 (4) and node 2 (4): 4;
	// 3: 6 cores: no node has 6: node 2 (4 free): 8-11, rest 2: fewest free
	// >= 2 is node 1 (3): 5-6
	got := place(t, a, [2]int{0, 1}, [2]int{1, 3}, [2]int{2, 1}, [2]int{3, 6})
	want := []string{"0", "1-3", "4", "5-6 8-11"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%v, want %v", got, want)
	}
	if a.Stats.Split != 0 || a.Stats.ExtraNodes != 0 || a.Stats.Scattered != 1 {
		// job 3 needs 2 nodes (6 / 4) and uses 2: not split beyond need
		t.Errorf("stats %+v", a.Stats)
	}
	if err := a.Place(4, 2); err == nil {
		t.Error("placed 2 cores with 1 free")
	}
	if err := a.Release(9); err == nil {
		t.Error("released a job never placed")
	}
}

// TestContiguousFallback: no run long enough: first fit, scattered.
func TestContiguousFallback(t *testing.T) {
	m, _ := Uniform(1, 8)
	a := NewAllocator(m, Contiguous, 8)
	place(t, a, [2]int{0, 2}, [2]int{1, 2}, [2]int{2, 2}, [2]int{3, 2})
	a.Release(0)
	a.Release(2)
	if got := place(t, a, [2]int{4, 4}); got[0] != "0-1 4-5" || a.Stats.Scattered != 1 {
		t.Errorf("%v %+v", got, a.Stats)
	}
}

// TestNeverTwice: random places and releases on an odd machine; a core is
// never held by two jobs, and the free count matches.
func TestNeverTwice(t *testing.T) {
	m, err := Parse([]byte("nodes:\n  - count: 5\n    cores: 3\n  - count: 2\n    cores: 70\n  - cores: 1\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []Rule{FirstFit, BestFit, Contiguous} {
		a := NewAllocator(m, rule, 0)
		owner := make([]int, m.Procs())
		for i := range owner {
			owner[i] = -1
		}
		var live []int
		seed := uint32(7)
		rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
		for id := 0; id < 3000; id++ {
			if len(live) > 0 && (rnd(3) == 0 || a.Free() < 10) {
				k := rnd(len(live))
				v := live[k]
				live = append(live[:k], live[k+1:]...)
				for _, iv := range a.Intervals(v) {
					for c := iv[0]; c <= iv[1]; c++ {
						owner[c] = -1
					}
				}
				if err := a.Release(v); err != nil {
					t.Fatal(err)
				}
			}
			k := 1 + rnd(min(a.Free(), 90))
			if err := a.Place(id, k); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, iv := range a.Intervals(id) {
				for c := iv[0]; c <= iv[1]; c++ {
					if owner[c] != -1 {
						t.Fatalf("%v: core %d given to job %d while job %d holds it", rule, c, id, owner[c])
					}
					owner[c] = id
					n++
				}
			}
			if n != k {
				t.Fatalf("%v: job %d got %d cores, asked %d", rule, id, n, k)
			}
			live = append(live, id)
			held := 0
			for _, o := range owner {
				if o >= 0 {
					held++
				}
			}
			if held+a.Free() != m.Procs() {
				t.Fatalf("%v: %d held + %d free != %d", rule, held, a.Free(), m.Procs())
			}
		}
	}
}

// TestIdleWhileWaiting: 4 cores; job 0 (3 cores) runs 0-10; job 1 (2
// cores) is submitted at 2 and waits until 10: 1 core idle for 8 s; job 2
// (1 core) submitted at 4 starts at once, leaving 0 idle from 4 to 10.
func TestIdleWhileWaiting(t *testing.T) {
	mk := func(id int, submit, start, end int64, procs int) job.Outcome {
		return job.Outcome{Job: job.Job{Request: job.Request{ID: id, Submit: submit, Procs: procs}}, Start: start, End: end}
	}
	outs := []job.Outcome{mk(0, 0, 0, 10, 3), mk(1, 2, 10, 20, 2), mk(2, 4, 4, 10, 1)}
	got := IdleWhileWaiting(outs, 4)
	// waiting from 2 to 10 (8 s); idle 1 core from 2 to 4 (2 core-s), 0 from 4 to 10
	if got.Waiting != 8 || got.CoreSeconds != 2 {
		t.Errorf("%+v, want waiting 8, 2 core-seconds", got)
	}
}

// refBestFit is the BestFit rule written plainly, core by core.
func refBestFit(m *Machine, free []bool, k int) [][2]int {
	nfree := func(n int) int {
		c := 0
		for x := m.Offset(n); x < m.Offset(n)+m.Nodes[n].Cores; x++ {
			if free[x] {
				c++
			}
		}
		return c
	}
	take := func(n, want int) int {
		got := 0
		for x := m.Offset(n); x < m.Offset(n)+m.Nodes[n].Cores && got < want; x++ {
			if free[x] {
				free[x] = false
				got++
			}
		}
		return got
	}
	var cores []int
	before := append([]bool(nil), free...)
	for k > 0 {
		best := -1
		for n := range m.Nodes {
			if f := nfree(n); f >= k && (best < 0 || f < nfree(best)) {
				best = n
			}
		}
		if best >= 0 {
			k -= take(best, k)
			break
		}
		most := 0
		for n := range m.Nodes {
			if nfree(n) > nfree(most) {
				most = n
			}
		}
		k -= take(most, k)
	}
	for x := range free {
		if before[x] && !free[x] {
			cores = append(cores, x)
		}
	}
	var iv [][2]int
	for _, c := range cores {
		if len(iv) > 0 && iv[len(iv)-1][1] == c-1 {
			iv[len(iv)-1][1] = c
		} else {
			iv = append(iv, [2]int{c, c})
		}
	}
	return iv
}

// TestBestFitMatchesReference: random places and releases; the allocator
// (with its bulk paths) and the plain rule give the same cores.
func TestBestFitMatchesReference(t *testing.T) {
	for _, spec := range []string{"nodes:\n  - count: 40\n    cores: 4\n", "nodes:\n  - count: 6\n    cores: 3\n  - count: 9\n    cores: 8\n  - count: 3\n    cores: 3\n"} {
		m, err := Parse([]byte(spec), "m")
		if err != nil {
			t.Fatal(err)
		}
		a := NewAllocator(m, BestFit, 0)
		free := make([]bool, m.Procs())
		for i := range free {
			free[i] = true
		}
		var live []int
		seed := uint32(11)
		rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
		for id := 0; id < 2000; id++ {
			for len(live) > 0 && (rnd(2) == 0 || a.Free() < 20) {
				k := rnd(len(live))
				v := live[k]
				live = append(live[:k], live[k+1:]...)
				for _, iv := range a.Intervals(v) {
					for c := iv[0]; c <= iv[1]; c++ {
						free[c] = true
					}
				}
				if err := a.Release(v); err != nil {
					t.Fatal(err)
				}
			}
			k := 1 + rnd(min(a.Free(), 40))
			want := FormatIntervals(refBestFit(m, free, k))
			if err := a.Place(id, k); err != nil {
				t.Fatal(err)
			}
			if got := a.String(id); got != want {
				t.Fatalf("job %d (%d cores): %s, the rule gives %s", id, k, got, want)
			}
			live = append(live, id)
		}
	}
}

// TestFirstFitContiguousMatchReference: the word-at-a-time paths against
// the plain rules (lowest free cores; lowest run of k, else lowest free).
func TestFirstFitContiguousMatchReference(t *testing.T) {
	m, err := Parse([]byte("nodes:\n  - count: 7\n    cores: 9\n  - count: 30\n    cores: 4\n  - cores: 70\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []Rule{FirstFit, Contiguous} {
		a := NewAllocator(m, rule, 0)
		free := make([]bool, m.Procs())
		for i := range free {
			free[i] = true
		}
		ref := func(k int) string {
			var iv [][2]int
			pick := func(c int) {
				free[c] = false
				if len(iv) > 0 && iv[len(iv)-1][1] == c-1 {
					iv[len(iv)-1][1] = c
				} else {
					iv = append(iv, [2]int{c, c})
				}
			}
			if rule == Contiguous {
				run := 0
				for c := range free {
					if !free[c] {
						run = 0
						continue
					}
					if run++; run == k {
						for x := c - k + 1; x <= c; x++ {
							pick(x)
						}
						return FormatIntervals(iv)
					}
				}
			}
			for c := 0; c < len(free) && k > 0; c++ {
				if free[c] {
					pick(c)
					k--
				}
			}
			return FormatIntervals(iv)
		}
		var live []int
		seed := uint32(5)
		rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
		for id := 0; id < 3000; id++ {
			for len(live) > 0 && (rnd(2) == 0 || a.Free() < 30) {
				k := rnd(len(live))
				v := live[k]
				live = append(live[:k], live[k+1:]...)
				for _, iv := range a.Intervals(v) {
					for c := iv[0]; c <= iv[1]; c++ {
						free[c] = true
					}
				}
				a.Release(v)
			}
			k := 1 + rnd(min(a.Free(), 100))
			want := ref(k)
			if err := a.Place(id, k); err != nil {
				t.Fatal(err)
			}
			if got := a.String(id); got != want {
				t.Fatalf("%v: job %d (%d cores): %s, the rule gives %s", rule, id, k, got, want)
			}
			live = append(live, id)
		}
	}
}
