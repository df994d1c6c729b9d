package kresource

import (
	"fmt"
	"math"
)

// Calibration is the result of a rate search.
type Calibration struct {
	// Rate is the arrival rate found (jobs per second) and Queue the mean
	// ready-queue length measured at that rate.
	Rate, Queue float64
	// Steps is the number of evaluations of the queue function.
	Steps int
}

// Calibrate searches for the arrival rate at which queue(rate), a mean
// ready-queue length that grows with the rate, equals target within a
// relative tolerance tol:
//
//  1. bracket: from rate0, the rate is doubled (or halved) until the
//     queue is above (below) the target;
//  2. bisection on log(rate) within the bracket until |queue − target| ≤
//     tol · target, or the bracket is narrower than 1e-6 relative, or
//     maxSteps evaluations were made; the evaluated rate whose queue is
//     closest to the target is returned.
//
// A queue measured on a finite random workload is not exactly monotone
// in the rate; with common random numbers (Arrivals) it is nearly so, and
// the bisection keeps the best point seen either way.
func Calibrate(target, rate0, tol float64, maxSteps int, queue func(rate float64) (float64, error)) (Calibration, error) {
	if target <= 0 || rate0 <= 0 || tol <= 0 {
		return Calibration{}, fmt.Errorf("calibrate: target, initial rate and tolerance must be positive")
	}
	best := Calibration{Queue: math.NaN()}
	steps := 0
	eval := func(rate float64) (float64, error) {
		q, err := queue(rate)
		steps++
		if err != nil {
			return 0, err
		}
		if math.IsNaN(best.Queue) || math.Abs(q-target) < math.Abs(best.Queue-target) {
			best.Rate, best.Queue = rate, q
		}
		return q, nil
	}
	done := func() bool { return math.Abs(best.Queue-target) <= tol*target || steps >= maxSteps }
	q, err := eval(rate0)
	if err != nil {
		return best, err
	}
	lo, hi := rate0, rate0
	for !done() {
		if q < target {
			lo, hi = hi, hi*2
			if q, err = eval(hi); err != nil {
				return best, err
			}
			if q >= target {
				break
			}
		} else {
			hi, lo = lo, lo/2
			if q, err = eval(lo); err != nil {
				return best, err
			}
			if q < target {
				break
			}
		}
	}
	for !done() && hi/lo > 1+1e-6 {
		mid := math.Sqrt(lo * hi)
		if q, err = eval(mid); err != nil {
			return best, err
		}
		if q < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	best.Steps = steps
	return best, nil
}
