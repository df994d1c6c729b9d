package store

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Contents is everything a state directory's database holds, for Import
// (the conversion of a state directory from another format: the SQLite
// store of backfill's earlier versions, tools/migratestate).
type Contents struct {
	// Meta are the settings; "store_id" keeps the identity the high-water
	// mark names (a new one is made when absent).
	Meta      map[string]string
	Users     []User
	Records   []Record // the log, in sequence order, without gaps
	Snapshots []Snapshot
	Archive   []Archived
	// JobID is the highest job id acknowledged (the old mark's).
	JobID int64
}

// Import writes c as a new state database and high-water mark in dir,
// which must hold neither, then checks the result with Inspect. The
// database is fsynced before Import returns.
func Import(dir string, c Contents) error {
	db := filepath.Join(dir, DBFile)
	for _, f := range []string{db, filepath.Join(dir, MarkFile)} {
		if _, err := os.Lstat(f); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: import into %s: %s exists", dir, f)
		}
	}
	for i := 1; i < len(c.Records); i++ {
		if c.Records[i].Seq != c.Records[i-1].Seq+1 {
			return fmt.Errorf("store: import: record %d follows record %d", c.Records[i].Seq, c.Records[i-1].Seq)
		}
	}
	last := int64(0)
	if n := len(c.Records); n > 0 {
		last = c.Records[n-1].Seq
	}
	for _, s := range c.Snapshots {
		last = max(last, s.Seq)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := ownerOnly(db); err != nil {
		return err
	}
	bdb, err := openBolt(db, false, false)
	if err != nil {
		return fmt.Errorf("store %s: %w", db, err)
	}
	var txid int
	id := c.Meta["store_id"]
	err = bdb.Update(func(tx *bolt.Tx) error {
		txid = tx.ID()
		for _, b := range append(buckets, bDigests) {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		if id == "" {
			var err error
			if id, err = newStoreID(); err != nil {
				return err
			}
		}
		meta := map[string]string{"format": formatVersion}
		for k, v := range c.Meta {
			meta[k] = v
		}
		meta["store_id"] = id
		for _, k := range slices.Sorted(maps.Keys(meta)) {
			if err := putMeta(tx, k, meta[k]); err != nil {
				return err
			}
		}
		for _, u := range c.Users {
			k := []byte(u.Name)
			if err := put(tx, bUsers, k, seal(k, encodeUser(u))); err != nil {
				return err
			}
		}
		for _, r := range c.Records {
			k := u64(r.Seq)
			if err := put(tx, bEvents, k, seal(k, encodeRecord(r))); err != nil {
				return err
			}
		}
		for _, s := range c.Snapshots {
			k := u64(s.Seq)
			if err := put(tx, bSnapshots, k, seal(k, encodeSnapshot(s))); err != nil {
				return err
			}
		}
		return putArchived(tx, c.Archive, true)
	})
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: import into %s: %w", db, err)
	}
	m, err := openMark(filepath.Join(dir, MarkFile), true, Mark{Store: id, JobID: c.JobID})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	err = m.set(last, 0, txid)
	m.close()
	if err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	in, err := Inspect(dir)
	if err != nil {
		return err
	}
	if p := in.Problem(); p != nil {
		return fmt.Errorf("store: the imported state does not check: %w", p)
	}
	return nil
}
