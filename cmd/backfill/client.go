package main

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

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/service"
	"github.com/backfill-hpc/backfill/service/clientfmt"
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
	c.HTTP.Transport = clientfmt.HintTransport{Base: http.DefaultTransport, Server: server}
	return c, nil
}

// printJSON writes v as indented JSON.
var printJSON = clientfmt.JSON

// parseSeconds reads a duration: seconds, 1h30m, HH:MM:SS or D-HH:MM:SS.
var parseSeconds = clientfmt.ParseSeconds

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
		req.Command = clientfmt.ShellJoin(args)
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
		dl, err := submitDeadline(ctx, c, f.deadline)
		if err != nil {
			return err
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
	clientfmt.WriteSubmitted(w, v)
	return nil
}

// submitDeadline reads --deadline: +DURATION from the service's now, or an
// absolute time in seconds.
func submitDeadline(ctx context.Context, c *service.Client, s string) (int64, error) {
	rel, ok := strings.CutPrefix(s, "+")
	if !ok {
		dl, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("--deadline %q: expected +DURATION or seconds", s)
		}
		return dl, nil
	}
	d, err := parseSeconds(rel)
	if err != nil {
		return 0, err
	}
	h, err := c.Health(ctx)
	if err != nil {
		return 0, err
	}
	return h.Now + d, nil
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
	return clientfmt.WriteQueue(w, l)
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
	if len(args) != 2 && (args[0] == "add" || args[0] == "set" || args[0] == "delete") {
		return fmt.Errorf("user %s needs a NAME", args[0])
	}
	switch args[0] {
	case "add":
		req.Name = args[1]
		u, err := c.CreateUser(ctx, req)
		if err != nil || f.asJSON {
			return jsonOr(w, u, err)
		}
		fmt.Fprintf(w, "user %s created; token (shown once):\n%s\n", u.Name, u.Token)
		return nil
	case "set":
		u, err := c.UpdateUser(ctx, args[1], req)
		if err != nil || f.asJSON {
			return jsonOr(w, u, err)
		}
		clientfmt.WriteUserSet(w, u)
		return nil
	case "list":
		us, err := c.Users(ctx)
		if err != nil || f.asJSON {
			return jsonOr(w, us, err)
		}
		return clientfmt.WriteUsers(w, us)
	case "delete":
		if err := c.DeleteUser(ctx, args[1], f.reassign); err != nil {
			return err
		}
		what := "cancelled"
		if f.reassign {
			what = "given to admin"
		}
		fmt.Fprintf(w, "user %s deleted; their waiting and running jobs %s\n", args[1], what)
		return nil
	}
	return fmt.Errorf("unknown user action %q (add, set, list, delete)", args[0])
}

// jsonOr returns err, or prints v as JSON when there is none.
func jsonOr(w io.Writer, v any, err error) error {
	if err != nil {
		return err
	}
	return printJSON(w, v)
}
