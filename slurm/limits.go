package slurm

import "fmt"

// The limits of associations and QOS, as the slurm policy enforces them:
//
//   - MaxSubmit (association: its user's queued and running jobs; an
//     account's applies to each of its users) and the QOS's
//     MaxSubmitJobsPerUser refuse a submission;
//   - MaxJobs (association, per user likewise), the QOS's MaxJobsPerUser
//     and GrpTRES=cpu (association: all running jobs below it; QOS: all
//     its running jobs) hold a waiting job until a running one ends.

// CountSubmit adds d to the submitted (queued or running) jobs of a.
func CountSubmit(a *Assoc, d int) { a.submitted += d }

// CountQOSSubmit adds d to user's submitted jobs in q.
func CountQOSSubmit(q *QOS, user string, d int) { q.user(user).submitted += d }

// CountRun adds d running jobs of cpus CPUs each (d = ±1) to user's
// association a and its parents and to q.
func CountRun(a *Assoc, q *QOS, user string, cpus int64, d int) {
	for x := a; x != nil; x = x.Parent {
		x.running += d
		x.cpus += int64(d) * cpus
	}
	q.user(user).running += d
	q.running += int64(d) * cpus
}

func (q *QOS) user(u string) *userCount {
	if q.perUser == nil {
		q.perUser = map[string]*userCount{}
	}
	c, ok := q.perUser[u]
	if !ok {
		c = &userCount{}
		q.perUser[u] = c
	}
	return c
}

// maxPerUser is the MaxJobs (or MaxSubmit) in force for user association
// a: its own, else the nearest account's.
func maxPerUser(a *Assoc, get func(*Assoc) int) int {
	for x := a; x != nil; x = x.Parent {
		if v := get(x); v > 0 {
			return v
		}
	}
	return 0
}

// SubmitLimit is the reason a new job of cpus CPUs of user association a
// in q is refused, or "". A job larger than a GrpTRES=cpu limit could never
// start, and is refused too.
func SubmitLimit(a *Assoc, q *QOS, user string, cpus int64) string {
	for x := a; x != nil; x = x.Parent {
		if x.GrpCPUs > 0 && cpus > x.GrpCPUs {
			return fmt.Sprintf("AssocGrpCpuLimit: %d CPUs over account %s's GrpTRES=cpu=%d", cpus, x.Account, x.GrpCPUs)
		}
	}
	if q.GrpCPUs > 0 && cpus > q.GrpCPUs {
		return fmt.Sprintf("QOSGrpCpuLimit: %d CPUs over QOS %s's GrpTRES=cpu=%d", cpus, q.Name, q.GrpCPUs)
	}
	if m := maxPerUser(a, func(x *Assoc) int { return x.MaxSubmit }); m > 0 && a.submitted+1 > m {
		return fmt.Sprintf("AssocMaxSubmitJobLimit: user %s has %d jobs in account %s, MaxSubmit %d", user, a.submitted, a.Account, m)
	}
	if m := q.MaxSubmitPerUser; m > 0 && q.user(user).submitted+1 > m {
		return fmt.Sprintf("QOSMaxSubmitJobPerUserLimit: user %s has %d jobs in QOS %s, MaxSubmitJobsPerUser %d", user, q.user(user).submitted, q.Name, m)
	}
	return ""
}

// RunLimit is the reason a waiting job of cpus CPUs of user association a
// in q may not start now, or "".
func RunLimit(a *Assoc, q *QOS, user string, cpus int64) string {
	if m := maxPerUser(a, func(x *Assoc) int { return x.MaxJobs }); m > 0 && a.running+1 > m {
		return "AssocMaxJobsLimit"
	}
	for x := a; x != nil; x = x.Parent {
		if x.GrpCPUs > 0 && x.cpus+cpus > x.GrpCPUs {
			return "AssocGrpCpuLimit"
		}
	}
	if m := q.MaxJobsPerUser; m > 0 && q.user(user).running+1 > m {
		return "QOSMaxJobsPerUserLimit"
	}
	if q.GrpCPUs > 0 && q.running+cpus > q.GrpCPUs {
		return "QOSGrpCpuLimit"
	}
	return ""
}

// Refuses reports whether some association or QOS of t has a limit that
// refuses jobs at submission (MaxSubmit, MaxSubmitJobsPerUser, GrpTRES).
func Refuses(t *Tree) bool {
	for _, a := range append(t.Assocs(), t.Root) {
		if a.MaxSubmit > 0 || a.GrpCPUs > 0 {
			return true
		}
	}
	for _, q := range t.QOS {
		if q.MaxSubmitPerUser > 0 || q.GrpCPUs > 0 {
			return true
		}
	}
	return false
}

// Holds reports whether some association or QOS of t has a limit that
// holds waiting jobs (MaxJobs, MaxJobsPerUser, GrpTRES).
func Holds(t *Tree) bool {
	for _, a := range append(t.Assocs(), t.Root) {
		if a.MaxJobs > 0 || a.GrpCPUs > 0 {
			return true
		}
	}
	for _, q := range t.QOS {
		if q.MaxJobsPerUser > 0 || q.GrpCPUs > 0 {
			return true
		}
	}
	return false
}
