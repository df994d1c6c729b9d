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
//  2. within the bracket [lo, hi], the next rate interpolates log(queue)
//     linearly in log(rate) between the bracket's ends (regula falsi,
//     kept at least a tenth of the bracket's width from either end so that
//     the bracket shrinks; the geometric midpoint when a queue is 0),
//     until |queue − target| ≤ tol · target, or the bracket is narrower
//     than 1e-6 relative, or maxSteps evaluations were made; the
//     evaluated rate whose queue is closest to the target is returned.
//
// The queue grows steeply as the rate nears saturation, roughly as a
// power of the rate in between: the interpolation in log-log space needs
// about half the evaluations of a bisection on log(rate).
//
// A queue measured on a finite random workload is not exactly monotone
// in the rate; with common random numbers (Arrivals) it is nearly so, and
// the search keeps the best point seen either way.
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
	qlo, qhi := q, q
	for !done() {
		if q < target {
			lo, qlo, hi = hi, q, hi*2
			if q, err = eval(hi); err != nil {
				return best, err
			}
			qhi = q
			if q >= target {
				break
			}
		} else {
			hi, qhi, lo = lo, q, lo/2
			if q, err = eval(lo); err != nil {
				return best, err
			}
			qlo = q
			if q < target {
				break
			}
		}
	}
	for !done() && hi/lo > 1+1e-6 {
		a, b := math.Log(lo), math.Log(hi)
		x := (a + b) / 2
		if qlo > 0 && qhi > qlo {
			x = a + (math.Log(target)-math.Log(qlo))*(b-a)/(math.Log(qhi)-math.Log(qlo))
			x = min(max(x, a+(b-a)/10), b-(b-a)/10)
		}
		mid := math.Exp(x)
		if q, err = eval(mid); err != nil {
			return best, err
		}
		if q < target {
			lo, qlo = mid, q
		} else {
			hi, qhi = mid, q
		}
	}
	best.Steps = steps
	return best, nil
}
