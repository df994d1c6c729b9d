package service

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/service/store"
	bolt "go.etcd.io/bbolt"
)

// corruptBase runs a service that acknowledges n submissions (ends,
// cancellations and passes mixed in) and returns a copy of its state
// directory taken while it was still running, as a kill -9 leaves it (no
// checkpoint on close), with the ids of the acknowledged jobs.
func corruptBase(t *testing.T, n int) (dir string, acked []int64) {
	t.Helper()
	env := newEnv(t, "conservative", 8)
	ctx := context.Background()
	alice := env.user("alice")
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			env.clockTo(int64(i))
		}
		v := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1 + i%8), Estimate: i64(int64(20 + i%30)), IdempotencyKey: fmt.Sprint("k", i)}))
		acked = append(acked, v.ID)
		if i%7 == 3 {
			must[JobView](t)(alice.Cancel(ctx, v.ID))
		}
	}
	dir = t.TempDir()
	for _, f := range []string{store.DBFile, store.MarkFile} {
		b, err := os.ReadFile(filepath.Join(env.dir, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env.stop()
	return dir, acked
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(to, e.Name()), b, 0o600)
	}
	return to
}

// tamper changes the database behind the service's back, through
// bbolt (the entries' checksums are left as fn makes them).
func tamper(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, store.DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// peek reads the database without writing a transaction.
func peek(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, store.DBFile), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// fixDigests sets the digests of state.db to its content (the format of
// service/store/digest.go), as a tool that knows the format would after
// changing entries.
func fixDigests(tx *bolt.Tx) error {
	d := tx.Bucket([]byte("digests"))
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if string(name) == "digests" {
			return nil
		}
		var n, sum uint64
		tab := crc32.MakeTable(crc32.Castagnoli)
		b.ForEach(func(k, v []byte) error {
			hk := crc32.Update(crc32.Checksum(binary.AppendUvarint(nil, uint64(len(k))), tab), tab, k)
			n, sum = n+1, sum+(uint64(hk)<<32|uint64(crc32.Update(hk, tab, v)))
			return nil
		})
		p := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, n), sum)
		c := crc32.Update(crc32.Checksum(name, tab), tab, p)
		return d.Put(name, append(binary.BigEndian.AppendUint32(nil, c), p...))
	})
}

// deleteRecords deletes the log's records for which del is true, with
// their digest made to match (as a tool that knows the format would).
func deleteRecords(t *testing.T, dir string, del func(seq, last int64) bool) {
	tamper(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events"))
		k, _ := b.Cursor().Last()
		last := int64(binary.BigEndian.Uint64(k))
		var keys [][]byte
		b.ForEach(func(k, _ []byte) error {
			if del(int64(binary.BigEndian.Uint64(k)), last) {
				keys = append(keys, bytes.Clone(k))
			}
			return nil
		})
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return fixDigests(tx)
	})
}

// flipFile flips one byte of state.db at off (negative: from the end).
func flipFile(t *testing.T, dir string, off int) {
	p := filepath.Join(dir, store.DBFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += len(b)
	}
	b[off] ^= 0x5a
	os.WriteFile(p, b, 0o600)
}

// flipValue flips a byte in the middle of the value of key k of bucket,
// wherever it lies in state.db (stale copies in free pages too).
func flipValue(t *testing.T, dir, bucket string, k []byte) {
	var v []byte
	peek(t, dir, func(tx *bolt.Tx) error { v = bytes.Clone(tx.Bucket([]byte(bucket)).Get(k)); return nil })
	b, _ := os.ReadFile(filepath.Join(dir, store.DBFile))
	n := 0
	for i := 0; v != nil; {
		j := bytes.Index(b[i:], v)
		if j < 0 {
			break
		}
		flipFile(t, dir, i+j+len(v)/2)
		i, n = i+j+len(v), n+1
	}
	if n == 0 {
		t.Fatalf("no value for %s %q", bucket, k)
	}
}

func seqKey(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// dirState is the names and sizes of the files of a directory, to check
// that a refused start changes nothing.
func dirState(dir string) string {
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		st, _ := os.Stat(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s:%d ", e.Name(), st.Size())
	}
	return b.String()
}

// TestCorruptionRefusedOrRecovered damages a state directory in the ways a
// site meets (a WAL cut short, a flipped frame, the WAL and -shm deleted, the
// database truncated, rows deleted from the end or the middle of the log,
// the admin user deleted, an older database put back, the mark damaged or
// deleted) and checks that each is either refused at start, with a message
// naming the files and the ways out and without changing a file, or opened
// with every acknowledged job; and that --accept-loss opens the refused
// ones, keeping a copy of the damaged files.
func TestCorruptionRefusedOrRecovered(t *testing.T) {
	base, acked := corruptBase(t, 300)
	old, _ := corruptBase(t, 150) // another service's history
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		refuse bool // must be refused (false: refused or whole)
		want   string
	}{
		{"intact", func(*testing.T, string) {}, false, ""},
		{"byte flipped in a record", func(t *testing.T, d string) {
			flipValue(t, d, "events", seqKey(200))
		}, true, "damaged"},
		{"byte flipped in the last record", func(t *testing.T, d string) {
			var last int64
			peek(t, d, func(tx *bolt.Tx) error {
				k, _ := tx.Bucket([]byte("events")).Cursor().Last()
				last = int64(binary.BigEndian.Uint64(k))
				return nil
			})
			flipValue(t, d, "events", seqKey(last))
		}, true, "damaged"},
		{"byte flipped in the admin user", func(t *testing.T, d string) {
			flipValue(t, d, "users", []byte("admin"))
		}, true, `user "admin"`},
		{"byte flipped in the newest meta page", func(t *testing.T, d string) {
			// the meta page of the last transaction: bbolt falls back to
			// the one before, which lacks the last record
			var txid int
			peek(t, d, func(tx *bolt.Tx) error { txid = tx.ID(); return nil })
			flipFile(t, d, (txid%2)*4096+16+20)
		}, true, "log ends at record"},
		{"byte flipped in the older meta page", func(t *testing.T, d string) {
			var txid int
			peek(t, d, func(tx *bolt.Tx) error { txid = tx.ID(); return nil })
			flipFile(t, d, (1-txid%2)*4096+16+20)
		}, false, ""},
		{"header of a meta page flipped", func(t *testing.T, d string) { flipFile(t, d, 4096) }, true, "meta page 1"},
		{"database truncated to 0", func(t *testing.T, d string) { os.Truncate(filepath.Join(d, "state.db"), 0) }, true, "state.db is empty"},
		{"database deleted", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "state.db")) }, true, "state.db is missing"},
		{"database truncated to half", func(t *testing.T, d string) {
			st, _ := os.Stat(filepath.Join(d, "state.db"))
			os.Truncate(filepath.Join(d, "state.db"), st.Size()/2)
		}, true, "truncated"},
		{"last 50 records deleted", func(t *testing.T, d string) {
			deleteRecords(t, d, func(seq, last int64) bool { return seq > last-50 })
		}, true, "log ends at record"},
		{"records deleted in the middle", func(t *testing.T, d string) {
			deleteRecords(t, d, func(seq, _ int64) bool { return seq >= 100 && seq <= 120 })
		}, true, "gap"},
		{"admin user deleted", func(t *testing.T, d string) {
			tamper(t, d, func(tx *bolt.Tx) error { return tx.Bucket([]byte("users")).Delete([]byte("admin")) })
		}, true, "users: 1 entries, their digest says 2"},
		{"admin user deleted, digests fixed", func(t *testing.T, d string) {
			tamper(t, d, func(tx *bolt.Tx) error {
				if err := tx.Bucket([]byte("users")).Delete([]byte("admin")); err != nil {
					return err
				}
				return fixDigests(tx)
			})
		}, true, "no admin user"},
		{"a record deleted, digests not fixed", func(t *testing.T, d string) {
			tamper(t, d, func(tx *bolt.Tx) error { return tx.Bucket([]byte("events")).Delete(seqKey(150)) })
		}, true, "gap"},
		{"older database put back", func(t *testing.T, d string) {
			b, _ := os.ReadFile(filepath.Join(old, "state.db"))
			os.WriteFile(filepath.Join(d, "state.db"), b, 0o600)
		}, true, "not the database"},
		{"mark damaged", func(t *testing.T, d string) {
			os.WriteFile(filepath.Join(d, store.MarkFile), bytes.Repeat([]byte{0xff}, 128), 0o600)
		}, true, "high-water mark cannot be read"},
		{"mark deleted", func(t *testing.T, d string) { os.Remove(filepath.Join(d, store.MarkFile)) }, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, base)
			c.damage(t, dir)
			before := dirState(dir)
			cfg := Config{Policy: "conservative", Procs: 8, StateDir: dir, Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0)}
			svc, err := Open(cfg)
			if c.name == "intact" || c.name == "mark deleted" || c.name == "byte flipped in the older meta page" {
				// nothing was lost: these must open
				if err != nil {
					t.Fatalf("refused an undamaged state: %v", err)
				}
			}
			if err == nil {
				// opened: nothing acknowledged may be missing
				defer svc.Close()
				if c.refuse {
					t.Fatalf("opened a damaged directory (%s)", c.name)
				}
				for _, id := range acked {
					if svc.eng.Job(id) == nil {
						t.Fatalf("opened without acknowledged job %d", id)
					}
				}
				return
			}
			msg := err.Error()
			t.Logf("refused:\n%s", msg)
			for _, w := range []string{c.want, dir, "--check", "backup"} {
				if !strings.Contains(msg, w) {
					t.Errorf("the message lacks %q", w)
				}
			}
			var ie *store.IntegrityError
			if errors.As(err, &ie) && !strings.Contains(msg, "state.db") {
				t.Errorf("the message names no file")
			}
			if after := dirState(dir); after != before {
				t.Fatalf("a refused start changed the directory:\n%s\n%s", before, after)
			}
			// the report of --check names the problem too
			var rep bytes.Buffer
			if Check(dir, &rep) == nil {
				t.Fatalf("--check passed a directory Open refuses:\n%s", rep.String())
			}
			if after := dirState(dir); after != before {
				t.Fatalf("--check changed the directory")
			}
			// accepting the loss opens it, and keeps a copy
			cfg.AcceptLoss = true
			svc, err = Open(cfg)
			if err != nil {
				if errors.As(err, &ie) && !ie.CanAccept {
					t.Logf("cannot be accepted either: %v", err)
					return
				}
				t.Fatalf("--accept-loss: %v", err)
			}
			defer svc.Close()
			if errors.As(err, &ie) || ie != nil && ie.CanAccept {
				if m, _ := filepath.Glob(filepath.Join(dir, "damaged-*")); len(m) == 0 {
					t.Errorf("no copy of the damaged files kept")
				}
			}
			// the ids of the jobs lost are never given again
			submit := func(svc *Service) int64 {
				var id int64
				err := svc.do(func(e *Engine) error {
					j, err := e.Submit(e.cur, SubmitInput{User: "admin", Procs: 1, Estimate: 10})
					if err == nil {
						id = j.ID()
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
			next := submit(svc)
			if next <= acked[len(acked)-1] {
				t.Fatalf("after the loss, a new job got id %d; ids up to %d were acknowledged", next, acked[len(acked)-1])
			}
			// and the directory now opens without the flag, with a
			// consistent state
			svc.Close()
			cfg.AcceptLoss = false
			svc2, err := Open(cfg)
			if err != nil {
				t.Fatalf("after --accept-loss: %v", err)
			}
			if svc2.eng.Job(next) == nil {
				t.Fatalf("job %d, submitted after the loss, is gone at the next start", next)
			}
			if n2 := submit(svc2); n2 != next+1 {
				t.Fatalf("the next id after %d is %d", next, n2)
			}
			svc2.Close()
		})
	}
}

// TestAdminTokenNeverOverwritten: a service that generated its admin token
// loses its database; the next start refuses and leaves admin.token as it
// was; --accept-loss creates the admin user again with the same token.
func TestAdminTokenNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Policy: "easy", Procs: 4, StateDir: dir, Sync: "normal", Clock: NewManualClock(0)}
	svc, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc.Close()
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{store.DBFile, store.MarkFile} {
		os.Remove(filepath.Join(dir, f))
	}
	if _, err := Open(cfg); err == nil || !strings.Contains(err.Error(), "admin.token exists") {
		t.Fatalf("a directory with admin.token and no database opened as a new one: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "admin.token")); !bytes.Equal(b, tok) {
		t.Fatal("admin.token overwritten")
	}
	cfg.AcceptLoss = true
	svc, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "admin.token")); !bytes.Equal(b, tok) {
		t.Fatal("admin.token overwritten by --accept-loss")
	}
	if u := svc.users[HashToken(strings.TrimSpace(string(tok)))]; u == nil || !u.Admin {
		t.Fatal("the admin user was not created again with the existing token")
	}
}
