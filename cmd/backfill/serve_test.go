package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/service"
)

// TestServeAndClients runs 'backfill serve' in-process on loopback with a
// manual clock and drives it with the CLI clients.
func TestServeAndClients(t *testing.T) {
	dir := t.TempDir()
	serveStop = make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := run(t, "serve", "--policy", "conservative", "--procs", "8", "--state", dir, "--listen", "127.0.0.1:0", "--clock", "manual", "--sync", "normal")
		done <- err
	}()
	var url string
	for i := 0; i < 500 && url == ""; i++ {
		if b, err := os.ReadFile(filepath.Join(dir, "addr")); err == nil {
			url = strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if url == "" {
		t.Fatal("serve did not start")
	}
	defer func() {
		close(serveStop)
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	admin := filepath.Join(dir, "admin.token")
	out, err := run(t, "user", "add", "alice", "--server", url, "--token-file", admin)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	tok := lines[len(lines)-1]
	if !strings.HasPrefix(tok, "bf_") {
		t.Fatalf("user add: %s", out)
	}
	t.Setenv("BACKFILL_SERVER", url)
	t.Setenv("BACKFILL_TOKEN", tok)
	out, err = run(t, "submit", "-n", "8", "-t", "100", "--job-name", "big", "--", "echo", "hi there")
	if err != nil || !strings.Contains(out, "Submitted job 1 (waiting)") || !strings.Contains(out, "guaranteed start: 0 (now) at the latest") {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	out, err = run(t, "submit", "-n", "4", "-t", "1:40", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ID        int64  `json:"id"`
		Guarantee *int64 `json:"guaranteed_start"`
		Estimate  int64  `json:"estimate"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.ID != 2 || v.Guarantee == nil || *v.Guarantee != 100 || v.Estimate != 100 {
		t.Fatalf("submit --json: %v %s", err, out)
	}
	if _, err := run(t, "submit", "-n", "9", "-t", "10"); err == nil || !strings.Contains(err.Error(), "the machine has 8") {
		t.Fatalf("oversized job: %v", err)
	}
	out, err = run(t, "queue")
	if err != nil || !strings.Contains(out, "big") || !strings.Contains(out, "~100") || !strings.Contains(out, "2 jobs") {
		t.Fatalf("queue: %v\n%s", err, out)
	}
	out, err = run(t, "cancel", "2")
	if err != nil || !strings.Contains(out, "job 2: cancelled") {
		t.Fatalf("cancel: %v\n%s", err, out)
	}
	if _, err := run(t, "cancel", "99"); err == nil {
		t.Fatal("cancel of an unknown job succeeded")
	}
	out, err = run(t, "queue", "--all", "--json")
	if err != nil || !strings.Contains(out, `"state": "cancelled"`) {
		t.Fatalf("queue --all --json: %v\n%s", err, out)
	}
}

func TestLoadgenSmall(t *testing.T) {
	out, err := run(t, "loadgen", "--queue", "20", "--duration", "300ms", "--clients", "2", "--sync", "normal", "--procs", "64")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "conservative") || !strings.Contains(out, "submits/s") {
		t.Fatalf("loadgen: %s", out)
	}
}

// TestServeCheck: 'serve --check' passes a sound state directory and
// fails a damaged one, naming the problem; 'serve' refuses the damaged one
// and starts with --accept-loss.
func TestServeCheck(t *testing.T) {
	dir := t.TempDir()
	svc, err := service.Open(service.Config{Policy: "easy", Procs: 4, StateDir: dir, Sync: "normal", Clock: service.NewManualClock(0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetClock(5, true); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	out, err := run(t, "serve", "--check", dir)
	if err != nil || !strings.Contains(out, "OK") || !strings.Contains(out, `policy "easy", procs 4`) {
		t.Fatalf("check of a sound directory: %v\n%s", err, out)
	}
	if err := os.Truncate(filepath.Join(dir, "state.db"), 0); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "serve", "--check", dir)
	if err == nil || !strings.Contains(out, "PROBLEM") || !strings.Contains(out, "state.db is empty") {
		t.Fatalf("check of an emptied database: %v\n%s", err, out)
	}
	_, err = run(t, "serve", "--policy", "easy", "--procs", "4", "--state", dir, "--listen", "127.0.0.1:0", "--clock", "manual")
	if err == nil || !strings.Contains(err.Error(), "--accept-loss") {
		t.Fatalf("serve started on an emptied database: %v", err)
	}
}
