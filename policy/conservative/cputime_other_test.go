//go:build !linux

package conservative

import "time"

var cpuStart = time.Now()

// threadCPU falls back on wall time where the thread's CPU clock is not
// read.
func threadCPU() time.Duration { return time.Since(cpuStart) }
