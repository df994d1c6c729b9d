package service

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/service/store"
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
	for _, f := range []string{"state.db", "state.db-wal", "state.db-shm", store.MarkFile} {
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

// sqlExec changes the database behind the service's back.
func sqlExec(t *testing.T, dir, q string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func walFrames(t *testing.T, dir string) int64 {
	st, err := os.Stat(filepath.Join(dir, "state.db-wal"))
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

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
		{"shm deleted", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "state.db-shm")) }, false, ""},
		{"WAL cut short", func(t *testing.T, d string) {
			os.Truncate(filepath.Join(d, "state.db-wal"), walFrames(t, d)-20000)
		}, true, "log ends at record"},
		{"WAL frame flipped", func(t *testing.T, d string) {
			p := filepath.Join(d, "state.db-wal")
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x5a
			os.WriteFile(p, b, 0o600)
		}, true, "log ends at record"},
		{"WAL and shm deleted", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "state.db-wal"))
			os.Remove(filepath.Join(d, "state.db-shm"))
		}, false, ""},
		{"WAL and shm deleted after a checkpoint", func(t *testing.T, d string) {
			sqlExec(t, d, "PRAGMA wal_checkpoint(TRUNCATE)")
			os.Remove(filepath.Join(d, "state.db-wal"))
			os.Remove(filepath.Join(d, "state.db-shm"))
		}, false, ""},
		{"database truncated to 0", func(t *testing.T, d string) { os.Truncate(filepath.Join(d, "state.db"), 0) }, true, "state.db is empty"},
		{"database deleted with its WAL", func(t *testing.T, d string) {
			for _, f := range []string{"state.db", "state.db-wal", "state.db-shm"} {
				os.Remove(filepath.Join(d, f))
			}
		}, true, "state.db is missing"},
		{"database truncated to half", func(t *testing.T, d string) {
			sqlExec(t, d, "PRAGMA wal_checkpoint(TRUNCATE)")
			st, _ := os.Stat(filepath.Join(d, "state.db"))
			os.Truncate(filepath.Join(d, "state.db"), st.Size()/2)
		}, true, ""},
		{"last 50 records deleted", func(t *testing.T, d string) {
			sqlExec(t, d, "DELETE FROM events WHERE seq > (SELECT max(seq) - 50 FROM events)")
		}, true, "log ends at record"},
		{"records deleted in the middle", func(t *testing.T, d string) {
			sqlExec(t, d, "DELETE FROM events WHERE seq BETWEEN 100 AND 120")
		}, true, "gap"},
		{"admin user deleted", func(t *testing.T, d string) {
			sqlExec(t, d, "DELETE FROM users WHERE name = 'admin'")
		}, true, "no admin user"},
		{"older database put back", func(t *testing.T, d string) {
			for _, f := range []string{"state.db", "state.db-wal", "state.db-shm"} {
				b, _ := os.ReadFile(filepath.Join(old, f))
				os.WriteFile(filepath.Join(d, f), b, 0o600)
			}
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
			if c.name == "intact" || strings.HasSuffix(c.name, "after a checkpoint") || c.name == "mark deleted" || c.name == "shm deleted" {
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
	for _, f := range []string{"state.db", "state.db-wal", "state.db-shm", store.MarkFile} {
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
