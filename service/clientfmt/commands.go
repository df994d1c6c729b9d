package clientfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/service"
)

// DefaultServer is the service URL when neither a flag nor
// $BACKFILL_SERVER names one.
const DefaultServer = "http://127.0.0.1:8470"

// Conn is where a client command connects and with which token, as given
// by the flags --server, --token and --token-file (empty: not given).
type Conn struct {
	Server, Token, TokenFile string
}

// Client resolves the connection and returns a client of the service.
// An empty field falls back to its environment variable
// ($BACKFILL_SERVER, $BACKFILL_TOKEN, $BACKFILL_TOKEN_FILE); the server to
// DefaultServer. A token file's content is trimmed of white space. No
// token at all is an error. Connection errors carry a hint (HintTransport).
func (cn Conn) Client() (*service.Client, error) {
	server := orEnv(cn.Server, "BACKFILL_SERVER")
	if server == "" {
		server = DefaultServer
	}
	tok := orEnv(cn.Token, "BACKFILL_TOKEN")
	file := orEnv(cn.TokenFile, "BACKFILL_TOKEN_FILE")
	if tok == "" && file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		tok = strings.TrimSpace(string(b))
	}
	if tok == "" {
		return nil, errors.New("no API token: give --token, --token-file, or set BACKFILL_TOKEN")
	}
	c := service.NewClient(server, tok)
	c.HTTP.Transport = HintTransport{Base: http.DefaultTransport, Server: server}
	return c, nil
}

// orEnv returns s, or the environment variable env when s is empty.
func orEnv(s, env string) string {
	if s == "" {
		return os.Getenv(env)
	}
	return s
}

// Submit is a submission as the submit command's flags give it.
type Submit struct {
	Procs int
	// Estimate is required, a duration as ParseSeconds reads it.
	Estimate string
	// Deadline is +DURATION from the service's now, or an absolute time in
	// seconds; empty: none.
	Deadline string
	// Priority is the user priority in [0, 1]; negative: not given.
	Priority        float64
	Name, Key, User string
	// Command is run with /bin/sh -c in the current directory (empty: none).
	Command []string
}

// Request builds the submission's request, asking the service for its
// clock when the deadline is relative.
func (s Submit) Request(ctx context.Context, c *service.Client) (service.SubmitRequest, error) {
	if s.Estimate == "" {
		return service.SubmitRequest{}, errors.New("-t/--time is required: the runtime estimate")
	}
	est, err := ParseSeconds(s.Estimate)
	if err != nil {
		return service.SubmitRequest{}, err
	}
	procs := s.Procs
	req := service.SubmitRequest{Procs: &procs, Estimate: &est, Name: s.Name, IdempotencyKey: s.Key, User: s.User}
	if len(s.Command) > 0 {
		req.Command = ShellJoin(s.Command)
		// the local executor runs the command in the submit directory, as
		// sbatch does (./job.sh is found there)
		if wd, err := os.Getwd(); err == nil {
			req.Workdir = filepath.Clean(wd)
		}
	}
	if s.Priority >= 0 {
		p := s.Priority
		req.UserPriority = &p
	}
	if s.Deadline != "" {
		dl, err := Deadline(ctx, c, s.Deadline)
		if err != nil {
			return service.SubmitRequest{}, err
		}
		req.Deadline = &dl
	}
	return req, nil
}

// Run submits and writes the answer to w (as JSON with asJSON).
func (s Submit) Run(ctx context.Context, c *service.Client, w io.Writer, asJSON bool) error {
	req, err := s.Request(ctx, c)
	if err != nil {
		return err
	}
	v, err := c.Submit(ctx, req)
	if err != nil {
		return err
	}
	if asJSON {
		return JSON(w, v)
	}
	WriteSubmitted(w, v)
	return nil
}

// Deadline reads a deadline: +DURATION from the service's now (asked with
// a health request), or an absolute time in seconds.
func Deadline(ctx context.Context, c *service.Client, s string) (int64, error) {
	rel, ok := strings.CutPrefix(s, "+")
	if !ok {
		dl, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("--deadline %q: expected +DURATION or seconds", s)
		}
		return dl, nil
	}
	d, err := ParseSeconds(rel)
	if err != nil {
		return 0, err
	}
	h, err := c.Health(ctx)
	if err != nil {
		return 0, err
	}
	return h.Now + d, nil
}

// Queue lists the jobs in states (comma-separated; empty: waiting and
// running, or every state with all) of user (empty: the caller's, or
// everyone's for an admin) and writes them to w.
func Queue(ctx context.Context, c *service.Client, w io.Writer, states, user string, all, asJSON bool) error {
	if states == "" && !all {
		states = "waiting,running"
	}
	l, err := c.Jobs(ctx, states, user)
	if err != nil {
		return err
	}
	if asJSON {
		return JSON(w, l)
	}
	return WriteQueue(w, l)
}

// Cancel cancels each job id, writing each answer to w; it goes on past a
// bad id or a refusal and returns every error joined.
func Cancel(ctx context.Context, c *service.Client, w io.Writer, ids []string, asJSON bool) error {
	var errs []error
	for _, a := range ids {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("job id %q is not an integer", a))
			continue
		}
		v, err := c.Cancel(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("job %d: %w", id, err))
			continue
		}
		if asJSON {
			JSON(w, v)
		} else {
			fmt.Fprintf(w, "job %d: %s\n", v.ID, v.State)
		}
	}
	return errors.Join(errs...)
}

// User is a user action's settings as the user command's flags give them.
type User struct {
	// PP is the political priority in [0, 1]; negative: not given.
	PP float64
	// Quota is in processor-seconds (0: none); negative: not given.
	Quota int64
	// Admin is nil when not given.
	Admin      *bool
	ResetToken bool
	// Reassign gives a deleted user's jobs to the admin user.
	Reassign bool
}

// Run performs the action args[0] (add, set, list or delete) on the user
// args[1] (not for list) and writes the answer to w.
func (u User) Run(ctx context.Context, c *service.Client, w io.Writer, args []string, asJSON bool) error {
	req := service.UserRequest{ResetToken: u.ResetToken, Admin: u.Admin}
	if u.PP >= 0 {
		req.PP = &u.PP
	}
	if u.Quota >= 0 {
		req.Quota = &u.Quota
	}
	if len(args) == 0 {
		return errors.New("user needs an action (add, set, list, delete)")
	}
	action, name := args[0], ""
	if len(args) == 2 {
		name = args[1]
	} else if action == "add" || action == "set" || action == "delete" {
		return fmt.Errorf("user %s needs a NAME", action)
	}
	switch action {
	case "add":
		req.Name = name
		v, err := c.CreateUser(ctx, req)
		if err != nil || asJSON {
			return jsonOr(w, v, err)
		}
		fmt.Fprintf(w, "user %s created; token (shown once):\n%s\n", v.Name, v.Token)
		return nil
	case "set":
		v, err := c.UpdateUser(ctx, name, req)
		if err != nil || asJSON {
			return jsonOr(w, v, err)
		}
		WriteUserSet(w, v)
		return nil
	case "list":
		us, err := c.Users(ctx)
		if err != nil || asJSON {
			return jsonOr(w, us, err)
		}
		return WriteUsers(w, us)
	case "delete":
		return u.delete(ctx, c, w, name)
	}
	return fmt.Errorf("unknown user action %q (add, set, list, delete)", action)
}

// delete deletes user name and says what became of their jobs.
func (u User) delete(ctx context.Context, c *service.Client, w io.Writer, name string) error {
	if err := c.DeleteUser(ctx, name, u.Reassign); err != nil {
		return err
	}
	what := "cancelled"
	if u.Reassign {
		what = "given to admin"
	}
	fmt.Fprintf(w, "user %s deleted; their waiting and running jobs %s\n", name, what)
	return nil
}

// jsonOr returns err, or writes v as JSON when there is none.
func jsonOr(w io.Writer, v any, err error) error {
	if err != nil {
		return err
	}
	return JSON(w, v)
}
