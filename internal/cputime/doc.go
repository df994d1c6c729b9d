// Package cputime reads the calling thread's CPU time, for benchmarks
// that time single decisions on a machine shared with other work: they
// lock their goroutine to its OS thread and read Thread before and after,
// so that the waits for a core, which wall time counts, do not inflate
// the figures.
package cputime
