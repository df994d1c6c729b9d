package slurm

import (
	"fmt"
	"maps"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/slurm"
)

func init() {
	policy.Register(policy.Info{
		Name: "slurm",
		Doc:  "Slurm's scheduler (22.05): the main scheduler's priority pass and sched/backfill, priority/multifactor by default, partitions and association/QOS limits from a slurm.conf excerpt and a shares file (slurmconf, shares, sidecar: the keys of order multifactor below; the excerpt's settings keep Slurm's names and defaults, e.g. SchedulerParameters=bf_interval=…,batch_sched_delay=…, PriorityWeightFairshare=…)",
		Params: []policy.Param{
			policy.OrderParam("multifactor"),
			{Name: "bf_interval", Default: "30", Doc: "seconds between backfill cycles (SchedulerParameters; overrides slurmconf)"},
			{Name: "bf_window", Default: "1440", Doc: "minutes ahead in which backfill makes reservations"},
			{Name: "bf_resolution", Default: "60", Doc: "seconds to which reservations are rounded"},
			{Name: "bf_max_job_test", Default: "500", Doc: "jobs tested per backfill cycle"},
			{Name: "bf_max_job_user", Default: "0", Doc: "jobs tested per user per backfill cycle (0: no limit)"},
			{Name: "sched_interval", Default: "60", Doc: "seconds between main scheduler passes without events"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			c, t, err := slurm.Load(p["slurmconf"], p["shares"])
			if err != nil {
				return nil, fmt.Errorf("slurm: %w", err)
			}
			for _, k := range []struct {
				name   string
				dst    *int64
				scale  int64
				lo, hi int64
			}{
				{"bf_interval", &c.BfInterval, 1, 1, 10800},
				{"bf_window", &c.BfWindow, 60, 1, 43200},
				{"bf_resolution", &c.BfResolution, 1, 1, 3600},
				{"sched_interval", &c.SchedInterval, 1, 1, 1<<31 - 1},
			} {
				v, err := p.Int(k.name, int(*k.dst/k.scale), int(k.hi))
				if err != nil {
					return nil, fmt.Errorf("slurm: %w", err)
				}
				if int64(v) < k.lo || int64(v) > k.hi {
					return nil, fmt.Errorf("slurm: %s must be in [%d, %d], got %d", k.name, k.lo, k.hi, v)
				}
				*k.dst = int64(v) * k.scale
			}
			if c.BfMaxJobTest, err = p.Int("bf_max_job_test", c.BfMaxJobTest, 1000000); err != nil || c.BfMaxJobTest < 1 {
				return nil, fmt.Errorf("slurm: bf_max_job_test must be a positive integer (%v)", err)
			}
			if c.BfMaxJobUser, err = p.Int("bf_max_job_user", c.BfMaxJobUser, 0); err != nil || c.BfMaxJobUser < 0 {
				return nil, fmt.Errorf("slurm: bf_max_job_user must be a non-negative integer (%v)", err)
			}
			o := Options{Conf: c, Tree: t}
			if o.Resolver, err = slurm.LoadResolver(p["sidecar"]); err != nil {
				return nil, fmt.Errorf("slurm: %w", err)
			}
			if name, ok := p["order"]; ok && name != "multifactor" {
				// slurmconf, shares and sidecar are the policy's own too
				// (partitions, limits, accounts), whatever the order: the
				// order's check of its parameters must not see them
				op := maps.Clone(p)
				for _, k := range []string{"slurmconf", "shares", "sidecar"} {
					delete(op, k)
				}
				if o.Order, err = policy.NewOrder(op, "multifactor", procs); err != nil {
					return nil, fmt.Errorf("slurm: %w", err)
				}
			}
			s := New(procs, o)
			s.spec = slurm.Spec(p)
			return s.Scheduler(), nil
		},
	})
}
