package machine

import (
	"testing"
)

// TestParseRefusesNonIntegers: yaml.v3 truncates a float into an int field
// ("cores: 2.5" would silently become 2 cores); counts must be whole
// numbers, and an empty file gets an error that says what is expected.
func TestParseRefusesNonIntegers(t *testing.T) {
	cases := map[string]string{
		"nodes:\n  - count: 4\n    cores: 2.5\n":              "f.yaml: line 3: cores: expected a whole number, found 2.5",
		"nodes:\n  - count: 1.5\n    cores: 2\n":              "f.yaml: line 2: count: expected a whole number, found 1.5",
		"nodes:\n  - count: 4\n    cores: 2\n    gpus: 1e0\n": "f.yaml: line 4: gpus: expected a whole number, found 1e0",
		"nodes:\n  - count: 4\n    cores: true\n":             "f.yaml: line 3: cores: expected a whole number, found true",
		"":                   "f.yaml: empty machine file: expected a nodes: list",
		"# only a comment\n": "f.yaml: empty machine file: expected a nodes: list",
	}
	for in, want := range cases {
		_, err := Parse([]byte(in), "f.yaml")
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
	m, err := Parse([]byte("nodes:\n  - count: 0x4\n    cores: 8\n    gpus: 2\n"), "f.yaml")
	if err != nil || m.Procs() != 32 || m.Nodes[3].GPUs != 2 {
		t.Fatalf("hex count: %v", err)
	}
}
