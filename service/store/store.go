// Package store is the live service's durable state, in bbolt.
//
// It is the durable state of the live scheduler service: one bbolt
// database (go.etcd.io/bbolt, the B+tree key-value store of etcd, in pure
// Go) in the file state.db, holding the event log from which the service
// rebuilds its policy's state after a restart, the users and their token
// hashes, snapshots of the state, the archive of finished jobs, and a few
// settings (policy, machine size) that a restart must match. Beside it, the
// high-water mark (mark.go) records the last record committed, outside the
// database, so that a database that lost records is detected.
//
// Durability: every Append is one bbolt transaction. With Sync "full" (the
// default) bbolt fdatasyncs the file at each commit (its pages, then its
// meta page) before Append returns, and the mark is written then
// (fdatasynced in the background, see markFile.set): a record the service
// acknowledged survives a kill -9 and a power loss.
// With "normal" neither is synced at commit: the writes are in the
// operating system's cache when Append returns, so a record survives a
// kill of the process but not a crash of the machine, and after a power
// loss the file can be damaged (detected at the next start and refused,
// see Inspect), where SQLite's WAL in its NORMAL mode lost only the last
// transactions.
//
// Integrity: bbolt checksums only its meta pages, so every value is stored
// with a CRC-32C of its key and value (codec.go) and snapshots keep their
// SHA-256; the file's structure is checked page by page before bbolt opens
// it (verifyFile), so a damaged file is refused with an *IntegrityError
// instead of crashing the process.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// Record is one entry of the event log.
type Record struct {
	Seq  int64
	Kind string
	T    int64
	Data []byte
	// Job is the id of the job a submit record creates (0 for other
	// records): not stored in the log, it moves the high-water mark's
	// JobID, so ids are never given twice, even after a loss.
	Job int64
}

// User is an API user: an id, a name, the SHA-256 of its token, whether it is an
// administrator, its political priority and quota.
type User struct {
	// ID is the user's number, given at creation and never reused (a
	// user created later with a deleted user's name gets a new ID).
	ID        int64
	Name      string
	TokenHash string
	Admin     bool
	PP        float64
	Quota     int64
	Created   int64
}

// Store is an open state database.
type Store struct {
	db   *bolt.DB
	Path string
	Dir  string
	mark *markFile
	id   string // store_id
	last int64  // highest sequence number in the log (or snapshot)
	base int64  // the log starts after this sequence number (0: at 1)
	ro   bool   // opened read-only (OpenReadOnly)
	// wmu serializes update as a whole (the transaction, the committed
	// callback that moves last, and the mark's write): bbolt serializes
	// only the transactions, and two writers (the committer and a user
	// creation) would otherwise race on last and on the mark.
	wmu sync.Mutex

	// Fresh reports that the directory held no state of value before
	// this Open (no database, or one without records and users, as a
	// first start interrupted before its first commit leaves it).
	Fresh bool
	// Lost is the number of acknowledged records given up by Options.AcceptLoss
	// (0 when nothing was lost).
	Lost int64
	// Notes are warnings about what Open found and did (a missing mark
	// recreated, a loss accepted and where the damaged files were kept);
	// the service logs them.
	Notes []string
}

// Options configure Open.
type Options struct {
	// Sync is "full" (default: the database is fdatasynced at every
	// commit, the mark just after) or "normal" (neither is: durable across
	// a crash of the process, not of the machine).
	Sync string
	// AcceptLoss makes Open continue from what the database still holds
	// when it has lost acknowledged records or entries are damaged (the
	// default is to refuse with an *IntegrityError): the damaged files are
	// first copied into DIR/damaged-TIME/, damaged entries are deleted,
	// the log is cut at its first gap, and the mark is reset to the log's
	// end. Store.Lost and Store.Notes say what was given up.
	AcceptLoss bool
}

// Open opens (creating if needed) the database state.db in dir. sync is
// "full" or "normal" (see Options). It is OpenWith without AcceptLoss.
func Open(dir, sync string) (*Store, error) { return OpenWith(dir, Options{Sync: sync}) }

// OpenWith opens (creating if needed) the database state.db in dir, after
// checking it against the high-water mark (MarkFile): a database that is
// missing, empty, unreadable, damaged, from another directory, or whose
// log ends before the mark or has a gap is refused with an
// *IntegrityError naming the files and the ways out, unless o.AcceptLoss;
// an SQLite state.db (the format before bbolt) with an *OldFormatError.
// The check reads the files read-only, so a refused start changes
// nothing on disk.
func OpenWith(dir string, o Options) (*Store, error) {
	sync := o.Sync
	switch sync {
	case "":
		sync = "full"
	case "full", "normal":
	default:
		return nil, fmt.Errorf("store: sync must be full or normal, got %q", sync)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	in, err := Inspect(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{Path: in.DB, Dir: dir, Fresh: in.Fresh() || in.empty()}
	s.Notes = append(s.Notes, in.Notes...)
	p := in.Problem()
	if p != nil {
		if !o.AcceptLoss || !p.CanAccept {
			return nil, p
		}
		kept, err := keepDamaged(dir)
		if err != nil {
			return nil, fmt.Errorf("store: keeping a copy of the damaged state before accepting the loss: %w", err)
		}
		s.Lost = max(p.Lost, 0)
		s.Notes = append(s.Notes, fmt.Sprintf("accepting the loss of %d acknowledged records (%s); the damaged files are kept in %s", s.Lost, p.Problem, kept))
	} else if !in.HasMark && in.HasState {
		s.Notes = append(s.Notes, fmt.Sprintf("%s had no high-water mark (%s); created at record %d", in.DB, filepath.Join(dir, MarkFile), in.MaxSeq))
	}
	if in.SnapshotNote != "" {
		s.Notes = append(s.Notes, in.SnapshotNote)
	}
	// the database holds commands, names and token hashes: owner only
	if err := ownerOnly(in.DB); err != nil {
		return nil, err
	}
	db, err := openBolt(in.DB, false, sync == "normal")
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", in.DB, err)
	}
	s.db = db
	fail := func(err error) (*Store, error) {
		if s.mark != nil {
			s.mark.close()
		}
		db.Close()
		return nil, fmt.Errorf("store %s: %w", in.DB, err)
	}
	var txid int
	err = db.Update(func(tx *bolt.Tx) error {
		txid = tx.ID()
		for _, b := range append(buckets, bDigests) {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if p != nil {
			// accepting the loss: delete the damaged entries, and cut the
			// log at its first gap: what follows cannot be replayed
			for _, e := range in.damaged {
				if err := tx.Bucket(e.bucket).Delete(e.key); err != nil {
					return err
				}
			}
			// the digests may be the damaged entries: from what is left
			if err := recomputeDigests(tx); err != nil {
				return err
			}
			if err := deleteRange(tx, bEvents, in.Contiguous+1, -1); err != nil {
				return err
			}
		}
		if p != nil || in.IndexDamaged != "" {
			if err := rebuildIndexes(tx); err != nil {
				return err
			}
			if err := recomputeDigests(tx); err != nil {
				return err
			}
		}
		m := tx.Bucket(bMeta)
		if m.Get([]byte("format")) == nil {
			if err := putMeta(tx, "format", formatVersion); err != nil {
				return err
			}
		}
		id, ok, err := getMeta(tx, "store_id")
		if err != nil {
			return err
		}
		if !ok {
			if id, err = newStoreID(); err != nil {
				return err
			}
			if err := putMeta(tx, "store_id", id); err != nil {
				return err
			}
		}
		s.id = id
		return nil
	})
	if err != nil {
		return fail(err)
	}
	s.base, s.last = in.Base, in.Contiguous
	mark := in.Mark
	markPath := filepath.Join(dir, MarkFile)
	if !in.HasMark || in.MarkErr != nil || mark.Store != s.id {
		// a new mark (first start, or a loss accepted): no slot of an
		// older one may outrank it; the ids acknowledged stay taken
		mark = Mark{Store: s.id, JobID: in.Mark.JobID}
		if in.MarkErr != nil {
			// both slots damaged: the records bound the ids
			mark.JobID = max(in.MaxSeq, in.Contiguous)
		}
		if err := os.Truncate(markPath, 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail(err)
		}
	}
	if s.mark, err = openMark(markPath, sync == "full", mark); err != nil {
		return fail(err)
	}
	if err := s.mark.set(s.last, 0, txid); err != nil {
		return fail(err)
	}
	if err := syncDir(dir); err != nil && sync == "full" {
		return fail(err)
	}
	return s, nil
}

// deleteRange deletes the keys from..to (to < 0: to the end) of a bucket
// keyed by sequence numbers.
func deleteRange(tx *bolt.Tx, bucket []byte, from, to int64) error {
	var keys [][]byte
	c := tx.Bucket(bucket).Cursor()
	for k, _ := c.Seek(u64(max(from, 0))); k != nil; k, _ = c.Next() {
		if n, ok := fromU64(k); to >= 0 && ok && n > to {
			break
		}
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := del(tx, bucket, k); err != nil {
			return err
		}
	}
	return nil
}

// syncDir makes the directory's entries (a new mark or database file)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// update runs fn in a write transaction and, once it is committed, moves
// the high-water mark to it (the log's end s.last, the job id job).
func (s *Store) update(job int64, fn func(tx *bolt.Tx) error, committed func()) error {
	if s.ro {
		return errors.New("store: opened read-only")
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var txid int
	err := s.db.Update(func(tx *bolt.Tx) error {
		txid = tx.ID()
		return fn(tx)
	})
	if err != nil {
		return err
	}
	if committed != nil {
		committed()
	}
	return s.mark.set(s.last, job, txid)
}

// LastSeq is the sequence number of the last record committed (0 for
// none).
func (s *Store) LastSeq() int64 { return s.last }

// OpenReadOnly opens the database in dir for reading only (Load, Meta,
// Users), after Inspect, without changing anything on disk; it is for
// offline inspection (backfill serve --check). The Store is nil when the
// database is absent, empty or unreadable.
func OpenReadOnly(dir string) (*Store, *Inspection, error) {
	in, err := Inspect(dir)
	if err != nil {
		return nil, nil, err
	}
	if in.DBSize <= 0 || in.ReadErr != nil {
		return nil, in, nil
	}
	db, err := openBolt(in.DB, true, false)
	if err != nil {
		return nil, in, err
	}
	return &Store{db: db, Path: in.DB, Dir: dir, base: in.Base, last: in.Contiguous, ro: true}, in, nil
}

// ownerOnly creates the database file with mode 0600 if it is missing
// (never through a symbolic link) and makes it 0600.
func ownerOnly(db string) error {
	fd, err := os.OpenFile(db, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer fd.Close()
	if err := fd.Chmod(0o600); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.mark != nil {
		s.mark.close()
	}
	return s.db.Close()
}

// JobFloor is the highest job id ever acknowledged, as the high-water
// mark says: after a loss is accepted, the service gives the next job a
// higher id than this, so that no id names two jobs.
func (s *Store) JobFloor() int64 { return s.mark.cur.JobID }

// Append writes records in one transaction, then moves the high-water mark
// to the last one. The records must continue the log: consecutive
// sequence numbers from LastSeq()+1.
func (s *Store) Append(recs []Record) error { return s.AppendArchive(recs, nil) }

// AppendArchive is Append that also archives the jobs that finished in
// those records, in the same transaction.
func (s *Store) AppendArchive(recs []Record, arch []Archived) error {
	if len(recs) == 0 {
		return nil
	}
	for i, r := range recs {
		if r.Seq != s.last+1+int64(i) {
			return fmt.Errorf("store: record %d does not continue the log at %d", r.Seq, s.last+1+int64(i))
		}
	}
	var job int64
	for _, r := range recs {
		job = max(job, r.Job)
	}
	err := s.update(job, func(tx *bolt.Tx) error {
		b := tx.Bucket(bEvents)
		for _, r := range recs {
			k := u64(r.Seq)
			if b.Get(k) != nil {
				return fmt.Errorf("record %d exists", r.Seq)
			}
			if err := put(tx, bEvents, k, seal(k, encodeRecord(r))); err != nil {
				return fmt.Errorf("record %d: %w", r.Seq, err)
			}
		}
		return putArchived(tx, arch, true)
	}, func() { s.last = recs[len(recs)-1].Seq })
	if err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Load calls fn for every record of the log in order (the records after
// the latest snapshot, if any). It checks that they are consecutive and
// whole.
func (s *Store) Load(fn func(Record) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bEvents).Cursor()
		prev := s.base
		for k, v := c.Seek(u64(s.base + 1)); k != nil; k, v = c.Next() {
			r, err := decodeRecord(k, v)
			if err != nil {
				return fmt.Errorf("store %s: record %d: %w", s.Path, r.Seq, err)
			}
			if r.Seq != prev+1 {
				return fmt.Errorf("store %s: record %d follows record %d: the log has a gap", s.Path, r.Seq, prev)
			}
			prev = r.Seq
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
}

// Count is the number of records.
func (s *Store) Count() (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		n = int64(tx.Bucket(bEvents).Stats().KeyN)
		return nil
	})
	return n, err
}

func getMeta(tx *bolt.Tx, k string) (string, bool, error) {
	v := tx.Bucket(bMeta).Get([]byte(k))
	if v == nil {
		return "", false, nil
	}
	p, err := unseal([]byte(k), v)
	if err != nil {
		return "", false, fmt.Errorf("setting %s: %w", k, err)
	}
	return string(p), true, nil
}

func putMeta(tx *bolt.Tx, k, v string) error {
	return put(tx, bMeta, []byte(k), seal([]byte(k), []byte(v)))
}

// Meta returns the setting k ("" and false when unset).
func (s *Store) Meta(k string) (v string, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v, ok, err = getMeta(tx, k)
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("store: %w", err)
	}
	return v, ok, nil
}

// SetMeta sets k to v.
func (s *Store) SetMeta(k, v string) error {
	if err := s.update(0, func(tx *bolt.Tx) error { return putMeta(tx, k, v) }, nil); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Users returns every user, sorted by name.
func (s *Store) Users() ([]User, error) {
	var out []User
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bUsers).ForEach(func(k, v []byte) error {
			u, err := decodeUser(k, v)
			if err != nil {
				return fmt.Errorf("user %q: %w", k, err)
			}
			out = append(out, u)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// NextUserID takes a new user id (1, 2, …; never given twice).
func (s *Store) NextUserID() (int64, error) {
	var id int64
	err := s.update(0, func(tx *bolt.Tx) error {
		v, ok, err := getMeta(tx, "next_uid")
		if err != nil {
			return err
		}
		id = 1
		if ok {
			if id, err = strconv.ParseInt(v, 10, 64); err != nil {
				return fmt.Errorf("setting next_uid %q: %w", v, err)
			}
		}
		return putMeta(tx, "next_uid", strconv.FormatInt(id+1, 10))
	}, nil)
	if err != nil {
		return 0, fmt.Errorf("store: new user id: %w", err)
	}
	return id, nil
}

// PutUser creates or replaces user u (a new user's ID comes from
// NextUserID; a replaced user keeps its creation time). Two users cannot
// have one token hash.
func (s *Store) PutUser(u User) error {
	err := s.update(0, func(tx *bolt.Tx) error {
		b := tx.Bucket(bUsers)
		k := []byte(u.Name)
		err := b.ForEach(func(ok, ov []byte) error {
			o, err := decodeUser(ok, ov)
			if err != nil {
				return err
			}
			if o.Name == u.Name {
				u.Created = o.Created
			} else if o.TokenHash == u.TokenHash {
				return fmt.Errorf("the token hash of user %s is %s's", u.Name, o.Name)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return put(tx, bUsers, k, seal(k, encodeUser(u)))
	}, nil)
	if err != nil {
		return fmt.Errorf("store: user %s: %w", u.Name, err)
	}
	return nil
}

// DeleteUser removes user name; it reports whether it existed.
func (s *Store) DeleteUser(name string) (bool, error) {
	existed := false
	err := s.update(0, func(tx *bolt.Tx) error {
		existed = tx.Bucket(bUsers).Get([]byte(name)) != nil
		return del(tx, bUsers, []byte(name))
	}, nil)
	if err != nil {
		return false, fmt.Errorf("store: user %s: %w", name, err)
	}
	return existed, nil
}
