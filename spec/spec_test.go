package spec

import (
	"math"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	name, args, err := Parse("policy", " easy:depth=2: order = sjf ")
	if err != nil || name != "easy" || !reflect.DeepEqual(args, map[string]string{"depth": "2", "order": "sjf"}) {
		t.Fatalf("%q %v %v", name, args, err)
	}
	for _, bad := range []string{"easy:depth", "easy:=2", "easy:depth=1:depth=2"} {
		if _, _, err := Parse("policy", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, _, err := Parse("policy", "easy:depth=1:depth=2"); err == nil || err.Error() != `policy "easy:depth=1:depth=2": parameter depth given twice` {
		t.Errorf("duplicate: %v", err)
	}
}

func TestValues(t *testing.T) {
	if n, err := Int("depth", "all", 1, math.MaxInt); err != nil || n != math.MaxInt {
		t.Errorf("all: %d %v", n, err)
	}
	if _, err := Int("depth", "0", 1, math.MaxInt); err == nil || err.Error() != `parameter depth: expected an integer ≥ 1 or "all", found "0"` {
		t.Errorf("int: %v", err)
	}
	if _, err := Float("au", "1.5", 0, 1); err == nil || err.Error() != `parameter au: expected a number in [0, 1], found "1.5"` {
		t.Errorf("float: %v", err)
	}
	if _, err := Float("au", "NaN", 0, 1); err == nil {
		t.Error("NaN accepted")
	}
	if b, err := Bool("reserve", "false"); err != nil || b {
		t.Errorf("bool: %v %v", b, err)
	}
	if _, err := Bool("reserve", "1"); err == nil {
		t.Error("1 accepted as a bool")
	}
	if _, err := Enum("nd", "maybe", "admit", "reject"); err == nil || err.Error() != `parameter nd: expected admit or reject, found "maybe"` {
		t.Errorf("enum: %v", err)
	}
}

func TestInt64Uint64Unknown(t *testing.T) {
	if n, err := Int64("max", "7200", 3600, 1<<40); err != nil || n != 7200 {
		t.Errorf("int64: %d %v", n, err)
	}
	if _, err := Int64("max", "all", 3600, 1<<40); err == nil || err.Error() != `parameter max: expected an integer in [3600, 1099511627776], found "all"` {
		t.Errorf("int64 all: %v", err)
	}
	if _, err := Int64("n", "-1", 0, math.MaxInt64); err == nil || err.Error() != `parameter n: expected an integer ≥ 0, found "-1"` {
		t.Errorf("int64 negative: %v", err)
	}
	if n, err := Uint64("seed", "18446744073709551615"); err != nil || n != math.MaxUint64 {
		t.Errorf("uint64: %d %v", n, err)
	}
	if _, err := Uint64("seed", "-1"); err == nil || err.Error() != `parameter seed: expected a non-negative integer, found "-1"` {
		t.Errorf("uint64 negative: %v", err)
	}
	if k, bad := Unknown(map[string]string{"max": "1", "zz": "", "foo": ""}, "max", "atmax"); !bad || k != "foo" {
		t.Errorf("unknown: %q %v", k, bad)
	}
	if _, bad := Unknown(map[string]string{"max": "1"}, "max", "atmax"); bad {
		t.Error("a known key reported unknown")
	}
}

func TestParams(t *testing.T) {
	p := Params{"depth": "all", "au": "0.5", "reserve": "false", "h": "edf", "bad": "x"}
	if n, err := p.Int("depth", 1, 99); err != nil || n != 99 {
		t.Errorf("Int all: %d %v", n, err)
	}
	if n, err := p.Int("missing", 7, 99); err != nil || n != 7 {
		t.Errorf("Int default: %d %v", n, err)
	}
	if _, err := p.Int("bad", 1, 99); err == nil || err.Error() != `parameter bad: expected an integer or "all", found "x"` {
		t.Errorf("Int bad: %v", err)
	}
	if x, err := p.Float("au", 1, 0, 1); err != nil || x != 0.5 {
		t.Errorf("Float: %v %v", x, err)
	}
	if b, err := p.Bool("reserve", true); err != nil || b {
		t.Errorf("Bool: %v %v", b, err)
	}
	if e, err := p.Enum("h", "ast", "ast", "edf"); err != nil || e != "edf" {
		t.Errorf("Enum: %q %v", e, err)
	}
	if e, err := p.Enum("missing", "ast", "ast", "edf"); err != nil || e != "ast" {
		t.Errorf("Enum default: %q %v", e, err)
	}
}

func TestSwitch(t *testing.T) {
	for v, want := range map[string]bool{"on": true, "true": true, "1": true, "yes": true, "off": false, "false": false, "0": false, "no": false} {
		if got, err := (Params{"f": v}).Switch("f", !want); err != nil || got != want {
			t.Errorf("Switch(%q) = %v, %v", v, got, err)
		}
	}
	if _, err := Switch("fullness", "maybe"); err == nil || err.Error() != `parameter fullness: expected on or off, found "maybe"` {
		t.Errorf("bad: %v", err)
	}
	if got, err := (Params{}).Switch("f", true); err != nil || !got {
		t.Errorf("default: %v %v", got, err)
	}
}

func TestInt64s(t *testing.T) {
	if v, err := Int64s("bounds", "100/ 1000/10000", 1); err != nil || len(v) != 3 || v[1] != 1000 {
		t.Errorf("%v %v", v, err)
	}
	for _, bad := range []string{"", "0", "1//2", "x", "5/-1"} {
		if _, err := Int64s("bounds", bad, 1); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := Int64s("procs", "4/x", 0); err == nil || err.Error() != `parameter procs: expected integers ≥ 0 separated by '/', found "4/x"` {
		t.Errorf("error %v", err)
	}
}
