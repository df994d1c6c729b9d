// Package slurm models the parts of Slurm a scheduling simulation needs:
// the settings of a slurm.conf excerpt (priority/multifactor,
// sched/backfill, partitions), the association tree of an account
// database (shares, QOS, limits) and the multifactor job priority, which
// it registers as the queue order "multifactor" of the queue-based
// policies (policy.Order). The scheduler itself is package policy/slurm.
//
// The behaviour follows Slurm 22.05 (Debian 12's slurm-wlm), read from
// its documentation and its source (priority_multifactor.c, backfill.c,
// job_scheduler.c); docs/policies.md says what is reproduced and what is
// simplified.
package slurm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Infinite is an unlimited duration or count (Slurm's INFINITE/UNLIMITED).
const Infinite = math.MaxInt64

// Conf is what the simulation takes from slurm.conf. Durations are in
// seconds; zero values are not defaults: use DefaultConf.
type Conf struct {
	// Priority/multifactor (slurm.conf PriorityWeight*, Priority*).
	WeightAge, WeightFairshare, WeightJobSize, WeightPartition, WeightQOS int64
	MaxAge                                                                int64 // PriorityMaxAge, default 7 days
	DecayHalfLife                                                         int64 // PriorityDecayHalfLife, default 7 days; 0 = no decay
	CalcPeriod                                                            int64 // PriorityCalcPeriod, default 5 min
	FavorSmall                                                            bool  // PriorityFavorSmall, default NO
	FairTree                                                              bool  // PriorityFlags without NO_FAIR_TREE (the default since 19.05)
	// EnforceLimits is AccountingStorageEnforce with "limits" (or "safe"):
	// only then does Slurm add a job's last usage when it ends; without,
	// the usage between the last calculation and the end is lost.
	EnforceLimits   bool
	DampeningFactor float64
	// SchedulerParameters of sched/backfill and the main scheduler.
	BfInterval    int64 // bf_interval, default 30 s
	BfWindow      int64 // bf_window, default 1440 min (given in minutes)
	BfResolution  int64 // bf_resolution, default 60 s
	BfMaxJobTest  int   // bf_max_job_test, default 500
	BfMaxJobUser  int   // bf_max_job_user, default 0 (no limit)
	BfContinue    bool  // bf_continue
	SchedInterval int64 // sched_interval, default 60 s
	// BatchSchedDelay (batch_sched_delay, default 3 s) is how long the
	// main scheduler may wait after a batch submission.
	BatchSchedDelay int64
	// The machine: CPUs and nodes (NodeName lines; 0 when absent).
	CPUs, Nodes int
	// Partitions by name, in file order in PartitionOrder.
	Partitions     map[string]Partition
	PartitionOrder []string
}

// Partition is a PartitionName line.
type Partition struct {
	Name     string
	MaxTime  int64 // seconds; Infinite by default
	MaxNodes int64 // Infinite by default
	// PriorityJobFactor (default 1) gives the partition factor, normalized
	// by the largest of all partitions.
	PriorityJobFactor int64
	Default           bool
}

// DefaultConf is Slurm 22.05's defaults.
func DefaultConf() Conf {
	return Conf{
		MaxAge: 7 * 86400, DecayHalfLife: 7 * 86400, CalcPeriod: 300, FairTree: true, DampeningFactor: 1,
		BfInterval: 30, BfWindow: 1440 * 60, BfResolution: 60, BfMaxJobTest: 500, SchedInterval: 60, BatchSchedDelay: 3,
		Partitions: map[string]Partition{},
	}
}

// ReadConf reads a slurm.conf excerpt from path (see ParseConf).
func ReadConf(path string) (Conf, error) {
	f, err := os.Open(path)
	if err != nil {
		return Conf{}, err
	}
	defer f.Close()
	return ParseConf(f, path)
}

// ParseConf reads the settings the simulation uses from slurm.conf text
// (name is the file's name, for errors), starting from DefaultConf. Lines
// are Key=Value pairs separated by blanks, '#' starts a comment, keys are
// case-insensitive as in Slurm; keys the simulation does not use are
// ignored, malformed values of those it uses are errors naming file, line
// and what was expected.
func ParseConf(r io.Reader, name string) (Conf, error) {
	c := DefaultConf()
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
		}
		k0, v0, ok := strings.Cut(fields[0], "=")
		if !ok {
			return c, fail("expected Key=Value, found %q", fields[0])
		}
		switch strings.ToLower(k0) {
		case "nodename":
			if err := c.node(v0, fields[1:]); err != nil {
				return c, fail("%v", err)
			}
			continue
		case "partitionname":
			if err := c.partition(v0, fields[1:]); err != nil {
				return c, fail("%v", err)
			}
			continue
		}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return c, fail("expected Key=Value, found %q", f)
			}
			if err := c.set(k, v); err != nil {
				if strings.EqualFold(k, "SchedulerParameters") {
					return c, fail("%v", err)
				}
				return c, fail("%s: %v", k, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("%s: %v", name, err)
	}
	return c, nil
}

func (c *Conf) set(k, v string) error {
	var err error
	weight := func(p *int64) {
		*p, err = strconv.ParseInt(v, 10, 64)
		if err != nil || *p < 0 {
			err = fmt.Errorf("expected a non-negative integer, found %q", v)
		}
	}
	dur := func(p *int64) { *p, err = ParseDuration(v) }
	switch strings.ToLower(k) {
	case "priorityweightage":
		weight(&c.WeightAge)
	case "priorityweightfairshare":
		weight(&c.WeightFairshare)
	case "priorityweightjobsize":
		weight(&c.WeightJobSize)
	case "priorityweightpartition":
		weight(&c.WeightPartition)
	case "priorityweightqos":
		weight(&c.WeightQOS)
	case "prioritymaxage":
		dur(&c.MaxAge)
	case "prioritydecayhalflife":
		dur(&c.DecayHalfLife)
	case "prioritycalcperiod":
		dur(&c.CalcPeriod)
		if err == nil && c.CalcPeriod < 1 {
			err = fmt.Errorf("must be at least one minute, found %q", v)
		}
	case "priorityfavorsmall":
		c.FavorSmall, err = yesNo(v)
	case "fairsharedampeningfactor":
		var n int64
		weight(&n)
		if err == nil && n < 1 {
			err = fmt.Errorf("must be at least 1, found %q", v)
		}
		c.DampeningFactor = float64(n)
	case "priorityflags":
		for _, f := range strings.Split(v, ",") {
			switch strings.ToUpper(strings.TrimSpace(f)) {
			case "NO_FAIR_TREE":
				c.FairTree = false
			case "FAIR_TREE":
				c.FairTree = true
			}
		}
	case "schedulerparameters":
		return c.schedParams(v)
	case "accountingstorageenforce":
		for _, f := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(f)) {
			case "limits", "safe":
				c.EnforceLimits = true
			}
		}
	}
	return err
}

func (c *Conf) schedParams(v string) error {
	for _, opt := range strings.Split(v, ",") {
		k, val, has := strings.Cut(strings.TrimSpace(opt), "=")
		num := func(lo, hi int64) (int64, error) {
			n, err := strconv.ParseInt(val, 10, 64)
			if !has || err != nil || n < lo || n > hi {
				return 0, fmt.Errorf("SchedulerParameters %s: expected an integer in [%d, %d], found %q", k, lo, hi, val)
			}
			return n, nil
		}
		var err error
		var n int64
		switch strings.ToLower(k) {
		case "bf_interval":
			c.BfInterval, err = num(1, 10800)
		case "bf_window":
			n, err = num(1, 43200)
			c.BfWindow = n * 60
		case "bf_resolution":
			c.BfResolution, err = num(1, 3600)
		case "bf_max_job_test":
			n, err = num(1, 1000000)
			c.BfMaxJobTest = int(n)
		case "bf_max_job_user":
			n, err = num(0, 1000000)
			c.BfMaxJobUser = int(n)
		case "bf_continue":
			c.BfContinue = true
		case "sched_interval":
			c.SchedInterval, err = num(1, 1<<31-1)
		case "batch_sched_delay":
			c.BatchSchedDelay, err = num(0, 1<<31-1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// node adds a NodeName line: CPUs (or Sockets×Cores×Threads) per node,
// times the nodes named (a bracketed range such as n[1-16] counts 16).
func (c *Conf) node(name string, rest []string) error {
	if strings.EqualFold(name, "DEFAULT") {
		return nil
	}
	cpus, sockets, cores, threads := int64(0), int64(1), int64(1), int64(1)
	for _, f := range rest {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("expected Key=Value, found %q", f)
		}
		var p *int64
		switch strings.ToLower(k) {
		case "cpus", "procs":
			p = &cpus
		case "sockets", "socketsperboard":
			p = &sockets
		case "corespersocket":
			p = &cores
		case "threadspercore":
			p = &threads
		default:
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("NodeName %s: %s: expected a positive integer, found %q", name, k, v)
		}
		*p = n
	}
	if cpus == 0 {
		cpus = sockets * cores * threads
	}
	n, err := countHosts(name)
	if err != nil {
		return fmt.Errorf("NodeName %s: %v", name, err)
	}
	c.Nodes += n
	c.CPUs += n * int(cpus)
	return nil
}

// countHosts counts the hosts of a Slurm host list such as "n[1-4,7],m".
func countHosts(list string) (int, error) {
	total := 0
	depth := 0
	start := 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) {
			switch list[i] {
			case '[':
				depth++
				continue
			case ']':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		n, err := countOne(list[start:i])
		if err != nil {
			return 0, err
		}
		total += n
		start = i + 1
	}
	return total, nil
}

func countOne(h string) (int, error) {
	open := strings.IndexByte(h, '[')
	if open < 0 {
		return 1, nil
	}
	end := strings.IndexByte(h, ']')
	if end < open {
		return 0, fmt.Errorf("unbalanced brackets in %q", h)
	}
	n := 0
	for _, r := range strings.Split(h[open+1:end], ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return 0, fmt.Errorf("bad range %q in %q", r, h)
		}
		n += b - a + 1
	}
	return n, nil
}

func (c *Conf) partition(name string, rest []string) error {
	if strings.EqualFold(name, "DEFAULT") {
		return nil
	}
	p := Partition{Name: name, MaxTime: Infinite, MaxNodes: Infinite, PriorityJobFactor: 1}
	for _, f := range rest {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("expected Key=Value, found %q", f)
		}
		var err error
		switch strings.ToLower(k) {
		case "maxtime":
			p.MaxTime, err = ParseDuration(v)
		case "maxnodes":
			if isInfinite(v) {
				p.MaxNodes = Infinite
			} else if p.MaxNodes, err = strconv.ParseInt(v, 10, 64); err != nil || p.MaxNodes < 0 {
				err = fmt.Errorf("expected a count or UNLIMITED, found %q", v)
			}
		case "priorityjobfactor", "priority":
			if p.PriorityJobFactor, err = strconv.ParseInt(v, 10, 64); err != nil || p.PriorityJobFactor < 0 {
				err = fmt.Errorf("expected a non-negative integer, found %q", v)
			}
		case "default":
			p.Default, err = yesNo(v)
		}
		if err != nil {
			return fmt.Errorf("PartitionName %s: %s: %v", name, k, err)
		}
	}
	if _, dup := c.Partitions[name]; !dup {
		c.PartitionOrder = append(c.PartitionOrder, name)
	}
	c.Partitions[name] = p
	return nil
}

func yesNo(v string) (bool, error) {
	switch strings.ToUpper(v) {
	case "YES", "TRUE", "1":
		return true, nil
	case "NO", "FALSE", "0":
		return false, nil
	}
	return false, fmt.Errorf("expected YES or NO, found %q", v)
}

func isInfinite(v string) bool {
	u := strings.ToUpper(v)
	return u == "INFINITE" || u == "UNLIMITED"
}

// ParseDuration parses a Slurm time: "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes",
// "days-hours:minutes:seconds", or INFINITE/UNLIMITED (Infinite). The
// result is in seconds.
func ParseDuration(v string) (int64, error) {
	if isInfinite(v) {
		return Infinite, nil
	}
	bad := fmt.Errorf("expected a Slurm time (minutes, min:sec, h:m:s, d-h, d-h:m, d-h:m:s or INFINITE), found %q", v)
	var days int64
	rest := v
	hasDays := false
	if d, r, ok := strings.Cut(v, "-"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 0 {
			return 0, bad
		}
		days, rest, hasDays = n, r, true
	}
	parts := strings.Split(rest, ":")
	nums := make([]int64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, bad
		}
		nums[i] = n
	}
	var s int64
	switch {
	case hasDays && len(nums) == 1: // d-h
		s = nums[0] * 3600
	case hasDays && len(nums) == 2: // d-h:m
		s = nums[0]*3600 + nums[1]*60
	case len(nums) == 3: // [d-]h:m:s
		s = nums[0]*3600 + nums[1]*60 + nums[2]
	case !hasDays && len(nums) == 1: // minutes
		s = nums[0] * 60
	case !hasDays && len(nums) == 2: // min:sec
		s = nums[0]*60 + nums[1]
	default:
		return 0, bad
	}
	return days*86400 + s, nil
}
