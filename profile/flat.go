package profile

// Flat is a scratch copy of a Profile from an instant on, for a plan made
// and thrown away many times (Slurm's backfill cycle, every bf_interval,
// places its holds in a copy of the running jobs' profile). It keeps the
// breakpoints in chunks of at most flatCap consecutive ones; the
// processors used from a breakpoint on are its chunk's base plus its own
// value. A hold is two changes, +n at its start and −n at its end, each
// added to the values of its chunk from its instant on and to the base of
// every later chunk (the bases are a small array apart from the chunks):
// one insertion at each end however many breakpoints the hold spans, no
// pass over the breakpoints it covers, and reading a breakpoint never
// sums across chunks.
// Each chunk keeps the largest of its values and a lower bound of the
// smallest, so that a scan skips a chunk whole where they decide (a
// search for room: the chunk fits throughout, or is full throughout). An
// EarliestFit remembers where its answer and its window's end are, so the
// hold placed there next, within that window, finds both its ends without
// a search. With the few hundred breakpoints such a plan
// has, that costs less than the tree's descents (the tree of Profile is
// the same idea with larger blocks and inner nodes, for profiles that
// live long and grow large). Answers are those of the Profile the copy was
// taken from, with the same holds added, for the instants from the origin
// on (earlier instants are not asked).
type Flat struct {
	procs int
	// the chunks in time order, and their summaries. The first
	// breakpoint is the origin; the last one's processors used are 0
	// (every hold ends). No chunk is empty.
	ch []flatChunk
	hd []flatHead
	// the last EarliestFit's answer and the place of the last breakpoint
	// at or before it (chunk fitC, index fitI), while f has not changed
	// since (a caller places a hold where it found room: AddFitted then
	// starts there without a search)
	fitOK      bool
	fitT       int64
	fitC, fitI int
	// and the end of its window, with the place of the first breakpoint
	// at or after it (fitEI = the chunk's n where there is none)
	fitEnd       int64
	fitEC, fitEI int
}

// flatCap is the most breakpoints of a chunk of a Flat, flatFill how many
// Load puts in one (room for the holds to come).
const (
	flatCap  = 16
	flatFill = 12
)

// flatChunk is a run of consecutive breakpoints of a Flat: at[k] is the
// k-th one's instant (Infinity from k = n on), val[k] the processors used
// from it on less the chunk's base.
type flatChunk struct {
	n   int
	at  [flatCap]int64
	val [flatCap]int
}

// flatHead is what a scan reads of a chunk it may skip, in a slice of its
// own (a few cache lines for the whole plan).
type flatHead struct {
	first, last int64 // the chunk's first and last instants
	base        int   // what the chunk adds to its values
	// the largest of its values, and at most the smallest (a hold's end
	// can leave mx unknown, a hold's start leaves mn too low)
	mx, mn int
	stale  bool // mx is unknown: to be recomputed
}

// fix recomputes chunk c's extremes.
func (f *Flat) fix(c int) {
	b := &f.ch[c]
	mx, mn := negInf, posInf
	for _, v := range b.val[:b.n] {
		mx, mn = max(mx, v), min(mn, v)
	}
	h := &f.hd[c]
	h.mx, h.mn, h.stale = mx, mn, false
}

// high is the largest of chunk c's values: recomputed when a hold's end
// left it unknown (a search reads it for a few of the chunks a hold
// changed).
func (f *Flat) high(c int) int {
	if f.hd[c].stale {
		f.fix(c)
	}
	return f.hd[c].mx
}

// Load makes f the profile p from the instant from on, reusing f's
// storage.
func (f *Flat) Load(p *Profile, from int64) {
	f.procs = p.procs
	f.ch, f.fitOK = f.ch[:0], false
	u := p.procs - p.FreeAt(from)
	f.push(from, u)
	if p.root != 0 {
		x, acc := p.find(from)
		b := &p.bl[x]
		i := upperBound(b, from)
		for x != 0 {
			for ; i < b.n; i++ {
				f.push(b.key[i], acc+b.loc[i])
			}
			acc += b.own.sum
			x = b.next
			b = &p.bl[x]
			i = 0
		}
	}
	f.loaded()
}

// loaded completes Load: the unused instants and the summaries.
func (f *Flat) loaded() {
	f.hd = f.hd[:0]
	for k := range f.ch {
		c := &f.ch[k]
		for i := c.n; i < flatCap; i++ {
			c.at[i] = Infinity
		}
		f.hd = append(f.hd, flatHead{first: c.at[0], last: c.at[c.n-1]})
		f.fix(k)
	}
}

// push appends a breakpoint at t with u processors used from it on
// (Load).
func (f *Flat) push(t int64, u int) {
	if k := len(f.ch); k == 0 || f.ch[k-1].n == flatFill {
		f.ch = append(f.ch, flatChunk{})
	}
	c := &f.ch[len(f.ch)-1]
	c.at[c.n], c.val[c.n] = t, u
	c.n++
}

// used is the place (chunk c, index i) of the last breakpoint at or before
// t ≥ the origin.
func (f *Flat) used(t int64) (c, i int) {
	c, i = f.locate(t, 0, 1)
	return c, i - 1
}

// FreeAt is the number of free processors at t (at or after the origin).
func (f *Flat) FreeAt(t int64) int {
	c, i := f.used(t)
	return f.procs - f.hd[c].base - f.ch[c].val[i]
}

// MinFree is Profile.MinFree over [start, end), start at or after the
// origin.
func (f *Flat) MinFree(start, end int64) int {
	if end <= start {
		return f.procs
	}
	ch, hd := f.ch, f.hd
	c, i := f.used(start)
	b := &ch[c]
	m := b.val[i]
	for i++; i < b.n && b.at[i] < end; i++ {
		m = max(m, b.val[i])
	}
	m += hd[c].base
	if i < b.n {
		return f.procs - m
	}
	for c++; c < len(hd) && hd[c].last < end; c++ {
		m = max(m, hd[c].base+f.high(c)) // the whole chunk is in the interval
	}
	if c < len(ch) {
		b = &ch[c]
		mc := negInf
		for i := 0; i < b.n && b.at[i] < end; i++ {
			mc = max(mc, b.val[i])
		}
		m = max(m, hd[c].base+mc)
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
	ch, hd := f.ch, f.hd
	lim := f.procs - n // the most processors used where the job fits
	c, i := f.used(after)
	b := &ch[c]
	x := lim - hd[c].base // the largest value of chunk c where it fits
	t, tc, ti := after, c, i
	for {
		if b.val[i] > x {
			// blocked: on to the first breakpoint where it is not (there
			// is one: the last one has none used)
			for {
				if i++; i == b.n {
					c, i = c+1, 0
					for hd[c].base+hd[c].mn > lim { // blocked throughout the chunk
						c++
					}
					b, x = &ch[c], lim-hd[c].base
				}
				if b.val[i] <= x {
					break
				}
			}
			t, tc, ti = b.at[i], c, i
		}
		end := t + dur
		if end < t {
			end = Infinity
		}
		// the window [t, end): on until a breakpoint in it blocks
		for i++; i < b.n && b.at[i] < end; i++ {
			if b.val[i] > x {
				break
			}
		}
		if i < b.n {
			if b.at[i] >= end {
				return f.fitted(t, tc, ti, end, c, i) // the window ends in chunk c
			}
			continue // blocked at i
		}
		for c++; c < len(hd) && hd[c].last < end && hd[c].base+f.high(c) <= lim; c++ {
			// the whole chunk is in the window and fits
		}
		if c == len(hd) {
			return f.fitted(t, tc, ti, end, c-1, ch[c-1].n)
		}
		b, x = &ch[c], lim-hd[c].base
		for i = 0; b.at[i] < end; i++ {
			if b.val[i] > x {
				break
			}
		}
		if b.at[i] >= end {
			return f.fitted(t, tc, ti, end, c, i) // (i < b.n: else the chunk had a value above x)
		}
	}
}

// fitted keeps EarliestFit's answer t with its place (chunk c, index i)
// and its window's end with the place of the first breakpoint at or after
// it (chunk ec, index ei), and returns t.
func (f *Flat) fitted(t int64, c, i int, end int64, ec, ei int) int64 {
	f.fitOK, f.fitT, f.fitC, f.fitI = true, t, c, i
	f.fitEnd, f.fitEC, f.fitEI = end, ec, ei
	return t
}

// AddFitted occupies n processors over [start, end), start at or after the
// origin, for a caller that found the room (Profile.AddFitted). It does
// not check: a hold that does not fit leaves a profile with fewer than 0
// processors free somewhere (the caller's bug).
func (f *Flat) AddFitted(start, end int64, n int) {
	if end <= start || n == 0 {
		return
	}
	var c, i int
	if f.fitOK && f.fitT == start && end <= f.fitEnd {
		// the hold is in the window the search found: its end's place
		// is at or before the window's end's, its start's is the
		// answer's (the end's change first: its insertion comes after
		// the start's place, and a split moves it)
		sc, si := f.fitC, f.fitI+1
		c, i = f.fitEC, f.fitEI
		if i < f.ch[c].n && f.ch[c].at[i] <= end {
			i++ // (the window's end is end)
		}
		for i == 0 || f.ch[c].at[i-1] > end {
			if i == 0 {
				c--
				i = f.ch[c].n
			} else {
				i--
			}
		}
		m := len(f.hd)
		f.change(end, -n, c, i)
		if len(f.hd) != m {
			sc, si = f.locate(start, 0, 1)
		}
		f.change(start, n, sc, si)
		return
	}
	if f.fitOK && f.fitT == start {
		c, i = f.fitC, f.fitI+1
	} else {
		c, i = f.locate(start, 0, 1)
	}
	c, i = f.change(start, n, c, i)
	c, i = f.locate(end, c, i)
	f.change(end, -n, c, i)
}

// locate is the place of t (after the origin): its chunk c, the last
// starting at or before it, and the number i of its breakpoints at or
// before t, searched from chunk c, where at least i breakpoints are (i ≥
// 1) at or before t.
func (f *Flat) locate(t int64, c, i int) (int, int) {
	for c+1 < len(f.hd) && f.hd[c+1].first <= t {
		c, i = c+1, 1
	}
	b := &f.ch[c]
	for i < b.n && b.at[i] <= t {
		i++
	}
	return c, i
}

// change adds d to the processors used from t (after the origin) on,
// inserting a breakpoint there if there is none, and returns the place
// (chunk, index + 1) of that breakpoint. Chunk c has i breakpoints at or
// before t (locate).
func (f *Flat) change(t int64, d int, c, i int) (int, int) {
	f.fitOK = false
	b := &f.ch[c]
	if b.at[i-1] != t {
		if b.n == flatCap {
			// split: the upper half goes to a new chunk after it, with
			// the same base
			const h = flatCap / 2
			f.ch = append(f.ch, flatChunk{})
			copy(f.ch[c+2:], f.ch[c+1:])
			f.hd = append(f.hd, flatHead{})
			copy(f.hd[c+2:], f.hd[c+1:])
			lo, hi := &f.ch[c], &f.ch[c+1]
			copy(hi.at[:], lo.at[h:])
			copy(hi.val[:], lo.val[h:])
			for k := h; k < flatCap; k++ {
				lo.at[k], hi.at[k] = Infinity, Infinity
			}
			hi.n, lo.n = flatCap-h, h
			f.hd[c+1] = flatHead{first: hi.at[0], last: hi.at[hi.n-1], base: f.hd[c].base}
			f.hd[c].last = lo.at[h-1]
			f.fix(c)
			f.fix(c + 1)
			b = lo
			if i > h {
				b, i, c = hi, i-h, c+1 // (i == h: at the end of the lower half)
			}
		}
		// a breakpoint at t with the value of the one before it (i > 0:
		// the chunk's first instant is at or before t)
		copy(b.at[i+1:b.n+1], b.at[i:b.n])
		copy(b.val[i+1:b.n+1], b.val[i:b.n])
		b.at[i], b.val[i] = t, b.val[i-1]
		b.n++
		i++
		f.hd[c].last = b.at[b.n-1]
	}
	// the extremes of the values changed (before the change) keep mx
	// exact where they can (d > 0: the largest is the old one or the
	// largest changed one; d < 0: the old one if none changed reached
	// it, else unknown) and mn at most the smallest
	smx, smn := negInf, posInf
	for k := i - 1; k < b.n; k++ {
		v := b.val[k]
		smx, smn = max(smx, v), min(smn, v)
		b.val[k] = v + d
	}
	h := &f.hd[c]
	if d > 0 {
		h.mx = max(h.mx, smx+d) // (unused while stale)
	} else {
		h.mn = min(h.mn, smn+d)
		h.stale = h.stale || smx == h.mx
	}
	for k := c + 1; k < len(f.hd); k++ {
		f.hd[k].base += d
	}
	return c, i
}
