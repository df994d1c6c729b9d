package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
)

// verifyFile checks the structure of the bbolt file at path, reading it
// with plain reads (no memory map) and checking every bound, before bbolt
// itself opens it: bbolt trusts its pages and can panic, loop or fault
// on a damaged one, from goroutines a caller cannot recover. It checks
// what bbolt's Tx.Check checks, in this goroutine: the meta pages
// (magic, version, checksum), every page reachable from the root bucket
// (its header's id, its type, its elements within the page, keys in
// order, each page referenced once, within the high-water mark and the
// file), the freelist (within bounds, no page freed twice or both
// reachable and free) and that every page is reachable or free. It
// returns a note when the newest meta page is damaged and the previous
// transaction is used (as bbolt does: a commit torn by a crash leaves
// exactly that).
func verifyFile(path string) (note string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	v := &verifier{f: f, size: st.Size()}
	err = protect("checking "+path, func() error {
		var e error
		note, e = v.run()
		return e
	})
	return note, err
}

// protect runs fn in a goroutine of its own that turns memory faults into
// panics, and returns a panic as an error.
func protect(what string, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%s: %v", what, r)
			}
		}()
		done <- fn()
	}()
	return <-done
}

const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeader       = 16
	elemSize         = 16
	branchFlag       = 0x01
	leafFlag         = 0x02
	metaFlag         = 0x04
	freelistFlag     = 0x10
	bucketLeafFlag   = 0x01
	noFreelist       = ^uint64(0)
	maxTreeDepth     = 64
	defaultBoltPage  = 4096
	minPageSize      = 512
	maxPageSize      = 1 << 16
	metaChecksumSpan = 56
	wholeFile        = 64 << 20 // read files up to this size at once
)

type boltMeta struct {
	pageSize       uint32
	root, freelist uint64
	hwm, txid      uint64
}

type verifier struct {
	f    *os.File
	all  []byte // the whole file, when it is small enough to read at once
	size int64
	psz  int64
	hwm  uint64
	used []byte // per page: 0 unseen, 1 reachable, 2 free
}

func (v *verifier) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off+n > v.size {
		return nil, fmt.Errorf("read of %d bytes at %d beyond the file's end (%d bytes): the file is truncated", n, off, v.size)
	}
	if off+n <= int64(len(v.all)) {
		return v.all[off : off+n], nil
	}
	b := make([]byte, n)
	if _, err := v.f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

func parseMeta(b []byte) (boltMeta, error) {
	if len(b) < pageHeader+metaChecksumSpan+8 {
		return boltMeta{}, fmt.Errorf("too short")
	}
	m := b[pageHeader:]
	le := binary.LittleEndian
	if le.Uint32(m[0:4]) != boltMagic {
		return boltMeta{}, fmt.Errorf("bad magic")
	}
	if le.Uint32(m[4:8]) != boltVersion {
		return boltMeta{}, fmt.Errorf("version %d", le.Uint32(m[4:8]))
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumSpan])
	if h.Sum64() != le.Uint64(m[56:64]) {
		return boltMeta{}, fmt.Errorf("checksum mismatch")
	}
	return boltMeta{pageSize: le.Uint32(m[8:12]), root: le.Uint64(m[16:24]), freelist: le.Uint64(m[32:40]),
		hwm: le.Uint64(m[40:48]), txid: le.Uint64(m[48:56])}, nil
}

func (v *verifier) run() (string, error) {
	if v.size < 2*minPageSize {
		return "", fmt.Errorf("%d bytes: too short for a database (truncated)", v.size)
	}
	b0, err := v.readAt(0, min(v.size, defaultBoltPage))
	if err != nil {
		return "", err
	}
	m0, err0 := parseMeta(b0)
	psz := int64(defaultBoltPage)
	if err0 == nil {
		psz = int64(m0.pageSize)
	}
	if psz < minPageSize || psz > maxPageSize || psz&(psz-1) != 0 {
		return "", fmt.Errorf("meta page 0 gives a page size of %d", psz)
	}
	var m1 boltMeta
	err1 := fmt.Errorf("beyond the file's end")
	b1, err := v.readAt(psz, min(psz, v.size-psz))
	if err == nil {
		m1, err1 = parseMeta(b1)
	}
	if err1 == nil && int64(m1.pageSize) != psz {
		err1 = fmt.Errorf("page size %d, meta page 0 says %d", m1.pageSize, psz)
		if err0 != nil {
			err1 = nil
			psz = int64(m1.pageSize)
		}
	}
	// bbolt asserts (panics) that a page's header names the page and a
	// known type, and its meta checksum does not cover the header
	for i, b := range [][]byte{b0, b1} {
		if len(b) < pageHeader || binary.LittleEndian.Uint64(b[0:8]) != uint64(i) || binary.LittleEndian.Uint16(b[8:10]) != metaFlag {
			return "", fmt.Errorf("the header of meta page %d is damaged", i)
		}
	}
	var m boltMeta
	note := ""
	switch {
	case err0 != nil && err1 != nil:
		return "", fmt.Errorf("both meta pages are damaged (page 0: %v; page 1: %v)", err0, err1)
	case err0 == nil && err1 == nil:
		m = m0
		if m1.txid > m0.txid {
			m = m1
		}
	case err0 == nil:
		m = m0
		note = fmt.Sprintf("meta page 1 is damaged (%v); using meta page 0 (transaction %d)", err1, m0.txid)
	default:
		m = m1
		note = fmt.Sprintf("meta page 0 is damaged (%v); using meta page 1 (transaction %d)", err0, m1.txid)
	}
	if err0 == nil && err1 == nil {
		note = ""
	}
	v.psz, v.hwm = psz, m.hwm
	if m.hwm < 3 || m.hwm > uint64(v.size/psz) {
		if m.hwm > uint64(v.size/psz) {
			return note, fmt.Errorf("the database has %d pages of %d bytes, the file only %d bytes: it was truncated", m.hwm, psz, v.size)
		}
		return note, fmt.Errorf("high-water mark %d", m.hwm)
	}
	if used := int64(m.hwm) * psz; used <= wholeFile {
		// the pages in use at once (bbolt grows its file ahead, by up to
		// 16 MiB), instead of two reads per page
		v.all = make([]byte, used)
		if _, err := io.ReadFull(io.NewSectionReader(v.f, 0, used), v.all); err != nil {
			return note, err
		}
	}
	v.used = make([]byte, m.hwm)
	v.used[0], v.used[1] = 1, 1
	if m.freelist != noFreelist {
		if err := v.freelist(m.freelist); err != nil {
			return note, err
		}
	}
	if err := v.page(m.root, 0, nil, nil); err != nil {
		return note, err
	}
	for id, u := range v.used {
		if u == 0 {
			return note, fmt.Errorf("page %d is neither reachable nor free", id)
		}
	}
	return note, nil
}

// take marks pages id..id+n-1 as used by kind (1 reachable, 2 free).
func (v *verifier) take(id, n uint64, kind byte) error {
	if id < 2 || id >= v.hwm || n > v.hwm-id {
		return fmt.Errorf("page %d (+%d) is outside the database's %d pages", id, n-1, v.hwm)
	}
	for i := id; i < id+n; i++ {
		if v.used[i] != 0 {
			what := "referenced twice"
			if v.used[i] != kind {
				what = "both reachable and free"
			}
			return fmt.Errorf("page %d is %s", i, what)
		}
		v.used[i] = kind
	}
	return nil
}

// load reads page id with its overflow pages, checking its header.
func (v *verifier) load(id uint64, kind byte) ([]byte, error) {
	if id < 2 || id >= v.hwm {
		return nil, fmt.Errorf("page %d is outside the database's %d pages", id, v.hwm)
	}
	h, err := v.readAt(int64(id)*v.psz, pageHeader)
	if err != nil {
		return nil, err
	}
	if got := binary.LittleEndian.Uint64(h[0:8]); got != id {
		return nil, fmt.Errorf("page %d has the header of page %d", id, got)
	}
	over := uint64(binary.LittleEndian.Uint32(h[12:16]))
	if err := v.take(id, over+1, kind); err != nil {
		return nil, err
	}
	return v.readAt(int64(id)*v.psz, int64(over+1)*v.psz)
}

func (v *verifier) freelist(id uint64) error {
	p, err := v.load(id, 1)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if fl := binary.LittleEndian.Uint16(p[8:10]); fl != freelistFlag {
		return fmt.Errorf("freelist page %d has type %#x", id, fl)
	}
	n, idx := uint64(binary.LittleEndian.Uint16(p[10:12])), uint64(0)
	if n == 0xFFFF {
		n, idx = binary.LittleEndian.Uint64(p[pageHeader:pageHeader+8]), 1
	}
	if n > uint64(len(p)-pageHeader)/8-idx {
		return fmt.Errorf("freelist page %d: %d entries do not fit", id, n)
	}
	for i := uint64(0); i < n; i++ {
		off := pageHeader + 8*(idx+i)
		if err := v.take(binary.LittleEndian.Uint64(p[off:off+8]), 1, 2); err != nil {
			return fmt.Errorf("freelist: %w", err)
		}
	}
	return nil
}

// page walks the tree from page id; its keys must lie in [lo, hi).
func (v *verifier) page(id uint64, depth int, lo, hi []byte) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d", id, maxTreeDepth)
	}
	p, err := v.load(id, 1)
	if err != nil {
		return err
	}
	return v.elements(p, id, depth, lo, hi)
}

func (v *verifier) elements(p []byte, id uint64, depth int, lo, hi []byte) error {
	le := binary.LittleEndian
	flags, count := le.Uint16(p[8:10]), int(le.Uint16(p[10:12]))
	if flags != branchFlag && flags != leafFlag {
		return fmt.Errorf("page %d has type %#x, not a branch or a leaf", id, flags)
	}
	if pageHeader+count*elemSize > len(p) {
		return fmt.Errorf("page %d: %d elements do not fit", id, count)
	}
	if flags == branchFlag && count == 0 {
		return fmt.Errorf("page %d: an empty branch", id)
	}
	prev := lo
	for i := 0; i < count; i++ {
		e := pageHeader + i*elemSize
		var pos, ksize, vsize uint64
		if flags == branchFlag {
			pos, ksize = uint64(le.Uint32(p[e:e+4])), uint64(le.Uint32(p[e+4:e+8]))
		} else {
			pos, ksize, vsize = uint64(le.Uint32(p[e+4:e+8])), uint64(le.Uint32(p[e+8:e+12])), uint64(le.Uint32(p[e+12:e+16]))
		}
		start := uint64(e) + pos
		if start+ksize+vsize > uint64(len(p)) {
			return fmt.Errorf("page %d: element %d lies outside the page", id, i)
		}
		key := p[start : start+ksize]
		if prev != nil && (bytes.Compare(key, prev) < 0 || i > 0 && bytes.Equal(key, prev)) {
			return fmt.Errorf("page %d: key %d out of order", id, i)
		}
		if hi != nil && bytes.Compare(key, hi) >= 0 {
			return fmt.Errorf("page %d: key %d beyond its parent's range", id, i)
		}
		if flags == branchFlag {
			next := hi
			if i+1 < count {
				n := pageHeader + (i+1)*elemSize
				np, nk := uint64(n)+uint64(le.Uint32(p[n:n+4])), uint64(le.Uint32(p[n+4:n+8]))
				if np+nk > uint64(len(p)) {
					return fmt.Errorf("page %d: element %d lies outside the page", id, i+1)
				}
				next = p[np : np+nk]
			}
			if err := v.page(le.Uint64(p[e+8:e+16]), depth+1, key, next); err != nil {
				return err
			}
		} else if le.Uint32(p[e:e+4])&bucketLeafFlag != 0 {
			val := p[start+ksize : start+ksize+vsize]
			if len(val) < 16 {
				return fmt.Errorf("page %d: bucket %q has a %d-byte header", id, key, len(val))
			}
			if root := le.Uint64(val[0:8]); root != 0 {
				if err := v.page(root, depth+1, nil, nil); err != nil {
					return err
				}
			} else {
				inline := val[16:]
				if len(inline) < pageHeader {
					return fmt.Errorf("page %d: inline bucket %q is truncated", id, key)
				}
				if fl := le.Uint16(inline[8:10]); fl != leafFlag {
					return fmt.Errorf("page %d: inline bucket %q has type %#x", id, key, fl)
				}
				if err := v.elements(inline, id, depth+1, nil, nil); err != nil {
					return err
				}
			}
		}
		prev = key
	}
	return nil
}
