package service

import (
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminTokenFileMode: a group- or world-readable --admin-token-file is
// a logged warning; a 0600 one is not.
func TestAdminTokenFileMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tok")
	if err := os.WriteFile(p, []byte("bf_secret_token_0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	if tok, err := ReadAdminToken(p, logger); err != nil || tok != "bf_secret_token_0123456789" {
		t.Fatalf("token %q, %v", tok, err)
	}
	if logs.Len() != 0 {
		t.Errorf("0600: warned %q", logs.String())
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAdminToken(p, logger); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "mode=0644") {
		t.Errorf("0644: logs %q", logs.String())
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAdminToken(empty, logger); err == nil || !strings.Contains(err.Error(), "empty admin token") {
		t.Errorf("empty: %v", err)
	}
}

// TestAnnounce writes the URL to STATE/addr (mode 0600), https with TLS,
// and warns about a non-loopback address only.
func TestAnnounce(t *testing.T) {
	dir := t.TempDir()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	url, err := Announce(dir, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8470}, false, logger)
	if err != nil || url != "http://127.0.0.1:8470" {
		t.Fatalf("loopback: %q, %v", url, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "addr"))
	if err != nil || string(b) != "http://127.0.0.1:8470\n" {
		t.Errorf("addr file %q, %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "addr")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("addr file mode %v, %v", st.Mode(), err)
	}
	if logs.Len() != 0 {
		t.Errorf("loopback warned %q", logs.String())
	}
	url, err = Announce(dir, &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 443}, true, logger)
	if err != nil || url != "https://10.1.2.3:443" || !strings.Contains(logs.String(), "non-loopback") {
		t.Errorf("non-loopback: %q, %v, logs %q", url, err, logs.String())
	}
}

// TestCheckNofile accepts a connection limit that fits the open-files
// limit.
func TestCheckNofile(t *testing.T) {
	if err := CheckNofile(16, slog.New(slog.DiscardHandler)); err != nil {
		t.Error(err)
	}
}

// TestServeUntilStop serves the API until stop is closed: health answers
// meanwhile, and the shutdown is clean.
func TestServeUntilStop(t *testing.T) {
	env := newEnv(t, "easy", 4)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- env.svc.ServeUntil(env.svc.Server(ServerLimits{}), ln, "", "", nil, stop) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/v1/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	close(stop)
	if err := <-done; err != nil {
		t.Errorf("ServeUntil: %v", err)
	}
}
