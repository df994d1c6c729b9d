package experiment

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a sweep split for array jobs: the runs whose plan
// index i satisfies i mod Count = Index. Count 0 (the zero Shard) means
// the whole sweep. Round-robin over the expansion order spreads each
// workload's runs (and so their cost) over the shards; every run is in
// exactly one shard of a given Count.
type Shard struct {
	Index, Count int
}

// Whole reports whether s is the whole sweep.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string {
	if s.Whole() {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Contains reports whether the run at plan index i belongs to s.
func (s Shard) Contains(i int) bool {
	return s.Whole() || i%s.Count == s.Index
}

// Runs returns the runs of p that belong to s, in plan order.
func (p *Plan) Shard(s Shard) []Run {
	var out []Run
	for _, r := range p.Runs {
		if s.Contains(r.Index) {
			out = append(out, r)
		}
	}
	return out
}

// ParseShard parses "i/n": shard i (0 ≤ i < n) of n.
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard: expected i/n (shard i of n, counted from 0), found %q", v)
	}
	return newShard(i, n)
}

func newShard(i, n int) (Shard, error) {
	if n < 1 || n > 1_000_000 {
		return Shard{}, fmt.Errorf("shard: the number of shards must be from 1 to 1000000, found %d", n)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard: index %d is outside 0..%d (shards are counted from 0)", i, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// ShardFromEnv finds the shard from an array job's environment (getenv is
// os.Getenv in production):
//
//   - Slurm job arrays: SLURM_ARRAY_TASK_ID, with SLURM_ARRAY_TASK_COUNT,
//     or SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX (and
//     SLURM_ARRAY_TASK_STEP when the array has a step). Shard index =
//     (ID − MIN) / STEP, so arrays 0-9 and 1-10 both give shards 0..9.
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (0-based) with the
//     number of completions from count (the --shards flag) or the
//     variable BACKFILL_SHARDS, since Kubernetes does not export it.
//
// It returns the zero Shard and "" when neither is set, and an error when
// the variables are inconsistent.
func ShardFromEnv(getenv func(string) string, count int) (Shard, string, error) {
	num := func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, false, fmt.Errorf("%s: expected an integer, found %q", name, v)
		}
		return n, true, nil
	}
	id, ok, err := num("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return Shard{}, "", err
	}
	if ok {
		cnt, hasCnt, err1 := num("SLURM_ARRAY_TASK_COUNT")
		lo, hasMin, err2 := num("SLURM_ARRAY_TASK_MIN")
		hi, hasMax, err3 := num("SLURM_ARRAY_TASK_MAX")
		step, hasStep, err4 := num("SLURM_ARRAY_TASK_STEP")
		for _, e := range []error{err1, err2, err3, err4} {
			if e != nil {
				return Shard{}, "", e
			}
		}
		if !hasStep || step < 1 {
			step = 1
		}
		if !hasMin {
			lo = 0
		}
		if hasMin && hasMax {
			span := (hi-lo)/step + 1
			if hasCnt && cnt != span {
				return Shard{}, "", fmt.Errorf("the Slurm array is not a contiguous range (SLURM_ARRAY_TASK_COUNT=%d, MIN=%d, MAX=%d): submit a range such as --array=0-%d, or give --shard", cnt, lo, hi, cnt-1)
			}
			cnt, hasCnt = span, true
		}
		if !hasCnt {
			return Shard{}, "", fmt.Errorf("SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MIN/MAX: give --shard i/n")
		}
		if (id-lo)%step != 0 {
			return Shard{}, "", fmt.Errorf("SLURM_ARRAY_TASK_ID=%d is not on the array's step %d from %d", id, step, lo)
		}
		s, err := newShard((id-lo)/step, cnt)
		if err != nil {
			return Shard{}, "", fmt.Errorf("Slurm array task %d: %w", id, err)
		}
		return s, "Slurm array task " + strconv.Itoa(id), nil
	}
	idx, ok, err := num("JOB_COMPLETION_INDEX")
	if err != nil {
		return Shard{}, "", err
	}
	if ok {
		if count <= 0 {
			c, has, err := num("BACKFILL_SHARDS")
			if err != nil {
				return Shard{}, "", err
			}
			if !has {
				return Shard{}, "", fmt.Errorf("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the number of shards is unknown: give --shards N or set BACKFILL_SHARDS to the Job's completions")
			}
			count = c
		}
		s, err := newShard(idx, count)
		if err != nil {
			return Shard{}, "", fmt.Errorf("Kubernetes completion index %d: %w", idx, err)
		}
		return s, "Kubernetes completion index " + strconv.Itoa(idx), nil
	}
	return Shard{}, "", nil
}
