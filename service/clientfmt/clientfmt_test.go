package clientfmt

import (
	"bytes"
	"testing"

	"github.com/backfill-hpc/backfill/service"
)

// TestParseSeconds checks each accepted form against values worked by hand.
func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]int64{"3600": 3600, "1h30m": 5400, "30:00": 1800, "01:02:03": 3723, "2-00:00:01": 172801} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "1:2:3:4", "a-01:00", "01:-5"} {
		if _, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", in)
		}
	}
}

// TestShellJoin quotes only what the shell would read differently.
func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"./run", "--n=4", "a b", "it's", ""})
	want := `./run --n=4 'a b' 'it'\''s' ''`
	if got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}

// TestWriteSubmitted prints a rejection with its reason and an admission
// with the distance of its reserved start.
func TestWriteSubmitted(t *testing.T) {
	var b bytes.Buffer
	WriteSubmitted(&b, service.JobView{ID: 3, Reason: "deadline cannot be met"})
	if b.String() != "Job 3 rejected: deadline cannot be met\n" {
		t.Errorf("rejected: %q", b.String())
	}
	b.Reset()
	rs := int64(160)
	WriteSubmitted(&b, service.JobView{ID: 4, Admitted: true, State: "waiting", Submit: 100, ReservedStart: &rs})
	if want := "Submitted job 4 (waiting)\n  reserved start:   160 (in 1m0s)\n"; b.String() != want {
		t.Errorf("admitted: %q, want %q", b.String(), want)
	}
}
