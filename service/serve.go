package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ReadAdminToken reads an admin token file (backfill serve
// --admin-token-file), trimmed of white space; an empty one is an error. A
// file that other users can read gives them the admin token: it is logged
// as a warning (not refused: mounted secrets are often 0644 inside a
// container where nobody else runs).
func ReadAdminToken(path string, logger *slog.Logger) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s: empty admin token", path)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the admin token file can be read by other users: chmod 600 it", "file", path, "mode", fmt.Sprintf("%04o", st.Mode().Perm()))
	}
	return tok, nil
}

// CheckNofile makes sure the open-files limit leaves room for maxConns
// connections plus the database, the jobs' files and the overflow
// answers: it raises the soft limit to the hard one if needed (Go does so
// at start on Linux), and refuses a --max-conns that cannot fit.
func CheckNofile(maxConns int, log *slog.Logger) error {
	const reserve = 256 // database, job files, overflow answers, logs
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return nil
	}
	need := uint64(maxConns + reserve)
	if rl.Cur < need && rl.Max >= need {
		rl.Cur = need
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			log.Warn("cannot raise the open-files limit", "err", err)
		}
	}
	if rl.Cur < need {
		return fmt.Errorf("--max-conns %d needs an open-files limit of at least %d (ulimit -n is %d): lower --max-conns or raise the limit", maxConns, need, rl.Cur)
	}
	return nil
}

// Announce returns the URL of a service listening on addr (https with
// tls) and writes it, with a newline, to the state directory's addr file
// (atomically, mode 0600). A non-loopback address is logged as a warning.
func Announce(stateDir string, addr *net.TCPAddr, tls bool, logger *slog.Logger) (string, error) {
	if !addr.IP.IsLoopback() {
		logger.Warn("listening on a non-loopback address: anyone who can reach it can try tokens; use --tls-cert, or a firewall", "addr", addr.String())
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	url := scheme + "://" + addr.String()
	if err := writeSecret(filepath.Join(stateDir, "addr"), url); err != nil {
		return "", err
	}
	return url, nil
}

// ServeUntil runs the service's loop and srv on ln (TLS when certFile is
// set) until a signal arrives on sig, stop is closed, the state database
// fails, the server fails or the state cannot be rebuilt; then it stops the
// loop and shuts the server down (10 s for the requests under way). It
// returns the failure, if any.
func (s *Service) ServeUntil(srv *http.Server, ln net.Listener, certFile, keyFile string, sig <-chan os.Signal, stop <-chan struct{}) error {
	loop := make(chan struct{})
	go s.Run(loop)
	errc := make(chan error, 1)
	go func() {
		if certFile != "" {
			errc <- srv.ServeTLS(ln, certFile, keyFile)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case sg := <-sig:
		s.log.Info("shutting down", "signal", sg.String())
	case <-stop:
		s.log.Info("shutting down")
	case <-s.Failed():
		s.log.Error("the state database failed; stopping (a restart recovers from the log)", "err", s.Fatal())
		close(loop)
		srv.Close()
		return s.Fatal()
	case err := <-errc:
		close(loop)
		return err
	case <-s.recoveryFailed():
		s.log.Error("the state could not be rebuilt from the log; stopping", "err", s.WaitReady())
		close(loop)
		srv.Close()
		return s.WaitReady()
	}
	close(loop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// recoveryFailed is closed when the service's state could not be rebuilt
// (never, once it is).
func (s *Service) recoveryFailed() <-chan struct{} {
	c := make(chan struct{})
	go func() {
		if s.WaitReady() != nil {
			close(c)
		}
	}()
	return c
}
