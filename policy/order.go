package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// Order is the queue order of a queue-based policy: the extension point
// through which EASY, lookahead, multiqueue and the slurm policy rank their
// waiting jobs (parameter order), from arrival order to a production
// priority scheme such as Slurm's multifactor priority (package slurm).
//
// A policy considers its waiting jobs in Less order, ties broken by job ID
// (arrival). A policy calls Less only on waiting jobs, at the instant of a
// scheduling pass, after telling an OrderObserver order about the events
// of that instant.
type Order interface {
	// Name is the order's value of the order parameter, e.g. "fcfs".
	Name() string
	// Less reports whether waiting job a goes before waiting job b at now.
	// It must be a strict weak order at each instant.
	Less(now int64, a, b *job.Request) bool
}

// KeyOrder is an Order fixed at submission: a goes before b iff
// (Key(a), a.ID) < (Key(b), b.ID). Policies keep such a queue sorted
// once per insertion instead of re-sorting at each pass.
type KeyOrder interface {
	Order
	// Key is j's sort key; it must not change while j waits. A nil
	// function (Key returning 0 for every job) is arrival order.
	Key(j *job.Request) int64
}

// OrderObserver is implemented by orders that depend on what the machine
// did (fair-share usage, the age of a job). The policy that owns the order
// reports every event to it, in the engine's order (ends, submissions, one
// pass) and at the policy's own times.
type OrderObserver interface {
	// Submitted: j entered the queue at now.
	Submitted(now int64, j *job.Request)
	// Started: j started at now.
	Started(now int64, j *job.Request)
	// Ended: j left the system at now (ended, or cancelled while
	// waiting).
	Ended(now int64, j *job.Request)
	// Advance brings the order to now before a pass (periodic
	// recalculations that fall due).
	Advance(now int64)
}

// OrderInfo describes a registered order.
type OrderInfo struct {
	Name string
	Doc  string
	// Params are the order's own parameters, accepted by every policy
	// that takes the order parameter.
	Params []Param
	// New builds the order for a machine of procs processors from the
	// policy's parameters.
	New func(procs int, p Params) (Order, error)
}

var orders = map[string]OrderInfo{}

// RegisterOrder makes an order available by name to every policy that takes
// the order parameter. Registering a name twice panics.
func RegisterOrder(info OrderInfo) {
	if _, dup := orders[info.Name]; dup {
		panic("policy: duplicate registration of order " + info.Name)
	}
	orders[info.Name] = info
}

// Orders returns the registered orders sorted by name.
func Orders() []OrderInfo {
	out := make([]OrderInfo, 0, len(orders))
	for _, o := range orders {
		out = append(out, o)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// OrderParam is the order parameter of a queue-based policy, with default
// def, to list in its Info.Params. The parameters of the registered
// orders are then accepted too. Its documentation names no list of orders:
// policies register it at init, before every order may be registered
// (WriteCatalog lists them).
func OrderParam(def string) Param {
	return Param{Name: "order", Default: def, Doc: "queue order: fcfs (arrival), sjf (estimate, then arrival) or any other registered order, e.g. multifactor (the queue orders of 'backfill policies')"}
}

func orderList() string {
	var names []string
	for _, o := range Orders() {
		names = append(names, o.Name)
	}
	if len(names) == 0 {
		return "fcfs, sjf"
	}
	return strings.Join(names, ", ")
}

// NewOrder builds the order named by parameter order of p (def when
// absent) for a machine of procs processors, with the order's own
// parameters taken from p.
func NewOrder(p Params, def string, procs int) (Order, error) {
	name, ok := p["order"]
	if !ok || name == "" {
		name = def
	}
	info, ok := orders[name]
	if !ok {
		return nil, fmt.Errorf("unknown order %q (known: %s)", name, orderList())
	}
	for k := range p {
		if owner := orderOwning(k); owner != "" && owner != name {
			return nil, fmt.Errorf("parameter %s belongs to order %s, not %s", k, owner, name)
		}
	}
	return info.New(procs, p)
}

// orderOwning is the name of the registered order with parameter k, or "".
func orderOwning(k string) string {
	for _, o := range Orders() {
		for _, pp := range o.Params {
			if pp.Name == k {
				return o.Name
			}
		}
	}
	return ""
}

// IsArrival reports whether o is arrival order (fcfs).
func IsArrival(o Order) bool {
	_, ok := o.(fcfsOrder)
	return ok
}

// FCFS is arrival order: by job ID.
var FCFS Order = fcfsOrder{}

// SJF is shortest estimate first, ties by arrival.
var SJF Order = sjfOrder{}

type fcfsOrder struct{}

func (fcfsOrder) Name() string                          { return "fcfs" }
func (fcfsOrder) Less(_ int64, a, b *job.Request) bool  { return a.ID < b.ID }
func (fcfsOrder) Key(*job.Request) int64                { return 0 }
func (sjfOrder) Name() string                           { return "sjf" }
func (sjfOrder) Key(j *job.Request) int64               { return j.Estimate }
func (o sjfOrder) Less(_ int64, a, b *job.Request) bool { return keyLess(o, a, b) }

type sjfOrder struct{}

func keyLess(o KeyOrder, a, b *job.Request) bool {
	ka, kb := o.Key(a), o.Key(b)
	if ka != kb {
		return ka < kb
	}
	return a.ID < b.ID
}

// SortWaiting sorts waiting jobs js in o's order at now, ties by ID.
func SortWaiting(now int64, o Order, js []*job.Request) {
	sort.Slice(js, func(x, y int) bool {
		a, b := js[x], js[y]
		if o.Less(now, a, b) {
			return true
		}
		if o.Less(now, b, a) {
			return false
		}
		return a.ID < b.ID
	})
}

func init() {
	RegisterOrder(OrderInfo{Name: "fcfs", Doc: "arrival order", New: func(int, Params) (Order, error) { return FCFS, nil }})
	RegisterOrder(OrderInfo{Name: "sjf", Doc: "shortest estimate first, ties by arrival", New: func(int, Params) (Order, error) { return SJF, nil }})
}

// Ordering is a policy's queue order with the plumbing every policy needs:
// it forwards events to the order when it is an OrderObserver, and says
// whether the queue must be re-sorted at each pass. The zero value is
// arrival order.
type Ordering struct {
	O   Order
	obs OrderObserver
	// Key is the order's fixed key when it is a KeyOrder other than
	// arrival (nil otherwise).
	Key func(*job.Request) int64
	// Dynamic is true when the order is not a KeyOrder: re-sort at each
	// pass.
	Dynamic bool
}

// NewOrdering wraps o (nil: arrival order).
func NewOrdering(o Order) Ordering {
	if o == nil {
		o = FCFS
	}
	r := Ordering{O: o}
	r.obs, _ = o.(OrderObserver)
	switch k := o.(type) {
	case fcfsOrder:
	case KeyOrder:
		r.Key = k.Key
	default:
		r.Dynamic = true
	}
	return r
}

// Stateless reports whether the order is a function of the jobs alone
// (arrival, or a fixed key without an observer): a policy's snapshot then
// need not save anything of it.
func (r Ordering) Stateless() bool { return r.obs == nil && !r.Dynamic }

// StatelessOrder is NewOrdering(o).Stateless().
func StatelessOrder(o Order) bool { return NewOrdering(o).Stateless() }

// Submitted reports a submission to an observing order.
func (r Ordering) Submitted(now int64, j *job.Request) {
	if r.obs != nil {
		r.obs.Submitted(now, j)
	}
}

// Started reports a start to an observing order.
func (r Ordering) Started(now int64, j *job.Request) {
	if r.obs != nil {
		r.obs.Started(now, j)
	}
}

// Ended reports an end or a cancellation to an observing order.
func (r Ordering) Ended(now int64, j *job.Request) {
	if r.obs != nil {
		r.obs.Ended(now, j)
	}
}

// Advance brings an observing order to now.
func (r Ordering) Advance(now int64) {
	if r.obs != nil {
		r.obs.Advance(now)
	}
}

// Wrap returns start extended to report each start to an observing order.
func (r Ordering) Wrap(now int64, start func(*job.Request)) func(*job.Request) {
	if r.obs == nil {
		return start
	}
	return func(j *job.Request) {
		r.obs.Started(now, j)
		start(j)
	}
}

// Accepts reports whether the policy info takes parameter key: one of its
// own, or, for a policy with the order parameter, one of a registered
// order's.
func Accepts(info Info, key string) bool {
	takesOrder := false
	for _, pp := range info.Params {
		if pp.Name == key {
			return true
		}
		takesOrder = takesOrder || pp.Name == "order"
	}
	return takesOrder && orderOwning(key) != ""
}
