// Package store is the live service's durable state, in SQLite.
//
// It is the durable state of the live scheduler service: an
// embedded SQLite database (the pure-Go driver github.com/ncruces/go-sqlite3) in WAL
// mode, holding the event log from which the service rebuilds its
// policy's state after a restart, the users and their token hashes, and a
// few settings (policy, machine size) that a restart must match.
//
// Durability: every Append is one transaction; with synchronous=FULL (the
// default) a transaction is on disk when Append returns, so a record the
// service acknowledged survives a kill -9 and a power loss; with NORMAL it
// survives a kill of the process but may be lost with the machine.
package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	_ "github.com/ncruces/go-sqlite3/driver" // registers the "sqlite3" driver
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
	db   *sql.DB
	Path string
	Dir  string
	ins  *sql.Stmt
	mark *markFile
	id   string      // store_id
	last int64       // highest sequence number in the log (or snapshot)
	base int64       // the log starts after this sequence number (0: at 1)
	ro   *Inspection // opened read-only (OpenReadOnly), with what it found

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
	// Sync is "full" (default) or "normal", SQLite's synchronous setting in
	// WAL mode; the high-water mark follows it.
	Sync string
	// AcceptLoss makes Open continue from what the database still holds
	// when it has lost acknowledged records (the default is to refuse with
	// an *IntegrityError): the damaged files are first copied into
	// DIR/damaged-TIME/, the log is cut at its first gap, and the mark is
	// reset to the log's end. Store.Lost and Store.Notes say what was
	// given up.
	AcceptLoss bool
}

const schema = `
CREATE TABLE IF NOT EXISTS events (
	seq  INTEGER PRIMARY KEY,
	kind TEXT    NOT NULL,
	t    INTEGER NOT NULL,
	data BLOB    NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
	k TEXT PRIMARY KEY,
	v TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
	name       TEXT PRIMARY KEY,
	token_hash TEXT NOT NULL UNIQUE,
	admin      INTEGER NOT NULL DEFAULT 0,
	pp         REAL    NOT NULL DEFAULT 0,
	quota      INTEGER NOT NULL DEFAULT 0,
	created    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS snapshots (
	seq    INTEGER PRIMARY KEY,
	t      INTEGER NOT NULL,
	data   BLOB    NOT NULL,
	sha256 TEXT    NOT NULL
);
`

// Open opens (creating if needed) the database state.db in dir. sync is
// "full" or "normal" (SQLite's synchronous setting in WAL mode). It is
// OpenWith without AcceptLoss.
func Open(dir, sync string) (*Store, error) { return OpenWith(dir, Options{Sync: sync}) }

// OpenWith opens (creating if needed) the database state.db in dir, after
// checking it against the high-water mark (MarkFile): a database that is
// missing, empty, unreadable, from another directory, or whose log ends
// before the mark or has a gap is refused with an *IntegrityError naming
// the files and the ways out, unless o.AcceptLoss. The check reads the
// files read-only, so a refused start changes nothing on disk.
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
	if p := in.Problem(); p != nil {
		if !o.AcceptLoss || !p.CanAccept {
			return nil, p
		}
		kept, err := keepDamaged(dir, in)
		if err != nil {
			return nil, fmt.Errorf("store: keeping a copy of the damaged state before accepting the loss: %w", err)
		}
		s.Lost = p.Lost
		s.Notes = append(s.Notes, fmt.Sprintf("accepting the loss of %d acknowledged records (%s); the damaged files are kept in %s", p.Lost, p.Problem, kept))
		if in.DBSize == 0 {
			// SQLite would take a WAL beside an empty database for a stale
			// one and delete it; the copy is kept
			os.Remove(in.DB + "-wal")
			os.Remove(in.DB + "-shm")
		}
	} else if !in.HasMark && in.HasState {
		s.Notes = append(s.Notes, fmt.Sprintf("%s had no high-water mark (%s); created at record %d", in.DB, filepath.Join(dir, MarkFile), in.MaxSeq))
	}
	if in.SnapshotNote != "" {
		s.Notes = append(s.Notes, in.SnapshotNote)
	}
	// the database holds commands, names and token hashes: owner only
	// (SQLite gives the -wal and -shm files the database file's mode)
	if err := ownerOnly(in.DB); err != nil {
		return nil, err
	}
	dsn := "file:" + in.DB + "?_txlock=deferred&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(" + sync + ")&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", in.DB, err)
	}
	s.db = db
	// one connection: the service serializes writes, and WAL readers are
	// not needed; it also keeps the pragmas on the one connection
	db.SetMaxOpenConns(1)
	fail := func(err error) (*Store, error) {
		if s.mark != nil {
			s.mark.close()
		}
		db.Close()
		return nil, fmt.Errorf("store %s: %w", in.DB, err)
	}
	if _, err := db.Exec(schema + archiveSchema); err != nil {
		return fail(err)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		return fail(fmt.Errorf("journal mode is %q, want wal (%v)", mode, err))
	}
	if s.Lost > 0 {
		// cut the log at its first gap: what follows cannot be replayed
		if _, err := db.Exec("DELETE FROM events WHERE seq > ?", in.Contiguous); err != nil {
			return fail(err)
		}
	}
	id, ok, err := s.Meta("store_id")
	if err != nil {
		return fail(err)
	}
	if !ok {
		if id, err = newStoreID(); err != nil {
			return fail(err)
		}
		if err := s.SetMeta("store_id", id); err != nil {
			return fail(err)
		}
	}
	s.id = id
	s.base, s.last = in.Base, in.Contiguous
	mark := in.Mark
	markPath := filepath.Join(dir, MarkFile)
	if !in.HasMark || in.MarkErr != nil || mark.Store != id {
		// a new mark (first start, or a loss accepted): no slot of an
		// older one may outrank it; the ids acknowledged stay taken
		mark = Mark{Store: id, JobID: in.Mark.JobID}
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
	if mark.gen == 0 || mark.Seq != s.last {
		if err := s.mark.set(s.last, 0); err != nil {
			return fail(err)
		}
	}
	if err := syncDir(dir); err != nil && sync == "full" {
		return fail(err)
	}
	if err := migrateUsers(db); err != nil {
		return fail(err)
	}
	ins, err := db.Prepare("INSERT INTO events(seq, kind, t, data) VALUES (?, ?, ?, ?)")
	if err != nil {
		return fail(err)
	}
	s.ins = ins
	return s, nil
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

// LastSeq is the sequence number of the last record committed (0 for
// none).
func (s *Store) LastSeq() int64 { return s.last }

// OpenReadOnly opens the database in dir for reading only (Load, Meta,
// Users), without checking it or changing anything on disk; it is for
// offline inspection (backfill serve --check).
func OpenReadOnly(dir string) (*Store, *Inspection, error) {
	in, err := Inspect(dir)
	if err != nil {
		return nil, nil, err
	}
	if in.DBSize <= 0 || in.ReadErr != nil {
		return nil, in, nil
	}
	db, err := sql.Open("sqlite3", "file:"+in.DB+"?mode=ro&_txlock=deferred&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, in, err
	}
	db.SetMaxOpenConns(1)
	return &Store{db: db, Path: in.DB, Dir: dir, base: in.Base, last: in.Contiguous, ro: in}, in, nil
}

// ownerOnly creates the database file with mode 0600 if it is missing
// and makes it and its -wal and -shm files 0600.
func ownerOnly(db string) error {
	fd, err := os.OpenFile(db, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	fd.Close()
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: %w", err)
		}
	}
	return nil
}

// migrateUsers adds the users' id column to databases created before it
// and numbers their users (in name order).
func migrateUsers(db *sql.DB) error {
	rows, err := db.Query("SELECT name FROM pragma_table_info('users') WHERE name = 'uid'")
	if err != nil {
		return err
	}
	has := rows.Next()
	rows.Close()
	if !has {
		if _, err := db.Exec("ALTER TABLE users ADD COLUMN uid INTEGER NOT NULL DEFAULT 0"); err != nil {
			return err
		}
	}
	var names []string
	rows, err = db.Query("SELECT name FROM users WHERE uid = 0 ORDER BY name")
	if err != nil {
		return err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		id, err := nextUID(db)
		if err != nil {
			return err
		}
		if _, err := db.Exec("UPDATE users SET uid = ? WHERE name = ?", id, n); err != nil {
			return err
		}
	}
	return nil
}

// nextUID takes the next user id (meta next_uid, starting at 1).
func nextUID(db *sql.DB) (int64, error) {
	var id int64
	err := db.QueryRow(`INSERT INTO meta(k, v) VALUES ('next_uid', '2')
		ON CONFLICT(k) DO UPDATE SET v = CAST(v AS INTEGER) + 1 RETURNING CAST(v AS INTEGER) - 1`).Scan(&id)
	return id, err
}

// Close closes the database.
func (s *Store) Close() error {
	if s.ins != nil {
		s.ins.Close()
	}
	if s.mark != nil {
		s.mark.close()
	}
	err := s.db.Close()
	if in := s.ro; in != nil {
		// remove the -shm and empty -wal a read-only connection created
		if !in.SHM {
			os.Remove(in.DB + "-shm")
		}
		if st, err := os.Stat(in.DB + "-wal"); in.WALSize < 0 && err == nil && st.Size() == 0 {
			os.Remove(in.DB + "-wal")
		}
	}
	return err
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
	if s.ins == nil {
		return errors.New("store: opened read-only")
	}
	for i, r := range recs {
		if r.Seq != s.last+1+int64(i) {
			return fmt.Errorf("store: record %d does not continue the log at %d", r.Seq, s.last+1+int64(i))
		}
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	st := tx.Stmt(s.ins)
	for _, r := range recs {
		if _, err := st.Exec(r.Seq, r.Kind, r.T, r.Data); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: record %d: %w", r.Seq, err)
		}
	}
	if err := insertArchived(tx, arch, "INSERT OR REPLACE"); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.last = recs[len(recs)-1].Seq
	var job int64
	for _, r := range recs {
		job = max(job, r.Job)
	}
	return s.mark.set(s.last, job)
}

// Load calls fn for every record of the log in order (the records after
// the latest snapshot, if any). It checks that they are consecutive.
func (s *Store) Load(fn func(Record) error) error {
	rows, err := s.db.Query("SELECT seq, kind, t, data FROM events WHERE seq > ? ORDER BY seq", s.base)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	prev := s.base
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.Seq, &r.Kind, &r.T, &r.Data); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if r.Seq != prev+1 {
			return fmt.Errorf("store %s: record %d follows record %d: the log has a gap", s.Path, r.Seq, prev)
		}
		prev = r.Seq
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Count is the number of records.
func (s *Store) Count() (int64, error) {
	var n int64
	err := s.db.QueryRow("SELECT count(*) FROM events").Scan(&n)
	return n, err
}

// Meta returns the setting k ("" and false when unset).
func (s *Store) Meta(k string) (string, bool, error) {
	var v string
	err := s.db.QueryRow("SELECT v FROM meta WHERE k = ?", k).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: %w", err)
	}
	return v, true, nil
}

// SetMeta sets k to v.
func (s *Store) SetMeta(k, v string) error {
	_, err := s.db.Exec("INSERT INTO meta(k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, v)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Users returns every user, sorted by name.
func (s *Store) Users() ([]User, error) {
	rows, err := s.db.Query("SELECT uid, name, token_hash, admin, pp, quota, created FROM users ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		var admin int
		if err := rows.Scan(&u.ID, &u.Name, &u.TokenHash, &admin, &u.PP, &u.Quota, &u.Created); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		u.Admin = admin != 0
		out = append(out, u)
	}
	return out, rows.Err()
}

// NextUserID takes a new user id (1, 2, …; never given twice).
func (s *Store) NextUserID() (int64, error) {
	id, err := nextUID(s.db)
	if err != nil {
		return 0, fmt.Errorf("store: new user id: %w", err)
	}
	return id, nil
}

// PutUser creates or replaces user u (a new user's ID comes from
// NextUserID).
func (s *Store) PutUser(u User) error {
	admin := 0
	if u.Admin {
		admin = 1
	}
	_, err := s.db.Exec(`INSERT INTO users(uid, name, token_hash, admin, pp, quota, created) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET uid = excluded.uid, token_hash = excluded.token_hash, admin = excluded.admin, pp = excluded.pp, quota = excluded.quota`,
		u.ID, u.Name, u.TokenHash, admin, u.PP, u.Quota, u.Created)
	if err != nil {
		return fmt.Errorf("store: user %s: %w", u.Name, err)
	}
	return nil
}

// DeleteUser removes user name; it reports whether it existed.
func (s *Store) DeleteUser(name string) (bool, error) {
	res, err := s.db.Exec("DELETE FROM users WHERE name = ?", name)
	if err != nil {
		return false, fmt.Errorf("store: user %s: %w", name, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
