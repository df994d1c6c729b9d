package jobq

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestAgainstSlice applies random pushes, takes, cancels and compactions to
// a Queue and to a plain slice, and compares Head, Len, the order and every
// Next and NextFit query.
func TestAgainstSlice(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		var key func(*job.Request) int64
		if seed%2 == 0 {
			key = func(j *job.Request) int64 { return j.Estimate }
		}
		q := New(key)
		var ref []*job.Request // waiting jobs in order
		id := 0
		for step := 0; step < 400; step++ {
			switch op := r.IntN(10); {
			case op < 4:
				j := &job.Request{ID: id, Procs: 1 + r.IntN(20), Estimate: int64(r.IntN(5))}
				id++
				q.Push(j)
				at := len(ref)
				if key != nil {
					for at = 0; at < len(ref); at++ {
						if ref[at].Estimate > j.Estimate {
							break
						}
					}
				}
				ref = append(ref[:at], append([]*job.Request{j}, ref[at:]...)...)
			case op < 7 && len(ref) > 0:
				// take the k-th waiting job through its position
				k := r.IntN(len(ref))
				n := 0
				for i := 0; i < q.End(); i++ {
					if q.At(i) == nil {
						continue
					}
					if n == k {
						q.Take(i)
						break
					}
					n++
				}
				ref = append(ref[:k], ref[k+1:]...)
			case op < 8 && len(ref) > 0:
				k := r.IntN(len(ref))
				if !q.Cancel(ref[k]) {
					t.Fatalf("seed %d: cancel of a waiting job failed", seed)
				}
				ref = append(ref[:k], ref[k+1:]...)
			case op < 9:
				q.Compact()
			default:
				// queries
				x := r.IntN(22)
				from := r.IntN(q.End() + 1)
				got := q.Next(from, x)
				want := -1
				for i := from; i < q.End(); i++ {
					if j := q.At(i); j != nil && j.Procs <= x && x >= 1 {
						want = i
						break
					}
				}
				if got != want {
					t.Fatalf("seed %d step %d: Next(%d, %d) = %d, want %d", seed, step, from, x, got, want)
				}
				// an antitone predicate: n at most a step function of e
				// that falls from x (short jobs) to y (long ones)
				y, cut := r.IntN(x+1), int64(r.IntN(6))
				fits := func(n int, e int64) bool {
					if e < cut {
						return n <= x
					}
					return n <= y
				}
				got = q.NextFit(from, fits)
				want = -1
				for i := from; i < q.End(); i++ {
					if j := q.At(i); j != nil && fits(j.Procs, j.Estimate) {
						want = i
						break
					}
				}
				if got != want {
					t.Fatalf("seed %d step %d: NextFit(%d, x %d, y %d from estimate %d) = %d, want %d", seed, step, from, x, y, cut, got, want)
				}
				// EASY's test: n ≤ y, or n ≤ x and e ≤ cut
				got = q.NextEASY(from, y, x, cut)
				want = -1
				for i := from; i < q.End(); i++ {
					if j := q.At(i); j != nil && (j.Procs <= y || (j.Procs <= x && j.Estimate <= cut)) {
						want = i
						break
					}
				}
				if got != want {
					t.Fatalf("seed %d step %d: NextEASY(%d, %d, %d, %d) = %d, want %d", seed, step, from, y, x, cut, got, want)
				}
			}
			if q.Len() != len(ref) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, q.Len(), len(ref))
			}
			var got []*job.Request
			q.Each(func(j *job.Request) { got = append(got, j) })
			for i := range ref {
				if got[i] != ref[i] {
					t.Fatalf("seed %d step %d: order differs at %d", seed, step, i)
				}
			}
			if _, h := q.Head(); (h == nil) != (len(ref) == 0) || (h != nil && h != ref[0]) {
				t.Fatalf("seed %d step %d: wrong head", seed, step)
			}
		}
	}
}
