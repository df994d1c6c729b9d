package audit

import (
	"cmp"
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// cores checks Options.Cores: per job, the count and range of its cores;
// over time, that no core is held twice. Events are swept in time order,
// releases before takes at the same instant.
func (a *auditor) cores(outcomes []job.Outcome) {
	type event struct {
		t    int64
		take bool
		i    int // index in outcomes
	}
	var evs []event
	for i := range outcomes {
		o := &outcomes[i]
		if o.Rejected || o.Start < 0 {
			continue
		}
		n := 0
		ok := true
		for _, iv := range a.opt.Cores(o.ID) {
			if iv[0] < 0 || iv[1] < iv[0] || (a.opt.Procs > 0 && iv[1] >= a.opt.Procs) {
				ok = false
			}
			n += iv[1] - iv[0] + 1
		}
		if !ok || n != o.Procs {
			a.add(KindCoreCount, o, o.Start, "holds %d cores %v for %d processors (machine of %d)", n, a.opt.Cores(o.ID), o.Procs, a.opt.Procs)
			continue
		}
		if o.End > o.Start {
			evs = append(evs, event{o.Start, true, i}, event{o.End, false, i})
		}
	}
	slices.SortFunc(evs, func(x, y event) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if x.take != y.take {
			if !x.take {
				return -1
			}
			return 1
		}
		return cmp.Compare(outcomes[x.i].ID, outcomes[y.i].ID)
	})
	owner := map[int]int{} // core → index in outcomes of its holder
	if a.opt.Procs > 0 {
		owner = nil
	}
	held := make([]int32, max(a.opt.Procs, 0))
	for i := range held {
		held[i] = -1
	}
	for _, e := range evs {
		o := &outcomes[e.i]
		for _, iv := range a.opt.Cores(o.ID) {
			for c := iv[0]; c <= iv[1]; c++ {
				cur := -1
				if owner != nil {
					if v, ok := owner[c]; ok {
						cur = v
					}
				} else {
					cur = int(held[c])
				}
				switch {
				case e.take && cur >= 0:
					a.add(KindCoreTwice, o, e.t, "takes core %d, which job %d (SWF %d) holds", c, outcomes[cur].ID, outcomes[cur].SWFID)
				case e.take:
					cur = e.i
				case cur == e.i:
					cur = -1
				}
				if owner != nil {
					if cur < 0 {
						delete(owner, c)
					} else {
						owner[c] = cur
					}
				} else {
					held[c] = int32(cur)
				}
			}
		}
	}
}
