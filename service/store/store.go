// Package store is the durable state of the live scheduler service: an
// embedded SQLite database (the pure-Go driver modernc.org/sqlite) in WAL
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

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Record is one entry of the event log.
type Record struct {
	Seq  int64
	Kind string
	T    int64
	Data []byte
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
	ins  *sql.Stmt
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
`

// Open opens (creating if needed) the database state.db in dir. sync is
// "full" or "normal" (SQLite's synchronous setting in WAL mode).
func Open(dir, sync string) (*Store, error) {
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
	path := filepath.Join(dir, "state.db")
	// the database holds commands, names and token hashes: owner only
	// (SQLite gives the -wal and -shm files the database file's mode)
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if f == path {
			if fd, err := os.OpenFile(f, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			} else {
				fd.Close()
			}
		}
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(" + sync + ")&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	// one connection: the service serializes writes, and WAL readers are
	// not needed; it also keeps the pragmas on the one connection
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("store %s: journal mode is %q, want wal (%v)", path, mode, err)
	}
	if err := migrateUsers(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	ins, err := db.Prepare("INSERT INTO events(seq, kind, t, data) VALUES (?, ?, ?, ?)")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return &Store{db: db, Path: path, ins: ins}, nil
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
	s.ins.Close()
	return s.db.Close()
}

// Append writes records in one transaction.
func (s *Store) Append(recs []Record) error {
	if len(recs) == 0 {
		return nil
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
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Load calls fn for every record in log order.
func (s *Store) Load(fn func(Record) error) error {
	rows, err := s.db.Query("SELECT seq, kind, t, data FROM events ORDER BY seq")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.Seq, &r.Kind, &r.T, &r.Data); err != nil {
			return fmt.Errorf("store: %w", err)
		}
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
