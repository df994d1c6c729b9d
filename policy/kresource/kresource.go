// Package kresource is K-resource backfilling (Leinberger, Karypis & Kumar).
//
// It is K-resource scheduling as Leinberger, Karypis & Kumar
// (TR 99-025, 1999) define it: a machine of K independently allocatable
// resources (processors, memory, licences, …), each job requiring a
// K-vector that it holds for its whole run, and backfilling policies whose
// job selection is aware of all K resources:
//
//   - ff-easy (FCFS/FF-EASY): EASY backfilling on vectors. Jobs start in
//     arrival order while they fit in every resource; the first that does
//     not gets a reservation at its earliest vector fit (the shadow time);
//     later jobs start now, first fit in arrival order, if they fit now in
//     every resource for their whole estimate without touching the
//     reservation.
//   - bl-easy (FCFS/BL-EASY, "backfill lowest"): the same, but among the
//     jobs that may backfill it starts first the one whose largest
//     requirement is on the currently least-used resource (windowed: whose
//     w largest requirements are, in order, on the w least-used resources).
//   - bb-easy (FCFS/BB-EASY, "backfill balanced"): among the jobs that may
//     backfill it starts first the one minimizing the balance measure
//     max_i(U_i+R_i) / mean_i(U_i+R_i).
//   - ff-cons (FCFS/FF-CONS): conservative backfilling on vectors.
//
// BL's and BB's imbalance (balance measure − 1) is scaled by the fullness
// modifier 1 − mean_i(U_i + R_i) (the paper's §2.2), so that a job that
// nearly fills the machine can win over a better-balanced smaller one and
// the heuristics approach FF as the machine fills; see docs/policies.md
// for the exact scores and the reasons.
//
// Every policy here takes a queue order (parameter order, any registered
// policy.Order) in place of arrival order: the EASY variants start and
// backfill in it, ff-cons compresses in it (Config.Prio).
//
// Every policy here works for any K ≥ 1 and is the same code for all K;
// at K = 1, ff-easy gives exactly the schedule of package easy and ff-cons
// exactly that of package conservative (tested job by job). The scalar
// packages remain the fast path for processor-only machines.
//
// The availability profile is profile.Multi: one scalar profile per
// resource, vector queries composed on top.
package kresource

import (
	"fmt"
	"strconv"

	"github.com/backfill-hpc/backfill/policy"
)

// Heuristic is the backfill selection rule.
type Heuristic int

const (
	// FF is first fit: backfill candidates in arrival order.
	FF Heuristic = iota
	// BL is backfill lowest (windowed by Config.Window).
	BL
	// BB is backfill balanced.
	BB
)

var heuristicNames = []string{"ff", "bl", "bb"}

// String is the heuristic's short name.
func (h Heuristic) String() string {
	if h < 0 || int(h) >= len(heuristicNames) {
		return "heuristic(" + strconv.Itoa(int(h)) + ")"
	}
	return heuristicNames[h]
}

// Config selects an EASY variant (NewEASY), and ff-cons's order
// (NewCons).
type Config struct {
	// Heuristic is the selection rule among backfill candidates.
	Heuristic Heuristic
	// Window is BL's w: how many of the least-used resources a job's
	// largest requirements are matched against (1 is the paper's BL; values
	// above K−1 act as K−1). Ignored by FF and BB.
	Window int
	// NoFullness disables the fullness modifier of BL and BB (the paper
	// applies it; disabling it shows its effect).
	NoFullness bool
	// Prio is the queue order (parameter order: any registered
	// policy.Order, e.g. sjf or Slurm's multifactor); nil is arrival
	// order, the paper's FCFS. Jobs start in that order while they fit,
	// the first that does not gets the reservation, and the candidates
	// are scanned (FF) or their score ties broken (BL, BB) in that order;
	// ff-cons (NewCons) compresses in that order.
	Prio policy.Order
	// Overrun is ff-cons's planned end of a running job past its
	// estimate (only without kills; policy.OverrunRule, as package
	// conservative's); unset: policy.OverrunLimit, the registry's
	// default. Ignored by the EASY variants (their rule is
	// policy.OverrunSecond).
	Overrun policy.OverrunRule
}

// register adds one policy under name, built for K resources by mk and,
// for a processor-only machine, by mk with caps = [procs].
func register(name, doc string, params []policy.Param, mk func(caps []int, p policy.Params) (policy.Scheduler, error)) {
	policy.Register(policy.Info{
		Name:   name,
		Doc:    doc,
		Params: params,
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			return mk([]int{procs}, p)
		},
		NewK: mk,
	})
}

const fullnessDoc = "on: score = 1 + (balance − 1)·(1 − mean_i(U_i+R_i)), the imbalance relaxed by the fullness modifier (the paper); off: score = balance"

// orderParam is the queue order (Config.Prio) of every policy here.
var orderParam = policy.OrderParam("fcfs")

// easyOrder reads the order parameter: nil for arrival order.
func easyOrder(caps []int, p policy.Params) (policy.Order, error) {
	o, err := policy.NewOrder(p, "fcfs", caps[0])
	if err != nil || policy.IsArrival(o) {
		return nil, err
	}
	return o, nil
}

func init() {
	register("ff-easy", "K-resource EASY backfilling, first fit (Leinberger et al.'s FCFS/FF-EASY): EASY on requirement vectors", []policy.Param{orderParam},
		func(caps []int, p policy.Params) (policy.Scheduler, error) {
			o, err := easyOrder(caps, p)
			if err != nil {
				return nil, err
			}
			return NewEASY(caps, Config{Heuristic: FF, Prio: o})
		})
	register("bl-easy", "K-resource EASY backfilling, backfill lowest (FCFS/BL-EASY): prefer backfill jobs whose largest requirements are on the least-used resources",
		[]policy.Param{
			{Name: "w", Default: "1", Doc: "window: match the job's w largest requirements, in order, against the w least-used resources; capped at K−1 (all = K−1)"},
			{Name: "fullness", Default: "on", Doc: fullnessDoc},
			orderParam,
		},
		func(caps []int, p policy.Params) (policy.Scheduler, error) {
			o, err := easyOrder(caps, p)
			if err != nil {
				return nil, err
			}
			w, err := p.Int("w", 1, len(caps)-1)
			if err != nil {
				return nil, err
			}
			full, err := p.Switch("fullness", true)
			if err != nil {
				return nil, err
			}
			if w < 0 {
				return nil, fmt.Errorf("bl-easy: window w must be at least 0, got %d", w)
			}
			return NewEASY(caps, Config{Heuristic: BL, Window: w, NoFullness: !full, Prio: o})
		})
	register("bb-easy", "K-resource EASY backfilling, backfill balanced (FCFS/BB-EASY): prefer backfill jobs minimizing max_i(U_i+R_i)/mean_i(U_i+R_i)",
		[]policy.Param{{Name: "fullness", Default: "on", Doc: fullnessDoc}, orderParam},
		func(caps []int, p policy.Params) (policy.Scheduler, error) {
			o, err := easyOrder(caps, p)
			if err != nil {
				return nil, err
			}
			full, err := p.Switch("fullness", true)
			if err != nil {
				return nil, err
			}
			return NewEASY(caps, Config{Heuristic: BB, NoFullness: !full, Prio: o})
		})
	register("ff-cons", "K-resource conservative backfilling (FCFS/FF-CONS): every waiting job holds a reservation in every resource, guaranteed at submission", []policy.Param{orderParam, policy.OverrunParam("limit")},
		func(caps []int, p policy.Params) (policy.Scheduler, error) {
			o, err := easyOrder(caps, p)
			if err != nil {
				return nil, err
			}
			over := policy.OverrunLimit
			if v, ok := p["overrun"]; ok && v != "" {
				if over, err = policy.ParseOverrun(v); err != nil {
					return nil, fmt.Errorf("ff-cons: %w", err)
				}
			}
			return NewCons(caps, Config{Prio: o, Overrun: over})
		})
}
