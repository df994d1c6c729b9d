package slurm

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Assoc is an association: an account (User "") or a user in an account.
// Its shares are the FairShare of sacctmgr (RawShares of sshare).
type Assoc struct {
	Account, User string
	Shares        int64
	Parent        *Assoc
	Children      []*Assoc
	tree          *Tree
	// Limits (0: none): MaxJobs running and MaxSubmit queued-or-running
	// jobs of this association (for an account, over its users), and
	// GrpCPUs, the CPUs its running jobs may hold together (GrpTRES=cpu=N).
	MaxJobs, MaxSubmit int
	GrpCPUs            int64

	// state of the priority computation
	usageRaw    float64 // decayed CPU-seconds, this association and below, over Tree.scale
	levelShares int64   // sum of the shares of the siblings, itself included
	sharesNorm  float64 // product of shares/levelShares up to the root
	usageEfctv  float64 // classic fair-share: effective usage
	efctvAt     int     // the Multifactor.ecount usageEfctv was computed at
	fsFactor    float64 // Fair Tree: the user's fair-share factor
	// classic fair-share: the factor at the current calculation, valid
	// when fsAt is Multifactor.fsGen
	fsAt  int
	fsVal float64
	// running and submitted jobs, for the limits
	running, submitted int
	cpus               int64
}

// QOS is a quality of service: a priority and per-user and group limits
// (0: none).
type QOS struct {
	Name                             string
	Priority                         int64
	MaxJobsPerUser, MaxSubmitPerUser int
	GrpCPUs                          int64

	running int64 // CPUs of its running jobs
	perUser map[string]*userCount
}

type userCount struct{ running, submitted int }

// Tree is the association tree of an account database: the root, accounts
// below it (possibly nested), users below accounts, and the QOS.
type Tree struct {
	Root     *Assoc
	accounts map[string]*Assoc
	users    map[[2]string]*Assoc // by (user, account)
	QOS      map[string]*QOS
	all      []*Assoc // Assocs, rebuilt after a change (nil)
	accts    []*Assoc // the accounts of all, in the same order
	// scale multiplies every usageRaw: a decay of all the usage is one
	// multiplication (renormalized before it underflows)
	scale float64
}

// decay multiplies all the usage by f.
func (t *Tree) decay(f float64) {
	t.scale *= f
	if t.scale < 1e-200 {
		for _, a := range append(t.Assocs(), t.Root) {
			a.usageRaw *= t.scale
		}
		t.scale = 1
	}
}

// Accounts returns the accounts but the root in Assocs order (parents
// before their children).
func (t *Tree) Accounts() []*Assoc {
	t.Assocs()
	return t.accts
}

// NewTree returns a tree with only the root and the QOS "normal".
func NewTree() *Tree {
	t := &Tree{Root: &Assoc{Account: "root", Shares: 1}, accounts: map[string]*Assoc{}, users: map[[2]string]*Assoc{}, QOS: map[string]*QOS{}, scale: 1}
	t.accounts["root"] = t.Root
	t.Root.tree = t
	t.QOS["normal"] = &QOS{Name: "normal"}
	return t
}

// Account returns the account named name, created under the root with 1
// share when it is not in the tree (an unknown account in a trace).
func (t *Tree) Account(name string) *Assoc {
	if a, ok := t.accounts[name]; ok {
		return a
	}
	a, _ := t.AddAccount(name, "root", 1)
	return a
}

// User returns the association of user in account, created with 1 share
// when it is not in the tree.
func (t *Tree) User(user, account string) *Assoc {
	if u, ok := t.users[[2]string{user, account}]; ok {
		return u
	}
	u, _ := t.AddUser(user, account, 1)
	return u
}

// AddAccount adds an account under parent (created under the root when
// unknown).
func (t *Tree) AddAccount(name, parent string, shares int64) (*Assoc, error) {
	if _, dup := t.accounts[name]; dup {
		return nil, fmt.Errorf("account %s defined twice", name)
	}
	p := t.Account(parent)
	a := &Assoc{Account: name, Shares: shares, Parent: p, tree: t}
	p.Children = append(p.Children, a)
	t.accounts[name] = a
	t.renorm()
	return a, nil
}

// AddUser adds user's association in account (created when unknown).
func (t *Tree) AddUser(user, account string, shares int64) (*Assoc, error) {
	k := [2]string{user, account}
	if _, dup := t.users[k]; dup {
		return nil, fmt.Errorf("user %s in account %s defined twice", user, account)
	}
	p := t.Account(account)
	u := &Assoc{Account: account, User: user, Shares: shares, Parent: p, tree: t}
	p.Children = append(p.Children, u)
	t.users[k] = u
	t.renorm()
	return u, nil
}

// QOSNamed returns the QOS name, created with priority 0 when unknown.
func (t *Tree) QOSNamed(name string) *QOS {
	if q, ok := t.QOS[name]; ok {
		return q
	}
	q := &QOS{Name: name}
	t.QOS[name] = q
	return q
}

// renorm recomputes level shares and normalized shares (the traditional
// normalization: the product, up to the root, of each association's shares
// over its siblings' total).
func (t *Tree) renorm() {
	var walk func(a *Assoc)
	walk = func(a *Assoc) {
		var level int64
		for _, c := range a.Children {
			level += c.Shares
		}
		for _, c := range a.Children {
			c.levelShares = level
			if level == 0 {
				c.sharesNorm = 0
			} else {
				c.sharesNorm = a.sharesNorm * float64(c.Shares) / float64(level)
			}
			walk(c)
		}
	}
	t.Root.sharesNorm = 1
	walk(t.Root)
	t.all = nil
}

// Assocs returns every association but the root, accounts before their
// children, siblings in the order they were added.
func (t *Tree) Assocs() []*Assoc {
	if t.all != nil {
		return t.all
	}
	out := []*Assoc{}
	var walk func(a *Assoc)
	walk = func(a *Assoc) {
		for _, c := range a.Children {
			out = append(out, c)
			walk(c)
		}
	}
	walk(t.Root)
	t.all = out
	t.accts = nil
	for _, a := range out {
		if a.User == "" {
			t.accts = append(t.accts, a)
		}
	}
	return out
}

// SharesNorm is the association's normalized shares.
func (a *Assoc) SharesNorm() float64 { return a.sharesNorm }

// UsageRaw is the association's decayed usage in CPU-seconds.
func (a *Assoc) UsageRaw() float64 { return a.usageRaw * a.tree.scale }

// ReadShares reads an association file from path (see ParseShares).
func ReadShares(path string) (*Tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseShares(f, path)
}

// ParseShares reads the association tree, in either of two formats (name
// is the file's name, for errors):
//
// The project's own, one association per line, '#' comments:
//
//	account NAME PARENT SHARES [MaxJobs=N] [MaxSubmit=N] [GrpTRES=cpu=N]
//	user NAME ACCOUNT SHARES [MaxJobs=N] [MaxSubmit=N]
//	qos NAME PRIORITY [MaxJobsPerUser=N] [MaxSubmitJobsPerUser=N] [GrpTRES=cpu=N]
//
// or the output of `sshare -a -P` (with its header line; -l allowed): the
// tree is read from the indentation of the Account column, the shares
// from RawShares, and RawUsage, when present, is the initial usage of each
// user association.
func ParseShares(r io.Reader, name string) (*Tree, error) {
	sc := bufio.NewScanner(r)
	t := NewTree()
	line := 0
	var sshare []string // header columns when the file is sshare output
	var stack []level
	for sc.Scan() {
		line++
		text := sc.Text()
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
		}
		if sshare == nil && strings.HasPrefix(strings.TrimSpace(text), "Account|") {
			sshare = strings.Split(strings.TrimSpace(text), "|")
			continue
		}
		if sshare != nil {
			if strings.TrimSpace(text) == "" {
				continue
			}
			if err := t.sshareLine(text, sshare, &stack); err != nil {
				return nil, fail("%v", err)
			}
			continue
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "account", "user":
			if len(f) < 4 {
				return nil, fail("expected %s NAME %s SHARES [limits], found %q", f[0], map[string]string{"account": "PARENT", "user": "ACCOUNT"}[f[0]], text)
			}
			sh, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil || sh < 0 {
				return nil, fail("shares: expected a non-negative integer, found %q", f[3])
			}
			var a *Assoc
			if f[0] == "account" {
				a, err = t.AddAccount(f[1], f[2], sh)
			} else {
				a, err = t.AddUser(f[1], f[2], sh)
			}
			if err != nil {
				return nil, fail("%v", err)
			}
			for _, kv := range f[4:] {
				if err := a.limit(kv); err != nil {
					return nil, fail("%v", err)
				}
			}
		case "qos":
			if len(f) < 3 {
				return nil, fail("expected qos NAME PRIORITY [limits], found %q", text)
			}
			pr, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || pr < 0 {
				return nil, fail("qos priority: expected a non-negative integer, found %q", f[2])
			}
			q := t.QOSNamed(f[1])
			q.Priority = pr
			for _, kv := range f[3:] {
				if err := q.limit(kv); err != nil {
					return nil, fail("%v", err)
				}
			}
		default:
			return nil, fail("expected account, user or qos, found %q", f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

// level is an account of the sshare tree being read and its indentation.
type level struct {
	a     *Assoc
	depth int
}

func (t *Tree) sshareLine(text string, cols []string, stack *[]level) error {
	f := strings.Split(text, "|")
	if len(f) < len(cols) {
		return fmt.Errorf("expected %d fields separated by |, found %d", len(cols), len(f))
	}
	get := func(c string) string {
		for i, n := range cols {
			if n == c {
				return f[i]
			}
		}
		return ""
	}
	acct := get("Account")
	depth := len(acct) - len(strings.TrimLeft(acct, " "))
	acct = strings.TrimSpace(acct)
	user := strings.TrimSpace(get("User"))
	if acct == "root" && user == "" && depth == 0 {
		*stack = []level{{t.Root, -1}}
		return nil
	}
	if len(*stack) == 0 {
		*stack = []level{{t.Root, -1}}
	}
	raw := strings.TrimSpace(get("RawShares"))
	shares := int64(1)
	if raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("RawShares: expected a non-negative integer, found %q (FairShare=parent is not supported)", raw)
		}
		shares = n
	}
	// the parent is the last account less indented
	for len(*stack) > 1 && (*stack)[len(*stack)-1].depth >= depth {
		*stack = (*stack)[:len(*stack)-1]
	}
	parent := (*stack)[len(*stack)-1].a
	if user != "" {
		u, err := t.AddUser(user, parent.Account, shares)
		if err != nil {
			return err
		}
		if ru := strings.TrimSpace(get("RawUsage")); ru != "" {
			x, err := strconv.ParseFloat(ru, 64)
			if err != nil || x < 0 {
				return fmt.Errorf("RawUsage: expected a non-negative number, found %q", ru)
			}
			for a := u; a != nil; a = a.Parent {
				a.usageRaw += x / t.scale
			}
		}
		return nil
	}
	a, err := t.AddAccount(acct, parent.Account, shares)
	if err != nil {
		return err
	}
	*stack = append(*stack, level{a, depth})
	return nil
}

func (a *Assoc) limit(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("expected Key=Value, found %q", kv)
	}
	switch strings.ToLower(k) {
	case "maxjobs":
		return atoi(k, v, &a.MaxJobs)
	case "maxsubmit", "maxsubmitjobs":
		return atoi(k, v, &a.MaxSubmit)
	case "grptres":
		return cpuTRES(v, &a.GrpCPUs)
	}
	return fmt.Errorf("unknown limit %q (want MaxJobs, MaxSubmit or GrpTRES)", k)
}

func (q *QOS) limit(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("expected Key=Value, found %q", kv)
	}
	switch strings.ToLower(k) {
	case "maxjobsperuser", "maxjobs":
		return atoi(k, v, &q.MaxJobsPerUser)
	case "maxsubmitjobsperuser", "maxsubmitperuser", "maxsubmit":
		return atoi(k, v, &q.MaxSubmitPerUser)
	case "grptres":
		return cpuTRES(v, &q.GrpCPUs)
	}
	return fmt.Errorf("unknown QOS limit %q (want MaxJobsPerUser, MaxSubmitJobsPerUser or GrpTRES)", k)
}

func atoi(k, v string, p *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("%s: expected a non-negative integer, found %q", k, v)
	}
	*p = n
	return nil
}

// cpuTRES reads the cpu count of a TRES list such as "cpu=128,mem=1G".
func cpuTRES(v string, p *int64) error {
	for _, t := range strings.Split(v, ",") {
		k, n, ok := strings.Cut(t, "=")
		if ok && strings.EqualFold(k, "cpu") {
			x, err := strconv.ParseInt(n, 10, 64)
			if err != nil || x < 0 {
				return fmt.Errorf("GrpTRES cpu: expected a non-negative integer, found %q", n)
			}
			*p = x
			return nil
		}
	}
	return fmt.Errorf("GrpTRES: only cpu=N is simulated, found %q", v)
}

// sortedQOS is the QOS by name, for deterministic iteration.
func (t *Tree) sortedQOS() []*QOS {
	out := make([]*QOS, 0, len(t.QOS))
	for _, q := range t.QOS {
		out = append(out, q)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}
