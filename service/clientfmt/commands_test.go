package clientfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/service"
)

// fake is a stand-in service: its clock reads 1000, it records the last
// submission, and it cancels job 7 only.
func fake(t *testing.T, got *service.SubmitRequest) *service.Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(service.Health{Status: "ok", Now: 1000})
	})
	mux.HandleFunc("POST /v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(got)
		json.NewEncoder(w).Encode(service.JobView{ID: 1, State: "waiting"})
	})
	mux.HandleFunc("DELETE /v1/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "7" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"no such job"}`)
			return
		}
		json.NewEncoder(w).Encode(service.JobView{ID: 7, State: "cancelled"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return service.NewClient(srv.URL, "tok")
}

// TestDeadline reads absolute and relative deadlines (relative to the
// service's clock, 1000) and refuses what is neither.
func TestDeadline(t *testing.T) {
	c := fake(t, new(service.SubmitRequest))
	ctx := context.Background()
	for in, want := range map[string]int64{"500": 500, "+1h": 4600, "+90": 1090} {
		if got, err := Deadline(ctx, c, in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	if _, err := Deadline(ctx, c, "tomorrow"); err == nil || err.Error() != `--deadline "tomorrow": expected +DURATION or seconds` {
		t.Errorf("tomorrow: %v", err)
	}
}

// TestSubmitRequest checks the request built from the flags: the
// estimate in seconds, an unset priority left out, a relative deadline
// resolved, the command quoted; a missing estimate is refused.
func TestSubmitRequest(t *testing.T) {
	var got service.SubmitRequest
	c := fake(t, &got)
	s := Submit{Procs: 4, Estimate: "1:30", Deadline: "+60", Priority: -1, Name: "n", Command: []string{"echo", "a b"}}
	var out bytes.Buffer
	if err := s.Run(context.Background(), c, &out, false); err != nil {
		t.Fatal(err)
	}
	if *got.Procs != 4 || *got.Estimate != 90 || *got.Deadline != 1060 || got.UserPriority != nil || got.Name != "n" || got.Command != "echo 'a b'" || got.Workdir == "" {
		t.Errorf("request %+v", got)
	}
	if _, err := (Submit{Procs: 1}).Request(context.Background(), c); err == nil || !strings.Contains(err.Error(), "-t/--time is required") {
		t.Errorf("no estimate: %v", err)
	}
}

// TestCancel goes on past a bad id and a refusal, and reports both.
func TestCancel(t *testing.T) {
	c := fake(t, new(service.SubmitRequest))
	var out bytes.Buffer
	err := Cancel(context.Background(), c, &out, []string{"x", "7", "8"}, false)
	if out.String() != "job 7: cancelled\n" {
		t.Errorf("output %q", out.String())
	}
	want := "job id \"x\" is not an integer\njob 8: HTTP 404: no such job"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestUserArgs refuses an action without its NAME and an unknown action
// before asking the service.
func TestUserArgs(t *testing.T) {
	c := service.NewClient("http://127.0.0.1:1", "tok")
	for args, want := range map[string]string{"add": "user add needs a NAME", "delete": "user delete needs a NAME", "drop bob": `unknown user action "drop" (add, set, list, delete)`} {
		err := User{PP: -1, Quota: -1}.Run(context.Background(), c, io.Discard, strings.Fields(args), false)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// TestConn resolves the token from a flag, a file (trimmed) or the
// environment, and refuses to connect without one.
func TestConn(t *testing.T) {
	t.Setenv("BACKFILL_SERVER", "")
	t.Setenv("BACKFILL_TOKEN", "")
	t.Setenv("BACKFILL_TOKEN_FILE", "")
	if _, err := (Conn{}).Client(); err == nil || !strings.HasPrefix(err.Error(), "no API token") {
		t.Errorf("no token: %v", err)
	}
	file := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(file, []byte(" bf_1\n"), 0o600)
	c, err := Conn{TokenFile: file}.Client()
	if err != nil || c.Token != "bf_1" || c.Base != DefaultServer {
		t.Errorf("token file: %+v %v", c, err)
	}
	t.Setenv("BACKFILL_TOKEN", "bf_env")
	t.Setenv("BACKFILL_SERVER", "http://h:1")
	if c, err := (Conn{}).Client(); err != nil || c.Token != "bf_env" || c.Base != "http://h:1" {
		t.Errorf("environment: %+v %v", c, err)
	}
	if c, err := (Conn{Token: "bf_flag", TokenFile: file}).Client(); err != nil || c.Token != "bf_flag" {
		t.Errorf("flag: %+v %v", c, err)
	}
}
