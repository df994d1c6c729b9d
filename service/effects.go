package service

import (
	"sync"
	"time"
)

// effectRetries is how many times a failed kill or cancellation is
// retried (after 0.1, 0.4, 1.6 s).
const effectRetries = 3

// effectQueue holds the committed actions for the executor. The committer
// pushes without ever blocking, so a slow resource manager (an sbatch
// taking 0.1 s) delays the executor's actions, not the API; the backlog is
// bounded by refusing new submissions beyond Config.MaxExecBacklog
// (backpressure.go).
type effectQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	q      []Effect
	head   int
	closed bool
	wake   chan struct{} // closed by close, to end sleeps
}

func (q *effectQueue) init() {
	q.cond = sync.NewCond(&q.mu)
	q.wake = make(chan struct{})
}

func (q *effectQueue) push(effs []Effect) {
	if len(effs) == 0 {
		return
	}
	q.mu.Lock()
	q.q = append(q.q, effs...)
	q.cond.Signal()
	q.mu.Unlock()
}

// pop waits for the next effect; ok is false once the queue is closed and
// empty.
func (q *effectQueue) pop() (Effect, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.q) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.q) {
		return Effect{}, false
	}
	f := q.q[q.head]
	q.q[q.head] = Effect{}
	q.head++
	if q.head > 1024 && q.head*2 > len(q.q) {
		q.q = append(q.q[:0], q.q[q.head:]...)
		q.head = 0
	}
	return f, true
}

// Len is the backlog.
func (q *effectQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.q) - q.head
}

// close lets pop return once the queue is drained.
func (q *effectQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.wake)
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

// sleep waits d, or less if the queue is closed (then it reports true).
func (q *effectQueue) sleep(d time.Duration) bool {
	select {
	case <-q.wake:
		return true
	case <-time.After(d):
		return false
	}
}
