package slurm

import (
	"math/rand/v2"
	"testing"
)

// TestStaticAdvanceJumps: without age and fair-share weights nothing is
// recalculated (Static), so Advance must not step through every
// PriorityCalcPeriod between two events: a job of an 18-digit estimate
// (the most the SWF reader takes) made a run with the default
// configuration step through 3·10¹⁵ calculation instants (found by the
// audit of 2026-11-25, after the slurm policy stopped waking up idle;
// fixed in 380fb77).
// The calculation clock must still land where stepping puts it: the last
// instant at or before now (before a Hold), and the next one after it.
func TestStaticAdvanceJumps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		c := DefaultConf()
		c.CalcPeriod = []int64{1, 7, 300}[r.IntN(3)]
		origin := r.Int64N(1000)
		m := NewMultifactor(c, nil, 16, nil, origin)
		now := origin + r.Int64N(10)
		m.Advance(now)
		var hold int64
		if r.IntN(2) == 0 {
			hold = now + 1 + r.Int64N(1_000_000)
			m.Hold(hold)
		}
		now += 1_000_000_000_000_000 + r.Int64N(1000)
		m.Advance(now) // (stepping one period at a time never returns)
		// where stepping one period at a time ends
		lim := now
		if hold != 0 {
			lim = hold - 1
		}
		p := c.CalcPeriod
		last := origin + (lim-origin)/p*p
		if got, want := m.NextCalc(), last+p; got != want || m.lastCalc != last {
			t.Fatalf("period %d, origin %d, now %d, hold %d: next calculation %d (last %d), want %d (%d)", p, origin, now, hold, got, m.lastCalc, want, last)
		}
	}
}
