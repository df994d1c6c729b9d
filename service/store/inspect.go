package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DBFile is the name of the database in a state directory.
const DBFile = "state.db"

// sqliteHeader starts every SQLite database: the format of state.db
// before the store moved to bbolt.
const sqliteHeader = "SQLite format 3\x00"

// OldFormatError is a state directory written by a version of backfill
// that kept its state in SQLite; it must be converted once with the
// migration tool (tools/migratestate) before this version opens it.
type OldFormatError struct{ Dir, DB string }

func (e *OldFormatError) Error() string {
	abs, err := filepath.Abs(e.Dir) // the command runs in another directory
	if err != nil {
		abs = e.Dir
	}
	return fmt.Sprintf(`refusing to open the state in %s: %s is an SQLite database, the format of backfill's service before its store moved to bbolt
  nothing was changed; convert it once (with the service stopped), from a checkout of the backfill repository:
    cd tools/migratestate && go run . %s
  it writes the new state.db, checks it, and keeps the SQLite files in %s`, e.Dir, e.DB, abs, filepath.Join(e.Dir, "sqlite-TIME"))
}

// Inspection is what a state directory holds, read without changing it:
// the database's structure is checked page by page (verifyFile) before
// bbolt opens it read-only, and every entry's checksum is verified.
type Inspection struct {
	Dir, DB string
	// DBSize is the size of state.db, -1 when absent.
	DBSize int64
	// HasMark reports whether the mark file exists; Mark is its content
	// and MarkErr why it could not be read (both slots damaged).
	HasMark bool
	Mark    Mark
	MarkErr error
	// ReadErr is why the database could not be read, if so.
	ReadErr error
	// HasState reports whether the database holds anything (records,
	// users, settings); StoreID is its identity (meta store_id).
	HasState bool
	StoreID  string
	// Base is the sequence number of the latest snapshot (0 for none);
	// SnapshotErr reports a snapshot whose checksum does not match.
	Base        int64
	Snapshots   int
	SnapshotErr error
	// SnapshotNote reports damaged snapshots skipped for an older one.
	SnapshotNote string
	// Records is the number of log records after Base; MinSeq and MaxSeq
	// their range; Contiguous is the last sequence number reached from
	// Base without a gap or a damaged record (MaxSeq when the log is
	// whole).
	Records                    int64
	MinSeq, MaxSeq, Contiguous int64
	// DamagedRecords are the records whose checksum does not match.
	DamagedRecords []int64
	// Damaged describes the other entries (settings, users, archived
	// jobs) whose checksum does not match.
	Damaged []string
	// IndexDamaged says why the archive's indexes do not match the
	// archive ("" when they do); Open rebuilds them.
	IndexDamaged string
	// TxID is the id of the database's last transaction.
	TxID int
	// Users is the number of users; Admin whether the admin user exists.
	Users int
	Admin bool
	// Archived is the number of archived jobs.
	Archived int
	// Meta is the database's settings (policy, procs, …).
	Meta map[string]string
	// Notes are remarks on what was found that lose nothing (a meta page
	// torn by a crash, indexes to rebuild).
	Notes []string

	damaged []entry // the damaged entries, for AcceptLoss
}

type entry struct{ bucket, key []byte }

// Inspect reads the state directory dir without changing it.
func Inspect(dir string) (*Inspection, error) {
	in := &Inspection{Dir: dir, DB: filepath.Join(dir, DBFile), DBSize: -1, Meta: map[string]string{}}
	if st, err := os.Lstat(in.DB); err == nil {
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("store: %s is not a regular file (%s)", in.DB, st.Mode().Type())
		}
		in.DBSize = st.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("store: %w", err)
	}
	m, err := ReadMark(filepath.Join(dir, MarkFile))
	switch {
	case err == nil:
		in.HasMark, in.Mark = true, m
	case errors.Is(err, os.ErrNotExist):
	default:
		in.HasMark, in.MarkErr = true, err
	}
	if in.DBSize > 0 {
		if old, err := isSQLite(in.DB); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		} else if old {
			return nil, &OldFormatError{Dir: dir, DB: in.DB}
		}
		note, err := verifyFile(in.DB)
		if note != "" {
			in.Notes = append(in.Notes, "state.db: "+note)
		}
		if err != nil {
			in.ReadErr = err
		} else {
			in.ReadErr = in.read()
		}
		if errors.Is(in.ReadErr, errLocked) {
			return nil, fmt.Errorf("store: %s: %w", in.DB, in.ReadErr)
		}
	}
	return in, nil
}

func isSQLite(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	b := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, b); err != nil {
		return false, nil
	}
	return string(b) == sqliteHeader, nil
}

var errLocked = errors.New("the database is locked by another process (is a service running on this directory? stop it first)")

// openBolt opens path with bbolt (never following a symbolic link,
// creating it with mode 0600), turning a panic into an error and a lock
// held elsewhere into errLocked.
func openBolt(path string, readOnly, noSync bool) (*bolt.DB, error) {
	var f *os.File
	o := &bolt.Options{Timeout: 2 * time.Second, ReadOnly: readOnly, NoSync: noSync,
		OpenFile: func(name string, flag int, _ os.FileMode) (*os.File, error) {
			ff, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW, 0o600)
			f = ff
			return ff, err
		}}
	var db *bolt.DB
	err := protect("opening "+path, func() error {
		var e error
		db, e = bolt.Open(path, 0o600, o)
		return e
	})
	if err != nil {
		if db != nil {
			db.Close()
		} else if f != nil {
			f.Close() // a panic inside Open: release its lock
		}
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, errLocked
		}
		return nil, err
	}
	return db, nil
}

func (in *Inspection) read() error {
	db, err := openBolt(in.DB, true, false)
	if err != nil {
		return err
	}
	defer db.Close()
	return protect("reading "+in.DB, func() error {
		return db.View(func(tx *bolt.Tx) error {
			var problems []string
			for err := range tx.Check() {
				problems = append(problems, err.Error())
			}
			if len(problems) > 0 {
				return fmt.Errorf("consistency check: %s", strings.Join(problems[:min(len(problems), 5)], "; "))
			}
			return in.readTx(tx)
		})
	})
}

func (in *Inspection) readTx(tx *bolt.Tx) error {
	in.TxID = tx.ID()
	damage := func(b []byte, k []byte, what string) {
		in.damaged = append(in.damaged, entry{b, append([]byte(nil), k...)})
		in.Damaged = append(in.Damaged, what)
	}
	if b := tx.Bucket(bMeta); b != nil {
		b.ForEach(func(k, v []byte) error {
			p, err := unseal(k, v)
			if err != nil {
				damage(bMeta, k, fmt.Sprintf("setting %q", k))
				return nil
			}
			in.Meta[string(k)] = string(p)
			return nil
		})
		in.StoreID = in.Meta["store_id"]
	}
	if b := tx.Bucket(bUsers); b != nil {
		b.ForEach(func(k, v []byte) error {
			if _, err := decodeUser(k, v); err != nil {
				damage(bUsers, k, fmt.Sprintf("user %q", k))
				return nil
			}
			in.Users++
			in.Admin = in.Admin || string(k) == "admin"
			return nil
		})
	}
	if b := tx.Bucket(bSnapshots); b != nil {
		// the latest snapshot whose checksum matches; a damaged newer one
		// is skipped (the log from the older one is kept for this)
		var damaged []string
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if len(k) == 12 {
				continue // a part of a snapshot (SnapshotSave), read with it
			}
			in.Snapshots++
			if in.Base > 0 {
				continue
			}
			s, err := readSnapshot(tx, k, v)
			if err != nil {
				damaged = append(damaged, fmt.Sprintf("snapshot at record %d: %v", s.Seq, err))
				continue
			}
			in.Base = s.Seq
		}
		switch {
		case len(damaged) > 0 && in.Base == 0:
			in.SnapshotErr = errors.New(strings.Join(damaged, "; "))
		case len(damaged) > 0:
			in.SnapshotNote = strings.Join(damaged, "; ") + fmt.Sprintf(" (skipped: starting from the snapshot at record %d and the log after it)", in.Base)
		}
	}
	in.Contiguous, in.MaxSeq = in.Base, in.Base
	if b := tx.Bucket(bEvents); b != nil {
		gap := false
		b.ForEach(func(k, v []byte) error {
			r, err := decodeRecord(k, v)
			if err != nil {
				in.DamagedRecords = append(in.DamagedRecords, r.Seq)
				in.damaged = append(in.damaged, entry{bEvents, append([]byte(nil), k...)})
				if r.Seq > in.Base {
					gap = true
				}
				return nil
			}
			if r.Seq <= in.Base {
				return nil
			}
			if in.Records == 0 {
				in.MinSeq = r.Seq
			}
			in.Records++
			in.MaxSeq = r.Seq
			if !gap && r.Seq == in.Contiguous+1 {
				in.Contiguous = r.Seq
			} else {
				gap = true
			}
			return nil
		})
	}
	if err := in.readArchive(tx, damage); err != nil {
		return err
	}
	in.checkDigests(tx)
	in.HasState = in.Records > 0 || in.Users > 0 || len(in.Meta) > 0 || in.Base > 0 || len(in.damaged) > 0
	return nil
}

// readArchive checks the archive's entries (their index entries are
// checked by the indexes' digests, and against the job at every query).
func (in *Inspection) readArchive(tx *bolt.Tx, damage func(b, k []byte, what string)) error {
	if b := tx.Bucket(bArchive); b != nil {
		b.ForEach(func(k, v []byte) error {
			if _, err := unseal(k, v); err != nil || len(k) != 8 {
				id, _ := fromU64(k)
				damage(bArchive, k, fmt.Sprintf("archived job %d", id))
				return nil
			}
			in.Archived++
			return nil
		})
	}
	return nil
}

// checkDigests compares every bucket with its digest (digest.go).
func (in *Inspection) checkDigests(tx *bolt.Tx) {
	// every bucket exists from the first commit on, and no other
	known := map[string]bool{string(bDigests): true}
	for _, name := range buckets {
		known[string(name)] = true
	}
	var names []string
	tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		names = append(names, string(name))
		if !known[string(name)] {
			in.Damaged = append(in.Damaged, fmt.Sprintf("an unknown bucket %q", name))
		}
		return nil
	})
	if len(names) == 0 {
		return // created, never committed to
	}
	if tx.Bucket(bDigests) == nil {
		in.Damaged = append(in.Damaged, "the bucket digests is missing")
		return
	}
	for _, name := range buckets {
		b := tx.Bucket(name)
		if b == nil {
			in.Damaged = append(in.Damaged, fmt.Sprintf("the bucket %s is missing", name))
			continue
		}
		want, err := readDigest(tx, name)
		if err != nil {
			in.Damaged = append(in.Damaged, err.Error())
			continue
		}
		var got digest
		b.ForEach(func(k, v []byte) error { got.add(k, v); return nil })
		if got == want || got.n == want.n && in.crcDamaged(name) {
			continue // explained by entries whose own checksum fails
		}
		what := fmt.Sprintf("%s: %d entries, their digest says %d", name, got.n, want.n)
		if got.n == want.n {
			what = fmt.Sprintf("%s: %d entries, not the ones their digest sums", name, got.n)
		}
		switch string(name) {
		case string(bArchState), string(bArchUser), string(bArchKey):
			if in.IndexDamaged == "" {
				in.IndexDamaged = what
				in.Notes = append(in.Notes, "the archive's indexes do not match the archive ("+what+"); a start rebuilds them")
			}
		default:
			in.Damaged = append(in.Damaged, what+" (entries lost, added or changed)")
		}
	}
}

// crcDamaged reports whether entries of bucket failed their checksum
// (damaged snapshots are in SnapshotErr or SnapshotNote).
func (in *Inspection) crcDamaged(bucket []byte) bool {
	if string(bucket) == string(bSnapshots) {
		return in.SnapshotErr != nil || in.SnapshotNote != ""
	}
	for _, e := range in.damaged {
		if string(e.bucket) == string(bucket) {
			return true
		}
	}
	return false
}

type ixEntry struct{ bucket, key, val []byte }

// indexEntries are the index entries of archived job a.
func indexEntries(a Archived) []ixEntry {
	id := u64(a.ID)
	e := []ixEntry{{bArchState, ixKey(a.State, id), nil}, {bArchUser, ixKey(a.User, id), []byte(a.State)}}
	if a.Key != "" {
		e = append(e, ixEntry{bArchKey, ixKey(a.User, []byte(a.Key)), id})
	}
	return e
}

// Fresh reports whether the directory has never held state: no database
// content, no mark.
func (in *Inspection) Fresh() bool {
	return !in.HasMark && !in.HasState && in.ReadErr == nil
}

// empty reports a readable database without records, snapshots or
// users, with a mark (if any) at 0.
func (in *Inspection) empty() bool {
	return in.ReadErr == nil && in.MarkErr == nil && in.Records == 0 && in.Base == 0 && in.Users == 0 && in.Mark.Seq == 0 && len(in.damaged) == 0
}

// IntegrityError is a state directory that cannot be opened without
// giving up acknowledged records.
type IntegrityError struct {
	Dir string
	// Problem says what is wrong; Cause what probably happened.
	Problem, Cause string
	// Files describes the files found.
	Files []string
	// CanAccept reports whether Options.AcceptLoss can continue from what
	// is left (Keep, the last record kept); Lost is how many acknowledged
	// records would be given up (-1: unknown).
	CanAccept bool
	Keep      int64
	Lost      int64
}

func (e *IntegrityError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to open the state in %s: %s\n", e.Dir, e.Problem)
	fmt.Fprintf(&b, "  files: %s\n", strings.Join(e.Files, "; "))
	if e.Cause != "" {
		fmt.Fprintf(&b, "  likely cause: %s\n", e.Cause)
	}
	b.WriteString("  ways out:\n")
	b.WriteString("    - restore the whole directory from a backup (state.db and state.mark together, taken with the service stopped) and start again;\n")
	fmt.Fprintf(&b, "    - inspect it: backfill serve --check %s\n", e.Dir)
	if e.CanAccept {
		lost := fmt.Sprintf("%d acknowledged records", e.Lost)
		if e.Lost < 0 {
			lost = "an unknown number of acknowledged records"
		}
		fmt.Fprintf(&b, "    - accept the loss: start with --accept-loss: the service continues from record %d and %s after it are given up (jobs submitted, ended or cancelled in them are forgotten, and their job ids will be given again); damaged entries are deleted; the damaged files are first copied into %s", e.Keep, lost, filepath.Join(e.Dir, "damaged-TIME"))
	} else {
		b.WriteString("    (--accept-loss cannot help: the database itself cannot be read)")
	}
	return b.String()
}

// Files lists the state files with their sizes, for messages.
func (in *Inspection) Files() []string {
	f := []string{DBFile + " absent"}
	if in.DBSize >= 0 {
		f[0] = fmt.Sprintf("%s %d bytes", DBFile, in.DBSize)
	}
	switch {
	case in.MarkErr != nil:
		f = append(f, MarkFile+" damaged")
	case in.HasMark:
		f = append(f, fmt.Sprintf("%s: record %d committed (written %s)", MarkFile, in.Mark.Seq, time.Unix(in.Mark.Time, 0).UTC().Format(time.RFC3339)))
	default:
		f = append(f, MarkFile+" absent")
	}
	return f
}

// Problem is what makes the directory unsafe to open as it is, or nil.
func (in *Inspection) Problem() *IntegrityError {
	e := &IntegrityError{Dir: in.Dir, Files: in.Files(), CanAccept: true, Keep: in.Contiguous}
	lost := func(acked int64) int64 { return max(0, acked-in.Contiguous) }
	switch {
	case in.ReadErr != nil:
		e.Problem = "state.db cannot be read: " + in.ReadErr.Error()
		e.Cause = "the database file was truncated, overwritten or damaged"
		e.CanAccept = false
	case in.SnapshotErr != nil:
		e.Problem = "a snapshot is damaged: " + in.SnapshotErr.Error()
		e.Cause = "the database file was damaged (the log before the snapshot was compacted away, so it cannot be rebuilt)"
		e.CanAccept = false
	case !in.HasState && in.HasMark:
		what := "missing"
		if in.DBSize >= 0 {
			what = "empty"
		}
		e.Problem = fmt.Sprintf("state.db is %s, but the directory has held state", what)
		if in.MarkErr == nil {
			e.Problem += fmt.Sprintf(" (the high-water mark says record %d was committed)", in.Mark.Seq)
			e.Lost = in.Mark.Seq
		} else {
			e.Lost = -1
		}
		e.Cause = "state.db was deleted or truncated to zero bytes"
		e.Keep = 0
	case in.MarkErr != nil:
		e.Problem = "the high-water mark cannot be read: " + in.MarkErr.Error()
		e.Cause = "the mark file was damaged, so whether the log is complete cannot be known"
		e.Lost = -1
	case in.HasMark && in.StoreID != in.Mark.Store:
		e.Problem = fmt.Sprintf("state.db is not the database this directory's high-water mark was written for (store %s, mark for %s)", short(in.StoreID), short(in.Mark.Store))
		e.Cause = "state.db was replaced by another service's database, or recreated"
		e.Lost = -1
	case len(in.DamagedRecords) > 0:
		e.Problem = fmt.Sprintf("record %s is damaged (its checksum does not match)", seqList(in.DamagedRecords))
		if len(in.DamagedRecords) > 1 {
			e.Problem = fmt.Sprintf("records %s are damaged (their checksums do not match)", seqList(in.DamagedRecords))
		}
		e.Cause = "bytes of state.db were changed on disk (a failing disk, or a write by something other than the service)"
		e.Lost = lost(max(in.MaxSeq, in.Mark.Seq))
	case in.Contiguous < in.MaxSeq:
		e.Problem = fmt.Sprintf("the log has a gap: records %d..%d are present but record %d is missing", in.MinSeq, in.MaxSeq, in.Contiguous+1)
		if in.MinSeq != in.Base+1 {
			e.Problem = fmt.Sprintf("the log has a gap: it should start at record %d but starts at %d", in.Base+1, in.MinSeq)
		}
		e.Cause = "records were deleted from the log, or the database was damaged"
		e.Lost = lost(max(in.MaxSeq, in.Mark.Seq))
	case in.HasMark && in.MaxSeq < in.Mark.Seq:
		e.Problem = fmt.Sprintf("the log ends at record %d, but record %d was committed and acknowledged", in.MaxSeq, in.Mark.Seq)
		e.Cause = "records were deleted from the end of the log, an older copy of state.db was put back, or its last transactions were lost (written with --sync normal before a power loss, or a damaged meta page)"
		e.Lost = lost(in.Mark.Seq)
	case in.HasMark && in.Mark.TxID != 0 && int32(uint32(in.TxID)-in.Mark.TxID) < 0:
		e.Problem = fmt.Sprintf("state.db ends at transaction %d, but transaction %d was committed (%s)", uint32(in.TxID), in.Mark.TxID, MarkFile)
		e.Cause = "the database's last transactions were lost (users, settings or snapshots changed in them): a damaged meta page, an older copy of state.db put back, or --sync normal before a power loss"
		e.Lost = 0
	case len(in.Damaged) > 0:
		e.Problem = fmt.Sprintf("entries are damaged (their checksums do not match): %s", strings.Join(in.Damaged, ", "))
		e.Cause = "bytes of state.db were changed on disk (a failing disk, or a write by something other than the service)"
		e.Lost = 0
	default:
		return nil
	}
	return e
}

func seqList(s []int64) string {
	var b []string
	for i, n := range s {
		if i == 5 {
			b = append(b, fmt.Sprintf("and %d more", len(s)-5))
			break
		}
		b = append(b, fmt.Sprint(n))
	}
	return strings.Join(b, ", ")
}

func short(id string) string {
	if id == "" {
		return "none"
	}
	return id[:min(8, len(id))]
}

// keepDamaged copies the state files into dir/damaged-TIME/ and returns
// that directory.
func keepDamaged(dir string) (string, error) {
	d := filepath.Join(dir, "damaged-"+time.Now().UTC().Format("20060102T150405"))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	for _, name := range []string{DBFile, MarkFile} {
		if err := CopyFile(filepath.Join(dir, name), filepath.Join(d, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return d, nil
}

// CopyFile copies the regular file from (never through a symbolic link)
// to a new file to (mode 0600, refused if it exists) and syncs it: how
// damaged or replaced state files are kept aside.
func CopyFile(from, to string) error {
	src, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
