package pool

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestRunBounded: every index runs exactly once, never more than workers
// at a time.
func TestRunBounded(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 50} {
		var cur, peak atomic.Int32
		seen := make([]int32, 40)
		Run(workers, len(seen), func(i int) {
			c := cur.Add(1)
			for {
				p := peak.Load()
				if c <= p || peak.CompareAndSwap(p, c) {
					break
				}
			}
			atomic.AddInt32(&seen[i], 1)
			cur.Add(-1)
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("workers %d: task %d ran %d times", workers, i, s)
			}
		}
		if p := int(peak.Load()); p > max(1, workers) {
			t.Fatalf("workers %d: %d tasks at once", workers, p)
		}
	}
}

// TestMapOrderAndFirstError: results are in index order whatever the
// workers; the error is the lowest failing index's, and all tasks ran.
func TestMapOrderAndFirstError(t *testing.T) {
	var ran atomic.Int32
	out, err := Map(4, 10, func(i int) (string, error) {
		ran.Add(1)
		if i == 7 || i == 3 {
			return "", fmt.Errorf("task %d", i)
		}
		return fmt.Sprint(i * i), nil
	})
	if err == nil || err.Error() != "task 3" || ran.Load() != 10 {
		t.Fatalf("err %v, ran %d", err, ran.Load())
	}
	if out[9] != "81" || out[2] != "4" {
		t.Fatalf("out %v", out)
	}
	out, err = Map(3, 5, func(i int) (string, error) { return fmt.Sprint(i), nil })
	if !errors.Is(err, nil) || fmt.Sprint(out) != "[0 1 2 3 4]" {
		t.Fatalf("%v %v", out, err)
	}
}

// TestRunContextStops: once the context is done no task is handed out;
// the started ones finish.
func TestRunContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	all := RunContext(ctx, 2, 100, func(i int) {
		if ran.Add(1) == 5 {
			cancel()
		}
	})
	if all || ran.Load() < 5 || ran.Load() > 7 {
		t.Fatalf("all %v, ran %d", all, ran.Load())
	}
	if !RunContext(context.Background(), 2, 3, func(int) {}) {
		t.Fatal("not interrupted, but reported so")
	}
}
