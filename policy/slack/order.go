package slack

import (
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/policy"
)

// orderParam is the queue order (policy.Order) in which the delayed jobs
// are compressed at each candidate slot: the one place where Talby &
// Feitelson's algorithm lets the scheduler choose an order of the waiting
// jobs (§4.6; the heuristics AST, AAT, DU, DC and DP are such orders). With
// order=O, the delayed jobs are compressed in O's order at the current
// time, ties by arrival, instead of heuristic h's; giving both is an
// error. The default, none, leaves the choice to h (AST, the paper's §5.2
// setting). order=fcfs compresses in arrival order (AAT up to jobs
// submitted at the same second, which AAT also orders by arrival); an
// order that observes the machine (multifactor's fair share) is told of
// every submission, start and end. Everything else — the slots tried, the
// prices, the slack bounds — is the paper's.
var orderParam = policy.Param{Name: "order", Default: "none",
	Doc: "queue order of the delayed jobs' compression at each slot, instead of h: none (h decides, the paper), or a queue order (" + orderNames() + ")"}

func orderNames() string {
	var s string
	for i, o := range policy.Orders() {
		if i > 0 {
			s += ", "
		}
		s += o.Name
	}
	return s
}

// parseOrder reads the order parameter: nil for none.
func parseOrder(procs int, p policy.Params) (policy.Order, error) {
	v, ok := p["order"]
	if !ok || v == "" || v == "none" {
		return nil, nil
	}
	if _, ok := p["h"]; ok {
		return nil, errors.New("slack: parameters h and order are exclusive (order replaces the heuristic)")
	}
	o, err := policy.NewOrder(p, "fcfs", procs)
	if err != nil {
		return nil, fmt.Errorf("slack: %w", err)
	}
	return o, nil
}

// queueOrder sorts the delayed jobs o in the queue order at now, ties by
// arrival (job ID).
func (s *Policy) queueOrder(now int64, o []*sjob) {
	q := s.prm.Order
	slices.SortStableFunc(o, func(a, b *sjob) int {
		if q.Less(now, a.J, b.J) {
			return -1
		}
		if q.Less(now, b.J, a.J) {
			return 1
		}
		return a.J.ID - b.J.ID
	})
}
