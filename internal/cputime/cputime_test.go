package cputime

import (
	"runtime"
	"testing"
)

// TestThreadAdvancesWithWork checks that the clock is monotone and moves
// when the thread computes.
func TestThreadAdvancesWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := Thread()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	b := Thread()
	if x == 0 || b <= a {
		t.Fatalf("thread CPU did not advance: %v then %v", a, b)
	}
}
