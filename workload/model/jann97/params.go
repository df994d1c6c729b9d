package jann97

import "github.com/backfill-hpc/backfill/workload/model"

// Fitted are the model's parameters for the CTC SP2: for each size range
// of Bounds, the hyper-Erlang distributions of common order of the
// interarrival times and of the runtimes (seconds; rates per second).
//
// Jann et al. publish such a table (fitted on the 322-node CTC SP2
// partition, June 25 to September 12, 1996); their values were not
// available to us, so these are our fits with their method (three moments,
// smallest common order; see Fit) on the same period of the CTC SP2 log of
// the Parallel Workloads Archive (CTC-SP2-1996-3.1-cln: the jobs submitted
// before Sept 13, 1996 00:00 EDT, i.e. in the first 6,764,040 s of the
// log; 17,826 jobs, none above 322 processors). TestFittedMatchesCTC
// refits them from the log. Every fit matches the three moments exactly.
var Fitted = []Range{
	{Lo: 1, Hi: 1, Jobs: 7405, Interarrival: model.HyperErlang{P: 0.0691517, Rate1: 0.000148377, Rate2: 0.00230681, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.388532, Rate1: 0.000118626, Rate2: 0.00680433, N: 4}, ExactRun: true},
	{Lo: 2, Hi: 2, Jobs: 1725, Interarrival: model.HyperErlang{P: 0.0957057, Rate1: 3.62155e-05, Rate2: 0.000872436, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.308664, Rate1: 0.000175829, Rate2: 0.0403386, N: 8}, ExactRun: true},
	{Lo: 3, Hi: 4, Jobs: 2359, Interarrival: model.HyperErlang{P: 0.129073, Rate1: 6.22969e-05, Rate2: 0.00133433, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.207209, Rate1: 0.000142801, Rate2: 0.0321167, N: 5}, ExactRun: true},
	{Lo: 5, Hi: 8, Jobs: 1839, Interarrival: model.HyperErlang{P: 0.215199, Rate1: 7.18188e-05, Rate2: 0.00162401, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.223342, Rate1: 9.59363e-05, Rate2: 0.00304159, N: 2}, ExactRun: true},
	{Lo: 9, Hi: 16, Jobs: 2275, Interarrival: model.HyperErlang{P: 0.10641, Rate1: 6.71686e-05, Rate2: 0.000715521, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.316588, Rate1: 0.000112725, Rate2: 0.0217888, N: 3}, ExactRun: true},
	{Lo: 17, Hi: 32, Jobs: 1098, Interarrival: model.HyperErlang{P: 0.124871, Rate1: 3.3801e-05, Rate2: 0.000378671, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.317959, Rate1: 0.000104566, Rate2: 0.0197915, N: 3}, ExactRun: true},
	{Lo: 33, Hi: 64, Jobs: 776, Interarrival: model.HyperErlang{P: 0.441597, Rate1: 5.5519e-05, Rate2: 0.00151885, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.417087, Rate1: 0.000101243, Rate2: 0.00886236, N: 3}, ExactRun: true},
	{Lo: 65, Hi: 128, Jobs: 200, Interarrival: model.HyperErlang{P: 0.502972, Rate1: 3.34503e-05, Rate2: 0.000463558, N: 2}, ExactIA: true, Runtime: model.HyperErlang{P: 0.322819, Rate1: 0.000121436, Rate2: 0.120401, N: 5}, ExactRun: true},
	{Lo: 129, Hi: 256, Jobs: 99, Interarrival: model.HyperErlang{P: 0.169136, Rate1: 5.78521e-06, Rate2: 0.000278655, N: 2}, ExactIA: true, Runtime: model.HyperErlang{P: 0.349918, Rate1: 0.000293075, Rate2: 0.00763869, N: 1}, ExactRun: true},
	{Lo: 257, Hi: 322, Jobs: 50, Interarrival: model.HyperErlang{P: 0.147921, Rate1: 1.6706e-06, Rate2: 1.76374e-05, N: 1}, ExactIA: true, Runtime: model.HyperErlang{P: 0.206115, Rate1: 0.000143892, Rate2: 0.0315677, N: 6}, ExactRun: true},
}

// FitEnd is the end of the fitting window, in seconds from the start of
// the CTC SP2 log (Sept 13, 1996 00:00 EDT).
const FitEnd = 6764040
