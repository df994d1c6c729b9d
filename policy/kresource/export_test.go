package kresource

import "math"

// SetIndexFrom sets the number of waiting jobs above which the K-resource
// EASY pass (arrival order, one resource) uses the fit index (-1: never; 0: always) and
// returns what restores the default.
func SetIndexFrom(n int) (restore func()) {
	old := indexFrom
	if n < 0 {
		n = math.MaxInt
	}
	indexFrom = n
	return func() { indexFrom = old }
}
