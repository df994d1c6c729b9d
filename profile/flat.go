package profile

// Flat is a scratch copy of a Profile from an instant on, for a plan made
// and thrown away many times (Slurm's backfill cycle, every bf_interval,
// places its holds in a copy of the running jobs' profile). It keeps the
// breakpoints with the change of the used processors at each, in chunks
// of at most flatCap consecutive breakpoints, each with the sum and the
// largest and smallest prefix sum of its changes: a hold is two changes
// (an insertion in one chunk each, however many breakpoints it spans), and
// a query sums the changes from the origin as it scans, skipping a chunk
// whole where its summary decides. With the few hundred breakpoints such
// a plan has, that costs less than the tree's descents (the tree of
// Profile is the same idea with larger blocks and inner nodes, for
// profiles that live long and grow large). Answers are those of the
// Profile the copy was taken from, with the same holds added, for the
// instants from the origin on (earlier instants are not asked).
type Flat struct {
	procs int
	// the chunks in time order: used(t) is the sum of the changes at the
	// breakpoints at or before t. The first breakpoint is the origin (its
	// change: the processors used then); the changes sum to 0 (every hold
	// ends). A change may be 0. No chunk is empty.
	ch []flatChunk
}

// flatCap is the most breakpoints of a chunk of a Flat, flatFill how many
// Load puts in one (room for the holds to come).
const (
	flatCap  = 16
	flatFill = 12
)

// flatChunk is a run of consecutive breakpoints of a Flat.
type flatChunk struct {
	n           int
	sum, mx, mn int  // the changes' sum, largest and smallest prefix sum
	stale       bool // mx and mn are to be recomputed (sum is kept)
	at          [flatCap]int64
	chg         [flatCap]int
}

// fix recomputes the chunk's summary.
func (c *flatChunk) fix() {
	s, mx, mn := 0, negInf, posInf
	for _, v := range c.chg[:c.n] {
		s += v
		mx, mn = max(mx, s), min(mn, s)
	}
	c.sum, c.mx, c.mn, c.stale = s, mx, mn, false
}

// high is the largest prefix sum of the chunk's changes, low the
// smallest: recomputed when a change made them stale (a search reads them
// for a few of the chunks a hold changed).
func (c *flatChunk) high() int {
	if c.stale {
		c.fix()
	}
	return c.mx
}

// low is the smallest prefix sum of the chunk's changes (high).
func (c *flatChunk) low() int {
	if c.stale {
		c.fix()
	}
	return c.mn
}

// Load makes f the profile p from the instant from on, reusing f's
// storage.
func (f *Flat) Load(p *Profile, from int64) {
	f.procs = p.procs
	f.ch = f.ch[:0]
	u := p.procs - p.FreeAt(from)
	f.push(from, u)
	if p.root != 0 {
		x, acc := p.find(from)
		b := &p.bl[x]
		i := upperBound(b, from)
		for x != 0 {
			for ; i < b.n; i++ {
				v := acc + b.loc[i]
				f.push(b.key[i], v-u)
				u = v
			}
			acc += b.own.sum
			x = b.next
			b = &p.bl[x]
			i = 0
		}
	}
	for k := range f.ch {
		f.ch[k].fix()
	}
}

// push appends a breakpoint at t with change d (Load).
func (f *Flat) push(t int64, d int) {
	if k := len(f.ch); k == 0 || f.ch[k-1].n == flatFill {
		f.ch = append(f.ch, flatChunk{})
	}
	c := &f.ch[len(f.ch)-1]
	c.at[c.n], c.chg[c.n] = t, d
	c.n++
}

// used is the place (chunk c, index i) of the last breakpoint at or before
// t ≥ the origin, and the processors used at t.
func (f *Flat) used(t int64) (c, i, u int) {
	for c+1 < len(f.ch) && f.ch[c+1].at[0] <= t {
		u += f.ch[c].sum
		c++
	}
	b := &f.ch[c]
	u += b.chg[0]
	for i+1 < b.n && b.at[i+1] <= t {
		i++
		u += b.chg[i]
	}
	return c, i, u
}

// FreeAt is the number of free processors at t (at or after the origin).
func (f *Flat) FreeAt(t int64) int {
	_, _, u := f.used(t)
	return f.procs - u
}

// MinFree is Profile.MinFree over [start, end), start at or after the
// origin.
func (f *Flat) MinFree(start, end int64) int {
	if end <= start {
		return f.procs
	}
	ch := f.ch
	c, i, u := f.used(start)
	m := u
	for {
		if i++; i == ch[c].n {
			c, i = c+1, 0
			for c < len(ch) && ch[c].at[ch[c].n-1] < end {
				m = max(m, u+ch[c].high()) // the whole chunk is in the interval
				u += ch[c].sum
				c++
			}
			if c == len(ch) {
				break
			}
		}
		if ch[c].at[i] >= end {
			break
		}
		u += ch[c].chg[i]
		m = max(m, u)
	}
	return f.procs - m
}

// EarliestFit is Profile.EarliestFit from after, at or after the origin.
func (f *Flat) EarliestFit(after, dur int64, n int) int64 {
	if n > f.procs {
		return Infinity
	}
	if dur < 1 {
		dur = 1
	}
	if n <= 0 {
		return after
	}
	ch := f.ch
	lim := f.procs - n // the most processors used where the job fits
	c, i, u := f.used(after)
	t := after
	for {
		if u > lim {
			// blocked: on to the first breakpoint where it is not (there
			// is one: the changes sum to 0)
			for {
				if i++; i == ch[c].n {
					c, i = c+1, 0
					for u+ch[c].low() > lim { // blocked throughout the chunk
						u += ch[c].sum
						c++
					}
				}
				if u += ch[c].chg[i]; u <= lim {
					break
				}
			}
			t = ch[c].at[i]
		}
		end := t + dur
		if end < t {
			end = Infinity
		}
		// the window [t, end): on until a breakpoint in it blocks
		for {
			if i++; i == ch[c].n {
				c, i = c+1, 0
				for c < len(ch) && ch[c].at[ch[c].n-1] < end && u+ch[c].high() <= lim {
					u += ch[c].sum // the whole chunk is in the window and fits
					c++
				}
				if c == len(ch) {
					return t
				}
			}
			if ch[c].at[i] >= end {
				return t
			}
			if u += ch[c].chg[i]; u > lim {
				break
			}
		}
	}
}

// AddFitted occupies n processors over [start, end), start at or after the
// origin, for a caller that found the room (Profile.AddFitted). It does
// not check: a hold that does not fit leaves a profile with fewer than 0
// processors free somewhere (the caller's bug).
func (f *Flat) AddFitted(start, end int64, n int) {
	if end <= start || n == 0 {
		return
	}
	f.change(start, n)
	f.change(end, -n)
}

// change adds d to the change at t (after the origin), inserting a
// breakpoint there if there is none.
func (f *Flat) change(t int64, d int) {
	// the last chunk starting at or before t (the first starts at the
	// origin)
	lo, hi := 1, len(f.ch)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f.ch[m].at[0] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	c := lo - 1
	b := &f.ch[c]
	i := 0
	for i < b.n && b.at[i] < t {
		i++
	}
	if i < b.n && b.at[i] == t {
		b.chg[i] += d
		b.sum += d
		b.stale = true
		return
	}
	if b.n == flatCap {
		// split: the upper half goes to a new chunk after it
		f.ch = append(f.ch, flatChunk{})
		copy(f.ch[c+2:], f.ch[c+1:])
		lo, hi := &f.ch[c], &f.ch[c+1]
		h := flatCap / 2
		hi.n = copy(hi.at[:], lo.at[h:lo.n])
		copy(hi.chg[:], lo.chg[h:lo.n])
		lo.n = h
		lo.fix()
		hi.fix()
		b = lo
		if i > h {
			b, i = hi, i-h // (i == h: at the end of the lower half)
		}
	}
	copy(b.at[i+1:b.n+1], b.at[i:b.n])
	copy(b.chg[i+1:b.n+1], b.chg[i:b.n])
	b.at[i], b.chg[i] = t, d
	b.n++
	b.sum += d
	b.stale = true
}
