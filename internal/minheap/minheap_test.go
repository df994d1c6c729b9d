package minheap

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// ref is container/heap's heap of the same items: the layout must match.
type ref []Item[int64, int]

func (r ref) Len() int { return len(r) }
func (r ref) Less(a, b int) bool {
	return r[a].Key < r[b].Key || (r[a].Key == r[b].Key && r[a].ID < r[b].ID)
}
func (r ref) Swap(a, b int) { r[a], r[b] = r[b], r[a] }
func (r *ref) Push(x any)   { *r = append(*r, x.(Item[int64, int])) }
func (r *ref) Pop() any {
	o := *r
	x := o[len(o)-1]
	*r = o[:len(o)-1]
	return x
}

// TestAgainstContainerHeap runs random pushes, pops, removals and key
// changes on a heap, plain and indexed, and on container/heap, and checks
// after each step the same array, the index and the popped items.
func TestAgainstContainerHeap(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		var h Heap[int64, int]
		indexed := seed%2 == 0
		if indexed {
			h.IndexByID()
		}
		var r ref
		in := map[int]bool{}
		for step := 0; step < 2000; step++ {
			switch op := rng.IntN(10); {
			case op < 5 || h.Len() == 0:
				id := rng.IntN(300)
				if in[id] {
					continue
				}
				in[id] = true
				it := Item[int64, int]{Key: int64(rng.IntN(50)), ID: id, Val: step}
				h.Push(it)
				heap.Push(&r, it)
			case op < 7:
				a, b := h.Pop(), heap.Pop(&r).(Item[int64, int])
				if a != b {
					t.Fatalf("seed %d step %d: Pop %v, container/heap %v", seed, step, a, b)
				}
				delete(in, a.ID)
			case op < 8:
				i := rng.IntN(h.Len())
				a, b := h.Remove(i), heap.Remove(&r, i).(Item[int64, int])
				if a != b {
					t.Fatalf("seed %d step %d: Remove %v, container/heap %v", seed, step, a, b)
				}
				delete(in, a.ID)
			default:
				i := rng.IntN(h.Len())
				k := int64(rng.IntN(50))
				h.At(i).Key, r[i].Key = k, k
				h.Fix(i)
				heap.Fix(&r, i)
			}
			if h.Len() != len(r) {
				t.Fatalf("seed %d step %d: %d items, container/heap %d", seed, step, h.Len(), len(r))
			}
			for i, it := range h.Items() {
				if it != r[i] {
					t.Fatalf("seed %d step %d: position %d holds %v, container/heap %v", seed, step, i, it, r[i])
				}
				if p, ok := h.Find(it.ID); indexed && (!ok || p != i) {
					t.Fatalf("seed %d step %d: Find(%d) = %d, %v; at %d", seed, step, it.ID, p, ok, i)
				}
			}
			for id := range 300 {
				if _, ok := h.Find(id); ok != (indexed && in[id]) {
					t.Fatalf("seed %d step %d: Find(%d) found %v, in heap %v", seed, step, id, ok, in[id])
				}
			}
		}
	}
}

// TestInit checks that Init builds container/heap's layout.
func TestInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 100; n++ {
		items := make([]Item[int64, int], n)
		for i := range items {
			items[i] = Item[int64, int]{Key: int64(rng.IntN(10)), ID: i}
		}
		r := append(ref(nil), items...)
		heap.Init(&r)
		var h Heap[int64, int]
		h.IndexByID()
		h.Init(items)
		for i, it := range h.Items() {
			if it != r[i] {
				t.Fatalf("n %d: position %d holds %v, container/heap %v", n, i, it, r[i])
			}
			if p, _ := h.Find(it.ID); p != i {
				t.Fatalf("n %d: Find(%d) = %d, at %d", n, it.ID, p, i)
			}
		}
	}
}

// TestTiesByID checks the documented tie rule by hand: equal keys leave in
// ID order, whatever the push order.
func TestTiesByID(t *testing.T) {
	var h Heap[int64, struct{}]
	for _, id := range []int{5, 3, 9, 1} {
		h.Push(Item[int64, struct{}]{Key: 10, ID: id})
	}
	h.Push(Item[int64, struct{}]{Key: 4, ID: 99})
	want := []int{99, 1, 3, 5, 9}
	for _, id := range want {
		if got := h.Pop().ID; got != id {
			t.Fatalf("popped ID %d, want %d", got, id)
		}
	}
}
