package hugepage

import "testing"

// Advise is a hint only: contents stay, and small, empty and zero-size
// slices are left alone.
func TestAdviseKeepsContents(t *testing.T) {
	s := make([]int64, 0, 3<<20) // 24 MiB
	for i := range 1 << 20 {
		s = append(s, int64(i))
	}
	Advise(s)
	Advise(s[5:])
	for i, v := range s {
		if v != int64(i) {
			t.Fatalf("s[%d] = %d after Advise", i, v)
		}
	}
	s = s[:cap(s)]
	s[len(s)-1] = 7
	Advise([]int64(nil))
	Advise(make([]byte, 10))
	Advise(make([]struct{}, 1<<30))
}
