package slurm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.OrderSnapshotter = (*Multifactor)(nil)

// mfSnapshot is the saved state of the multifactor priority (version 1):
// the decay thread's clock, the usage and fair-share state of every
// association (in Tree.Assocs order, so that the associations created at
// first sight are created again in the same order, which decides Fair
// Tree's ties and the classic pass's order), the fair-share factors
// cached for the current calculation, and each waiting or running job's
// start and priority (waiting jobs keep the priority of their last
// calculation until the next). Floats are saved exactly (JSON's shortest
// round-trip form). The limits' counters are not in it: the policy that
// counts jobs against limits counts its restored jobs again.
type mfSnapshot struct {
	V        int          `json:"v"`
	Started  bool         `json:"started"`
	LastCalc int64        `json:"last_calc"`
	NextCalc int64        `json:"next_calc"`
	Epoch    int          `json:"epoch"`
	ECount   int          `json:"ecount"`
	MaxQOS   int64        `json:"max_qos"`
	Scale    float64      `json:"scale"`
	Root     assocState   `json:"root"`
	Assocs   []assocState `json:"assocs"`
	FS       []fsEntry    `json:"fs_cache"`       // by index in Assocs (−1: the root)
	Jobs     []mfJobState `json:"jobs,omitempty"` // by ID (version 1)
	// Rows are the jobs by ID (version 2): [id, start (−1: waiting),
	// priority, and the factors age, fair share, job size, partition,
	// QOS, nice], written without reflection (a snapshot at 10,000 jobs
	// waiting is taken under the service's engine lock).
	Rows json.RawMessage `json:"rows,omitempty"`
	QOS  []string        `json:"qos"` // every QOS, sorted (those created at first sight)
}

type assocState struct {
	Account string  `json:"account"`
	User    string  `json:"user,omitempty"`
	Parent  string  `json:"parent,omitempty"` // the parent account (users: their account)
	Shares  int64   `json:"shares"`
	Usage   float64 `json:"usage"`
	Efctv   float64 `json:"efctv"`
	EfctvAt int     `json:"efctv_at"`
	FS      float64 `json:"fs"`
}

type fsEntry struct {
	Assoc int     `json:"a"`
	F     float64 `json:"f"`
}

type mfJobState struct {
	ID    int     `json:"id"`
	Start int64   `json:"start"` // −1: waiting
	Prio  uint32  `json:"prio"`
	F     Factors `json:"f"`
}

func saveAssoc(a *Assoc) assocState {
	s := assocState{Account: a.Account, User: a.User, Shares: a.Shares, Usage: a.usageRaw, Efctv: a.usageEfctv, EfctvAt: a.efctvAt, FS: a.fsFactor}
	if a.User == "" && a.Parent != nil {
		s.Parent = a.Parent.Account
	}
	return s
}

func (s assocState) load(a *Assoc) {
	a.usageRaw, a.usageEfctv, a.efctvAt, a.fsFactor = s.Usage, s.Efctv, s.EfctvAt, s.FS
}

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
	}
	return true
}

// SnapshotOrder implements policy.OrderSnapshotter.
func (m *Multifactor) SnapshotOrder() ([]byte, error) {
	s := mfSnapshot{V: 2, Started: m.started, LastCalc: m.lastCalc, NextCalc: m.nextCalc, Epoch: m.epoch, ECount: m.ecount,
		MaxQOS: m.maxQOS, Scale: m.tree.scale, Root: saveAssoc(m.tree.Root), Assocs: []assocState{}, FS: []fsEntry{}}
	all := m.tree.Assocs()
	for _, a := range all {
		s.Assocs = append(s.Assocs, saveAssoc(a))
	}
	if m.tree.Root.fsAt == m.fsGen {
		s.FS = append(s.FS, fsEntry{-1, m.tree.Root.fsVal})
	}
	for i, a := range all {
		if a.fsAt == m.fsGen {
			s.FS = append(s.FS, fsEntry{i, a.fsVal})
		}
	}
	// the waiting and running jobs in ID order
	rows := make([]byte, 0, 64*(len(m.live)-m.dead)+2)
	rows = append(rows, '[')
	for _, x := range m.live {
		if x.gone {
			continue
		}
		f := x.f
		if !finite(f.Age, f.Fairshare, f.JobSize, f.Partition, f.QOS) {
			return nil, fmt.Errorf("multifactor: snapshot: job %d has a factor that is not finite", x.j.ID)
		}
		if len(rows) > 1 {
			rows = append(rows, ',')
		}
		rows = append(rows, '[')
		rows = strconv.AppendInt(rows, int64(x.j.ID), 10)
		rows = append(rows, ',')
		rows = strconv.AppendInt(rows, x.start, 10)
		rows = append(rows, ',')
		rows = strconv.AppendUint(rows, uint64(x.prio), 10)
		for _, v := range []float64{f.Age, f.Fairshare, f.JobSize, f.Partition, f.QOS} {
			rows = append(rows, ',')
			rows = strconv.AppendFloat(rows, v, 'g', -1, 64)
		}
		rows = append(rows, ',')
		rows = strconv.AppendInt(rows, f.Nice, 10)
		rows = append(rows, ']')
	}
	s.Rows = append(rows, ']')
	for n := range m.tree.QOS {
		s.QOS = append(s.QOS, n)
	}
	slices.Sort(s.QOS)
	for _, a := range append(s.Assocs, s.Root) {
		if !finite(a.Usage, a.Efctv, a.FS) {
			return nil, fmt.Errorf("multifactor: snapshot: association %s/%s has a usage that is not finite", a.Account, a.User)
		}
	}
	return json.Marshal(&s)
}

// RestoreOrder implements policy.OrderSnapshotter: the associations
// created at first sight are created again in their order, their usage
// and fair-share state set, and the jobs known again with their saved
// starts and priorities.
func (m *Multifactor) RestoreOrder(now int64, data []byte, lookup func(id int) *job.Request) error {
	if m.started || len(m.live) > m.dead {
		return errors.New("multifactor: restore into an order that is not fresh")
	}
	var s mfSnapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("multifactor: snapshot: %w", err)
	}
	switch s.V {
	case 1:
	case 2:
		var rows [][9]json.Number
		if err := json.Unmarshal(s.Rows, &rows); err != nil {
			return fmt.Errorf("multifactor: snapshot: jobs: %w", err)
		}
		s.Jobs = make([]mfJobState, len(rows))
		for i, row := range rows {
			w := &s.Jobs[i]
			id, err1 := strconv.Atoi(string(row[0]))
			start, err2 := strconv.ParseInt(string(row[1]), 10, 64)
			prio, err3 := strconv.ParseUint(string(row[2]), 10, 32)
			nice, err4 := strconv.ParseInt(string(row[8]), 10, 64)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				return fmt.Errorf("multifactor: snapshot: job row %d: %w", i, err)
			}
			w.ID, w.Start, w.Prio, w.F.Nice = id, start, uint32(prio), nice
			for k, p := range []*float64{&w.F.Age, &w.F.Fairshare, &w.F.JobSize, &w.F.Partition, &w.F.QOS} {
				v, err := strconv.ParseFloat(string(row[3+k]), 64)
				if err != nil || !finite(v) {
					return fmt.Errorf("multifactor: snapshot: job row %d: factor %q", i, row[3+k])
				}
				*p = v
			}
		}
	default:
		return fmt.Errorf("multifactor: snapshot version %d, expected 1 or 2", s.V)
	}
	if !(s.Scale > 0) || !finite(s.Scale) {
		return fmt.Errorf("multifactor: snapshot: usage scale %v", s.Scale)
	}
	t := m.tree
	// the associations: those of the configuration exist; create the
	// others in saved order (parents come before their children)
	for _, a := range s.Assocs {
		var err error
		switch {
		case a.User != "":
			if _, ok := t.users[[2]string{a.User, a.Account}]; !ok {
				_, err = t.AddUser(a.User, a.Account, a.Shares)
			}
		default:
			if _, ok := t.accounts[a.Account]; !ok {
				if _, ok := t.accounts[a.Parent]; !ok || a.Parent == "" {
					err = fmt.Errorf("parent %q of account %s is unknown", a.Parent, a.Account)
				} else {
					_, err = t.AddAccount(a.Account, a.Parent, a.Shares)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("multifactor: snapshot: %w", err)
		}
	}
	all := t.Assocs()
	if len(all) != len(s.Assocs) {
		return fmt.Errorf("multifactor: snapshot of %d associations, the tree has %d", len(s.Assocs), len(all))
	}
	for i, a := range all {
		w := s.Assocs[i]
		if a.Account != w.Account || a.User != w.User || a.Shares != w.Shares {
			return fmt.Errorf("multifactor: snapshot: association %d is %s/%s (%d shares), the tree's %s/%s (%d shares)", i, w.Account, w.User, w.Shares, a.Account, a.User, a.Shares)
		}
		if !finite(w.Usage, w.Efctv, w.FS) {
			return fmt.Errorf("multifactor: snapshot: association %s/%s has a usage that is not finite", w.Account, w.User)
		}
		w.load(a)
	}
	if !finite(s.Root.Usage, s.Root.Efctv, s.Root.FS) {
		return errors.New("multifactor: snapshot: the root's usage is not finite")
	}
	s.Root.load(t.Root)
	t.scale = s.Scale
	for _, n := range s.QOS {
		t.QOSNamed(n)
	}
	m.fsGen++ // (no factor of an earlier calculation is current)
	for _, e := range s.FS {
		if e.Assoc < -1 || e.Assoc >= len(all) || !finite(e.F) {
			return fmt.Errorf("multifactor: snapshot: fair-share cache entry %d", e.Assoc)
		}
		a := t.Root
		if e.Assoc >= 0 {
			a = all[e.Assoc]
		}
		a.fsAt, a.fsVal = m.fsGen, e.F
	}
	last := -1
	for _, w := range s.Jobs {
		j := lookup(w.ID)
		if j == nil {
			return fmt.Errorf("multifactor: snapshot: unknown job %d", w.ID)
		}
		if w.ID <= last {
			return errors.New("multifactor: snapshot: jobs out of order")
		}
		last = w.ID
		in := m.resolve(j)
		x := &mfJob{j: j, resolved: &resolved{in: in, assoc: t.User(in.User, in.Account), qos: t.QOSNamed(in.QOS), part: m.partition(in.Partition)},
			submit: j.Submit, start: w.Start, prio: w.Prio, f: w.F}
		if len(t.Assocs()) != len(all) {
			return fmt.Errorf("multifactor: snapshot: job %d's association %s/%s was not saved", w.ID, in.User, in.Account)
		}
		for j.ID >= len(m.jobs) {
			m.jobs = append(m.jobs, make([]*mfJob, max(64, len(m.jobs)))...)
		}
		m.jobs[j.ID] = x
		m.live = append(m.live, x)
	}
	m.started, m.lastCalc, m.nextCalc, m.epoch, m.ecount, m.maxQOS = s.Started, s.LastCalc, s.NextCalc, s.Epoch, s.ECount, s.MaxQOS
	if m.started && m.nextCalc != m.lastCalc+m.c.CalcPeriod {
		return fmt.Errorf("multifactor: snapshot: calculations at %d and %d, %d s apart by the configuration", m.lastCalc, m.nextCalc, m.c.CalcPeriod)
	}
	return nil
}

// Adopted makes running job j, started at start, known to a fresh or
// running order at now (a reconfiguration hands a new policy the running
// jobs): from now on it adds usage as any running job (the usage it added
// before the reconfiguration is not known).
func (m *Multifactor) Adopted(now int64, j *job.Request, start int64) {
	m.Submitted(now, j)
	m.job(j).start = start
}
