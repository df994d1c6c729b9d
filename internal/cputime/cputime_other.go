//go:build !linux

package cputime

import "time"

var start = time.Now()

// Thread falls back on wall time where the thread's CPU clock is not
// read.
func Thread() time.Duration { return time.Since(start) }
