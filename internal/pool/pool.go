// Package pool runs independent tasks on a bounded number of goroutines.
//
// Results go to the task's index, never to the order in which tasks
// finish, so that output never depends on goroutine scheduling: the same
// input gives the same output with 1 worker or 8.
package pool

import (
	"context"
	"sync"
)

// Run calls fn(i) for every i in [0, n) on at most workers goroutines (at
// least 1) and returns when all calls have returned. Tasks are handed out
// in index order. fn must write its result to a place of its own (index i
// of a slice); anything shared needs a lock.
func Run(workers, n int, fn func(i int)) {
	RunContext(context.Background(), workers, n, fn)
}

// RunContext is Run that stops handing out tasks once ctx is done; the
// tasks already started run to their end. It reports whether every task
// was handed out (false: interrupted).
func RunContext(ctx context.Context, workers, n int, fn func(i int)) bool {
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	all := true
dispatch:
	for i := 0; i < n; i++ {
		select {
		case <-ctx.Done():
			all = false
			break dispatch
		case next <- i:
		}
	}
	close(next)
	wg.Wait()
	return all
}

// Map calls fn(i) for every i in [0, n) on at most workers goroutines and
// returns the results in index order. Every task runs; the error returned
// is that of the lowest index that failed.
func Map[T any](workers, n int, fn func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	Run(workers, n, func(i int) { out[i], errs[i] = fn(i) })
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
