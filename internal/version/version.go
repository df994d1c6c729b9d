// Package version is the tool's version string for provenance headers.
//
// It holds the release version, the VCS revision and the Go version.
package version

import (
	"runtime"
	"runtime/debug"
)

// String is "backfill V REV GO": V is v (a release build's version),
// else the module version the build recorded, else "(devel)"; REV the
// first 12 hex digits of the VCS revision, with "-dirty" when the tree
// was modified, left out when the build did not record it; GO the Go
// version.
func String(v string) string {
	rev, dirty := "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	return format(v, rev, dirty, runtime.Version())
}

// format is String's text from its parts.
func format(v, rev string, dirty bool, gov string) string {
	if v == "" {
		v = "(devel)"
	}
	out := "backfill " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		out += " " + rev
	}
	return out + " " + gov
}
