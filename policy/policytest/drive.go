package policytest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Drive feeds two policies for a machine of procs processors the same
// random stream of events, as the engine would at each instant (the ends
// and cancellations of waiting jobs, in random order, then the
// submissions, then one pass), and returns an error at the first pass
// where they start different jobs. It exercises what a simulation does
// not: cancellations of waiting jobs (the live service's), anywhere in
// the queue, including jobs just submitted and the head. Its stream has
// the shapes of testgen.Adversarial: bursts of submissions in one
// second, identical jobs, whole-machine jobs, estimates of 1 s, jobs
// ending at their estimate, early, at once (runtime 0) or past it (no
// kill), and queues of hundreds. Jobs have distinct users; the policies
// see only requests. Three jobs in four have a deadline (slack 0 to
// 300 s), which only a policy.Admitter reads: Drive asks Admitted of both
// at once after each submission and requires the same answer. The wake-ups the policies ask for must agree, and
// the stream has a pass at each (a running job's end may fall there too).
func Drive(r *rand.Rand, a, b policy.Scheduler, procs, steps int) error {
	return DriveK(r, a, b, []int{procs}, steps)
}

// DriveK is Drive on a machine of capacities caps (caps[0] processors,
// caps[i] units of resource i, policy.NewK's convention): every job also
// needs of each resource 0, all of it, or a uniform amount.
func DriveK(r *rand.Rand, a, b policy.Scheduler, caps []int, steps int) error {
	procs := caps[0]
	type running struct {
		j   *job.Request
		end int64
	}
	var run []running
	var wait []*job.Request
	var now int64
	id := 0
	burst := []int{1, 3, 12}[r.IntN(3)]
	cancelShare := []int{0, 1, 3}[r.IntN(3)]
	noKill := r.IntN(2) == 0
	wake := policy.NoWake
	for step := 0; step < steps; step++ {
		next := now + []int64{0, 1, 1, 5, 10}[r.IntN(5)]
		if step == 0 {
			next = 0
		}
		if wake > now && wake < next {
			next = wake // the wake-up the policies asked for
		}
		for _, x := range run {
			if x.end > now && x.end < next {
				next = x.end // ends are reported at their instant
			}
		}
		now = next
		// ends due now (a killed job ends at its estimate; no-kill lets
		// some run on), in random order with cancellations
		var events []func(policy.Scheduler)
		kept := run[:0]
		for _, x := range run {
			if x.end <= now {
				j := x.j
				events = append(events, func(s policy.Scheduler) { s.Remove(now, j) })
			} else {
				kept = append(kept, x)
			}
		}
		run = kept
		for k := r.IntN(3); k > 0 && len(wait) > 0 && r.IntN(10) < cancelShare; k-- {
			i := r.IntN(len(wait))
			if r.IntN(3) == 0 {
				i = 0 // the head, often
			}
			j := wait[i]
			wait = slices.Delete(wait, i, i+1)
			events = append(events, func(s policy.Scheduler) { s.Remove(now, j) })
		}
		r.Shuffle(len(events), func(x, y int) { events[x], events[y] = events[y], events[x] })
		for _, e := range events {
			e(a)
			e(b)
		}
		var prev *job.Request
		for k := r.IntN(burst + 1); k > 0; k-- {
			var j *job.Request
			if prev != nil && r.IntN(4) == 0 {
				c := *prev
				j = &c
			} else {
				n := 1 + r.IntN(procs)
				switch r.IntN(4) {
				case 0:
					n = procs
				case 1:
					n = 1
				}
				est := 10 * int64(1+r.IntN(10))
				if r.IntN(6) == 0 {
					est = 1
				}
				j = &job.Request{Procs: n, Estimate: est, Group: -1, Queue: -1, Partition: -1}
				if len(caps) > 1 {
					j.Res = make([]int, len(caps)-1)
					for i, c := range caps[1:] {
						switch r.IntN(4) {
						case 0:
						case 1:
							j.Res[i] = c
						default:
							j.Res[i] = r.IntN(c + 1)
						}
					}
				}
				if r.IntN(4) != 0 {
					j.Deadline = est + []int64{0, 1, 20, 300}[r.IntN(4)] // from submission: set below
				}
			}
			if j.Deadline > 0 {
				j.Deadline += now - j.Submit // a copy keeps its slack
			}
			j.ID, j.SWFID, j.Submit, j.User = id, int64(id+1), now, int32(id)
			id++
			prev = j
			a.Insert(now, j)
			b.Insert(now, j)
			if aa, ok := a.(policy.Admitter); ok {
				okA, whyA := aa.Admitted(j)
				okB, whyB := b.(policy.Admitter).Admitted(j)
				if okA != okB || whyA != whyB {
					return fmt.Errorf("at %d (step %d): job %d admitted %v %q by %s, %v %q by %s", now, step, j.ID, okA, whyA, a.Name(), okB, whyB, b.Name())
				}
				if !okA {
					continue // forgotten by both
				}
			}
			wait = append(wait, j)
		}
		var sa, sb []int
		started := map[int]bool{}
		wa := a.Tick(now, func(j *job.Request) { sa = append(sa, j.ID); started[j.ID] = true })
		wb := b.Tick(now, func(j *job.Request) { sb = append(sb, j.ID) })
		slices.Sort(sa)
		slices.Sort(sb)
		if !slices.Equal(sa, sb) {
			return fmt.Errorf("pass at %d (step %d, %d waiting, %d running): %s starts %v, %s starts %v", now, step, len(wait), len(run), a.Name(), sa, b.Name(), sb)
		}
		if wa != wb {
			return fmt.Errorf("pass at %d (step %d): %s asks to be woken at %d, %s at %d", now, step, a.Name(), wa, b.Name(), wb)
		}
		wake = wa
		kept2 := wait[:0]
		for _, j := range wait {
			if !started[j.ID] {
				kept2 = append(kept2, j)
				continue
			}
			var rt int64
			switch k := r.IntN(10); {
			case k < 4:
				rt = j.Estimate
			case k < 5:
				rt = 0
			case k < 6 && noKill:
				rt = j.Estimate + 1 + r.Int64N(20)
			default:
				rt = r.Int64N(j.Estimate + 1)
			}
			run = append(run, running{j, now + rt})
		}
		wait = kept2
	}
	return nil
}
