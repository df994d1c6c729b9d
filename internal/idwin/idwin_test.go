package idwin

import (
	"math/rand/v2"
	"testing"
)

// TestWindowModel: random appends, updates and trims agree with a plain
// slice of every ID, and the capacity stays bounded by the live span.
func TestWindowModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var w Window[int]
	var all []int // every ID's value; 0: done
	for step := 0; step < 100000; step++ {
		switch k := r.IntN(10); {
		case k < 4:
			all = append(all, 1+r.IntN(9))
			w.Append(all[len(all)-1])
		case k < 8 && len(all) > 0:
			// finish a job, mostly among the oldest still live
			id := w.Base() + r.IntN(min(50, len(all)-w.Base())+1)
			if id < len(all) {
				all[id] = 0
				*w.At(id) = 0
			}
		default:
			w.Trim(func(x int) bool { return x == 0 })
		}
		if w.Len() != len(all) {
			t.Fatalf("step %d: Len %d, want %d", step, w.Len(), len(all))
		}
		if step%500 != 0 {
			continue
		}
		for id := w.Base(); id < w.Len(); id++ {
			if w.Get(id) != all[id] {
				t.Fatalf("step %d: id %d: %d, want %d", step, id, w.Get(id), all[id])
			}
		}
		for id := 0; id < w.Base(); id++ {
			if all[id] != 0 {
				t.Fatalf("step %d: id %d dropped while live", step, id)
			}
		}
	}
	if span := w.Len() - w.Base(); w.Cap() > 4*span+4*minShift {
		t.Errorf("capacity %d for a live span of %d", w.Cap(), span)
	}
}

func TestGrowAndEach(t *testing.T) {
	var w Window[int]
	if !w.Grow(5) || w.Len() != 6 || w.Get(5) != 0 || w.Get(9) != 0 {
		t.Fatal("grow")
	}
	*w.At(3) = 7
	var ids []int
	w.Each(func(id, x int) {
		if x != 0 {
			ids = append(ids, id)
		}
	})
	if len(ids) != 1 || ids[0] != 3 {
		t.Fatalf("each: %v", ids)
	}
	w.Reset(100)
	if w.Len() != 100 || w.In(5) || w.Grow(50) {
		t.Fatal("reset")
	}
}

// TestCover: IDs below, inside the dropped prefix of, and above the window
// become held with the fill value; the others keep theirs.
func TestCover(t *testing.T) {
	var w Window[int]
	for i := 0; i < 200; i++ {
		w.Append(1 + i%3) // 0: done
	}
	for i := 0; i < 150; i++ {
		*w.At(i) = 0
	}
	w.Trim(func(x int) bool { return x == 0 })
	if w.Base() != 150 {
		t.Fatalf("base %d", w.Base())
	}
	w.Cover(140, 7) // inside the dropped prefix, or below a moved window
	if w.Base() != 140 || w.Get(140) != 7 || w.Get(149) != 7 || w.Get(151) != 1+151%3 {
		t.Fatalf("cover 140: base %d, %d %d %d", w.Base(), w.Get(140), w.Get(149), w.Get(151))
	}
	w.Cover(3, 9)
	if w.Base() != 3 || w.Get(3) != 9 || w.Get(139) != 9 || w.Get(140) != 7 || w.Get(199) != 1+199%3 || w.Len() != 200 {
		t.Fatalf("cover 3: base %d len %d", w.Base(), w.Len())
	}
	w.Cover(205, 5)
	if w.Len() != 206 || w.Get(200) != 5 || w.Get(205) != 5 {
		t.Fatalf("cover 205: len %d", w.Len())
	}
}

// Reserve changes no ID or value, and appends within it do not move the
// window's array.
func TestReserve(t *testing.T) {
	var w Window[int]
	w.Append(10)
	w.Reserve(100)
	p := &w.v[0]
	for i := 1; i <= 100; i++ {
		w.Append(10 + i)
	}
	if &w.v[0] != p || w.Len() != 101 || w.Get(0) != 10 || w.Get(100) != 110 {
		t.Fatalf("after Reserve: moved %t, Len %d, ID 0 = %d, ID 100 = %d", &w.v[0] != p, w.Len(), w.Get(0), w.Get(100))
	}
}
