package policy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
)

func TestParse(t *testing.T) {
	name, p, err := policy.Parse("easy:depth=4")
	if err != nil || name != "easy" || p["depth"] != "4" {
		t.Fatalf("Parse: %q %v %v", name, p, err)
	}
	if _, _, err := policy.Parse("easy:depth"); err == nil {
		t.Fatal("Parse accepted a parameter without '='")
	}
}

func TestRegistry(t *testing.T) {
	var names []string
	for _, i := range policy.List() {
		names = append(names, i.Name)
	}
	got := "," + strings.Join(names, ",") + ","
	for _, want := range []string{"conservative", "easy", "fcfs", "slack"} {
		if !strings.Contains(got, ","+want+",") {
			t.Fatalf("policy %s not registered (have %s)", want, got)
		}
	}
	for _, spec := range []string{"fcfs", "easy", "easy:depth=1", "easy:depth=all", "conservative"} {
		s, err := policy.New(spec, 10)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if spec != "easy:depth=1" && s.Name() != spec {
			t.Errorf("New(%q).Name() = %q", spec, s.Name())
		}
	}
	for _, bad := range []string{"", "x", "easy:depth=0", "easy:depth=-1", "easy:depth=z", "fcfs:depth=1", "easy:=1"} {
		if _, err := policy.New(bad, 10); err == nil {
			t.Errorf("New(%q) succeeded", bad)
		}
	}
	if _, err := policy.New("easy", 0); err == nil {
		t.Error("New with 0 processors succeeded")
	}
}

// FuzzNew: any spec either builds a policy or gives an error; never a
// panic.
func FuzzNew(f *testing.F) {
	for _, s := range []string{"easy", "easy:depth=3", "conservative", "fcfs", "easy:depth=all", "a:b=c:d=e", ":", "easy::"} {
		f.Add(s, 16)
	}
	f.Fuzz(func(t *testing.T, spec string, procs int) {
		s, err := policy.New(spec, procs)
		if err == nil && s.Name() == "" {
			t.Fatal("policy with an empty name")
		}
	})
}

// TestCatalog: every registered policy and order is listed with its
// parameters, and the orders' heading names exactly the policies with an
// order parameter.
func TestCatalog(t *testing.T) {
	var b strings.Builder
	if err := policy.WriteCatalog(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, p := range policy.List() {
		if !strings.Contains(out, p.Name+"\n    "+p.Doc+"\n") {
			t.Errorf("policy %s not listed", p.Name)
		}
		for _, pp := range p.Params {
			if !strings.Contains(out, "    "+p.Name+":"+pp.Name+"=… (default "+pp.Default+"): ") {
				t.Errorf("parameter %s:%s not listed", p.Name, pp.Name)
			}
		}
	}
	for _, want := range []string{"queue orders (parameter order of ", "easy, ", "ff-cons, ", "\nsjf\n    shortest estimate first", "\nParameters follow the name after colons"} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog lacks %q", want)
		}
	}
	// the orders' heading names exactly the policies with the order
	// parameter (every queue-based policy; not the deadline policies,
	// whose order is their algorithm)
	var takes []string
	for _, p := range policy.List() {
		for _, pp := range p.Params {
			if pp.Name == "order" {
				takes = append(takes, p.Name)
			}
		}
	}
	if want := "queue orders (parameter order of " + strings.Join(takes, ", ") + "):"; !strings.Contains(out, want) {
		t.Errorf("catalog lacks %q", want)
	}
	for _, name := range []string{"fcfs", "easy", "conservative", "slack", "lookahead", "multiqueue", "slurm", "ff-easy", "ff-cons"} {
		if !slices.Contains(takes, name) {
			t.Errorf("queue-based policy %s takes no order", name)
		}
	}
}
