package slurm

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// usage sets the raw usage of the users and adds it up the tree.
func usage(t *testing.T, tr *Tree, u map[string]float64) {
	t.Helper()
	for _, a := range append(tr.Assocs(), tr.Root) {
		a.usageRaw = 0
	}
	for _, a := range tr.Assocs() {
		if a.User == "" {
			continue
		}
		v, ok := u[a.User]
		if !ok {
			t.Fatalf("no usage for %s", a.User)
		}
		for x := a; x != nil; x = x.Parent {
			x.usageRaw += v
		}
	}
}

func factors(tr *Tree) map[string]float64 {
	(&Multifactor{tree: tr}).fairTree()
	f := map[string]float64{}
	for _, a := range tr.Assocs() {
		if a.User != "" {
			f[a.User] = a.fsFactor
		}
	}
	return f
}

func checkFactors(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for u, w := range want {
		if math.Abs(got[u]-w) > 1e-12 {
			t.Errorf("%s: factor %.4f, want %.4f (all: %v)", u, got[u], w, got)
		}
	}
}

// TestFairTreeDocExample, worked by hand from Slurm's fair_tree
// documentation: the example tree root → Acct1 → {Acct12 → UserA, Acct16
// → UserB} (UserA's factor is below UserB's because Acct16's level
// fair-share is higher than Acct12's), beside an account Acct2 with users
// UserC and UserD, every association one share.
//
// Usage: UserA 30, UserB 10, UserC 20, UserD 20; so Acct12 30, Acct16 10,
// Acct1 40, Acct2 40, root 80. Level fair-share LF = S/U (S: shares over
// the siblings', U: usage over the parent's): Acct1 = 0.5/0.5 = 1 and
// Acct2 = 1, a tie of sibling accounts, so their children are merged into
// one list: Acct12 0.5/0.75 = 2/3, Acct16 0.5/0.25 = 2, UserC 0.5/0.5 = 1,
// UserD 1. Sorted: Acct16, UserC, UserD, Acct12. Ranks from N = 4 down:
// UserB (under Acct16) 4; UserC 3; UserD ties with UserC, 3; UserA 1 (the
// next rank without ties). Factors rank/4: UserB 1, UserC 0.75,
// UserD 0.75, UserA 0.25.
func TestFairTreeDocExample(t *testing.T) {
	tr := NewTree()
	for _, a := range [][3]string{{"Acct1", "root"}, {"Acct2", "root"}, {"Acct12", "Acct1"}, {"Acct16", "Acct1"}} {
		if _, err := tr.AddAccount(a[0], a[1], 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range [][2]string{{"UserA", "Acct12"}, {"UserB", "Acct16"}, {"UserC", "Acct2"}, {"UserD", "Acct2"}} {
		if _, err := tr.AddUser(u[0], u[1], 1); err != nil {
			t.Fatal(err)
		}
	}
	usage(t, tr, map[string]float64{"UserA": 30, "UserB": 10, "UserC": 20, "UserD": 20})
	checkFactors(t, factors(tr), map[string]float64{"UserB": 1, "UserC": 0.75, "UserD": 0.75, "UserA": 0.25})

	// without the tie (Acct2 used more: LF 0.5·100/60 < 1 < Acct1's
	// 0.5·100/40), Acct1's users all rank above Acct2's: UserB (Acct16,
	// LF 2) 4, UserA 3, then UserC and UserD tied at 2
	usage(t, tr, map[string]float64{"UserA": 30, "UserB": 10, "UserC": 30, "UserD": 30})
	checkFactors(t, factors(tr), map[string]float64{"UserB": 1, "UserA": 0.75, "UserC": 0.5, "UserD": 0.5})
}

// TestFairTreeUserTiedWithAccount, by hand from the documentation's third
// tie rule: "a user with the same Level Fairshare as a sibling account
// will receive the same rank as its highest ranked user". Under the root:
// user u0 (1 share, usage 10), account B (1 share) with user u1 (usage
// 10), account C (2 shares) with user u2 (no usage). LF: u0 = 0.25/0.5 =
// 0.5, B = 0.5, C = 0.5/0 = +Inf. Sorted: C, u0 (users before accounts
// of equal LF), B. N = 3: u2 ranks 3; u0 2; B is tied with u0, so its
// first user u1 gets u0's rank, 2. Factors: u2 1, u0 and u1 2/3.
func TestFairTreeUserTiedWithAccount(t *testing.T) {
	tr := NewTree()
	if _, err := tr.AddUser("u0", "root", 1); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][2]string{{"B", "1"}, {"C", "2"}} {
		sh := int64(1)
		if a[1] == "2" {
			sh = 2
		}
		if _, err := tr.AddAccount(a[0], "root", sh); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.AddUser("u1", "B", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.AddUser("u2", "C", 1); err != nil {
		t.Fatal(err)
	}
	usage(t, tr, map[string]float64{"u0": 10, "u1": 10, "u2": 0})
	checkFactors(t, factors(tr), map[string]float64{"u2": 1, "u0": 2.0 / 3, "u1": 2.0 / 3})
}

// TestFairTreeAgainstSlurm compares our Fair Tree factors with those a real
// slurmctld (22.05) computed, from its own shares and usage
// (.ci/slurm-fairtree.sh: nested accounts, three users with usage, the
// others without — ties of infinite level fair-share).
func TestFairTreeAgainstSlurm(t *testing.T) {
	const path = "testdata/fairtree/sshare.txt"
	tr, err := ReadShares(path)
	if err != nil {
		t.Fatal(err)
	}
	factors(tr)
	// the users' FairShare column, by user and account
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "|")
		if cols == nil {
			cols = f
			continue
		}
		if len(f) < len(cols) {
			continue
		}
		col := func(name string) string { return strings.TrimSpace(f[slices.Index(cols, name)]) }
		user, acct := col("User"), col("Account")
		if user == "" {
			continue
		}
		want, err := strconv.ParseFloat(col("FairShare"), 64)
		if err != nil {
			t.Fatalf("%s: FairShare of %s/%s: %v", path, acct, user, err)
		}
		a := tr.users[[2]string{user, acct}]
		if a == nil {
			t.Fatalf("%s: no association %s/%s", path, acct, user)
		}
		n++
		if math.Abs(a.fsFactor-want) > 1e-6 {
			t.Errorf("%s/%s: factor %.6f, Slurm's %.6f", acct, user, a.fsFactor, want)
		}
	}
	if n < 8 {
		t.Fatalf("%s: only %d users", path, n)
	}
}
