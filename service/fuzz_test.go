package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var fuzzLimits = Limits{Procs: 64, MaxEstimate: 86400, Now: 1000}

// FuzzDecodeSubmit: the submission decoder never panics; it accepts only
// valid requests, rejects everything else with a 4xx error naming the
// problem, and what it accepts survives a round trip.
func FuzzDecodeSubmit(f *testing.F) {
	for _, s := range []string{
		`{"procs": 4, "estimate": 60}`,
		`{"procs": 64, "estimate": 86400, "user_priority": 1, "deadline": 200000, "name": "x", "command": "sleep 1", "idempotency_key": "k"}`,
		`{"procs": 0, "estimate": 60}`,
		`{"procs": 4, "estimate": 60, "deadline": 1000}`,
		`{"procs": 4, "estimate": 60} x`,
		`{"procs": 1e400}`,
		`{"procs": 4, "estimate": 60, "user_priority": NaN}`,
		`{"procs": 4, "estimate": 60, "name": "\u0000"}`,
		`{"procs": [], "estimate": {}}`,
		`null`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeSubmit(body, fuzzLimits)
		if err != nil {
			var fe *fieldError
			var ae *apiError
			switch {
			case errors.As(err, &fe):
				if fe.Field == "" || fe.Msg == "" {
					t.Fatalf("field error without field or message: %#v", fe)
				}
			case errors.As(err, &ae):
				if ae.Status < 400 || ae.Status >= 500 || ae.Msg == "" {
					t.Fatalf("error %d %q", ae.Status, ae.Msg)
				}
			default:
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if r.Procs == nil || *r.Procs < 1 || *r.Procs > fuzzLimits.Procs || r.Estimate == nil || *r.Estimate < 1 || *r.Estimate > fuzzLimits.MaxEstimate {
			t.Fatalf("accepted an invalid request: %s", body)
		}
		if r.Deadline != nil && *r.Deadline < fuzzLimits.Now+*r.Estimate {
			t.Fatalf("accepted an impossible deadline: %s", body)
		}
		if r.UserPriority != nil && !(*r.UserPriority >= 0 && *r.UserPriority <= 1) {
			t.Fatalf("accepted priority %v", *r.UserPriority)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := DecodeSubmit(again, fuzzLimits)
		if err != nil {
			t.Fatalf("round trip of %s: %v", again, err)
		}
		again2, _ := json.Marshal(r2)
		if !bytes.Equal(again, again2) {
			t.Fatalf("round trip changed %s into %s", again, again2)
		}
	})
}

// FuzzSubmitHandler sends arbitrary bodies to POST /v1/jobs of a live
// service: never a 5xx, always a JSON answer, and a 201 only for a job
// the service then lists.
func FuzzSubmitHandler(f *testing.F) {
	f.Add([]byte(`{"procs": 4, "estimate": 60}`))
	f.Add([]byte(`{"procs": 4, "estimate": 60, "idempotency_key": "a"}`))
	f.Add([]byte(`{"procs": 999, "estimate": 60}`))
	f.Add([]byte(`{"procs": 4, "estimate": 60, "user": "admin"}`))
	f.Add([]byte(`{"procs":`))
	dir := f.TempDir()
	svc, err := Open(Config{Policy: "conservative", Procs: 64, StateDir: dir, Sync: "normal", AdminToken: "adm", Clock: NewManualClock(1000), MaxBody: 4096})
	if err != nil {
		f.Fatal(err)
	}
	defer svc.Close()
	h := svc.Handler()
	// a user token
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/users", strings.NewReader(`{"name": "fuzz"}`))
	req.Header.Set("Authorization", "Bearer adm")
	h.ServeHTTP(rec, req)
	var u UserView
	if err := json.Unmarshal(rec.Body.Bytes(), &u); err != nil || u.Token == "" {
		f.Fatalf("creating the user: %d %s", rec.Code, rec.Body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/jobs", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+u.Token)
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 || (rec.Code != 200 && rec.Code != 201 && rec.Code != 400 && rec.Code != 403 && rec.Code != 409 && rec.Code != 413) {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("answer is not JSON: %s", rec.Body)
		}
		if rec.Code == http.StatusCreated {
			var v JobView
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || v.ID < 1 || v.User != "fuzz" {
				t.Fatalf("201 with %s", rec.Body)
			}
		}
	})
}
