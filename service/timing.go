package service

import (
	"fmt"
	"strings"
	"time"
)

// reqTiming is where a write request's time went, reported in its
// Server-Timing header (W3C; durations in milliseconds) so that a client
// can tell the slowest requests' causes apart (backfill loadgen --trace):
//
//   - lock: waiting for the engine lock (other writes, passes);
//   - engine: the request's work under the lock (the policy's decision,
//     a pass of an instant that was over, a compression left by the
//     instant's releases);
//   - capture: taking a snapshot's state under the lock (when one is due);
//   - enqueue: the rest of queuing the commit under the lock;
//   - publish: publishing the read view under the lock;
//   - queue: waiting in the commit queue for the committer (commits of
//     earlier writes, snapshot saves);
//   - snapsave: the part of queue the committer spent saving a snapshot;
//   - commit: the transaction (and fsync) that committed the request;
//   - commitwait: from the lock's release to the commit's answer (queue,
//     commit, and the committer's scheduling).
type reqTiming struct {
	lock, engine, capture, enqueue, publish time.Duration
	queue, snapSave, commit, commitWait     time.Duration
}

// header is the Server-Timing value of t, after the metrics first (name,
// duration pairs) and total, the request's time from t0.
func (t *reqTiming) header(t0 time.Time, first ...any) string {
	var b strings.Builder
	add := func(name string, d time.Duration) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s;dur=%.3f", name, d.Seconds()*1000)
	}
	for i := 0; i+1 < len(first); i += 2 {
		add(first[i].(string), first[i+1].(time.Duration))
	}
	add("lock", t.lock)
	add("engine", t.engine)
	add("capture", t.capture)
	add("enqueue", t.enqueue)
	add("publish", t.publish)
	add("queue", t.queue)
	add("snapsave", t.snapSave)
	add("commit", t.commit)
	add("commitwait", t.commitWait)
	add("total", time.Since(t0))
	return b.String()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
