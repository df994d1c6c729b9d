package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Snapshots and compaction. A snapshot is the service's state as of
// record Seq (encoded by the service; the store keeps it with its
// SHA-256), so that a restart loads it and replays only the records after
// it. Saving one compacts the store in the same transaction: the jobs that
// finished move to the archive (still queryable), and the log is cut
// behind the previous snapshot (bbolt reuses the freed pages; the file
// does not shrink). Two generations are kept — the latest snapshot and
// the one before it, with the log from the older one on — so a damaged
// latest snapshot (a checksum that does not match) falls back to the
// older one and its log, losing nothing.

// Snapshot is a saved state.
type Snapshot struct {
	Seq  int64 // the last record it includes
	T    int64 // the instant it was taken at
	Data []byte
}

// Archived is a finished job moved out of the service's memory.
type Archived struct {
	ID    int64
	User  string
	Key   string // idempotency key, "" for none
	State string
	End   int64
	Data  []byte // the job as the service encodes it
}

// SaveSnapshot stores snap (the state as of record Seq, which must be
// committed: Seq ≤ LastSeq(), and after the previous snapshot; the records
// after it stay in the log), archives the finished jobs arch, and
// compacts: the log before the previous snapshot and the snapshots before
// it are deleted. It is BeginSnapshot's steps one after the other.
func (s *Store) SaveSnapshot(snap Snapshot, arch []Archived) error {
	w := s.BeginSnapshot(snap, arch)
	for {
		done, err := w.Step()
		if err != nil || done {
			return err
		}
	}
}

// SnapshotPart is the most bytes of a snapshot one transaction writes
// (SnapshotSave.Step).
const SnapshotPart = 256 << 10

// SnapshotSave is a snapshot being saved in parts, one transaction each,
// so that a writer of the log waits at most for one part's transaction
// (tens of milliseconds for a whole snapshot of 10,000 jobs, ~2 ms for a
// part). The bytes after the first SnapshotPart are written first, under
// the keys seq·1, seq·2, … (12-byte keys: the 8 of the sequence number,
// then the part's number); the last step writes the snapshot's own entry
// (seq: the instant, the SHA-256 of all its bytes, and its first
// SnapshotPart bytes), archives and compacts, in one transaction. Until
// then the parts are not a snapshot: a crash in between leaves parts
// without their entry, which the next snapshot deletes, and a reader
// checks the SHA-256 over the entry and its parts, so a missing or
// damaged part is a damaged snapshot (the older one serves).
type SnapshotSave struct {
	s    *Store
	snap Snapshot
	arch []Archived
	next int // the next part to write (1, 2, …), 0 before the first step
	rest []byte
	err  error
}

// BeginSnapshot starts saving snap (see SaveSnapshot) in steps (Step).
func (s *Store) BeginSnapshot(snap Snapshot, arch []Archived) *SnapshotSave {
	w := &SnapshotSave{s: s, snap: snap, arch: arch}
	if len(snap.Data) > SnapshotPart {
		w.rest = snap.Data[SnapshotPart:]
	}
	return w
}

// partKey is the key of part i of the snapshot at record seq.
func partKey(seq int64, i int) []byte { return binary.BigEndian.AppendUint32(u64(seq), uint32(i)) }

// Step writes the next part of the snapshot in one transaction; done
// reports that the snapshot is saved (its last step).
func (w *SnapshotSave) Step() (done bool, err error) {
	if w.err != nil {
		return true, w.err
	}
	s, snap := w.s, w.snap
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	first := w.next == 0
	if first {
		w.next = 1
	}
	if len(w.rest) > 0 {
		n := min(len(w.rest), SnapshotPart)
		part, i := w.rest[:n], w.next
		w.rest, w.next = w.rest[n:], w.next+1
		err := s.update(0, func(tx *bolt.Tx) error {
			if err := w.check(); err != nil {
				return err
			}
			if first {
				if err := deletePrefix(tx, u64(snap.Seq)); err != nil { // a save of it cut short
					return err
				}
			}
			k := partKey(snap.Seq, i)
			return put(tx, bSnapshots, k, seal(k, part))
		}, nil)
		if err != nil {
			return true, fmt.Errorf("store: snapshot: %w", err)
		}
		return false, nil
	}
	head := snap.Data[:min(len(snap.Data), SnapshotPart)]
	err = s.update(0, func(tx *bolt.Tx) error {
		if err := w.check(); err != nil {
			return err
		}
		// the previous generation is the snapshot this store started from
		// or last saved (known good), not a damaged one skipped at Open
		prev := s.base
		k := u64(snap.Seq)
		if first {
			if err := deletePrefix(tx, k); err != nil {
				return err
			}
		}
		if err := put(tx, bSnapshots, k, seal(k, encodeSnapshotHead(snap.T, sha256.Sum256(snap.Data), head))); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		if err := putArchived(tx, w.arch, true); err != nil {
			return err
		}
		if err := deleteRange(tx, bEvents, 0, prev); err != nil {
			return fmt.Errorf("compacting: %w", err)
		}
		// the older snapshots, their parts, and parts of no snapshot
		var old [][]byte
		tx.Bucket(bSnapshots).ForEach(func(k, _ []byte) error {
			if len(k) < 8 {
				old = append(old, append([]byte(nil), k...))
				return nil
			}
			if n, _ := fromU64(k[:8]); n != prev && n != snap.Seq {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range old {
			if err := del(tx, bSnapshots, k); err != nil {
				return fmt.Errorf("compacting: %w", err)
			}
		}
		return nil
	}, func() { s.base = snap.Seq })
	if err != nil {
		return true, fmt.Errorf("store: %w", err)
	}
	return true, nil
}

// check refuses a snapshot beyond the log's end or not after the previous
// one (called in a step's transaction, under the store's write lock).
func (w *SnapshotSave) check() error {
	if w.snap.Seq > w.s.last {
		return fmt.Errorf("snapshot at record %d, but the log ends at %d", w.snap.Seq, w.s.last)
	}
	if w.snap.Seq <= w.s.base {
		return fmt.Errorf("snapshot at record %d, not after the previous one at %d", w.snap.Seq, w.s.base)
	}
	return nil
}

// deletePrefix deletes the entries of the snapshots bucket whose key
// starts with prefix.
func deletePrefix(tx *bolt.Tx, prefix []byte) error {
	var keys [][]byte
	c := tx.Bucket(bSnapshots).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := del(tx, bSnapshots, k); err != nil {
			return err
		}
	}
	return nil
}

// readSnapshot reads the snapshot whose entry is (k, v) in tx: the entry
// and its parts (SnapshotSave), checked against the SHA-256.
func readSnapshot(tx *bolt.Tx, k, v []byte) (Snapshot, error) {
	s, sum, err := decodeSnapshotHead(k, v)
	if err != nil {
		return s, err
	}
	data := append([]byte(nil), s.Data...)
	c := tx.Bucket(bSnapshots).Cursor()
	want := 1
	for pk, pv := c.Seek(partKey(s.Seq, 1)); pk != nil && bytes.HasPrefix(pk, k); pk, pv = c.Next() {
		if len(pk) != 12 || int(binary.BigEndian.Uint32(pk[8:])) != want {
			return s, fmt.Errorf("part %x: %w", pk[8:], errMalformed)
		}
		p, err := unseal(pk, pv)
		if err != nil {
			return s, fmt.Errorf("part %d: %w", want, err)
		}
		data = append(data, p...)
		want++
	}
	if got := sha256.Sum256(data); string(got[:]) != string(sum) {
		return s, errSHA
	}
	s.Data = data
	return s, nil
}

// LatestSnapshot is the snapshot Open chose to start from (the latest one
// whose checksum matches, with its log whole), or ok false when the log
// starts at record 1.
func (s *Store) LatestSnapshot() (snap Snapshot, ok bool, err error) {
	if s.base == 0 {
		return Snapshot{}, false, nil
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		k := u64(s.base)
		v := tx.Bucket(bSnapshots).Get(k)
		if v == nil {
			return errors.New("missing")
		}
		snap, err = readSnapshot(tx, k, v)
		return err
	})
	if err != nil {
		return Snapshot{}, false, fmt.Errorf("store: snapshot at record %d: %w", s.base, err)
	}
	return snap, true, nil
}

// ArchivedJob returns the archived job with id.
func (s *Store) ArchivedJob(id int64) (a Archived, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		a, ok, err = getArchived(tx, id)
		return err
	})
	return a, ok, err
}

func getArchived(tx *bolt.Tx, id int64) (Archived, bool, error) {
	k := u64(id)
	v := tx.Bucket(bArchive).Get(k)
	if v == nil {
		return Archived{}, false, nil
	}
	a, err := decodeArchived(k, v)
	if err != nil {
		return Archived{}, false, fmt.Errorf("store: archived job %d: %w", id, err)
	}
	return a, true, nil
}

// ArchivedByKey returns the archived job submitted by user with
// idempotency key.
func (s *Store) ArchivedByKey(user, key string) (a Archived, ok bool, err error) {
	if key == "" {
		return Archived{}, false, nil
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		k := ixKey(user, []byte(key))
		v := tx.Bucket(bArchKey).Get(k)
		if v == nil {
			return nil
		}
		p, err := unseal(k, v)
		if err != nil {
			return fmt.Errorf("store: the archive's index of keys: %w", err)
		}
		id, okID := fromU64(p)
		if !okID {
			return fmt.Errorf("store: the archive's index of keys: %w", errMalformed)
		}
		a, ok, err = getArchived(tx, id)
		if err == nil && ok && (a.User != user || a.Key != key) {
			return fmt.Errorf("store: the archive's index of keys points to job %d of %s with key %q", id, a.User, a.Key)
		}
		return err
	})
	return a, ok, err
}

// ArchiveQuery selects archived jobs: by user and state when set, with
// id > After, at most Limit (0: no limit), in id order.
type ArchiveQuery struct {
	// Users, when set, are the owners to select (any of them).
	Users []string
	State string
	After int64
	Limit int
	// Desc selects the newest first (the Limit newest).
	Desc bool
}

// ArchivedJobs calls fn for the archived jobs q selects. They are read
// in one transaction, then passed to fn outside it.
func (s *Store) ArchivedJobs(q ArchiveQuery, fn func(Archived) error) error {
	var out []Archived
	err := s.db.View(func(tx *bolt.Tx) error {
		ids, err := archivedIDs(tx, q)
		if err != nil {
			return err
		}
		for _, id := range ids {
			a, ok, err := getArchived(tx, id)
			if err != nil {
				return err
			}
			if !ok || q.State != "" && a.State != q.State || len(q.Users) > 0 && !slices.Contains(q.Users, a.User) {
				return fmt.Errorf("store: the archive's indexes do not match archived job %d (restart the service to rebuild them)", id)
			}
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, a := range out {
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

// archivedIDs are the ids q selects, in its order, from the archive's
// indexes.
func archivedIDs(tx *bolt.Tx, q ArchiveQuery) ([]int64, error) {
	full := func(n int) bool { return q.Limit > 0 && n >= q.Limit }
	// scan walks the keys prefix+id (id > q.After) in q's order.
	scan := func(b *bolt.Bucket, prefix []byte, keep func(k, v []byte) (bool, error)) ([]int64, error) {
		var ids []int64
		c := b.Cursor()
		var k, v []byte
		if q.Desc {
			k, v = c.Seek(append(bytes.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
			if k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		} else {
			k, v = c.Seek(append(bytes.Clone(prefix), u64(max(q.After+1, 0))...))
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && !full(len(ids)); k, v = step(c, q.Desc) {
			id, ok := fromU64(k[len(prefix):])
			if !ok {
				return nil, fmt.Errorf("store: archive index key %q: %w", k, errMalformed)
			}
			if id <= q.After {
				if q.Desc {
					break
				}
				continue
			}
			if keep != nil {
				if in, err := keep(k, v); err != nil || !in {
					if err != nil {
						return nil, err
					}
					continue
				}
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	switch {
	case len(q.Users) > 0:
		var all []int64
		for _, u := range slices.Compact(slices.Sorted(slices.Values(q.Users))) {
			prefix := ixKey(u, nil)
			var keep func(k, v []byte) (bool, error)
			if q.State != "" {
				// the user index's value is the job's state
				keep = func(k, v []byte) (bool, error) {
					p, err := unseal(k, v)
					if err != nil {
						return false, fmt.Errorf("store: the archive's index of users: %w", err)
					}
					return string(p) == q.State, nil
				}
			}
			ids, err := scan(tx.Bucket(bArchUser), prefix, keep)
			if err != nil {
				return nil, err
			}
			all = append(all, ids...)
		}
		slices.Sort(all)
		if q.Desc {
			slices.Reverse(all)
		}
		if q.Limit > 0 && len(all) > q.Limit {
			all = all[:q.Limit]
		}
		return all, nil
	case q.State != "":
		return scan(tx.Bucket(bArchState), ixKey(q.State, nil), nil)
	default:
		return scan(tx.Bucket(bArchive), nil, nil)
	}
}

func step(c *bolt.Cursor, desc bool) ([]byte, []byte) {
	if desc {
		return c.Prev()
	}
	return c.Next()
}

// ArchiveJobs adds archived jobs (those already there are left as they
// are), in one transaction: the archive of a log written before it existed.
func (s *Store) ArchiveJobs(arch []Archived) error {
	if len(arch) == 0 {
		return nil
	}
	if err := s.update(0, func(tx *bolt.Tx) error { return putArchived(tx, arch, false) }, nil); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// putArchived writes archived jobs and their index entries; an existing
// job is replaced (replace) or left as it is.
func putArchived(tx *bolt.Tx, arch []Archived, replace bool) error {
	b := tx.Bucket(bArchive)
	for _, a := range arch {
		k := u64(a.ID)
		if old := b.Get(k); old != nil {
			if !replace {
				continue
			}
			o, err := decodeArchived(k, old)
			if err != nil {
				return fmt.Errorf("archived job %d: %w", a.ID, err)
			}
			for _, e := range indexEntries(o) {
				if err := del(tx, e.bucket, e.key); err != nil {
					return err
				}
			}
		}
		if err := put(tx, bArchive, k, seal(k, encodeArchived(a))); err != nil {
			return fmt.Errorf("archiving job %d: %w", a.ID, err)
		}
		for _, e := range indexEntries(a) {
			if err := put(tx, e.bucket, e.key, seal(e.key, e.val)); err != nil {
				return fmt.Errorf("archiving job %d: %w", a.ID, err)
			}
		}
	}
	return nil
}

// rebuildIndexes writes the archive's indexes again from the archive
// (the caller recomputes the digests).
func rebuildIndexes(tx *bolt.Tx) error {
	for _, name := range [][]byte{bArchState, bArchUser, bArchKey} {
		if err := tx.DeleteBucket(name); err != nil {
			return err
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	return tx.Bucket(bArchive).ForEach(func(k, v []byte) error {
		a, err := decodeArchived(k, v)
		if err != nil {
			return fmt.Errorf("archived job %d: %w", a.ID, err)
		}
		for _, e := range indexEntries(a) {
			if err := tx.Bucket(e.bucket).Put(e.key, seal(e.key, e.val)); err != nil {
				return err
			}
		}
		return nil
	})
}
