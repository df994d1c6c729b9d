package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/backfill-hpc/backfill/job"
)

// Modal is the model of user runtime estimates of Tsafrir, Etsion &
// Feitelson, "Modeling User Runtime Estimates" (JSSPP 2005), the slides'
// "better model": real estimates are modal — a few round values (5, 15,
// 30 min, 1 h, 2 h, …) and the queue's maximum account for most jobs — and
// carry little information about the runtime. It takes the published
// model's structure and parameters:
//
//  1. The number K of distinct estimates grows with the number of jobs N,
//     piecewise linearly through (N, K) = (0, 0), (20, 10), (200, 20),
//     (1000, 35), (10000, 90), (70000, 340), (250000, 565), and 565 beyond
//     (at least the head, below).
//  2. The head: the 20 most popular values, used by HeadShare = 89 % of the
//     jobs. They are the maximum M and, below it, the 15 values the paper
//     found popular in all four logs it studied (5, 10, 15, 20, 30 min; 1,
//     2, 3, 4, 5, 6, 8, 10, 12, 18 h), completed to 20 with round values
//     counting down from M (multiples of 200, 100, 50, 10, 5, 2, 1 h, 20,
//     10, 5 min, in that order).
//  3. The head's popularity: M is the most popular value; the value of
//     popularity rank x = 2…20 gets a·e^(b·x) + c percent of the jobs, a =
//     14.0491, b = −0.177531, c = 0.462513, and M the rest of the 89 %:
//     21.73 % by default. With AtMax, M gets that share and the other head
//     values are scaled to keep the head at 89 %.
//  4. Which head value gets which popularity rank is drawn at random under
//     the constraints the paper derived from the SDSC, CTC, KTH and BLUE
//     logs (the table timeRankToPopRank): going up the values in time
//     order, each one takes either a rank that cannot wait any longer (it
//     appeared no later in any log) or, from the ranks seen so far in the
//     logs, the smaller of two uniform draws.
//  5. The tail: K − 20 values at times M·(α−1)x/(α−x), x = i/(K−20),
//     α = 1 + 12.1039·K^−0.6026, rounded to whole minutes (shifted by ±10,
//     20 or 30 s to avoid duplicates); popularity ranks 21, 22, … get
//     795.6·rank^−2.267 percent, scaled to the remaining 11 %, matched to
//     the times at random.
//  6. Jobs per value: shares × N, rounded by the largest-remainder method
//     (ties to the earlier value), so that they sum to N exactly. (The
//     paper's code rounds each and then adjusts with heuristics.)
//  7. Assignment, as in the paper: jobs sorted by runtime, longest first
//     (ties by ID), estimates sorted from largest; each job takes an
//     estimate drawn uniformly among the remaining ones not below its
//     runtime. A job's runtime is capped at M for this (the paper truncates
//     runtimes above M; we keep the runtime, so such a job gets estimate M
//     and is killed at M in kill mode, as in the real system). If the
//     distribution does not have enough large values for the long jobs,
//     the k-th largest estimate is raised to the smallest model value not
//     below the k-th longest runtime; such jobs are counted in the notes.
//
// M is Max when set; otherwise the largest user estimate that at least 1 %
// of the jobs use (the queue limit; single outliers are ignored), or, when
// that is below one hour, the longest runtime rounded up to whole hours
// (at least one hour).
type Modal struct {
	// Max is the maximal estimate M in seconds (≥ 3600); 0: derived from
	// the workload.
	Max int64
	// AtMax is the percentage of jobs whose estimate is M, in (0,
	// HeadShare]; 0: the model's default (21.73 %).
	AtMax float64
	// AtMaxTrace takes AtMax from the workload: the percentage of jobs
	// whose user estimate is M.
	AtMaxTrace bool
}

// Parameters of the model (Tsafrir, Etsion & Feitelson 2005).
const (
	// HeadSize is the number of most popular estimate values, the head.
	HeadSize = 20
	// HeadShare is the percentage of jobs using a head value.
	HeadShare = 89.0
	headA     = 14.0491
	headB     = -0.177531
	headC     = 0.462513
	tailA     = 795.6
	tailB     = -2.267
	alphaP    = 12.1039
	alphaQ    = -0.6026
)

var binCurve = [][2]float64{{0, 0}, {20, 10}, {200, 20}, {1000, 35}, {10000, 90}, {70000, 340}, {250000, 565}}

const (
	minute = 60
	hour   = 3600
)

// jointValues are the 15 estimates popular in all four logs of the paper.
var jointValues = []int64{5 * minute, 10 * minute, 15 * minute, 20 * minute, 30 * minute,
	1 * hour, 2 * hour, 3 * hour, 4 * hour, 5 * hour, 6 * hour, 8 * hour, 10 * hour, 12 * hour, 18 * hour}

// roundSteps complete the head: multiples of these, counting down from M.
var roundSteps = []int64{200 * hour, 100 * hour, 50 * hour, 10 * hour, 5 * hour, 2 * hour, 1 * hour,
	20 * minute, 10 * minute, 5 * minute}

// timeRankToPopRank[t] gives, for the head value of time rank t (0 = M,
// then the others in increasing time), its popularity rank in the SDSC,
// CTC, KTH and BLUE logs (the paper's table).
var timeRankToPopRank = [HeadSize][4]int{
	{3, 1, 1, 1}, {1, 3, 4, 6}, {4, 4, 10, 5}, {17, 2, 14, 3}, {13, 12, 20, 7},
	{7, 9, 2, 2}, {8, 8, 3, 18}, {18, 18, 7, 19}, {2, 6, 12, 4}, {6, 7, 6, 11},
	{16, 11, 19, 20}, {10, 20, 5, 9}, {5, 16, 18, 10}, {15, 5, 16, 14}, {14, 14, 9, 13},
	{19, 13, 17, 16}, {11, 10, 15, 15}, {12, 15, 13, 17}, {9, 17, 8, 8}, {20, 19, 11, 12},
}

// DefaultAtMax is the model's default percentage of jobs at the maximum:
// HeadShare minus the shares of popularity ranks 2…20.
func DefaultAtMax() float64 {
	s := 0.0
	for x := 2; x <= HeadSize; x++ {
		s += headRankShare(x)
	}
	return HeadShare - s
}

func headRankShare(x int) float64 { return headA*math.Exp(headB*float64(x)) + headC }

// Spec implements Model.
func (m Modal) Spec() string {
	s := "modal"
	switch {
	case m.AtMaxTrace:
		s += ":atmax=trace"
	case m.AtMax > 0:
		s += fmt.Sprintf(":atmax=%g", m.AtMax)
	}
	if m.Max > 0 {
		s += fmt.Sprintf(":max=%d", m.Max)
	}
	return s
}

// binCount is K for n jobs.
func binCount(n int) int {
	last := binCurve[len(binCurve)-1]
	if float64(n) >= last[0] {
		return int(last[1])
	}
	for i := 1; i < len(binCurve); i++ {
		if float64(n) <= binCurve[i][0] {
			a, b := binCurve[i-1], binCurve[i]
			return int(math.Round(a[1] + (float64(n)-a[0])*(b[1]-a[1])/(b[0]-a[0])))
		}
	}
	return int(last[1])
}

// headTimes returns M followed by the other head values in increasing
// order.
func headTimes(M int64) []int64 {
	v := []int64{M}
	has := func(x int64) bool { return slices.Contains(v, x) }
	for _, x := range jointValues {
		if x < M && len(v) < HeadSize {
			v = append(v, x)
		}
	}
	for _, step := range roundSteps {
		for x := M / step * step; x > 0 && len(v) < HeadSize; x -= step {
			if !has(x) {
				v = append(v, x)
			}
		}
	}
	slices.Sort(v[1:])
	return v
}

// headShares returns the percentages of popularity ranks 1…h.
func headShares(h int, atMax float64) []float64 {
	sh := make([]float64, h)
	rest := 0.0
	for x := 2; x <= h; x++ {
		sh[x-1] = headRankShare(x)
		rest += sh[x-1]
	}
	if atMax <= 0 {
		sh[0] = HeadShare - rest
		return sh
	}
	sh[0] = atMax
	if rest > 0 {
		f := (HeadShare - atMax) / rest
		for x := 1; x < h; x++ {
			sh[x] *= f
		}
	}
	return sh
}

// mapRanks assigns popularity ranks 1…h to the head values by time rank
// 0…h-1 (rank 1 to M), under the constraints of timeRankToPopRank.
func mapRanks(h int, rng *rand.Rand) []int {
	bound := make([]int, HeadSize+1) // last time rank at which a rank appears
	for t := range HeadSize {
		for _, p := range timeRankToPopRank[t] {
			bound[p] = max(bound[p], t)
		}
	}
	chosen := make([]bool, h+1)
	out := make([]int, h)
	out[0], chosen[1] = 1, true
	var pool []int
	addRow := func(t int) {
		if t >= HeadSize {
			return
		}
		for _, p := range timeRankToPopRank[t] {
			if p <= h && !chosen[p] {
				pool = append(pool, p)
			}
		}
	}
	addRow(0)
	for t := 1; t < h; t++ {
		addRow(t)
		p := 0
		for q := 1; q <= h; q++ { // a rank that cannot wait
			if !chosen[q] && bound[q] <= t {
				p = q
				break
			}
		}
		if p == 0 && len(pool) > 0 {
			p = pool[rng.IntN(len(pool))]
			p = min(p, pool[rng.IntN(len(pool))])
		}
		for q := 1; p == 0 && q <= h; q++ {
			if !chosen[q] {
				p = q
			}
		}
		out[t], chosen[p] = p, true
		pool = slices.DeleteFunc(pool, func(x int) bool { return x == p })
	}
	return out
}

// tailTimes returns up to n tail values for maximum M and K bins, avoiding
// the values in used, in increasing order.
func tailTimes(M int64, n, K int, used map[int64]bool) []int64 {
	a := 1 + alphaP*math.Pow(float64(K), alphaQ)
	var out []int64
	for i := 1; i <= n; i++ {
		x := float64(i) / float64(n)
		y := (a - 1) * x / (a - x)
		sec := int64(math.Round(y*float64(M)/minute)) * minute
		for _, off := range []int64{0, 30, -30, 20, -20, 10, -10} {
			if s := sec + off; s > 0 && s < M && !used[s] {
				used[s] = true
				out = append(out, s)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// largestRemainder turns shares into integer counts summing to n.
func largestRemainder(shares []float64, n int) []int {
	total := 0.0
	for _, s := range shares {
		total += s
	}
	counts := make([]int, len(shares))
	if total <= 0 || n <= 0 {
		return counts
	}
	rem := make([]float64, len(shares))
	left := n
	for i, s := range shares {
		x := s / total * float64(n)
		counts[i] = int(math.Floor(x))
		rem[i] = x - float64(counts[i])
		left -= counts[i]
	}
	idx := make([]int, len(shares))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return rem[idx[a]] > rem[idx[b]] })
	for i := 0; left > 0 && i < len(idx); i++ {
		counts[idx[i]]++
		left--
	}
	return counts
}

// deriveMax is M for jobs carrying the users' estimates.
func deriveMax(jobs []job.Job) (int64, string) {
	n := len(jobs)
	freq := make(map[int64]int)
	for i := range jobs {
		freq[jobs[i].Estimate]++
	}
	var M int64
	for v, c := range freq { // the maximum does not depend on map order
		if 100*c >= n && v > M {
			M = v
		}
	}
	if M >= hour {
		return M, "the largest user estimate used by at least 1% of the jobs"
	}
	var longest int64
	for i := range jobs {
		longest = max(longest, jobs[i].Runtime)
	}
	M = max(hour, (longest+hour-1)/hour*hour)
	return min(M, MaxEstimate), "the longest runtime rounded up to whole hours (no popular user estimate of an hour or more)"
}

// Apply implements Model.
func (m Modal) Apply(jobs []job.Job, rng *rand.Rand) []string {
	n := len(jobs)
	if n == 0 {
		return []string{"modal: no jobs"}
	}
	M, why := m.Max, "given"
	if M <= 0 {
		M, why = deriveMax(jobs)
	}
	atMax, atWhy := m.AtMax, "given"
	if m.AtMaxTrace {
		c := 0
		for i := range jobs {
			if jobs[i].Estimate == M {
				c++
			}
		}
		atMax, atWhy = min(HeadShare, 100*float64(c)/float64(n)), "the share of the users' estimates"
		if c == 0 {
			atMax, atWhy = 0, "model default (no user estimate equals M)"
		}
	}
	if atMax <= 0 {
		atMax, atWhy = DefaultAtMax(), "model default"
	}

	// the distribution: values and shares
	head := headTimes(M)
	h := len(head)
	K := max(binCount(n), h)
	ranks := mapRanks(h, rng)
	hs := headShares(h, atMax)
	values := slices.Clone(head)
	shares := make([]float64, h)
	for t := range head {
		shares[t] = hs[ranks[t]-1]
	}
	used := make(map[int64]bool, K)
	for _, v := range head {
		used[v] = true
	}
	tail := tailTimes(M, K-h, K, used)
	if len(tail) > 0 {
		ts := make([]float64, len(tail))
		sum := 0.0
		for i := range ts {
			ts[i] = tailA * math.Pow(float64(HeadSize+1+i), tailB)
			sum += ts[i]
		}
		rng.Shuffle(len(ts), func(a, b int) { ts[a], ts[b] = ts[b], ts[a] })
		for i := range ts {
			values = append(values, tail[i])
			shares = append(shares, ts[i]*(100-HeadShare)/sum)
		}
	}
	counts := largestRemainder(shares, n)

	// the estimates, largest first
	ests := make([]int64, 0, n)
	for i, v := range values {
		for range counts[i] {
			ests = append(ests, v)
		}
	}
	slices.SortFunc(ests, func(a, b int64) int { return int(sign(b - a)) })
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	up := func(r int64) int64 { // smallest model value ≥ r (M ≥ r always)
		i, _ := slices.BinarySearch(sorted, r)
		return sorted[min(i, len(sorted)-1)]
	}

	// jobs by capped runtime, longest first
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	capped := func(i int) int64 { return min(max(jobs[i].Runtime, 0), M) }
	sort.SliceStable(order, func(a, b int) bool { return capped(order[a]) > capped(order[b]) })
	raised, over := 0, 0
	for k, i := range order {
		if ests[k] < capped(i) {
			ests[k] = up(capped(i))
			raised++
		}
		if jobs[i].Runtime > M {
			over++
		}
	}
	hi := 0
	for k, i := range order {
		r := capped(i)
		hi = max(hi, k)
		for hi+1 < n && ests[hi+1] >= r {
			hi++
		}
		pick := k + rng.IntN(hi-k+1)
		jobs[i].Estimate = ests[pick]
		ests[pick], ests[k] = ests[k], ests[pick]
	}

	atM := 0
	for i := range jobs {
		if jobs[i].Estimate == M {
			atM++
		}
	}
	return []string{
		fmt.Sprintf("modal (Tsafrir, Etsion & Feitelson 2005): maximum M = %d s (%s)", M, why),
		fmt.Sprintf("modal: %d distinct values (%d head values for %.0f%% of jobs, %d tail); %.2f%% of jobs at M (%s; %.2f%% after assignment)",
			len(values), h, HeadShare, len(tail), atMax, atWhy, 100*float64(atM)/float64(n)),
		fmt.Sprintf("modal: %d jobs run longer than M and get estimate M; %d estimates raised so that no estimate is below its job's runtime", over, raised),
	}
}

func sign(x int64) int64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
