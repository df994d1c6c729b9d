package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/service"
)

// clientFlags are the connection flags of submit, queue, cancel and user.
type clientFlags struct {
	server, token, tokenFile string
	asJSON                   bool
}

func (f *clientFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "service URL (default $BACKFILL_SERVER, else http://127.0.0.1:8470)")
	fl.StringVar(&f.token, "token", "", "API token (default $BACKFILL_TOKEN, else --token-file)")
	fl.StringVar(&f.tokenFile, "token-file", "", "file holding the API token (default $BACKFILL_TOKEN_FILE)")
	fl.BoolVar(&f.asJSON, "json", false, "print the service's JSON answer")
}

func (f *clientFlags) client() (*service.Client, error) {
	server := f.server
	if server == "" {
		server = os.Getenv("BACKFILL_SERVER")
	}
	if server == "" {
		server = "http://127.0.0.1:8470"
	}
	tok := f.token
	if tok == "" {
		tok = os.Getenv("BACKFILL_TOKEN")
	}
	file := f.tokenFile
	if file == "" {
		file = os.Getenv("BACKFILL_TOKEN_FILE")
	}
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
	c.HTTP.Transport = hintTransport{base: http.DefaultTransport, server: server}
	return c, nil
}

// hintTransport turns a refused connection into an error that says what
// to do: the service is not running at that address.
type hintTransport struct {
	base   http.RoundTripper
	server string
}

func (h hintTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(r)
	if err != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)) {
		return nil, fmt.Errorf("no backfill service answers at %s (connection refused): start one with 'backfill serve --state DIR', or point --server (or BACKFILL_SERVER) at a running one", h.server)
	}
	return resp, err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parseSeconds reads a duration: plain seconds ("3600"), a Go duration
// ("1h30m"), or Slurm's [D-]HH:MM:SS and MM:SS.
func parseSeconds(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return int64(d.Round(time.Second) / time.Second), nil
	}
	days := int64(0)
	rest := s
	if d, r, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("duration %q: expected seconds, 1h30m, HH:MM:SS or D-HH:MM:SS", s)
		}
		days, rest = n, r
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("duration %q: expected seconds, 1h30m, HH:MM:SS or D-HH:MM:SS", s)
	}
	var total int64
	for _, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("duration %q: expected seconds, 1h30m, HH:MM:SS or D-HH:MM:SS", s)
		}
		total = total*60 + n
	}
	return days*86400 + total, nil
}

// fmtTime shows a time in seconds, with the date when it looks like Unix
// time, and its distance from now.
func fmtTime(t, now int64) string {
	s := strconv.FormatInt(t, 10)
	if t > 1e9 {
		s = time.Unix(t, 0).Format("2006-01-02T15:04:05")
	}
	d := t - now
	switch {
	case d > 0:
		return s + " (in " + (time.Duration(d) * time.Second).String() + ")"
	case d < 0:
		return s + " (" + (time.Duration(-d) * time.Second).String() + " ago)"
	}
	return s + " (now)"
}

type submitFlags struct {
	clientFlags
	procs              int
	estimate, deadline string
	priority           float64
	name, key, user    string
}

func newSubmit() *cobra.Command {
	f := &submitFlags{}
	cmd := &cobra.Command{
		Use:   "submit -n PROCS -t ESTIMATE [flags] [--] [COMMAND [ARGS...]]",
		Short: "Submit a job to a backfill service (like sbatch)",
		Long: `submit sends a job to a running 'backfill serve' and prints its id, its
reserved start and the latest start the policy guarantees, or, with a deadline
policy, whether the deadline was accepted. The command runs under the local or
slurm executor (with /bin/sh -c) in the directory submit was run from, as
sbatch does; in advisor mode it is kept for the resource manager.`,
		Example: `  backfill submit -n 16 -t 2h -- ./simulate --steps 1000
  backfill submit -n 4 -t 30:00 --deadline +3h --job-name nightly -- make test
  backfill submit -n 1 -t 60 --json`,
		RunE: func(cmd *cobra.Command, args []string) error { return runSubmit(cmd, f, args) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.IntVarP(&f.procs, "procs", "n", 1, "processors")
	fl.StringVarP(&f.estimate, "time", "t", "", "runtime estimate (the job is killed after it): seconds, 1h30m, HH:MM:SS or D-HH:MM:SS (required)")
	fl.StringVar(&f.deadline, "deadline", "", "deadline: +DURATION from now, or an absolute time in seconds (deadline policies)")
	fl.Float64Var(&f.priority, "priority", -1, "user priority in [0, 1] (slack-based backfilling)")
	fl.StringVarP(&f.name, "job-name", "J", "", "job name")
	fl.StringVar(&f.key, "key", "", "idempotency key: a retried submission with the same key returns the first job")
	fl.StringVar(&f.user, "user", "", "submit for another user (admin token)")
	return cmd
}

func runSubmit(cmd *cobra.Command, f *submitFlags, args []string) error {
	c, err := f.client()
	if err != nil {
		return err
	}
	if f.estimate == "" {
		return errors.New("-t/--time is required: the runtime estimate")
	}
	est, err := parseSeconds(f.estimate)
	if err != nil {
		return err
	}
	req := service.SubmitRequest{Procs: &f.procs, Estimate: &est, Name: f.name, IdempotencyKey: f.key, User: f.user}
	if len(args) > 0 {
		req.Command = shellJoin(args)
		// the local executor runs the command in the submit directory, as
		// sbatch does (./job.sh is found there)
		if wd, err := os.Getwd(); err == nil {
			req.Workdir = filepath.Clean(wd)
		}
	}
	if f.priority >= 0 {
		req.UserPriority = &f.priority
	}
	ctx := context.Background()
	if f.deadline != "" {
		var dl int64
		if rel, ok := strings.CutPrefix(f.deadline, "+"); ok {
			d, err := parseSeconds(rel)
			if err != nil {
				return err
			}
			h, err := c.Health(ctx)
			if err != nil {
				return err
			}
			dl = h.Now + d
		} else if dl, err = strconv.ParseInt(f.deadline, 10, 64); err != nil {
			return fmt.Errorf("--deadline %q: expected +DURATION or seconds", f.deadline)
		}
		req.Deadline = &dl
	}
	v, err := c.Submit(ctx, req)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		return printJSON(w, v)
	}
	if !v.Admitted {
		fmt.Fprintf(w, "Job %d rejected: %s\n", v.ID, v.Reason)
		return nil
	}
	now := v.Submit
	fmt.Fprintf(w, "Submitted job %d (%s)\n", v.ID, v.State)
	if v.ReservedStart != nil {
		fmt.Fprintf(w, "  reserved start:   %s\n", fmtTime(*v.ReservedStart, now))
	}
	if v.GuaranteedStart != nil {
		fmt.Fprintf(w, "  guaranteed start: %s at the latest\n", fmtTime(*v.GuaranteedStart, now))
	}
	if v.Deadline != nil {
		fmt.Fprintf(w, "  deadline:         %s accepted\n", fmtTime(*v.Deadline, now))
	}
	if v.OverQuota {
		fmt.Fprintln(w, "  over quota: the job runs only where it delays nobody")
	}
	return nil
}

// shellJoin quotes args for /bin/sh -c.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

type queueFlags struct {
	clientFlags
	states, user string
	all          bool
}

func newQueue() *cobra.Command {
	f := &queueFlags{}
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "List jobs of a backfill service (like squeue)",
		Long: `queue lists your waiting and running jobs (an admin token: everyone's), with
their reserved or actual start and guaranteed start.`,
		Example: `  backfill queue
  backfill queue --all          # finished jobs too
  backfill queue --state running --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runQueue(cmd, f) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.states, "state", "", "states to list, comma-separated (default waiting,running)")
	fl.StringVarP(&f.user, "user", "u", "", "only this user's jobs (admin token for others)")
	fl.BoolVarP(&f.all, "all", "a", false, "all states, finished jobs included")
	return cmd
}

func runQueue(cmd *cobra.Command, f *queueFlags) error {
	c, err := f.client()
	if err != nil {
		return err
	}
	states := f.states
	if states == "" && !f.all {
		states = "waiting,running"
	}
	l, err := c.Jobs(context.Background(), states, f.user)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		return printJSON(w, l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tUSER\tNAME\tPROCS\tESTIMATE\tSTATE\tSUBMIT\tSTART\tGUARANTEE\tEND")
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	for _, j := range l.Jobs {
		start := opt(j.Start)
		if j.Start == nil && j.ReservedStart != nil {
			start = "~" + opt(j.ReservedStart) // planned
		}
		name := j.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", j.ID, j.User, name, j.Procs,
			(time.Duration(j.Estimate) * time.Second).String(), j.State, j.Submit, start, opt(j.GuaranteedStart), opt(j.End))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "now %d; %d jobs; ~ marks a planned start\n", l.Now, len(l.Jobs))
	return nil
}

func newCancel() *cobra.Command {
	f := &clientFlags{}
	cmd := &cobra.Command{
		Use:   "cancel JOBID...",
		Short: "Cancel jobs of a backfill service (like scancel)",
		Example: `  backfill queue                  # the job ids
  BACKFILL_TOKEN=bf_… backfill cancel 17 18`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			var errs []error
			for _, a := range args {
				id, err := strconv.ParseInt(a, 10, 64)
				if err != nil {
					errs = append(errs, fmt.Errorf("job id %q is not an integer", a))
					continue
				}
				v, err := c.Cancel(context.Background(), id)
				if err != nil {
					errs = append(errs, fmt.Errorf("job %d: %w", id, err))
					continue
				}
				if f.asJSON {
					printJSON(cmd.OutOrStdout(), v)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "job %d: %s\n", v.ID, v.State)
				}
			}
			return errors.Join(errs...)
		},
	}
	f.register(cmd)
	return cmd
}

type userFlags struct {
	clientFlags
	pp         float64
	quota      int64
	admin      bool
	resetToken bool
	reassign   bool
}

func newUserCmd() *cobra.Command {
	f := &userFlags{}
	cmd := &cobra.Command{
		Use:   "user add|set|list|delete [NAME]",
		Short: "Manage the users of a backfill service (admin token)",
		Long: `user manages API users: 'add NAME' creates one and prints its token (shown
once), 'set NAME' changes its political priority, quota or token, 'list' shows
all, 'delete NAME' removes one and cancels its waiting and running jobs (with
--reassign they go to the admin user instead). Jobs belong to a user's id: a
user added later under the same name does not get them. The quota is in
processor-seconds of waiting and
running work; beyond it a user's jobs get political priority −∞ (they run only
where they delay nobody, Talby & Feitelson §2.3).`,
		Example: `  backfill user add alice --token-file state/admin.token
  backfill user set alice --pp 0.8 --quota 3600000 --token-file state/admin.token
  backfill user delete bob --reassign --token-file state/admin.token`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error { return runUser(cmd, f, args) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.Float64Var(&f.pp, "pp", -1, "political priority in [0, 1]")
	fl.Int64Var(&f.quota, "quota", -1, "quota in processor-seconds (0: none)")
	fl.BoolVar(&f.admin, "admin", false, "make the user an admin")
	fl.BoolVar(&f.resetToken, "reset-token", false, "issue a new token (set; for admin, the service rewrites its token file)")
	fl.BoolVar(&f.reassign, "reassign", false, "delete: give the user's waiting and running jobs to the admin user instead of cancelling them")
	return cmd
}

func runUser(cmd *cobra.Command, f *userFlags, args []string) error {
	c, err := f.client()
	if err != nil {
		return err
	}
	ctx := context.Background()
	w := cmd.OutOrStdout()
	req := service.UserRequest{ResetToken: f.resetToken}
	if f.pp >= 0 {
		req.PP = &f.pp
	}
	if f.quota >= 0 {
		req.Quota = &f.quota
	}
	if cmd.Flags().Changed("admin") {
		req.Admin = &f.admin
	}
	need := func() (string, error) {
		if len(args) != 2 {
			return "", fmt.Errorf("user %s needs a NAME", args[0])
		}
		return args[1], nil
	}
	var out any
	switch args[0] {
	case "add":
		name, err := need()
		if err != nil {
			return err
		}
		req.Name = name
		u, err := c.CreateUser(ctx, req)
		if err != nil {
			return err
		}
		if !f.asJSON {
			fmt.Fprintf(w, "user %s created; token (shown once):\n%s\n", u.Name, u.Token)
			return nil
		}
		out = u
	case "set":
		name, err := need()
		if err != nil {
			return err
		}
		var u service.UserView
		if err := c.Do(ctx, "PATCH", "/v1/users/"+name, req, &u); err != nil {
			return err
		}
		if !f.asJSON {
			fmt.Fprintf(w, "user %s: political priority %g, quota %d, admin %v\n", u.Name, u.PP, u.Quota, u.Admin)
			if u.Token != "" {
				fmt.Fprintf(w, "new token (shown once):\n%s\n", u.Token)
			}
			return nil
		}
		out = u
	case "list":
		var us []service.UserView
		if err := c.Do(ctx, "GET", "/v1/users", nil, &us); err != nil {
			return err
		}
		if !f.asJSON {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tADMIN\tPP\tQUOTA")
			for _, u := range us {
				fmt.Fprintf(tw, "%s\t%v\t%g\t%d\n", u.Name, u.Admin, u.PP, u.Quota)
			}
			return tw.Flush()
		}
		out = us
	case "delete":
		name, err := need()
		if err != nil {
			return err
		}
		path, what := "/v1/users/"+name, "cancelled"
		if f.reassign {
			path, what = path+"?jobs=reassign", "given to admin"
		}
		if err := c.Do(ctx, "DELETE", path, nil, nil); err != nil {
			return err
		}
		fmt.Fprintf(w, "user %s deleted; their waiting and running jobs %s\n", name, what)
		return nil
	default:
		return fmt.Errorf("unknown user action %q (add, set, list, delete)", args[0])
	}
	return printJSON(w, out)
}
