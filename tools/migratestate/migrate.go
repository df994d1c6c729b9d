package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/backfill-hpc/backfill/service/store"
	_ "github.com/ncruces/go-sqlite3/driver" // registers the "sqlite3" driver
)

// sqliteFiles are the files of the SQLite store of backfill's earlier
// versions in a state directory.
var sqliteFiles = []string{"state.db", "state.db-wal", "state.db-shm"}

// migrate converts the state directory dir from the SQLite store to the
// bbolt store: it copies the SQLite files (and the mark) into
// dir/sqlite-TIME/, reads that copy (SQLite recovers its WAL there, the
// originals are only read), checks it as the earlier versions did (the
// log against the high-water mark, the snapshots' checksums), writes the
// new database and mark into a directory beside them, checks them, and
// only then replaces the old files. It returns the backup directory.
func migrate(dir string, log io.Writer) (string, error) {
	db := filepath.Join(dir, "state.db")
	if ok, err := isSQLite(db); err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("%s is not an SQLite database: nothing to convert (already converted?)", db)
	}
	backup := filepath.Join(dir, "sqlite-"+time.Now().UTC().Format("20060102T150405"))
	if err := os.Mkdir(backup, 0o700); err != nil {
		return "", err
	}
	for _, f := range append(sqliteFiles, store.MarkFile) {
		if err := store.CopyFile(filepath.Join(dir, f), filepath.Join(backup, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("backing up %s: %w", f, err)
		}
	}
	if err := syncDir(backup); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "the SQLite files are copied into %s\n", backup)
	c, err := readOld(backup)
	if err != nil {
		return "", fmt.Errorf("reading the SQLite state (copy in %s): %w", backup, err)
	}
	fmt.Fprintf(log, "read: %d records, %d snapshots, %d users, %d archived jobs, %d settings\n", len(c.Records), len(c.Snapshots), len(c.Users), len(c.Archive), len(c.Meta))
	tmp := filepath.Join(dir, "bbolt-new")
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	if err := store.Import(tmp, c); err != nil {
		return "", err
	}
	// replace: the old files go (their copy is in backup), the new come
	for _, f := range append(sqliteFiles, store.MarkFile) {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	for _, f := range []string{store.DBFile, store.MarkFile} {
		if err := os.Rename(filepath.Join(tmp, f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	if err := os.Remove(tmp); err != nil {
		return "", err
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	in, err := store.Inspect(dir)
	if err != nil {
		return "", err
	}
	if p := in.Problem(); p != nil {
		return "", fmt.Errorf("the converted state does not check: %w", p)
	}
	fmt.Fprintf(log, "converted: %s (store %s, log up to record %d)\n", filepath.Join(dir, store.DBFile), in.StoreID, max(in.MaxSeq, in.Base))
	return backup, nil
}

func isSQLite(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	b := make([]byte, 16)
	if _, err := io.ReadFull(f, b); err != nil {
		return false, nil
	}
	return string(b) == "SQLite format 3\x00", nil
}

// readOld reads the SQLite state in dir and checks it against its mark.
func readOld(dir string) (store.Contents, error) {
	var c store.Contents
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "state.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return c, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tables := map[string]bool{}
	columns := map[string]bool{}
	if err := rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'", func(r *sql.Rows) error {
		var n string
		err := r.Scan(&n)
		tables[n] = true
		return err
	}); err != nil {
		return c, err
	}
	for _, t := range []string{"events", "meta", "users"} {
		if !tables[t] {
			return c, fmt.Errorf("no table %s: not a backfill state database", t)
		}
	}
	c.Meta = map[string]string{}
	if err := rows(db, "SELECT k, v FROM meta", func(r *sql.Rows) error {
		var k, v string
		err := r.Scan(&k, &v)
		c.Meta[k] = v
		return err
	}); err != nil {
		return c, err
	}
	if err := rows(db, "SELECT name FROM pragma_table_info('users')", func(r *sql.Rows) error {
		var n string
		err := r.Scan(&n)
		columns[n] = true
		return err
	}); err != nil {
		return c, err
	}
	uid := "0"
	if columns["uid"] {
		uid = "uid"
	}
	next := int64(1)
	if v, ok := c.Meta["next_uid"]; ok {
		fmt.Sscan(v, &next)
	}
	if err := rows(db, "SELECT "+uid+", name, token_hash, admin, pp, quota, created FROM users ORDER BY name", func(r *sql.Rows) error {
		var u store.User
		var admin int
		err := r.Scan(&u.ID, &u.Name, &u.TokenHash, &admin, &u.PP, &u.Quota, &u.Created)
		u.Admin = admin != 0
		if u.ID == 0 { // written before user ids: numbered in name order, as the old store did
			u.ID, next = next, next+1
		}
		c.Users = append(c.Users, u)
		return err
	}); err != nil {
		return c, err
	}
	c.Meta["next_uid"] = fmt.Sprint(next)
	base := int64(0)
	if tables["snapshots"] {
		if err := rows(db, "SELECT seq, t, data, sha256 FROM snapshots ORDER BY seq", func(r *sql.Rows) error {
			var s store.Snapshot
			var sum string
			if err := r.Scan(&s.Seq, &s.T, &s.Data, &sum); err != nil {
				return err
			}
			h := sha256.Sum256(s.Data)
			if hex.EncodeToString(h[:]) != sum {
				return fmt.Errorf("the snapshot at record %d is damaged (checksum mismatch): check the directory with the earlier version (backfill serve --check) first", s.Seq)
			}
			c.Snapshots = append(c.Snapshots, s)
			base = s.Seq
			return nil
		}); err != nil {
			return c, err
		}
	}
	if err := rows(db, "SELECT seq, kind, t, data FROM events ORDER BY seq", func(r *sql.Rows) error {
		var e store.Record
		err := r.Scan(&e.Seq, &e.Kind, &e.T, &e.Data)
		if n := len(c.Records); err == nil && n > 0 && e.Seq != c.Records[n-1].Seq+1 {
			return fmt.Errorf("the log has a gap: record %d follows record %d", e.Seq, c.Records[n-1].Seq)
		}
		c.Records = append(c.Records, e)
		return err
	}); err != nil {
		return c, err
	}
	last := base
	if n := len(c.Records); n > 0 {
		if c.Records[0].Seq > base+1 {
			return c, fmt.Errorf("the log starts at record %d, after the latest snapshot at %d", c.Records[0].Seq, base)
		}
		last = max(last, c.Records[n-1].Seq)
	}
	if tables["archive"] {
		if err := rows(db, "SELECT id, user, key, state, end_t, data FROM archive ORDER BY id", func(r *sql.Rows) error {
			var a store.Archived
			err := r.Scan(&a.ID, &a.User, &a.Key, &a.State, &a.End, &a.Data)
			c.Archive = append(c.Archive, a)
			return err
		}); err != nil {
			return c, err
		}
	}
	m, err := store.ReadMark(filepath.Join(dir, store.MarkFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("the high-water mark: %w", err)
	case m.Store != c.Meta["store_id"]:
		return c, fmt.Errorf("state.db is not the database its high-water mark was written for (store %s, mark for %s)", c.Meta["store_id"], m.Store)
	case last < m.Seq:
		return c, fmt.Errorf("the log ends at record %d, but record %d was committed (the database lost records: check it with the earlier version, backfill serve --check)", last, m.Seq)
	default:
		c.JobID = m.JobID
	}
	return c, nil
}

func rows(db *sql.DB, q string, fn func(*sql.Rows) error) error {
	r, err := db.Query(q)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := fn(r); err != nil {
			return err
		}
	}
	return r.Err()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
