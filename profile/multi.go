package profile

import "fmt"

// Multi is the availability profile of a machine with K independently
// allocatable resources (processors, memory, licences, …): K scalar
// profiles, one per resource, with vector queries composed on top. It is
// not a second implementation: every capacity computation is done by the
// per-resource Profile, and Multi only keeps them in step.
//
// A job holds a K-vector need over [start, end): need[i] units of resource
// i. A requirement of 0 costs nothing (the resource's profile is not
// touched) and always fits.
//
// Vector earliest fit is a fixed-point iteration over the resources: from
// t = after, ask each resource for its earliest fit at or after t; if one
// answers later than t, that answer is the new t (no common fit can be
// earlier, since it must fit in that resource too) and every other
// resource is asked again; the first t that all K resources accept is the
// answer. Each round that moves t jumps at least to the end of a blocking
// run of some resource, so the cost is O(K · log B) per round, and the
// number of rounds is at most the number of blocking runs (of the job's
// requirements) crossed in all resources together, R ≤ B1 + … + BK.
// In practice one or two rounds suffice; with K = 1 it is exactly one
// scalar EarliestFit.
type Multi struct {
	res []*Profile
}

// NewMulti returns an empty profile of len(caps) resources with the given
// capacities (caps[0] is conventionally the processors). Every capacity
// must be positive.
func NewMulti(caps []int) (*Multi, error) {
	if len(caps) == 0 {
		return nil, fmt.Errorf("profile: a machine needs at least one resource")
	}
	m := &Multi{res: make([]*Profile, len(caps))}
	for i, c := range caps {
		if c < 1 {
			return nil, fmt.Errorf("profile: resource %d has capacity %d (must be at least 1)", i, c)
		}
		m.res[i] = New(c)
	}
	return m, nil
}

// K is the number of resources.
func (m *Multi) K() int { return len(m.res) }

// Cap is the capacity of resource i.
func (m *Multi) Cap(i int) int { return m.res[i].procs }

// Res is the scalar profile of resource i, for queries that concern one
// resource (FreeAt, MinFree, PrefixMax, Steps). Changing it directly
// breaks nothing in Multi, but holds must then be released there too.
func (m *Multi) Res(i int) *Profile { return m.res[i] }

// Len is the total number of breakpoints over all resources.
func (m *Multi) Len() int {
	n := 0
	for _, p := range m.res {
		n += p.count
	}
	return n
}

// Reset empties every resource's profile.
func (m *Multi) Reset() {
	for _, p := range m.res {
		p.Reset()
	}
}

func (m *Multi) check(need []int) error {
	if len(need) != len(m.res) {
		return fmt.Errorf("profile: a requirement of %d resources on a %d-resource machine", len(need), len(m.res))
	}
	return nil
}

// Add holds need over [start, end) in every resource. It returns an
// error, and changes nothing, if some resource would have fewer than zero
// free units at some instant, or if need has the wrong length.
func (m *Multi) Add(start, end int64, need []int) error {
	if err := m.check(need); err != nil {
		return err
	}
	for i, p := range m.res {
		if err := p.Add(start, end, need[i]); err != nil {
			for k := range i {
				_ = m.res[k].Remove(start, end, need[k]) // undo: cannot fail
			}
			return fmt.Errorf("resource %d: %w", i, err)
		}
	}
	return nil
}

// Remove releases need over [start, end), which an earlier Add held. It
// returns an error, and changes nothing, if that would release more than
// was held in some resource.
func (m *Multi) Remove(start, end int64, need []int) error {
	if err := m.check(need); err != nil {
		return err
	}
	for i, p := range m.res {
		if err := p.Remove(start, end, need[i]); err != nil {
			for k := range i {
				_ = m.res[k].Add(start, end, need[k]) // undo: cannot fail
			}
			return fmt.Errorf("resource %d: %w", i, err)
		}
	}
	return nil
}

// FreeAt writes the free units of every resource at t into free (which
// must have length K) and returns it; a nil free is allocated.
func (m *Multi) FreeAt(t int64, free []int) []int {
	if free == nil {
		free = make([]int, len(m.res))
	}
	for i, p := range m.res {
		free[i] = p.FreeAt(t)
	}
	return free
}

// Fits reports whether need is free in every resource over all of
// [start, start+dur).
func (m *Multi) Fits(start, dur int64, need []int) bool {
	for i, p := range m.res {
		if need[i] > 0 && !p.Fits(start, dur, need[i]) {
			return false
		}
	}
	return true
}

// EarliestFit is the earliest time t ≥ after at which need is free in
// every resource over all of [t, t+dur): the fixed point of the
// per-resource EarliestFit (see the type's comment). It is Infinity when
// some need exceeds its resource's capacity. A non-positive dur is
// treated as 1, as in Profile.EarliestFit.
func (m *Multi) EarliestFit(after, dur int64, need []int) int64 {
	t := after
	agreed := 0 // resources that accept t, counted since t last moved
	for i := 0; agreed < len(m.res); i = (i + 1) % len(m.res) {
		if need[i] <= 0 {
			agreed++
			continue
		}
		u := m.res[i].EarliestFit(t, dur, need[i])
		if u == Infinity {
			return Infinity
		}
		if u > t {
			t, agreed = u, 1
		} else {
			agreed++
		}
	}
	return t
}

// EarliestFitMoving is EarliestFit for a job that already holds need over
// [own, own+dur) and may only move earlier: its own hold counts as free,
// and the answer is own when no earlier start fits in every resource. The
// profile is not changed. The per-resource answers are combined by the
// same fixed-point iteration, stopped at own.
func (m *Multi) EarliestFitMoving(after, dur int64, need []int, own int64) int64 {
	if after >= own {
		return own
	}
	t := after
	agreed := 0
	for i := 0; agreed < len(m.res); i = (i + 1) % len(m.res) {
		if need[i] <= 0 {
			agreed++
			continue
		}
		u := m.res[i].EarliestFitMoving(t, dur, need[i], own)
		if u >= own {
			return own
		}
		if u > t {
			t, agreed = u, 1
		} else {
			agreed++
		}
	}
	return t
}

// Forget drops, in every resource, the breakpoints before t that no
// longer matter (Profile.Forget).
func (m *Multi) Forget(t int64) {
	for _, p := range m.res {
		p.Forget(t)
	}
}

// EarliestFitMovingBefore is EarliestFitMoving restricted to starts before
// limit: the earliest t, after ≤ t < min(limit, own), at which need fits in
// every resource (its own hold counting as free), or own if there is none
// (Profile.EarliestFitMovingBefore, combined by the fixed point of
// EarliestFit: a resource with no fit before the limit ends the search).
func (m *Multi) EarliestFitMovingBefore(after, dur int64, need []int, own, limit int64) int64 {
	limit = min(limit, own)
	if after >= limit {
		return own
	}
	t := after
	agreed := 0
	for i := 0; agreed < len(m.res); i = (i + 1) % len(m.res) {
		if need[i] <= 0 {
			agreed++
			continue
		}
		u := m.res[i].EarliestFitMovingBefore(t, dur, need[i], own, limit)
		if u >= limit {
			return own
		}
		if u > t {
			t, agreed = u, 1
		} else {
			agreed++
		}
	}
	return t
}
