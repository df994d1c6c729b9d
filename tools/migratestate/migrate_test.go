package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/service"
	"github.com/backfill-hpc/backfill/service/store"
)

// The fixture testdata/old-state was written by the service with its
// SQLite store (backfill at f1eb618), policy easy on 8 processors, admin
// token "admin-secret" (also in admin.token): users alice and bob; jobs
// 1..30 submitted with keys key0..key29 at t = 0, 10, …, 290 (every fifth,
// from the third, cancelled: 6), the others run to their estimate in
// advisor mode (state timeout: 24), all archived; jobs 31..35 (8
// processors, 1000 s) submitted at t = 400 and still waiting (the clock
// did not move after them); snapshots every 20 records, the last at record
// 102, the log up to record 119.

func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir("testdata/old-state")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata/old-state", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMigrateFixture(t *testing.T) {
	dir := copyFixture(t)
	cfg := service.Config{Policy: "easy", Procs: 8, StateDir: dir, Sync: "normal", Clock: service.NewManualClock(400)}

	// this version refuses the old directory, naming the file and the tool
	_, err := service.Open(cfg)
	var oe *store.OldFormatError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), filepath.Join(dir, "state.db")) || !strings.Contains(err.Error(), "tools/migratestate") {
		t.Fatalf("the old state was not refused as such: %v", err)
	}
	old, err := readOld("testdata/old-state")
	if err != nil {
		t.Fatal(err)
	}

	backup, err := migrate(dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(backup, "state.db")); err != nil {
		t.Fatalf("no copy of the SQLite database kept: %v", err)
	}
	if _, err := migrate(dir, io.Discard); err == nil || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("a second conversion: %v", err)
	}
	in, err := store.Inspect(dir)
	if err != nil || in.Problem() != nil {
		t.Fatalf("the converted state: %v %v", err, in.Problem())
	}
	if in.StoreID != old.Meta["store_id"] || in.Mark.Store != in.StoreID {
		t.Fatalf("store id %s, mark %s, was %s", in.StoreID, in.Mark.Store, old.Meta["store_id"])
	}
	if in.Base != 102 || in.MaxSeq != 119 || in.Archived != 30 || in.Users != 3 {
		t.Fatalf("converted: base %d, last record %d, %d archived, %d users", in.Base, in.MaxSeq, in.Archived, in.Users)
	}
	st, _, err := store.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	users, err := st.Users()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != len(old.Users) {
		t.Fatalf("users %+v, were %+v", users, old.Users)
	}
	for i, u := range users {
		if u != old.Users[i] {
			t.Fatalf("user %+v, was %+v", u, old.Users[i])
		}
	}
	sum := sha256.Sum256([]byte("admin-secret"))
	if users[0].Name != "admin" || !users[0].Admin || users[0].TokenHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("the admin user: %+v", users[0])
	}

	// the service starts on it: the admin token of admin.token works, and
	// every job is there, in its state
	svc, err := service.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	admin := service.NewClient(srv.URL, strings.TrimSpace(string(tok)))
	ctx := context.Background()
	states := map[string]int{}
	for id := int64(1); id <= 35; id++ {
		v, err := admin.Job(ctx, id)
		if err != nil {
			t.Fatalf("job %d: %v", id, err)
		}
		states[string(v.State)]++
		if id <= 30 && (v.User != "alice" && v.User != "bob") || id > 30 && v.User != "alice" {
			t.Fatalf("job %d of %q", id, v.User)
		}
	}
	if states["cancelled"] != 6 || states["timeout"] != 24 || states["waiting"] != 5 || len(states) != 3 {
		t.Fatalf("job states after the conversion: %v", states)
	}
	if _, err := admin.Job(ctx, 36); err == nil {
		t.Fatal("a job 36 exists")
	}
	l, err := admin.Jobs(ctx, "cancelled", "")
	if err != nil || len(l.Jobs) != 6 {
		t.Fatalf("archived cancelled jobs (GET /v1/jobs?state=cancelled): %+v %v", l, err)
	}
}
