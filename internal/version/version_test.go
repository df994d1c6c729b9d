package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v, rev string
		dirty  bool
		want   string
	}{
		{"", "", false, "backfill (devel) go1.x"},
		{"v1.2.3", "", true, "backfill v1.2.3 go1.x"},
		{"v1", "0123456789abcdef0123", false, "backfill v1 0123456789ab go1.x"},
		{"v1", "abc", true, "backfill v1 abc-dirty go1.x"},
	} {
		if got := format(c.v, c.rev, c.dirty, "go1.x"); got != c.want {
			t.Errorf("format(%q, %q, %v) = %q, want %q", c.v, c.rev, c.dirty, got, c.want)
		}
	}
}

func TestStringKeepsAGivenVersion(t *testing.T) {
	s := String("v9.9.9")
	if !strings.HasPrefix(s, "backfill v9.9.9 ") || !strings.HasSuffix(s, " "+runtime.Version()) {
		t.Errorf("String = %q", s)
	}
}
