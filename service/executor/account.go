package executor

import (
	"fmt"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
)

// Account is a local account jobs run as.
type Account struct {
	Name     string
	UID, GID uint32
	Groups   []uint32
	Home     string
}

// LookupAccount resolves spec, an account name or a numeric UID[:GID]
// (an id without a password entry runs with that GID, default the UID,
// and no supplementary groups). The superuser is refused: an account for
// jobs must be unprivileged.
func LookupAccount(spec string) (*Account, error) {
	if spec == "" {
		return nil, fmt.Errorf("empty account")
	}
	var a Account
	if u, g, ok := strings.Cut(spec, ":"); isDigits(u) && (!ok || isDigits(g)) {
		uid, err := strconv.ParseUint(u, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("account %q: %w", spec, err)
		}
		gid := uid
		if ok {
			if gid, err = strconv.ParseUint(g, 10, 32); err != nil {
				return nil, fmt.Errorf("account %q: %w", spec, err)
			}
		}
		a = Account{Name: u, UID: uint32(uid), GID: uint32(gid)}
		if pw, err := user.LookupId(u); err == nil {
			a.Name, a.Home = pw.Username, pw.HomeDir
		}
		a.Groups = []uint32{a.GID}
	} else {
		pw, err := user.Lookup(spec)
		if err != nil {
			return nil, fmt.Errorf("account %q: %w", spec, err)
		}
		uid, err1 := strconv.ParseUint(pw.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(pw.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("account %q: non-numeric ids %s:%s", spec, pw.Uid, pw.Gid)
		}
		a = Account{Name: pw.Username, UID: uint32(uid), GID: uint32(gid), Home: pw.HomeDir}
		gids, _ := pw.GroupIds()
		set := map[uint32]bool{a.GID: true}
		for _, g := range gids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				set[uint32(n)] = true
			}
		}
		for g := range set {
			a.Groups = append(a.Groups, g)
		}
		sort.Slice(a.Groups, func(i, j int) bool { return a.Groups[i] < a.Groups[j] })
	}
	if a.UID == 0 {
		return nil, fmt.Errorf("account %q is the superuser: jobs must run as an unprivileged account", spec)
	}
	for _, g := range a.Groups {
		if g == 0 {
			return nil, fmt.Errorf("account %q is in group 0 (root): jobs must run as an unprivileged account", spec)
		}
	}
	if a.Home != "" {
		if fi, err := os.Stat(a.Home); err != nil || !fi.IsDir() {
			a.Home = ""
		}
	}
	return &a, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseAccountMap parses USER=ACCOUNT pairs (the service user's name, a
// local account as for LookupAccount).
func ParseAccountMap(pairs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range pairs {
		u, a, ok := strings.Cut(p, "=")
		if !ok || u == "" || a == "" {
			return nil, fmt.Errorf("%q: expected USER=ACCOUNT", p)
		}
		if _, dup := m[u]; dup {
			return nil, fmt.Errorf("user %q mapped twice", u)
		}
		m[u] = a
	}
	return m, nil
}
