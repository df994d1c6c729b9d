package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Inspection is what a state directory holds, read without changing it
// (SQLite opened read-only, which neither checkpoints nor deletes the
// WAL; a zero-byte database is not opened at all, since SQLite would
// delete the WAL beside it).
type Inspection struct {
	Dir, DB string
	// DBSize and WALSize are the sizes of state.db and state.db-wal, -1
	// when absent; SHM reports whether state.db-shm exists.
	DBSize, WALSize int64
	SHM             bool
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
	// Records is the number of log records; MinSeq and MaxSeq their range;
	// Contiguous is the last sequence number reached from Base without a
	// gap (MaxSeq when the log is whole).
	Records                    int64
	MinSeq, MaxSeq, Contiguous int64
	// Users is the number of users; Admin whether the admin user exists.
	Users int
	Admin bool
	// Meta is the database's settings (policy, procs, …).
	Meta map[string]string
}

// Inspect reads the state directory dir without changing it.
func Inspect(dir string) (*Inspection, error) {
	in := &Inspection{Dir: dir, DB: filepath.Join(dir, "state.db"), DBSize: -1, WALSize: -1, Meta: map[string]string{}}
	if st, err := os.Stat(in.DB); err == nil {
		in.DBSize = st.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("store: %w", err)
	}
	if st, err := os.Stat(in.DB + "-wal"); err == nil {
		in.WALSize = st.Size()
	}
	in.SHM = exists(in.DB + "-shm")
	m, err := ReadMark(filepath.Join(dir, MarkFile))
	switch {
	case err == nil:
		in.HasMark, in.Mark = true, m
	case errors.Is(err, os.ErrNotExist):
	default:
		in.HasMark, in.MarkErr = true, err
	}
	if in.DBSize > 0 {
		in.ReadErr = in.read()
		// a read-only connection creates the -shm (and an empty -wal)
		// when they are absent; remove what it created, so that a check
		// leaves the directory as it found it
		if !in.SHM {
			os.Remove(in.DB + "-shm")
		}
		if st, err := os.Stat(in.DB + "-wal"); in.WALSize < 0 && err == nil && st.Size() == 0 {
			os.Remove(in.DB + "-wal")
		}
	}
	return in, nil
}

func (in *Inspection) read() error {
	db, err := sql.Open("sqlite3", "file:"+in.DB+"?mode=ro&_txlock=deferred&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tables := map[string]bool{}
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		tables[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if tables["meta"] {
		rows, err := db.Query("SELECT k, v FROM meta")
		if err != nil {
			return err
		}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return err
			}
			in.Meta[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		in.StoreID = in.Meta["store_id"]
	}
	if tables["users"] {
		var admins int
		if err := db.QueryRow("SELECT count(*), count(CASE WHEN name = 'admin' THEN 1 END) FROM users").Scan(&in.Users, &admins); err != nil {
			return err
		}
		in.Admin = admins > 0
	}
	if tables["snapshots"] {
		// the latest snapshot whose checksum matches; a damaged newer one
		// is skipped (the log from the older one is kept for this)
		rows, err := db.Query("SELECT seq, data, sha256 FROM snapshots ORDER BY seq DESC")
		if err != nil {
			return err
		}
		var damaged []string
		for rows.Next() {
			var seq int64
			var data []byte
			var sum string
			if err := rows.Scan(&seq, &data, &sum); err != nil {
				rows.Close()
				return err
			}
			in.Snapshots++
			if in.Base > 0 {
				continue
			}
			if checksum(data) != sum {
				damaged = append(damaged, fmt.Sprintf("snapshot at record %d: checksum %s, stored %.12s", seq, checksum(data)[:12], sum))
				continue
			}
			in.Base = seq
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		switch {
		case len(damaged) > 0 && in.Base == 0:
			in.SnapshotErr = errors.New(strings.Join(damaged, "; "))
		case len(damaged) > 0:
			in.SnapshotNote = strings.Join(damaged, "; ") + fmt.Sprintf(" (skipped: starting from the snapshot at record %d and the log after it)", in.Base)
		}
	}
	in.Contiguous = in.Base
	in.MaxSeq = in.Base
	if tables["events"] {
		var mn, mx sql.NullInt64
		if err := db.QueryRow("SELECT count(*), min(seq), max(seq) FROM events WHERE seq > ?", in.Base).Scan(&in.Records, &mn, &mx); err != nil {
			return err
		}
		in.MinSeq, in.MaxSeq = mn.Int64, max(mx.Int64, in.Base)
		switch {
		case in.Records == 0:
		case in.MinSeq == in.Base+1 && in.MaxSeq-in.MinSeq+1 == in.Records:
			in.Contiguous = in.MaxSeq
		case in.MinSeq != in.Base+1:
		default:
			// the end of the first run of consecutive records
			var c sql.NullInt64
			if err := db.QueryRow(`SELECT min(seq) FROM events e WHERE seq > ? AND NOT EXISTS (SELECT 1 FROM events f WHERE f.seq = e.seq + 1)`, in.Base).Scan(&c); err != nil {
				return err
			}
			in.Contiguous = c.Int64
		}
	}
	in.HasState = in.Records > 0 || in.Users > 0 || len(in.Meta) > 0 || in.Base > 0
	return nil
}

// Fresh reports whether the directory has never held state: no database
// content, no WAL, no mark.
func (in *Inspection) Fresh() bool {
	return !in.HasMark && !in.HasState && in.WALSize <= 0 && in.ReadErr == nil
}

// empty reports a readable database without records, snapshots or
// users, with a mark (if any) at 0.
func (in *Inspection) empty() bool {
	return in.ReadErr == nil && in.MarkErr == nil && in.Records == 0 && in.Base == 0 && in.Users == 0 && in.Mark.Seq == 0
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
	b.WriteString("    - restore the whole directory from a backup (state.db, state.db-wal, state.db-shm and state.mark together, taken with the service stopped) and start again;\n")
	fmt.Fprintf(&b, "    - inspect it: backfill serve --check %s\n", e.Dir)
	if e.CanAccept {
		lost := fmt.Sprintf("%d acknowledged records", e.Lost)
		if e.Lost < 0 {
			lost = "an unknown number of acknowledged records"
		}
		fmt.Fprintf(&b, "    - accept the loss: start with --accept-loss: the service continues from record %d and %s after it are given up (jobs submitted, ended or cancelled in them are forgotten, and their job ids will be given again); the damaged files are first copied into %s", e.Keep, lost, filepath.Join(e.Dir, "damaged-TIME"))
	} else {
		b.WriteString("    (--accept-loss cannot help: the database itself cannot be read)")
	}
	return b.String()
}

// Files lists the state files with their sizes, for messages.
func (in *Inspection) Files() []string {
	size := func(name string, n int64) string {
		if n < 0 {
			return name + " absent"
		}
		return fmt.Sprintf("%s %d bytes", name, n)
	}
	f := []string{size("state.db", in.DBSize), size("state.db-wal", in.WALSize)}
	if in.SHM {
		f = append(f, "state.db-shm present")
	} else {
		f = append(f, "state.db-shm absent")
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
	case !in.HasState && (in.HasMark || in.WALSize > 0):
		what := "missing"
		if in.DBSize >= 0 {
			what = "empty"
		}
		e.Problem = fmt.Sprintf("state.db is %s, but the directory has held state", what)
		if in.HasMark && in.MarkErr == nil {
			e.Problem += fmt.Sprintf(" (the high-water mark says record %d was committed)", in.Mark.Seq)
			e.Lost = in.Mark.Seq
		} else {
			e.Lost = -1
		}
		e.Cause = "state.db was deleted or truncated to zero bytes, or the WAL was deleted before its first checkpoint"
		e.Keep = 0
	case in.MarkErr != nil:
		e.Problem = "the high-water mark cannot be read: " + in.MarkErr.Error()
		e.Cause = "the mark file was damaged, so whether the log is complete cannot be known"
		e.Lost = -1
	case in.HasMark && in.StoreID != in.Mark.Store:
		e.Problem = fmt.Sprintf("state.db is not the database this directory's high-water mark was written for (store %s, mark for %s)", short(in.StoreID), short(in.Mark.Store))
		e.Cause = "state.db was replaced by another service's database, or recreated"
		e.Lost = -1
	case in.Contiguous < in.MaxSeq:
		e.Problem = fmt.Sprintf("the log has a gap: records %d..%d are present but record %d is missing", in.MinSeq, in.MaxSeq, in.Contiguous+1)
		if in.MinSeq != in.Base+1 {
			e.Problem = fmt.Sprintf("the log has a gap: it should start at record %d but starts at %d", in.Base+1, in.MinSeq)
		}
		e.Cause = "rows were deleted from the events table, or the database was damaged"
		e.Lost = lost(max(in.MaxSeq, in.Mark.Seq))
	case in.HasMark && in.MaxSeq < in.Mark.Seq:
		e.Problem = fmt.Sprintf("the log ends at record %d, but record %d was committed and acknowledged", in.MaxSeq, in.Mark.Seq)
		e.Cause = "the WAL (state.db-wal) was cut short, damaged or deleted, rows were deleted from the end of the log, or an older copy of state.db was put back"
		if in.WALSize < 0 {
			e.Cause = "the WAL (state.db-wal) was deleted before its records were checkpointed into state.db, rows were deleted from the end of the log, or an older copy of state.db was put back"
		}
		e.Lost = lost(in.Mark.Seq)
	default:
		return nil
	}
	return e
}

func short(id string) string {
	if id == "" {
		return "none"
	}
	return id[:min(8, len(id))]
}

// keepDamaged copies the state files into dir/damaged-TIME/ and returns
// that directory.
func keepDamaged(dir string, in *Inspection) (string, error) {
	d := filepath.Join(dir, "damaged-"+time.Now().UTC().Format("20060102T150405"))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	for _, name := range []string{"state.db", "state.db-wal", "state.db-shm", MarkFile} {
		if err := copyFile(filepath.Join(dir, name), filepath.Join(d, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return d, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
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
