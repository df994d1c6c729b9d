package slurm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Info is what the priority needs to know of a job beyond its Request:
// its association (user and account), QOS, partition and nice value.
type Info struct {
	User, Account, QOS, Partition string
	Nice                          int64
}

// Resolver maps a job to its Info.
type Resolver func(j *job.Request) Info

// DefaultResolver names the trace's identifiers: user = the decimal user
// ID (SWF field 12), account = the decimal group ID (field 13, "none"
// when unknown), QOS = the decimal queue number (field 15, "normal" when
// unknown), partition = the decimal partition number (field 16, "" for
// the default partition), nice 0.
func DefaultResolver(j *job.Request) Info {
	in := Info{User: strconv.Itoa(int(j.User)), Account: "none", QOS: "normal"}
	if j.Group >= 0 {
		in.Account = strconv.Itoa(int(j.Group))
	}
	if j.Queue >= 0 {
		in.QOS = strconv.Itoa(int(j.Queue))
	}
	if j.Partition >= 0 {
		in.Partition = strconv.Itoa(int(j.Partition))
	}
	return in
}

// Factors are a job's normalized priority factors, each in [0, 1], as
// `sprio -n` shows them.
type Factors struct {
	Age, Fairshare, JobSize, Partition, QOS float64
	Nice                                    int64
}

// Multifactor is Slurm's priority/multifactor plugin as a policy.Order
// (registered as "multifactor"): jobs in decreasing priority, ties by
// arrival. The priority of a waiting job is set at submission and
// recalculated every PriorityCalcPeriod (the plugin's decay thread):
//
//	priority = WeightAge·age + WeightFairshare·fs + WeightJobSize·size
//	         + WeightPartition·part + WeightQOS·qos − nice
//
// floored at 1 and truncated to an integer, where age = min(1, waited /
// PriorityMaxAge); size = (nodes−n)/nodes + (cpus−c)/cpus, halved, with
// PriorityFavorSmall (else n/nodes + c/cpus, halved) for a job of c CPUs
// on n nodes; part and qos are the partition's PriorityJobFactor and the
// QOS's priority over the largest of them; and fs is the fair-share
// factor: classic, 2^(−Ue/S) with S the association's normalized shares
// and Ue its effective usage, Ue = U + (Ue_parent − U)·s/s_level for the
// normalized usage U (decayed CPU-seconds over the root's); or Fair Tree's
// rank of the user among all users (PriorityFlags without NO_FAIR_TREE).
//
// Usage: every calculation period the usage of every association decays
// by d^Δ, d = 1 − 0.693/PriorityDecayHalfLife (Slurm's own first-order
// approximation of 2^(−1/half-life)), and each running job adds
// Δj·d^Δj·c for the Δj seconds it ran since the previous calculation; a
// job that ends adds its last part at once.
type Multifactor struct {
	spec    string // the parameters it was built from, for Name
	c       Conf
	tree    *Tree
	resolve Resolver
	// with DefaultResolver, what a job's numbers resolve to (the
	// associations are created at first sight, at the first miss)
	defRes bool
	byUser [][]*resolved          // by user number (0 ≤ user < maxByUser)
	byNums map[[4]int64]*resolved // the other user numbers
	// the machine
	cpus, nodes, cpusPerNode int
	maxQOS, maxPart          int64
	qosSeen                  int     // the QOS count maxQOS was computed for (0: not yet)
	decay                    float64 // per-second decay factor
	// calculation periods
	origin   int64 // a calculation instant; the others are origin + k·CalcPeriod
	lastCalc int64
	nextCalc int64
	hold     int64 // Advance runs no calculation at or after hold (0: none)
	started  bool
	// jobs: by ID (nil when gone), and the waiting and running ones in
	// ID order (live; an ended job stays, marked gone, until dead is
	// more than half of it: a start or an end moves nothing)
	jobs  []*mfJob
	live  []*mfJob
	dead  int
	spare []*mfJob // records of ended jobs no longer in live, for reuse
	epoch int      // calculations done
	// the fair-share factors of the current calculation are those of the
	// associations with Assoc.fsAt == fsGen (a new calculation forgets
	// them all by incrementing it)
	fsGen  int
	ecount int     // effective usages computed at ecount are current
	powP   float64 // decay^PriorityCalcPeriod (0: not yet computed)
}

type mfJob struct {
	j         *job.Request
	*resolved // its association, QOS and partition (shared by jobs of the same numbers with DefaultResolver)
	submit    int64
	start     int64
	prio      uint32
	f         Factors
	gone      bool // ended (still in Multifactor.live)
}

var (
	_ policy.Order         = (*Multifactor)(nil)
	_ policy.OrderObserver = (*Multifactor)(nil)
)

// NewMultifactor returns the priority of configuration c and association
// tree t (nil: an empty tree, every account and user created with one
// share at first sight) on a machine of procs CPUs (c.CPUs and c.Nodes,
// when set, describe the machine's nodes; without them every CPU is a
// node). resolve maps jobs to associations (nil: DefaultResolver).
// Calculations fall at origin + k·PriorityCalcPeriod.
func NewMultifactor(c Conf, t *Tree, procs int, resolve Resolver, origin int64) *Multifactor {
	if t == nil {
		t = NewTree()
	}
	def := resolve == nil
	if def {
		resolve = DefaultResolver
	}
	m := &Multifactor{c: c, tree: t, resolve: resolve, defRes: def, cpus: procs, nodes: procs, cpusPerNode: 1,
		origin: origin, fsGen: 1}
	if c.CPUs > 0 && c.Nodes > 0 {
		m.nodes = c.Nodes
		m.cpusPerNode = max(1, c.CPUs/c.Nodes)
	}
	m.decay = 1
	if c.DecayHalfLife > 0 && c.DecayHalfLife != Infinite {
		m.decay = 1 - 0.693/float64(c.DecayHalfLife)
	}
	for _, p := range c.Partitions {
		m.maxPart = max(m.maxPart, p.PriorityJobFactor)
	}
	return m
}

// Name implements policy.Order.
func (m *Multifactor) Name() string { return "multifactor" + m.spec }

// Less implements policy.Order: higher priority first.
func (m *Multifactor) Less(_ int64, a, b *job.Request) bool {
	pa, pb := m.jobs[a.ID].prio, m.jobs[b.ID].prio // both waiting: known
	if pa != pb {
		return pa > pb
	}
	return a.ID < b.ID
}

// Compare is Less as a three-way comparison of two waiting jobs (−1: a
// first), a total order (ties by job ID) for sorts and binary searches
// without an interface call per comparison.
func (m *Multifactor) Compare(a, b *job.Request) int {
	pa, pb := m.jobs[a.ID].prio, m.jobs[b.ID].prio
	switch {
	case pa > pb:
		return -1
	case pa < pb:
		return 1
	}
	return cmp.Compare(a.ID, b.ID)
}

// Priority is waiting job j's current priority (0 when unknown).
func (m *Multifactor) Priority(j *job.Request) uint32 {
	if x := m.job(j); x != nil {
		return x.prio
	}
	return 0
}

// Factors are waiting job j's normalized factors at its last calculation.
func (m *Multifactor) Factors(j *job.Request) Factors {
	if x := m.job(j); x != nil {
		return x.f
	}
	return Factors{}
}

// Epoch counts the calculations so far: priorities change only at a new
// epoch (and a new job's is set at its submission).
func (m *Multifactor) Epoch() int { return m.epoch }

// Static reports whether priorities never change after submission (no
// age and no fair-share weight).
func (m *Multifactor) Static() bool { return m.c.WeightAge == 0 && m.c.WeightFairshare == 0 }

func (m *Multifactor) job(j *job.Request) *mfJob {
	if j.ID >= 0 && j.ID < len(m.jobs) {
		return m.jobs[j.ID]
	}
	return nil
}

// Info is j's resolved association, QOS and partition.
func (m *Multifactor) Info(j *job.Request) Info {
	if x := m.job(j); x != nil {
		return x.in
	}
	return m.resolve(j)
}

// Tree is the association tree (with its limits and usage).
func (m *Multifactor) Tree() *Tree { return m.tree }

// Conf is the configuration.
func (m *Multifactor) Conf() Conf { return m.c }

// Partition is j's partition: the one its Info names, else the default
// one (Default=YES, else the first in the file), else an unlimited one.
func (m *Multifactor) Partition(j *job.Request) Partition {
	if x := m.job(j); x != nil {
		return x.part
	}
	return m.partition(m.resolve(j).Partition)
}

func (m *Multifactor) partition(name string) Partition {
	if p, ok := m.c.Partitions[name]; ok {
		return p
	}
	for _, n := range m.c.PartitionOrder {
		if m.c.Partitions[n].Default {
			return m.c.Partitions[n]
		}
	}
	if len(m.c.PartitionOrder) > 0 {
		return m.c.Partitions[m.c.PartitionOrder[0]]
	}
	return Partition{Name: name, MaxTime: Infinite, MaxNodes: Infinite, PriorityJobFactor: 1}
}

// Nodes is the number of nodes job j needs (its CPUs over the CPUs per
// node, rounded up).
func (m *Multifactor) Nodes(j *job.Request) int64 {
	return int64((j.Procs + m.cpusPerNode - 1) / m.cpusPerNode)
}

// Job returns j's association and QOS (known after Submitted).
func (m *Multifactor) Job(j *job.Request) (*Assoc, *QOS) {
	if x := m.job(j); x != nil {
		return x.assoc, x.qos
	}
	in := m.resolve(j)
	return m.tree.User(in.User, in.Account), m.tree.QOSNamed(in.QOS)
}

// Submitted implements policy.OrderObserver: the job's initial priority.
func (m *Multifactor) Submitted(now int64, j *job.Request) {
	m.Advance(now)
	var x *mfJob
	if n := len(m.spare); n > 0 {
		x = m.spare[n-1]
		m.spare[n-1] = nil
		m.spare = m.spare[:n-1]
		*x = mfJob{start: -1, j: j, resolved: m.resolved(j), submit: j.Submit}
	} else {
		x = &mfJob{start: -1, j: j, resolved: m.resolved(j), submit: j.Submit}
	}
	if len(m.tree.QOS) != m.qosSeen {
		// a QOS was added (their priorities are set when the shares are
		// read, before: the largest changes only with a new one)
		m.qosSeen = len(m.tree.QOS)
		m.maxQOS = 0
		for _, q := range m.tree.QOS {
			m.maxQOS = max(m.maxQOS, q.Priority)
		}
	}
	for j.ID >= len(m.jobs) {
		m.jobs = append(m.jobs, make([]*mfJob, max(64, len(m.jobs)))...)
	}
	m.jobs[j.ID] = x
	m.push(x)
	m.set(now, x)
}

// resolved is what a job resolves to: its Info, association, QOS and
// partition.
type resolved struct {
	in    Info
	assoc *Assoc
	qos   *QOS
	part  Partition
	nums  [4]int64 // with DefaultResolver: the job numbers resolved
}

// maxByUser bounds the user numbers whose resolutions Multifactor keeps
// in a slice (larger ones, and negative ones, go to a map).
const maxByUser = 1 << 16

// resolved resolves j (with DefaultResolver, once per user, group, queue
// and partition numbers, the answer shared by their jobs).
func (m *Multifactor) resolved(j *job.Request) *resolved {
	k := [4]int64{int64(j.User), int64(j.Group), int64(j.Queue), int64(j.Partition)}
	u := int(j.User)
	small := u >= 0 && u < maxByUser
	if m.defRes {
		if small {
			if u < len(m.byUser) {
				for _, r := range m.byUser[u] {
					if r.nums == k {
						return r
					}
				}
			}
		} else if r, ok := m.byNums[k]; ok {
			return r
		}
	}
	in := m.resolve(j)
	r := &resolved{in, m.tree.User(in.User, in.Account), m.tree.QOSNamed(in.QOS), m.partition(in.Partition), k}
	if m.defRes {
		if small {
			if u >= len(m.byUser) {
				m.byUser = append(m.byUser, make([][]*resolved, u+1-len(m.byUser))...)
			}
			m.byUser[u] = append(m.byUser[u], r)
		} else {
			if m.byNums == nil {
				m.byNums = map[[4]int64]*resolved{}
			}
			m.byNums[k] = r
		}
	}
	return r
}

// push inserts x into live, kept in job-id order (in place of an ended
// job of the same ID).
func (m *Multifactor) push(x *mfJob) {
	if n := len(m.live); n == 0 || m.live[n-1].j.ID < x.j.ID {
		m.live = append(m.live, x)
		return
	}
	i, found := slices.BinarySearchFunc(m.live, x, byID)
	if found {
		m.spare = append(m.spare, m.live[i])
		m.live[i] = x // (the job it replaces has ended)
		m.dead--
		return
	}
	m.live = slices.Insert(m.live, i, x)
}

// gone marks x ended, and drops the ended jobs from live once they are
// more than half of it (their records kept for the next submissions: a
// record is referred to only from jobs, cleared at the end, and live).
func (m *Multifactor) gone(x *mfJob) {
	x.gone = true
	m.dead++
	if m.dead > 32 && 2*m.dead > len(m.live) {
		w := 0
		for _, y := range m.live {
			if y.gone {
				m.spare = append(m.spare, y)
				continue
			}
			m.live[w] = y
			w++
		}
		clear(m.live[w:])
		m.live = m.live[:w]
		m.dead = 0
	}
}

func byID(a, b *mfJob) int { return a.j.ID - b.j.ID }

// Started implements policy.OrderObserver.
func (m *Multifactor) Started(now int64, j *job.Request) {
	x := m.job(j)
	if x == nil || x.start >= 0 {
		return
	}
	x.start = now
}

// Ended implements policy.OrderObserver: with AccountingStorageEnforce=
// limits a running job's last usage is added at once (Slurm's
// priority_p_job_end, called only then); without, it is lost.
func (m *Multifactor) Ended(now int64, j *job.Request) {
	m.Advance(now)
	x := m.job(j)
	if x == nil {
		return
	}
	if x.start >= 0 && m.c.EnforceLimits {
		m.addUsage(x, now)
	}
	m.gone(x)
	m.jobs[j.ID] = nil
}

// Advance implements policy.OrderObserver: the calculations due by now.
func (m *Multifactor) Advance(now int64) {
	if !m.started {
		// the decay thread's first pass (which only records its time) is
		// the last calculation instant at or before now
		m.started = true
		p := m.c.CalcPeriod
		k := (now - m.origin) / p
		if now < m.origin && (m.origin-now)%p != 0 {
			k--
		}
		m.lastCalc = m.origin + k*p
		m.nextCalc = m.lastCalc + p
		m.setEfctv()
		if m.c.FairTree && m.c.WeightFairshare > 0 {
			m.fairTree()
		}
	}
	for m.nextCalc <= now && (m.hold == 0 || m.nextCalc < m.hold) {
		if m.Static() {
			// a calculation only notes its instant: on to the last one
			// due (one per period would cost a loop per
			// PriorityCalcPeriod of simulated time)
			last := now
			if m.hold != 0 {
				last = min(last, m.hold-1)
			}
			m.nextCalc += (last - m.nextCalc) / m.c.CalcPeriod * m.c.CalcPeriod
		}
		m.calc(m.nextCalc)
		m.nextCalc += m.c.CalcPeriod
	}
}

// Hold makes Advance run no calculation at or after t until Hold(0):
// a caller that knows events of a second came before the decay thread's
// pass in it (Slurm's calculations come at a fraction of a second).
func (m *Multifactor) Hold(t int64) { m.hold = t }

// NextCalc is the next calculation instant.
func (m *Multifactor) NextCalc() int64 { return m.nextCalc }

// calc is one pass of the decay thread at t.
func (m *Multifactor) calc(t int64) {
	if m.Static() {
		// no priority changes after submission: nothing to recalculate
		// (usage is only kept for the fair-share factor)
		m.lastCalc = t
		return
	}
	// effective usage of the accounts, from the usage before this period
	// (the decay thread computes it first)
	m.setEfctv()
	{
		if d := t - m.lastCalc; d > 0 && m.decay != 1 && m.c.WeightFairshare > 0 {
			m.tree.decay(m.pow(d))
		}
		m.fsGen++
		if m.c.FairTree {
			for _, x := range m.live {
				if !x.gone && x.start >= 0 {
					m.addUsage(x, t)
				}
			}
			if m.c.WeightFairshare > 0 {
				m.fairTree()
			}
			for _, x := range m.live {
				if !x.gone && x.start < 0 {
					m.set(t, x)
				}
			}
		} else {
			// Slurm's job list order (job ids): a running job adds its
			// usage, a waiting job gets its priority; a user's effective
			// usage is computed at its first waiting job, from the usage
			// added so far
			// (live is in job-id order)
			for _, x := range m.live {
				switch {
				case x.gone:
				case x.start >= 0:
					m.addUsage(x, t)
				default:
					m.set(t, x)
				}
			}
		}
		m.epoch++
	}
	m.lastCalc = t
}

// addUsage adds the usage of running job x from the last calculation (or
// its start) to t.
func (m *Multifactor) addUsage(x *mfJob, t int64) {
	if m.c.WeightFairshare == 0 {
		return // usage only feeds the fair-share factor
	}
	from := max(x.start, m.lastCalc)
	d := float64(t - from)
	if d <= 0 {
		return
	}
	u := d * m.pow(t-from) * float64(x.j.Procs) / m.tree.scale
	for a := x.assoc; a != nil; a = a.Parent {
		a.usageRaw += u
	}
}

// pow is decay^d, cached for the calculation period.
func (m *Multifactor) pow(d int64) float64 {
	if d == m.c.CalcPeriod {
		if m.powP == 0 {
			m.powP = math.Pow(m.decay, float64(d))
		}
		return m.powP
	}
	return math.Pow(m.decay, float64(d))
}

// setEfctv computes the classic effective usage of the accounts, top
// down, and invalidates that of the users (computed when first needed).
func (m *Multifactor) setEfctv() {
	m.ecount++ // every effective usage is now stale
	for _, a := range m.tree.Accounts() {
		m.efctv(a) // parents before children
	}
}

func (m *Multifactor) efctv(a *Assoc) float64 {
	if a.efctvAt == m.ecount {
		return a.usageEfctv
	}
	root := m.tree.Root
	norm := 0.0
	if root.usageRaw > 0 {
		norm = min(1, a.usageRaw/root.usageRaw)
	}
	switch {
	case a.Parent == root:
		a.usageEfctv = norm
	case a.levelShares == 0:
		a.usageEfctv = a.Parent.usageEfctv
	default:
		a.usageEfctv = norm + (a.Parent.usageEfctv-norm)*float64(a.Shares)/float64(a.levelShares)
	}
	a.efctvAt = m.ecount
	return a.usageEfctv
}

// fairTree computes Fair Tree's factor of every user, as Slurm's
// fair_tree documentation describes it (Slurm 19.05+, PriorityFlags
// without NO_FAIR_TREE). Every association gets a level fair-share
// LF = S/U, where S is its shares over its siblings' (itself included)
// and U its usage over its parent's (LF = +Inf without usage, 0 without
// shares). From the root, each association's children are sorted by
// decreasing LF (users before accounts of equal LF, then tree order) and
// visited depth first; users are ranked in the order visited, from N (the
// number of user associations) down, and a user's factor is rank/N.
// Ties: sibling users of equal LF get the same rank; sibling accounts of
// equal LF have their children merged into one list before descending;
// and an account of the same LF as the user before it starts tied, so its
// first user gets that user's rank. After a tie, the next user's rank is
// the one it would have had without ties (the count of users visited).
func (m *Multifactor) fairTree() {
	n := 0
	for _, a := range m.tree.Assocs() {
		if a.User != "" {
			n++
		}
	}
	if n == 0 {
		return
	}
	lf := func(a *Assoc) float64 {
		if a.Shares == 0 || a.levelShares == 0 {
			return 0
		}
		s := float64(a.Shares) / float64(a.levelShares)
		if a.Parent == nil || a.Parent.usageRaw <= 0 || a.usageRaw <= 0 {
			return math.Inf(1)
		}
		return s / (a.usageRaw / a.Parent.usageRaw)
	}
	rank, rnt := n, n // the current rank, and the rank without ties
	var visit func(sibs []*Assoc, accountTied bool)
	visit = func(sibs []*Assoc, accountTied bool) {
		type entry struct {
			a  *Assoc
			lf float64
		}
		es := make([]entry, len(sibs))
		for i, a := range sibs {
			es[i] = entry{a, lf(a)}
		}
		sort.SliceStable(es, func(x, y int) bool {
			if es[x].lf != es[y].lf {
				return es[x].lf > es[y].lf
			}
			return es[x].a.User != "" && es[y].a.User == ""
		})
		for i := 0; i < len(es); i++ {
			e := es[i]
			tied := (i == 0 && accountTied) || (i > 0 && es[i-1].lf == e.lf)
			if e.a.User != "" {
				if !tied {
					rank = rnt
				}
				e.a.fsFactor = float64(rank) / float64(n)
				rnt--
				continue
			}
			kids := e.a.Children
			k := i + 1
			for k < len(es) && es[k].a.User == "" && es[k].lf == e.lf {
				k++
			}
			if k > i+1 {
				kids = nil
				for _, x := range es[i:k] {
					kids = append(kids, x.a.Children...)
				}
			}
			visit(kids, tied)
			i = k - 1
		}
	}
	visit(m.tree.Root.Children, false)
}

// set computes x's priority at t.
func (m *Multifactor) set(t int64, x *mfJob) {
	c := &m.c
	f := Factors{}
	if c.WeightAge > 0 {
		if d := t - x.submit; d > 0 && c.MaxAge > 0 {
			f.Age = min(1, float64(d)/float64(c.MaxAge))
		} else if c.MaxAge == 0 {
			f.Age = 1
		}
	}
	if c.WeightFairshare > 0 {
		a := x.assoc
		if c.FairTree {
			f.Fairshare = a.fsFactor
		} else if a.fsAt == m.fsGen {
			f.Fairshare = a.fsVal
		} else if a.sharesNorm > 0 {
			f.Fairshare = math.Pow(2, -(m.efctv(a)/a.sharesNorm)/c.DampeningFactor)
			a.fsAt, a.fsVal = m.fsGen, f.Fairshare
		}
	}
	if c.WeightJobSize > 0 {
		n := float64(m.Nodes(x.j))
		cp := float64(x.j.Procs)
		if c.FavorSmall {
			f.JobSize = ((float64(m.nodes)-n)/float64(m.nodes) + (float64(m.cpus)-cp)/float64(m.cpus)) / 2
		} else {
			f.JobSize = (n/float64(m.nodes) + cp/float64(m.cpus)) / 2
		}
		f.JobSize = min(1, max(0, f.JobSize))
	}
	if c.WeightPartition > 0 && m.maxPart > 0 {
		f.Partition = float64(x.part.PriorityJobFactor) / float64(m.maxPart)
	}
	if c.WeightQOS > 0 && x.qos.Priority > 0 && m.maxQOS > 0 {
		f.QOS = float64(x.qos.Priority) / float64(m.maxQOS)
	}
	f.Nice = x.in.Nice
	p := f.Age*float64(c.WeightAge) + f.Fairshare*float64(c.WeightFairshare) + f.JobSize*float64(c.WeightJobSize) +
		f.Partition*float64(c.WeightPartition) + f.QOS*float64(c.WeightQOS) - float64(f.Nice)
	if p < 1 {
		p = 1
	}
	if p > math.MaxUint32 {
		p = math.MaxUint32
	}
	x.prio = uint32(p)
	x.f = f
}

func init() {
	policy.RegisterOrder(policy.OrderInfo{
		Name: "multifactor",
		Doc:  "Slurm's priority/multifactor: age, fair-share (classic or Fair Tree), job size, partition, QOS and nice with the PriorityWeight* of a slurm.conf excerpt, recalculated every PriorityCalcPeriod; users, accounts and QOS are the trace's user, group and queue numbers",
		Params: []policy.Param{
			{Name: "slurmconf", Default: "", Doc: "slurm.conf excerpt with the Priority* settings (and, for the slurm policy, SchedulerParameters and partitions); none: Slurm's defaults (every weight 0: arrival order)"},
			{Name: "shares", Default: "", Doc: "association file: account/user/qos lines with shares, priorities and limits, or `sshare -a -P` output; none: every account and user gets one share when first seen"},
			{Name: "sidecar", Default: "", Doc: "the sidecar CSV of `backfill import slurm`: each job's user, account, partition and QOS names (none: the trace's user, group, partition and queue numbers)"},
		},
		New: func(procs int, p policy.Params) (policy.Order, error) {
			return FromParams(procs, p)
		},
	})
}

// FromParams builds the multifactor priority from the parameters
// slurmconf and shares of a policy spec.
func FromParams(procs int, p policy.Params) (*Multifactor, error) {
	c, t, err := Load(p["slurmconf"], p["shares"])
	if err != nil {
		return nil, err
	}
	res, err := LoadResolver(p["sidecar"])
	if err != nil {
		return nil, err
	}
	m := NewMultifactor(c, t, procs, res, 0)
	m.spec = Spec(p)
	return m, nil
}

// LoadResolver reads a sidecar file (ReadSidecar); an empty path gives
// nil (DefaultResolver).
func LoadResolver(path string) (Resolver, error) {
	if path == "" {
		return nil, nil
	}
	r, err := ReadSidecar(path)
	if err != nil {
		return nil, fmt.Errorf("sidecar: %w", err)
	}
	return r, nil
}

// Spec is the slurmconf and shares parameters of p as a spec suffix.
func Spec(p policy.Params) string {
	s := ""
	for _, k := range []string{"slurmconf", "shares", "sidecar"} {
		if v := p[k]; v != "" {
			s += ":" + k + "=" + v
		}
	}
	return s
}

// Load reads the configuration and the association tree; an empty path
// gives the defaults (an empty tree).
func Load(confPath, sharesPath string) (Conf, *Tree, error) {
	c := DefaultConf()
	var err error
	if confPath != "" {
		if c, err = ReadConf(confPath); err != nil {
			return c, nil, fmt.Errorf("slurmconf: %w", err)
		}
	}
	t := NewTree()
	if sharesPath != "" {
		if t, err = ReadShares(sharesPath); err != nil {
			return c, nil, fmt.Errorf("shares: %w", err)
		}
	}
	return c, t, nil
}
