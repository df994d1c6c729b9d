package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	bolt "go.etcd.io/bbolt"
)

// fixtureDir writes a small state directory: records, snapshots, users,
// settings and archived jobs; its last transaction is an Append (so that
// the mark covers it).
func fixtureDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	s.SetMeta("policy", "easy")
	for _, n := range []string{"admin", "alice", "bob"} {
		id, _ := s.NextUserID()
		if err := s.PutUser(User{ID: id, Name: n, TokenHash: "hash-" + n, Admin: n == "admin", PP: 0.25, Quota: 7}); err != nil {
			t.Fatal(err)
		}
	}
	appendN(t, s, 1, 40)
	var arch []Archived
	for i := int64(1); i <= 30; i++ {
		arch = append(arch, Archived{ID: i, User: []string{"alice", "bob"}[i%2], Key: fmt.Sprint("k", i), State: []string{"completed", "cancelled", "failed"}[i%3], End: i, Data: bytes.Repeat([]byte{byte(i)}, 40)})
	}
	if err := s.SaveSnapshot(Snapshot{Seq: 40, T: 40, Data: bytes.Repeat([]byte("s"), 300)}, arch); err != nil {
		t.Fatal(err)
	}
	appendN(t, s, 41, 60)
	s.Close()
	return dir
}

// dump is every entry of the database, through a read-only store (but
// the archive's indexes, with noIndex).
func dump(t *testing.T, s *Store, noIndex bool) string {
	var b strings.Builder
	s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			if noIndex && (bytes.Equal(name, bArchKey) || bytes.Equal(name, bArchState) || bytes.Equal(name, bArchUser) || bytes.Equal(name, bDigests)) {
				return nil
			}
			return bk.ForEach(func(k, v []byte) error {
				fmt.Fprintf(&b, "%s %x %x\n", name, k, v)
				return nil
			})
		})
	})
	return b.String()
}

// TestFlippedBytesNeverSilent flips bytes all over a database file (every
// byte of its meta pages' headers and metas, a stride through the rest): opening must never
// panic, and must either refuse (or report the file unreadable) or read
// exactly what was written.
func TestFlippedBytesNeverSilent(t *testing.T) {
	base := fixtureDir(t)
	st, in, err := OpenReadOnly(base)
	if err != nil || in.Problem() != nil {
		t.Fatalf("the fixture: %v %v", err, in.Problem())
	}
	want, wantNoIndex := dump(t, st, false), dump(t, st, true)
	st.Close()
	orig, err := os.ReadFile(filepath.Join(base, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	mark, _ := os.ReadFile(filepath.Join(base, MarkFile))
	stride := 3
	if longtest.Short() {
		stride = 41
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, MarkFile), mark, 0o600)
	refused, same, rebuilt := 0, 0, 0
	for off := 0; off < len(orig); off++ {
		if (off >= 2*4096 || off%4096 >= pageHeader+64) && off%stride != 0 {
			continue
		}
		b := bytes.Clone(orig)
		b[off] ^= 0x10
		if err := os.WriteFile(filepath.Join(dir, DBFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		st, in, err := OpenReadOnly(dir)
		if err != nil {
			t.Fatalf("byte %d: %v", off, err)
		}
		if p := in.Problem(); p != nil || st == nil {
			refused++
			if st != nil {
				st.Close()
			}
			continue
		}
		if in.IndexDamaged != "" {
			// the indexes (derived) are rebuilt at start: the rest must be whole
			if got := dump(t, st, true); got != wantNoIndex {
				t.Fatalf("byte %d flipped: the indexes are reported damaged, but other entries differ", off)
			}
			rebuilt++
			st.Close()
			continue
		}
		if got := dump(t, st, false); got != want {
			t.Fatalf("byte %d flipped: opened without a problem, but the content differs", off)
		}
		st.Close()
		same++
	}
	t.Logf("%d bytes: %d refused, %d read whole, %d with the indexes to rebuild", len(orig), refused, same, rebuilt)
	if refused == 0 {
		t.Fatal("no flip was detected")
	}
}

// TestTruncatedAndForeignFiles: a database cut short, an SQLite file (the
// format before bbolt), a symbolic link and garbage are refused with a
// clear error, never a panic.
func TestTruncatedAndForeignFiles(t *testing.T) {
	base := fixtureDir(t)
	orig, _ := os.ReadFile(filepath.Join(base, DBFile))
	mark, _ := os.ReadFile(filepath.Join(base, MarkFile))
	var used int
	tamper(t, base, func(tx *bolt.Tx) error { used = int(tx.Size()); return nil })
	for _, n := range []int{used - 4096, len(orig) / 2, 3*4096 + 100, 4096 + 100, 100} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, MarkFile), mark, 0o600)
		os.WriteFile(filepath.Join(dir, DBFile), orig[:n], 0o600)
		_, err := Open(dir, "normal")
		var ie *IntegrityError
		if !errors.As(err, &ie) || ie.CanAccept || !strings.Contains(err.Error(), "state.db cannot be read") {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
		t.Logf("cut to %d bytes: %s", n, ie.Problem)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, DBFile), append([]byte(sqliteHeader), make([]byte, 4000)...), 0o600)
	_, err := Open(dir, "normal")
	var oe *OldFormatError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "tools/migratestate") || !strings.Contains(err.Error(), filepath.Join(dir, DBFile)) {
		t.Fatalf("an SQLite state.db: %v", err)
	}
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, DBFile), bytes.Repeat([]byte("garbage!"), 2000), 0o600)
	if _, err := Open(dir, "normal"); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("garbage: %v", err)
	}
	dir = t.TempDir()
	os.Symlink(filepath.Join(base, DBFile), filepath.Join(dir, DBFile))
	if _, err := Open(dir, "normal"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a symbolic link: %v", err)
	}
}

// TestDamagedEntries: a record, a user and an archived job whose bytes
// changed are refused, named; --accept-loss deletes them and continues.
func TestDamagedEntries(t *testing.T) {
	flip := func(bucket []byte, key []byte) func(tx *bolt.Tx) error {
		return func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			v := bytes.Clone(b.Get(key))
			v[len(v)-1] ^= 0x01
			return b.Put(key, v)
		}
	}
	cases := []struct {
		name string
		fn   func(tx *bolt.Tx) error
		want string
		lost int64
	}{
		{"record", flip(bEvents, u64(50)), "record 50 is damaged", 11},
		{"last record", flip(bEvents, u64(60)), "record 60 is damaged", 1},
		{"user", flip(bUsers, []byte("alice")), `user "alice"`, 0},
		{"archived job", flip(bArchive, u64(7)), "archived job 7", 0},
		{"digest of the log", flip(bDigests, bEvents), "the digest of events", 0},
		{"a record and the digest of the log", func(tx *bolt.Tx) error {
			if err := flip(bEvents, u64(58))(tx); err != nil {
				return err
			}
			return flip(bDigests, bEvents)(tx)
		}, "record 58 is damaged", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := fixtureDir(t)
			tamper(t, dir, c.fn)
			_, err := Open(dir, "normal")
			var ie *IntegrityError
			if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.want) || !ie.CanAccept || ie.Lost != c.lost {
				t.Fatalf("%v (lost %d)", err, ie.Lost)
			}
			s, err := OpenWith(dir, Options{Sync: "normal", AcceptLoss: true})
			if err != nil {
				t.Fatal(err)
			}
			if s.Lost != c.lost {
				t.Errorf("lost %d, want %d", s.Lost, c.lost)
			}
			s.Close()
			s, err = Open(dir, "normal")
			if err != nil {
				t.Fatalf("after accepting: %v", err)
			}
			s.Close()
		})
	}
	// damaged indexes lose nothing: rebuilt at the next start
	dir := fixtureDir(t)
	tamper(t, dir, func(tx *bolt.Tx) error { return tx.Bucket(bArchState).Delete(ixKey("failed", u64(2))) })
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Notes) == 0 || !strings.Contains(strings.Join(s.Notes, " "), "indexes") {
		t.Errorf("no note about the indexes: %v", s.Notes)
	}
	var ids []int64
	s.ArchivedJobs(ArchiveQuery{State: "failed"}, func(a Archived) error { ids = append(ids, a.ID); return nil })
	if len(ids) != 10 || ids[0] != 2 {
		t.Fatalf("failed jobs after the rebuild: %v", ids)
	}
}

// TestArchiveQueries: by state, by users, with After, Limit and Desc,
// checked against a filter of all archived jobs.
func TestArchiveQueries(t *testing.T) {
	dir := fixtureDir(t)
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var all []Archived
	s.ArchivedJobs(ArchiveQuery{}, func(a Archived) error { all = append(all, a); return nil })
	if len(all) != 30 {
		t.Fatalf("%d archived", len(all))
	}
	for _, users := range [][]string{nil, {"alice"}, {"bob", "alice"}, {"carol"}} {
		for _, state := range []string{"", "completed", "failed"} {
			for _, after := range []int64{0, 11} {
				for _, limit := range []int{0, 4} {
					for _, desc := range []bool{false, true} {
						q := ArchiveQuery{Users: users, State: state, After: after, Limit: limit, Desc: desc}
						var want []int64
						for _, a := range all {
							if a.ID > after && (state == "" || a.State == state) && (users == nil || a.User == users[0] || len(users) > 1 && a.User == users[1]) {
								want = append(want, a.ID)
							}
						}
						if desc {
							for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
								want[i], want[j] = want[j], want[i]
							}
						}
						if limit > 0 && len(want) > limit {
							want = want[:limit]
						}
						var got []int64
						if err := s.ArchivedJobs(q, func(a Archived) error { got = append(got, a.ID); return nil }); err != nil {
							t.Fatal(err)
						}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("%+v: %v, want %v", q, got, want)
						}
					}
				}
			}
		}
	}
	if a, ok, err := s.ArchivedByKey("alice", "k8"); err != nil || !ok || a.ID != 8 {
		t.Fatalf("by key: %+v %v %v", a, ok, err)
	}
	if _, ok, _ := s.ArchivedByKey("bob", "k8"); ok {
		t.Fatal("another user's key")
	}
}

// TestLostTransactionWithoutRecords: the last transaction created a user
// (no record); a damaged meta page makes bbolt use the one before it;
// the mark's transaction id catches the loss.
func TestLostTransactionWithoutRecords(t *testing.T) {
	dir := fixtureDir(t)
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutUser(User{ID: 9, Name: "carol", TokenHash: "hash-carol"}); err != nil {
		t.Fatal(err)
	}
	var txid int
	s.db.View(func(tx *bolt.Tx) error { txid = tx.ID(); return nil })
	s.Close()
	p := filepath.Join(dir, DBFile)
	b, _ := os.ReadFile(p)
	b[(txid%2)*4096+pageHeader+20] ^= 1 // the newest meta page's root
	os.WriteFile(p, b, 0o600)
	_, err = Open(dir, "normal")
	var ie *IntegrityError
	if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "transaction") {
		t.Fatalf("a lost user creation: %v", err)
	}
	s, err = OpenWith(dir, Options{Sync: "normal", AcceptLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	us, _ := s.Users()
	s.Close()
	if len(us) != 3 {
		t.Fatalf("users after accepting: %+v", us)
	}
	if s, err = Open(dir, "normal"); err != nil {
		t.Fatalf("after accepting: %v", err)
	}
	s.Close()
}

// TestSecondOpenRefused: a second service (or --check) on a directory in
// use is refused with a message, not blocked or let in.
func TestSecondOpenRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "normal")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(dir, "normal"); err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("a second open: %v", err)
	}
	if _, _, err := OpenReadOnly(dir); err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("a read-only open while in use: %v", err)
	}
}
