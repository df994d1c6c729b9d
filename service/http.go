package service

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/backfill-hpc/backfill/service/store"
)

//go:embed openapi.json
var openapiDoc []byte

// OpenAPI returns the OpenAPI 3 document of the API.
func OpenAPI() []byte { return openapiDoc }

// apiError is an error with an HTTP status.
type apiError struct {
	Status int
	Msg    string
}

func (e *apiError) Error() string { return e.Msg }

func errf(status int, format string, a ...any) error {
	return &apiError{status, fmt.Sprintf(format, a...)}
}

// ErrorBody is the JSON body of every 4xx and 5xx answer.
type ErrorBody struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// fieldError is a validation error naming a field.
type fieldError struct {
	Field, Msg string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Msg }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeErr(w http.ResponseWriter, err error) {
	var ae *apiError
	var fe *fieldError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &fe):
		writeJSON(w, http.StatusBadRequest, ErrorBody{Error: fe.Error(), Field: fe.Field})
	case errors.As(err, &ae):
		writeJSON(w, ae.Status, ErrorBody{Error: ae.Msg})
	case errors.As(err, &mb):
		writeJSON(w, http.StatusRequestEntityTooLarge, ErrorBody{Error: fmt.Sprintf("request body larger than %d bytes", mb.Limit)})
	case errors.Is(err, ErrUnavailable):
		writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: err.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, ErrorBody{Error: err.Error()})
	}
}

// SubmitRequest is the body of POST /v1/jobs.
type SubmitRequest struct {
	Procs    *int   `json:"procs"`
	Estimate *int64 `json:"estimate"`
	// UserPriority is the user priority UP in [0, 1] (Talby & Feitelson).
	UserPriority *float64 `json:"user_priority,omitempty"`
	// PoliticalPriority overrides the user's PP (admins only).
	PoliticalPriority *float64 `json:"political_priority,omitempty"`
	// Deadline is an absolute time (seconds) by which the job must end.
	Deadline *int64 `json:"deadline,omitempty"`
	Command  string `json:"command,omitempty"`
	Name     string `json:"name,omitempty"`
	// Workdir is the absolute directory the job was submitted from; the
	// local executor runs the command there (as sbatch does), so that a
	// relative command such as ./job.sh is found.
	Workdir string `json:"workdir,omitempty"`
	// IdempotencyKey makes a retried submission return the first one.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// User submits on behalf of another user (admins only).
	User string `json:"user,omitempty"`
}

// Limits bound what DecodeSubmit accepts.
type Limits struct {
	Procs       int
	MaxEstimate int64
	Now         int64
}

// Longest accepted strings.
const (
	maxName    = 256
	maxKey     = 128
	maxCommand = 32 << 10
	maxUser    = 64
	maxPath    = 4096
)

// DecodeSubmit parses and validates a submission body. Errors are
// *fieldError (a bad value, naming the field) or *apiError (malformed
// JSON); it never panics, whatever the input.
func DecodeSubmit(body []byte, lim Limits) (SubmitRequest, error) {
	var r SubmitRequest
	if err := strictUnmarshal(body, &r); err != nil {
		return r, err
	}
	return r, r.validate(lim)
}

func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return errf(400, "malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te) && te.Field == "":
		return errf(400, "malformed JSON: expected an object, found %s", te.Value)
	case errors.As(err, &te):
		return &fieldError{te.Field, fmt.Sprintf("expected %s, found JSON %s", jsonType(te.Type.Kind()), te.Value)}
	case errors.Is(err, io.EOF):
		return errf(400, "empty body: expected a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errf(400, "malformed JSON: unexpected end of the body")
	}
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return err
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if f, uerr := strconv.Unquote(f); uerr == nil && f != "" {
			return &fieldError{f, "unknown field (names are case-sensitive; see /v1/openapi.json)"}
		}
	}
	return errf(400, "malformed JSON: %v", err)
}

func jsonType(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return k.String()
}

func checkString(field, s string, maxLen int) error {
	if len(s) > maxLen {
		return &fieldError{field, fmt.Sprintf("longer than %d bytes", maxLen)}
	}
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return &fieldError{field, "must be valid UTF-8 without NUL characters"}
	}
	return nil
}

func (r *SubmitRequest) validate(lim Limits) error {
	switch {
	case r.Procs == nil:
		return &fieldError{"procs", "required: the number of processors (1 to " + strconv.Itoa(lim.Procs) + ")"}
	case *r.Procs < 1:
		return &fieldError{"procs", fmt.Sprintf("must be at least 1, got %d", *r.Procs)}
	case *r.Procs > lim.Procs:
		return &fieldError{"procs", fmt.Sprintf("%d processors requested; the machine has %d", *r.Procs, lim.Procs)}
	case r.Estimate == nil:
		return &fieldError{"estimate", "required: the runtime estimate in seconds (the job is killed when it has run this long)"}
	case *r.Estimate < 1:
		return &fieldError{"estimate", fmt.Sprintf("must be at least 1 second, got %d", *r.Estimate)}
	case *r.Estimate > lim.MaxEstimate:
		return &fieldError{"estimate", fmt.Sprintf("%d s is longer than the longest accepted, %d s", *r.Estimate, lim.MaxEstimate)}
	}
	for _, p := range []struct {
		f string
		v *float64
	}{{"user_priority", r.UserPriority}, {"political_priority", r.PoliticalPriority}} {
		if p.v != nil && (!finite(*p.v) || *p.v < 0 || *p.v > 1) {
			return &fieldError{p.f, fmt.Sprintf("must be in [0, 1], got %v", *p.v)}
		}
	}
	if r.Deadline != nil {
		d := *r.Deadline
		switch {
		case d <= lim.Now:
			return &fieldError{"deadline", fmt.Sprintf("%d is not in the future (now is %d)", d, lim.Now)}
		case d-lim.Now < *r.Estimate:
			return &fieldError{"deadline", fmt.Sprintf("%d is sooner than now (%d) + the estimate (%d s): it cannot be met", d, lim.Now, *r.Estimate)}
		}
	}
	if err := checkString("name", r.Name, maxName); err != nil {
		return err
	}
	if err := checkString("command", r.Command, maxCommand); err != nil {
		return err
	}
	if err := checkString("idempotency_key", r.IdempotencyKey, maxKey); err != nil {
		return err
	}
	if err := checkString("user", r.User, maxUser); err != nil {
		return err
	}
	if err := checkString("workdir", r.Workdir, maxPath); err != nil {
		return err
	}
	if r.Workdir != "" && (!filepath.IsAbs(r.Workdir) || filepath.Clean(r.Workdir) != r.Workdir) {
		return &fieldError{"workdir", fmt.Sprintf("%q must be an absolute, clean path", r.Workdir)}
	}
	return nil
}

// JobView is a job as the API shows it.
type JobView struct {
	ID       int64  `json:"id"`
	User     string `json:"user"`
	Name     string `json:"name,omitempty"`
	Procs    int    `json:"procs"`
	Estimate int64  `json:"estimate"`
	Submit   int64  `json:"submit"`
	State    State  `json:"state"`
	Admitted bool   `json:"admitted"`
	Reason   string `json:"reason,omitempty"`
	// ReservedStart is the start the policy currently plans (waiting
	// jobs, policies that plan).
	ReservedStart *int64 `json:"reserved_start,omitempty"`
	// GuaranteedStart is the latest start promised at submission.
	GuaranteedStart   *int64   `json:"guaranteed_start,omitempty"`
	Deadline          *int64   `json:"deadline,omitempty"`
	Start             *int64   `json:"start,omitempty"`
	End               *int64   `json:"end,omitempty"`
	Limit             *int64   `json:"limit,omitempty"`
	ExitCode          *int     `json:"exit_code,omitempty"`
	UserPriority      float64  `json:"user_priority"`
	PoliticalPriority *float64 `json:"political_priority,omitempty"`
	OverQuota         bool     `json:"over_quota,omitempty"`
	Command           string   `json:"command,omitempty"`
	Workdir           string   `json:"workdir,omitempty"`
	IdempotencyKey    string   `json:"idempotency_key,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// view is the API's view of job j (s.mu held: the engine's planned start).
func (s *Service) view(j *Job) JobView { return viewOf(j, s.eng.Planned(j)) }

// viewOf is the API's view of job j with planned start p (-1: none).
func viewOf(j *Job, p int64) JobView {
	v := JobView{ID: j.ID(), User: j.User, Name: j.Name, Procs: j.Req.Procs, Estimate: j.Req.Estimate,
		Submit: j.Req.Submit, State: j.State, Admitted: j.State != Rejected, Reason: j.Reason,
		ExitCode: j.ExitCode, UserPriority: j.Req.UP, OverQuota: j.OverQuota, Command: j.Command, Workdir: j.Workdir, IdempotencyKey: j.Key}
	if !math.IsInf(j.Req.PP, -1) {
		v.PoliticalPriority = ptr(j.Req.PP)
	}
	if p >= 0 {
		v.ReservedStart = ptr(p)
	}
	if j.Guarantee >= 0 {
		v.GuaranteedStart = ptr(j.Guarantee)
	}
	if j.Req.Deadline > 0 {
		v.Deadline = ptr(j.Req.Deadline)
	}
	if j.Start >= 0 {
		v.Start = ptr(j.Start)
		v.Limit = ptr(j.Limit())
	}
	if j.End >= 0 {
		v.End = ptr(j.End)
	}
	return v
}

// auth returns the user of the request's bearer token.
func (s *Service) auth(r *http.Request) (store.User, error) {
	// the scheme is case-insensitive (RFC 7235 §2.1), separated from the
	// token by one or more spaces
	scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimSpace(tok)
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return store.User{}, errf(401, "missing token: send the header \"Authorization: Bearer <token>\"")
	}
	s.umu.Lock()
	u, ok := s.users[HashToken(tok)]
	var c store.User
	if ok {
		c = *u
	}
	s.umu.Unlock()
	if !ok {
		return store.User{}, errf(401, "invalid token")
	}
	return c, nil
}

// Handler returns the HTTP API.
//
// Bodies are read under a deadline (Config.BodyTimeout from the end of the
// headers) and only for authenticated requests: a request without a valid
// token is answered at once with "Connection: close", its body never read
// (net/http would otherwise drain up to 256 KiB of it, as slowly as the
// client sends it). Requests to endpoints that take no body are treated
// the same way.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes = []string{"GET /v1/health", "GET /v1/openapi.json", "GET /metrics"}
	route := func(pattern string, admin bool, h func(w http.ResponseWriter, r *http.Request, u store.User) error) {
		s.routes = append(s.routes, pattern)
		hist := s.met.request.WithLabelValues(pattern)
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			t0 := time.Now()
			defer func() { hist.Observe(time.Since(t0).Seconds()) }()
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
			if !s.isReady() {
				s.notReady(w, r)
				return
			}
			u, err := s.auth(r)
			if err != nil {
				refuseBody(w, r)
			} else if admin && !u.Admin {
				err = errf(403, "this operation needs an admin token")
				refuseBody(w, r)
			}
			if err == nil {
				err = checkQuery(r, queryParams[pattern])
				if err != nil {
					refuseBody(w, r)
				}
			}
			if err == nil {
				err = h(w, r, u)
			}
			if err != nil {
				writeErr(w, err)
			}
		})
	}
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openapiDoc)
	})
	mux.Handle("GET /metrics", s.met.handler())
	route("POST /v1/jobs", false, s.submit)
	route("GET /v1/jobs", false, s.list)
	route("GET /v1/jobs/{id}", false, s.get)
	route("DELETE /v1/jobs/{id}", false, s.cancel)
	route("POST /v1/jobs/{id}/end", true, s.end)
	route("GET /v1/schedule", false, s.schedule)
	route("GET /v1/decisions", true, s.decisions)
	route("POST /v1/clock", true, s.setClock)
	route("POST /v1/reconfigure", true, s.reconfigure)
	route("GET /v1/users", true, s.listUsers)
	route("POST /v1/users", true, s.createUser)
	route("PATCH /v1/users/{name}", true, s.patchUser)
	route("DELETE /v1/users/{name}", true, s.deleteUser)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		refuseBody(w, r)
		// the methods the path has (405 and Allow, RFC 9110 §15.5.6)
		var allow []string
		for _, m := range []string{"GET", "POST", "PATCH", "DELETE"} {
			probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
			if _, p := mux.Handler(probe); p != "/" && p != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			if slices.Contains(allow, "GET") {
				allow = append(allow, "HEAD")
			}
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeJSON(w, http.StatusMethodNotAllowed, ErrorBody{Error: "method " + r.Method + " not allowed on " + r.URL.Path + " (allowed: " + strings.Join(allow, ", ") + ")"})
			return
		}
		writeJSON(w, http.StatusNotFound, ErrorBody{Error: "no such endpoint: " + r.Method + " " + r.URL.Path + " (see /v1/openapi.json)"})
	})
	bodyTimeout := s.cfg.BodyTimeout
	limited := s.over.wrap(mux) // backpressure.go
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			// the whole body must arrive within the body timeout
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
			_, p := mux.Handler(r)
			admin, takesBody := bodyRoutes[p]
			if u, err := s.auth(r); !takesBody || err != nil || (admin && !u.Admin) {
				refuseBody(w, r) // the route answers 404/405, 401 or 403
			} else {
				// read an authenticated body before the in-flight limit:
				// a slow body holds a connection (capped per client), not
				// one of the request slots everyone shares
				r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
				b, err := readBody(r)
				if err != nil {
					w.Header().Set("Connection", "close")
					writeErr(w, err)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
			}
		}
		limited.ServeHTTP(w, r)
	})
}

// queryParams are the query parameters each endpoint takes; any other is
// refused (400 naming it), as is one given twice: a client that sends a
// parameter believes it has an effect.
var queryParams = map[string][]string{
	"GET /v1/jobs":            {"state", "user", "limit"},
	"GET /v1/decisions":       {"after", "wait"},
	"DELETE /v1/users/{name}": {"jobs"},
}

// checkQuery refuses a query parameter not in allowed, or one given twice.
func checkQuery(r *http.Request, allowed []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errf(400, "malformed query string: %v", err)
	}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names) // the first offending name, deterministically
	for _, k := range names {
		if !slices.Contains(allowed, k) {
			what := "takes no query parameters"
			if len(allowed) > 0 {
				what = "takes only " + strings.Join(allowed, ", ")
			}
			return &fieldError{k, fmt.Sprintf("unknown query parameter (%s %s %s; names are case-sensitive)", r.Method, r.URL.Path, what)}
		}
		if len(q[k]) > 1 {
			return &fieldError{k, fmt.Sprintf("query parameter given %d times; give it once (a list is comma-separated)", len(q[k]))}
		}
	}
	return nil
}

// parseJobID parses a public job id: a canonical decimal integer ≥ 1
// (digits only, no sign, no leading zero), so that one job has one name.
func parseJobID(s string) (int64, bool) {
	if s == "" || len(s) > 19 || s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// bodyRoutes are the endpoints that read a request body, and whether
// they need an admin token.
var bodyRoutes = map[string]bool{"POST /v1/jobs": false, "POST /v1/jobs/{id}/end": true, "POST /v1/clock": true, "POST /v1/reconfigure": true,
	"POST /v1/users": true, "PATCH /v1/users/{name}": true}

// refuseBody makes sure the request's body is never read: the connection
// is closed after the answer, and reads fail at once (net/http's own
// draining included).
func refuseBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// Health is the answer of GET /v1/health.
type Health struct {
	Status   string `json:"status"`
	Now      int64  `json:"now"`
	Policy   string `json:"policy"`
	Procs    int    `json:"procs"`
	Executor string `json:"executor"`
	Waiting  int    `json:"waiting"`
	Running  int    `json:"running"`
	Busy     int    `json:"busy_processors"`
}

func (s *Service) health(w http.ResponseWriter, r *http.Request) {
	h, status := s.healthNow()
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, h)
}

// healthNow is the health answer and its status (from the read view:
// it never waits for the engine). While the state is rebuilt after a
// restart the status is "recovering" (503).
func (s *Service) healthNow() (Health, int) {
	v := s.readView()
	h := Health{Status: v.status, Now: v.now, Policy: v.policy, Procs: v.procs, Executor: s.cfg.Executor, Waiting: v.waiting, Running: v.running, Busy: v.busy}
	if s.isReady() {
		h.Executor = s.exec.Name()
	}
	status := 200
	switch {
	case s.Fatal() != nil:
		h.Status, status = "unavailable", 503
	case v.status != "ok":
		status = 503
		select {
		case <-s.ready:
			h.Status = "failed" // the state could not be rebuilt
		default:
		}
	}
	return h, status
}

// notReady answers a request while the state is rebuilt (or could not
// be): 503 with Retry-After. Reads are not served from the latest
// snapshot meanwhile: it lacks the log's tail, so jobs acknowledged after
// it would look lost.
func (s *Service) notReady(w http.ResponseWriter, r *http.Request) {
	refuseBody(w, r)
	msg := "recovering: the service is rebuilding its state from its log; retry after 1 s"
	select {
	case <-s.ready:
		msg = "unavailable: the state could not be rebuilt from the log (see the service's log); restart it"
	default:
	}
	w.Header().Set("Retry-After", "1")
	writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: msg})
}

func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, err
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, errf(http.StatusRequestTimeout, "the body did not arrive within the body timeout")
		}
		return nil, errf(400, "reading the body: %v", err)
	}
	return b, nil
}

func (s *Service) submit(w http.ResponseWriter, r *http.Request, u store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	req, err := DecodeSubmit(body, Limits{Procs: s.readView().procs, MaxEstimate: s.cfg.MaxEstimate, Now: now})
	if err != nil {
		return err
	}
	owner := u
	if req.User != "" && req.User != u.Name {
		if !u.Admin {
			return errf(403, "only an admin may submit for another user")
		}
		s.umu.Lock()
		o, ok := s.names[req.User]
		if ok {
			owner = *o
		}
		s.umu.Unlock()
		if !ok {
			return &fieldError{"user", fmt.Sprintf("no user %q", req.User)}
		}
	}
	if req.PoliticalPriority != nil && !u.Admin {
		return &fieldError{"political_priority", "only an admin may set political priorities"}
	}
	in := SubmitInput{UID: owner.ID, User: owner.Name, Workdir: req.Workdir, Procs: *req.Procs, Estimate: *req.Estimate, PP: owner.PP, Quota: owner.Quota,
		Name: req.Name, Command: req.Command, Key: req.IdempotencyKey}
	if req.UserPriority != nil {
		in.UP = *req.UserPriority
	}
	if req.PoliticalPriority != nil {
		in.PP = *req.PoliticalPriority
	}
	if req.Deadline != nil {
		in.Deadline = *req.Deadline
	}
	var v JobView
	status := http.StatusCreated
	var decision time.Duration
	var tm reqTiming
	t0 := time.Now()
	err = s.doTimed(func(e *Engine) error {
		if in.Procs > e.procs { // the machine shrank since the body was checked
			return &fieldError{"procs", fmt.Sprintf("%d processors requested; the machine has %d", in.Procs, e.procs)}
		}
		if in.Deadline != 0 && !e.Admits() {
			return &fieldError{"deadline", fmt.Sprintf("policy %s has no deadline admission control (use qops, msb or mrt)", e.Policy())}
		}
		if now < e.cur {
			now = e.cur // a request that read the clock just before a pass
		}
		if in.Key != "" {
			if j := e.ByKey(OwnerKey(in.UID, in.User), in.Key); j != nil {
				if f := sameSubmission(j, in, req); f != "" {
					return &apiError{409, fmt.Sprintf("idempotency key %q was used for job %d with a different %s; use a new key for a new job", in.Key, j.ID(), f)}
				}
				v, status = s.view(j), http.StatusOK
				return nil
			}
		}
		t1 := time.Now()
		j, err := e.Submit(now, in)
		if err != nil {
			return err
		}
		v = s.view(j)
		decision = time.Since(t1)
		s.met.decision.Observe(decision.Seconds())
		if j.State == Rejected {
			s.met.submits.WithLabelValues("rejected").Inc()
		} else {
			s.met.submits.WithLabelValues("admitted").Inc()
		}
		return nil
	}, &tm)
	if err != nil {
		return err
	}
	// Server-Timing (W3C): the policy's decision, where the rest went
	// (reqTiming) and the whole request, in milliseconds
	w.Header().Set("Server-Timing", tm.header(t0, "decision", decision))
	writeJSON(w, status, v)
	return nil
}

// sameSubmission compares a retried submission with the job its
// idempotency key names; it returns the first field that differs ("" if
// none). Every field the client gives must be the same.
func sameSubmission(j *Job, in SubmitInput, req SubmitRequest) string {
	switch {
	case j.Req.Procs != in.Procs:
		return "procs"
	case j.Req.Estimate != in.Estimate:
		return "estimate"
	case j.Req.UP != in.UP:
		return "user_priority"
	case j.Req.Deadline != in.Deadline:
		return "deadline"
	case j.Name != in.Name:
		return "name"
	case j.Command != in.Command:
		return "command"
	case j.Workdir != in.Workdir:
		return "workdir"
	case req.PoliticalPriority != nil && !j.OverQuota && j.Req.PP != *req.PoliticalPriority:
		return "political_priority"
	}
	return ""
}

// JobList is the answer of GET /v1/jobs.
type JobList struct {
	Now  int64     `json:"now"`
	Jobs []JobView `json:"jobs"`
}

func (s *Service) list(w http.ResponseWriter, r *http.Request, u store.User) error {
	q := r.URL.Query()
	var states []State
	if st := q.Get("state"); st != "" {
		for _, x := range strings.Split(st, ",") {
			x := State(strings.TrimSpace(x))
			if !slices.Contains([]State{Waiting, Running, Completed, Failed, Timeout, Cancelled, Rejected}, x) {
				return &fieldError{"state", fmt.Sprintf("unknown state %q (waiting, running, completed, failed, timeout, cancelled, rejected)", x)}
			}
			states = append(states, x)
		}
	}
	who := q.Get("user")
	if who != "" && who != u.Name && !u.Admin {
		return errf(403, "only an admin may list other users' jobs")
	}
	if who == "" && !u.Admin {
		who = u.Name
	}
	var whoUser store.User // the current user of that name (jobs are owned by ids)
	if who != "" {
		s.umu.Lock()
		if x, ok := s.names[who]; ok {
			whoUser = *x
		}
		s.umu.Unlock()
		if whoUser.ID == 0 && who == u.Name {
			whoUser = u
		}
	}
	limit := 0
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return &fieldError{"limit", "must be a non-negative integer"}
		}
		limit = n
	}
	// the waiting and running jobs, from the read view (never waiting
	// for the engine)
	v := s.readView()
	out := JobList{Now: v.now, Jobs: []JobView{}}
	v.each(func(j *Job) {
		if j.State.Final() { // in the archive, or soon
			return
		}
		if who != "" && !owns(whoUser, j) {
			return
		}
		if states != nil && !slices.Contains(states, j.State) {
			return
		}
		out.Jobs = append(out.Jobs, viewOf(j, v.plannedStart(j)))
	})
	// the finished jobs, from the archive (archive.go)
	var owners []string
	keep := func(*Job) bool { return true }
	if who != "" {
		owners = []string{OwnerKey(whoUser.ID, whoUser.Name), whoUser.Name}
		keep = func(j *Job) bool { return owns(whoUser, j) }
	}
	arch, err := s.archivedViews(owners, keep, states, limit)
	if err != nil {
		return err
	}
	out.Jobs = mergeViews(out.Jobs, arch)
	if limit > 0 && len(out.Jobs) > limit {
		out.Jobs = out.Jobs[len(out.Jobs)-limit:]
	}
	writeJSON(w, 200, out)
	return nil
}

// owns reports whether u owns j: by user id, never by name (a user
// created with a deleted user's name does not get their jobs). Jobs of
// logs written before user ids (UID 0) go by name.
func owns(u store.User, j *Job) bool {
	if j.UID != 0 {
		return u.ID != 0 && j.UID == u.ID
	}
	return u.Name != "" && j.User == u.Name
}

// jobOf finds the job of the request's path, visible to u.
func (s *Service) jobOf(r *http.Request, u store.User) (*Job, error) {
	id, ok := parseJobID(r.PathValue("id"))
	if !ok {
		return nil, errf(400, "job id %q is not a job id: expected a decimal integer ≥ 1 without sign or leading zeros", r.PathValue("id"))
	}
	j := s.eng.Job(id)
	if j == nil || (!u.Admin && !owns(u, j)) {
		// another user's job is reported as absent, not forbidden
		return nil, errf(404, "no job %d", id)
	}
	return j, nil
}

func (s *Service) get(w http.ResponseWriter, r *http.Request, u store.User) error {
	// from the read view, or the archive for a finished job: never under
	// the engine lock
	id, ok := parseJobID(r.PathValue("id"))
	if !ok {
		return errf(400, "job id %q is not a job id: expected a decimal integer ≥ 1 without sign or leading zeros", r.PathValue("id"))
	}
	v := s.readView()
	j := v.job(int(id - 1))
	p := int64(-1)
	if j != nil {
		p = v.plannedStart(j)
	} else if id <= int64(v.njobs) {
		j = s.archivedNoLock(r.PathValue("id"))
	}
	if j == nil || (!u.Admin && !owns(u, j)) {
		// another user's job is reported as absent, not forbidden
		return errf(404, "no job %d", id)
	}
	writeJSON(w, 200, viewOf(j, p))
	return nil
}

func (s *Service) cancel(w http.ResponseWriter, r *http.Request, u store.User) error {
	var v JobView
	var tm reqTiming
	t0 := time.Now()
	now := s.clock.Now()
	err := s.doTimed(func(e *Engine) error {
		j, err := s.jobOf(r, u)
		if err != nil {
			return err
		}
		if _, err := e.Cancel(max(now, e.cur), j); err != nil {
			return err
		}
		v = s.view(j)
		return nil
	}, &tm)
	if err != nil {
		return err
	}
	w.Header().Set("Server-Timing", tm.header(t0))
	writeJSON(w, 200, v)
	return nil
}

// EndRequest is the body of POST /v1/jobs/{id}/end.
type EndRequest struct {
	ExitCode *int   `json:"exit_code,omitempty"`
	Note     string `json:"note,omitempty"`
}

func decodeStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return strictUnmarshal(body, v)
}

func (s *Service) end(w http.ResponseWriter, r *http.Request, u store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req EndRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if err := checkString("note", req.Note, maxName); err != nil {
		return err
	}
	if req.ExitCode != nil && (*req.ExitCode < 0 || *req.ExitCode > 255) {
		return &fieldError{"exit_code", fmt.Sprintf("must be in [0, 255] (a process killed by signal N reports 128+N), got %d", *req.ExitCode)}
	}
	var v JobView
	now := s.clock.Now()
	err = s.do(func(e *Engine) error {
		j, err := s.jobOf(r, u)
		if err != nil {
			return err
		}
		if j.State == Waiting || j.State == Rejected {
			return errf(409, "job %d is %s: only a running job can end", j.ID(), j.State)
		}
		if _, err := e.End(max(now, e.cur), j, req.ExitCode, req.Note); err != nil {
			return err
		}
		v = s.view(j)
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, 200, v)
	return nil
}

// Schedule is the Gantt view of GET /v1/schedule: one bar per running or
// planned job over [start, end) on procs processors, end = start +
// estimate (the latest end, as the policy plans). Waiting jobs without a
// reservation (EASY plans only its first jobs) are listed apart.
type Schedule struct {
	Now      int64     `json:"now"`
	Procs    int       `json:"procs"`
	Policy   string    `json:"policy"`
	Bars     []Bar     `json:"jobs"`
	Unplaced []JobView `json:"unplanned"`
}

// Bar is one job of the Gantt view. Other users' jobs are shown without
// id, user or name.
type Bar struct {
	ID        int64  `json:"id,omitempty"`
	User      string `json:"user,omitempty"`
	Name      string `json:"name,omitempty"`
	Procs     int    `json:"procs"`
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	State     string `json:"state"` // running or reserved
	Guarantee *int64 `json:"guaranteed_start,omitempty"`
	Deadline  *int64 `json:"deadline,omitempty"`
	Mine      bool   `json:"mine"`
}

func (s *Service) schedule(w http.ResponseWriter, r *http.Request, u store.User) error {
	v := s.readView() // never waits for the engine
	out := Schedule{Now: v.now, Procs: v.procs, Policy: v.policy, Bars: []Bar{}, Unplaced: []JobView{}}
	bar := func(j *Job, start int64, state string) Bar {
		b := Bar{Procs: j.Req.Procs, Start: start, End: start + j.Req.Estimate, State: state, Mine: u.Admin || owns(u, j)}
		if b.Mine {
			b.ID, b.User, b.Name = j.ID(), j.User, j.Name
			if j.Guarantee >= 0 {
				b.Guarantee = ptr(j.Guarantee)
			}
			if j.Req.Deadline > 0 {
				b.Deadline = ptr(j.Req.Deadline)
			}
		}
		return b
	}
	v.each(func(j *Job) {
		if j.State == Running {
			out.Bars = append(out.Bars, bar(j, j.Start, "running"))
		}
	})
	planned := make(map[int]bool, len(v.resv))
	for _, r := range v.resv {
		if j := v.job(r.id); j != nil && j.State == Waiting {
			planned[r.id] = true
			out.Bars = append(out.Bars, bar(j, r.start, "reserved"))
		}
	}
	v.each(func(j *Job) {
		if j.State == Waiting && !planned[j.Req.ID] && (u.Admin || owns(u, j)) {
			out.Unplaced = append(out.Unplaced, viewOf(j, -1))
		}
	})
	slices.SortStableFunc(out.Bars, func(a, b Bar) int {
		if a.Start != b.Start {
			if a.Start < b.Start {
				return -1
			}
			return 1
		}
		return 0
	})
	writeJSON(w, 200, out)
	return nil
}

// DecisionList is the answer of GET /v1/decisions.
type DecisionList struct {
	Now       int64      `json:"now"`
	Decisions []Decision `json:"decisions"`
	// Next is the cursor for the following call (after=Next).
	Next int64 `json:"next"`
}

func (s *Service) decisions(w http.ResponseWriter, r *http.Request, u store.User) error {
	q := r.URL.Query()
	var after int64
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 0 {
			return &fieldError{"after", "must be a non-negative integer"}
		}
		after = n
	}
	var wait time.Duration
	if ws := q.Get("wait"); ws != "" {
		n, err := strconv.Atoi(ws)
		if err != nil || n < 0 || n > 60 {
			return &fieldError{"wait", "must be an integer number of seconds in [0, 60]"}
		}
		wait = time.Duration(n) * time.Second
	}
	deadline := time.After(wait)
	for {
		// the channel first: a decision committed after the view is read
		// closes it
		s.decMu.Lock()
		ch := s.newDec
		s.decMu.Unlock()
		v := s.readView()
		ds := committedDecisions(v.decisions, after, s.committed.Load())
		now := v.now
		if len(ds) > 0 || wait == 0 {
			out := DecisionList{Now: now, Decisions: ds, Next: after}
			if len(ds) > 0 {
				out.Next = ds[len(ds)-1].Seq
			} else {
				out.Decisions = []Decision{}
			}
			writeJSON(w, 200, out)
			return nil
		}
		select {
		case <-ch:
		case <-deadline:
			wait = 0
		case <-r.Context().Done():
			return nil
		}
	}
}

// ClockRequest is the body of POST /v1/clock.
type ClockRequest struct {
	Now  *int64 `json:"now"`
	Pass bool   `json:"pass,omitempty"`
}

func (s *Service) setClock(w http.ResponseWriter, r *http.Request, u store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req ClockRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if req.Now == nil {
		return &fieldError{"now", "required: the new time in seconds"}
	}
	if _, ok := s.clock.(*ManualClock); !ok {
		return errf(409, "the service runs on the wall clock; start it with --clock manual to set the time")
	}
	res, err := s.SetClock(*req.Now, req.Pass)
	if err != nil {
		return err
	}
	writeJSON(w, 200, res)
	return nil
}

// UserView is a user as the API shows it (never the token).
type UserView struct {
	Name  string  `json:"name"`
	Admin bool    `json:"admin"`
	PP    float64 `json:"political_priority"`
	Quota int64   `json:"quota"`
	// Token is returned once, when the user is created or its token
	// replaced.
	Token string `json:"token,omitempty"`
}

// UserRequest is the body of POST /v1/users and PATCH /v1/users/{name}.
type UserRequest struct {
	Name       string   `json:"name,omitempty"`
	Admin      *bool    `json:"admin,omitempty"`
	PP         *float64 `json:"political_priority,omitempty"`
	Quota      *int64   `json:"quota,omitempty"`
	ResetToken bool     `json:"reset_token,omitempty"`
}

func (s *Service) listUsers(w http.ResponseWriter, r *http.Request, u store.User) error {
	s.umu.Lock()
	out := []UserView{}
	for _, x := range s.names {
		out = append(out, UserView{Name: x.Name, Admin: x.Admin, PP: x.PP, Quota: x.Quota})
	}
	s.umu.Unlock()
	slices.SortFunc(out, func(a, b UserView) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, 200, out)
	return nil
}

func validName(n string) error {
	if n == "" || len(n) > maxUser {
		return &fieldError{"name", fmt.Sprintf("must have 1 to %d characters", maxUser)}
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &fieldError{"name", fmt.Sprintf("%q: only letters, digits, '_', '-' and '.'", n)}
		}
	}
	return nil
}

func (req *UserRequest) apply(u *store.User) error {
	if req.PP != nil {
		if !finite(*req.PP) || *req.PP < 0 || *req.PP > 1 {
			return &fieldError{"political_priority", fmt.Sprintf("must be in [0, 1], got %v", *req.PP)}
		}
		u.PP = *req.PP
	}
	if req.Quota != nil {
		if *req.Quota < 0 {
			return &fieldError{"quota", "must be ≥ 0 processor-seconds (0: no quota)"}
		}
		u.Quota = *req.Quota
	}
	if req.Admin != nil {
		u.Admin = *req.Admin
	}
	return nil
}

func (s *Service) createUser(w http.ResponseWriter, r *http.Request, _ store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req UserRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if err := validName(req.Name); err != nil {
		return err
	}
	tok := NewToken()
	nu := store.User{Name: req.Name, TokenHash: HashToken(tok), Created: s.clock.Now()}
	if err := req.apply(&nu); err != nil {
		return err
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	if _, ok := s.names[req.Name]; ok {
		return errf(409, "user %q exists (PATCH it, with reset_token to get a new token)", req.Name)
	}
	if nu.ID, err = s.st.NextUserID(); err != nil {
		return err
	}
	if err := s.st.PutUser(nu); err != nil {
		return err
	}
	s.users[nu.TokenHash], s.names[nu.Name] = &nu, &nu
	writeJSON(w, 201, UserView{Name: nu.Name, Admin: nu.Admin, PP: nu.PP, Quota: nu.Quota, Token: tok})
	return nil
}

func (s *Service) patchUser(w http.ResponseWriter, r *http.Request, _ store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req UserRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	name := r.PathValue("name")
	if req.Name != "" && req.Name != name {
		return &fieldError{"name", "a user cannot be renamed"}
	}
	s.umu.Lock()
	defer s.umu.Unlock()
	old, ok := s.names[name]
	if !ok {
		return errf(404, "no user %q", name)
	}
	nu := *old
	if err := req.apply(&nu); err != nil {
		return err
	}
	if name == "admin" && !nu.Admin {
		return &fieldError{"admin", "the admin user stays an admin"}
	}
	tok := ""
	if req.ResetToken {
		tok = NewToken()
		nu.TokenHash = HashToken(tok)
		if nu.Name == "admin" {
			// the CLI reads the admin token from its file: keep it current
			// (written before the database, so a failure changes nothing)
			if err := writeSecret(s.adminTokenPath(), tok); err != nil {
				return fmt.Errorf("rewriting the admin token file: %w", err)
			}
		}
	}
	if err := s.st.PutUser(nu); err != nil {
		return err
	}
	delete(s.users, old.TokenHash)
	s.users[nu.TokenHash], s.names[nu.Name] = &nu, &nu
	writeJSON(w, 200, UserView{Name: nu.Name, Admin: nu.Admin, PP: nu.PP, Quota: nu.Quota, Token: tok})
	return nil
}

func (s *Service) deleteUser(w http.ResponseWriter, r *http.Request, admin store.User) error {
	name := r.PathValue("name")
	if name == "admin" {
		return errf(409, "the admin user cannot be deleted")
	}
	jobs := r.URL.Query().Get("jobs")
	switch jobs {
	case "", "cancel", "reassign":
	default:
		return &fieldError{"jobs", fmt.Sprintf("must be cancel (the default) or reassign, got %q", jobs)}
	}
	// the user goes first (no new submissions with their token), then
	// their waiting and running jobs are cancelled (or, with
	// ?jobs=reassign, given to the admin user), recorded in the log:
	// nothing of theirs keeps running unowned
	s.umu.Lock()
	old, ok := s.names[name]
	var gone, adm store.User
	if ok {
		gone = *old
	}
	if a := s.names["admin"]; a != nil {
		adm = *a
	}
	if !ok {
		s.umu.Unlock()
		return errf(404, "no user %q", name)
	}
	if _, err := s.st.DeleteUser(name); err != nil {
		s.umu.Unlock()
		return err
	}
	delete(s.users, gone.TokenHash)
	delete(s.names, name)
	s.umu.Unlock()
	var mine []int64
	err := s.do(func(e *Engine) error {
		note := fmt.Sprintf("owner %s (user id %d) deleted", gone.Name, gone.ID)
		for _, j := range e.jobs.Slice() {
			if j == nil || j.State.Final() || !owns(gone, j) {
				continue
			}
			mine = append(mine, j.ID())
			if jobs == "reassign" {
				e.SetOwner(j, adm.ID, adm.Name, note+"; reassigned to admin")
			} else if _, err := e.CancelNote(max(s.clock.Now(), e.cur), j, note); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	action := "cancelled"
	if jobs == "reassign" {
		action = "reassigned to admin"
	}
	s.log.Info("user deleted", "user", name, "uid", gone.ID, "jobs", len(mine), "action", action, "by", admin.Name)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
