package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Snapshots and compaction. A snapshot is the service's state as of
// record Seq (encoded by the service; the store keeps it with its
// SHA-256), so that a restart loads it and replays only the records after
// it. Saving one compacts the store in the same transaction: the jobs that
// finished move to the archive table (still queryable), and the log is
// cut behind the previous snapshot. Two generations are kept — the latest
// snapshot and the one before it, with the log from the older one on — so
// a damaged latest snapshot (a checksum that does not match) falls back to
// the older one and its log, losing nothing.

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

const archiveSchema = `
CREATE TABLE IF NOT EXISTS archive (
	id    INTEGER PRIMARY KEY,
	user  TEXT    NOT NULL,
	key   TEXT    NOT NULL DEFAULT '',
	state TEXT    NOT NULL,
	end_t INTEGER NOT NULL,
	data  BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_user_key ON archive(user, key) WHERE key != '';
CREATE INDEX IF NOT EXISTS archive_state ON archive(state, id);
CREATE INDEX IF NOT EXISTS archive_user ON archive(user, id);
`

func checksum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// SaveSnapshot stores snap (which must be at the end of the log: Seq =
// LastSeq()), archives the finished jobs arch, and compacts: the log
// before the previous snapshot and the snapshots before it are deleted.
// All in one transaction.
func (s *Store) SaveSnapshot(snap Snapshot, arch []Archived) error {
	if s.ins == nil {
		return errors.New("store: opened read-only")
	}
	if snap.Seq != s.last {
		return fmt.Errorf("store: snapshot at record %d, but the log ends at %d", snap.Seq, s.last)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback()
	// the previous generation is the snapshot this store started from or
	// last saved (known good), not a damaged one skipped at Open
	prev := s.base
	if _, err := tx.Exec("INSERT OR REPLACE INTO snapshots(seq, t, data, sha256) VALUES (?, ?, ?, ?)", snap.Seq, snap.T, snap.Data, checksum(snap.Data)); err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	if err := insertArchived(tx, arch, "INSERT OR REPLACE"); err != nil {
		return err
	}
	if _, err := tx.Exec("DELETE FROM events WHERE seq <= ?", prev); err != nil {
		return fmt.Errorf("store: compacting: %w", err)
	}
	if _, err := tx.Exec("DELETE FROM snapshots WHERE seq != ? AND seq != ?", prev, snap.Seq); err != nil {
		return fmt.Errorf("store: compacting: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.base = snap.Seq
	return nil
}

// LatestSnapshot is the snapshot Open chose to start from (the latest one
// whose checksum matches, with its log whole), or ok false when the log
// starts at record 1.
func (s *Store) LatestSnapshot() (snap Snapshot, ok bool, err error) {
	if s.base == 0 {
		return Snapshot{}, false, nil
	}
	var sum string
	err = s.db.QueryRow("SELECT seq, t, data, sha256 FROM snapshots WHERE seq = ?", s.base).Scan(&snap.Seq, &snap.T, &snap.Data, &sum)
	if err != nil {
		return Snapshot{}, false, fmt.Errorf("store: snapshot at record %d: %w", s.base, err)
	}
	if checksum(snap.Data) != sum {
		return Snapshot{}, false, fmt.Errorf("store: snapshot at record %d: checksum mismatch", s.base)
	}
	return snap, true, nil
}

// ArchivedJob returns the archived job with id.
func (s *Store) ArchivedJob(id int64) (Archived, bool, error) {
	return s.archivedOne("SELECT id, user, key, state, end_t, data FROM archive WHERE id = ?", id)
}

// ArchivedByKey returns the archived job submitted by user with
// idempotency key.
func (s *Store) ArchivedByKey(user, key string) (Archived, bool, error) {
	return s.archivedOne("SELECT id, user, key, state, end_t, data FROM archive WHERE user = ? AND key = ? AND key != ''", user, key)
}

func (s *Store) archivedOne(q string, args ...any) (Archived, bool, error) {
	var a Archived
	err := s.db.QueryRow(q, args...).Scan(&a.ID, &a.User, &a.Key, &a.State, &a.End, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return Archived{}, false, nil
	}
	if err != nil {
		return Archived{}, false, fmt.Errorf("store: %w", err)
	}
	return a, true, nil
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

// ArchivedJobs calls fn for the archived jobs q selects.
func (s *Store) ArchivedJobs(q ArchiveQuery, fn func(Archived) error) error {
	sqlq := "SELECT id, user, key, state, end_t, data FROM archive WHERE id > ?"
	args := []any{q.After}
	if len(q.Users) > 0 {
		sqlq += " AND user IN (?" + strings.Repeat(", ?", len(q.Users)-1) + ")"
		for _, u := range q.Users {
			args = append(args, u)
		}
	}
	if q.State != "" {
		sqlq += " AND state = ?"
		args = append(args, q.State)
	}
	sqlq += " ORDER BY id"
	if q.Desc {
		sqlq += " DESC"
	}
	if q.Limit > 0 {
		sqlq += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := s.db.Query(sqlq, args...)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a Archived
		if err := rows.Scan(&a.ID, &a.User, &a.Key, &a.State, &a.End, &a.Data); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ArchiveJobs adds archived jobs (those already there are left as they
// are), in one transaction: the archive of a log written before it existed.
func (s *Store) ArchiveJobs(arch []Archived) error {
	if len(arch) == 0 {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback()
	if err := insertArchived(tx, arch, "INSERT OR IGNORE"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func insertArchived(tx *sql.Tx, arch []Archived, verb string) error {
	if len(arch) == 0 {
		return nil
	}
	st, err := tx.Prepare(verb + " INTO archive(id, user, key, state, end_t, data) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	for _, a := range arch {
		if _, err := st.Exec(a.ID, a.User, a.Key, a.State, a.End, a.Data); err != nil {
			return fmt.Errorf("store: archiving job %d: %w", a.ID, err)
		}
	}
	return nil
}
