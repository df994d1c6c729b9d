package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls the service's API (the CLI's submit, queue and cancel, the
// load generator, the tests).
type Client struct {
	// Base is the server's URL, e.g. http://127.0.0.1:8470.
	Base  string
	Token string
	HTTP  *http.Client
}

// NewClient returns a client for base with token.
func NewClient(base, token string) *Client {
	return &Client{Base: strings.TrimRight(base, "/"), Token: token, HTTP: &http.Client{Timeout: 70 * time.Second}}
}

// APIError is an error answer of the API.
type APIError struct {
	Status int
	Body   ErrorBody
}

func (e *APIError) Error() string {
	if e.Body.Error == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body.Error)
}

// Do sends a request with a JSON body (nil for none) and decodes the JSON
// answer into out (nil to discard). A Client is safe for concurrent use.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	_, err := c.do(ctx, method, path, body, out)
	return err
}

// do is Do, also returning the answer's headers.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.Header, err
	}
	if resp.StatusCode >= 400 {
		e := &APIError{Status: resp.StatusCode}
		_ = json.Unmarshal(data, &e.Body)
		return resp.Header, e
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.Header, fmt.Errorf("decoding the answer of %s %s: %w", method, path, err)
		}
	}
	return resp.Header, nil
}

// Submit submits a job.
func (c *Client) Submit(ctx context.Context, r SubmitRequest) (JobView, error) {
	var v JobView
	err := c.Do(ctx, "POST", "/v1/jobs", r, &v)
	return v, err
}

// SubmitTiming submits a job and also returns the answer's Server-Timing
// header (the policy's decision time, where the rest of the request's
// time went, and its total).
func (c *Client) SubmitTiming(ctx context.Context, r SubmitRequest) (JobView, string, error) {
	var v JobView
	h, err := c.do(ctx, "POST", "/v1/jobs", r, &v)
	return v, h.Get("Server-Timing"), err
}

// Job returns one job.
func (c *Client) Job(ctx context.Context, id int64) (JobView, error) {
	var v JobView
	err := c.Do(ctx, "GET", "/v1/jobs/"+strconv.FormatInt(id, 10), nil, &v)
	return v, err
}

// Jobs lists jobs; states and user may be empty.
func (c *Client) Jobs(ctx context.Context, states, user string) (JobList, error) {
	q := url.Values{}
	if states != "" {
		q.Set("state", states)
	}
	if user != "" {
		q.Set("user", user)
	}
	var l JobList
	p := "/v1/jobs"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	err := c.Do(ctx, "GET", p, nil, &l)
	return l, err
}

// Cancel cancels a job.
func (c *Client) Cancel(ctx context.Context, id int64) (JobView, error) {
	var v JobView
	err := c.Do(ctx, "DELETE", "/v1/jobs/"+strconv.FormatInt(id, 10), nil, &v)
	return v, err
}

// CancelTiming cancels a job and also returns the answer's Server-Timing
// header (where the request's time went).
func (c *Client) CancelTiming(ctx context.Context, id int64) (JobView, string, error) {
	var v JobView
	h, err := c.do(ctx, "DELETE", "/v1/jobs/"+strconv.FormatInt(id, 10), nil, &v)
	return v, h.Get("Server-Timing"), err
}

// End reports the end of a running job (admin).
func (c *Client) End(ctx context.Context, id int64, exit *int) (JobView, error) {
	var v JobView
	err := c.Do(ctx, "POST", "/v1/jobs/"+strconv.FormatInt(id, 10)+"/end", EndRequest{ExitCode: exit}, &v)
	return v, err
}

// SetClock moves a manual clock (admin).
func (c *Client) SetClock(ctx context.Context, now int64, pass bool) (ClockResult, error) {
	var r ClockResult
	err := c.Do(ctx, "POST", "/v1/clock", ClockRequest{Now: &now, Pass: pass}, &r)
	return r, err
}

// Schedule returns the Gantt view.
func (c *Client) Schedule(ctx context.Context) (Schedule, error) {
	var s Schedule
	err := c.Do(ctx, "GET", "/v1/schedule", nil, &s)
	return s, err
}

// CreateUser creates a user and returns its token (admin).
func (c *Client) CreateUser(ctx context.Context, r UserRequest) (UserView, error) {
	var u UserView
	err := c.Do(ctx, "POST", "/v1/users", r, &u)
	return u, err
}

// Health returns the service's health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.Do(ctx, "GET", "/v1/health", nil, &h)
	return h, err
}

// Users lists the service's users (admin token).
func (c *Client) Users(ctx context.Context) ([]UserView, error) {
	var us []UserView
	err := c.Do(ctx, "GET", "/v1/users", nil, &us)
	return us, err
}

// UpdateUser changes user name's political priority, quota, admin flag or
// token (admin token).
func (c *Client) UpdateUser(ctx context.Context, name string, r UserRequest) (UserView, error) {
	var u UserView
	err := c.Do(ctx, "PATCH", "/v1/users/"+name, r, &u)
	return u, err
}

// DeleteUser removes user name; its waiting and running jobs are cancelled,
// or with reassign given to the admin user (admin token).
func (c *Client) DeleteUser(ctx context.Context, name string, reassign bool) error {
	path := "/v1/users/" + name
	if reassign {
		path += "?jobs=reassign"
	}
	return c.Do(ctx, "DELETE", path, nil, nil)
}
