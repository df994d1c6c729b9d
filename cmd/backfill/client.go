package main

import (
	"context"

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
	return clientfmt.Conn{Server: f.server, Token: f.token, TokenFile: f.tokenFile}.Client()
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
	sub := clientfmt.Submit{Procs: f.procs, Estimate: f.estimate, Deadline: f.deadline, Priority: f.priority,
		Name: f.name, Key: f.key, User: f.user, Command: args}
	return sub.Run(context.Background(), c, cmd.OutOrStdout(), f.asJSON)
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
	return clientfmt.Queue(context.Background(), c, cmd.OutOrStdout(), f.states, f.user, f.all, f.asJSON)
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
			return clientfmt.Cancel(context.Background(), c, cmd.OutOrStdout(), args, f.asJSON)
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
	u := clientfmt.User{PP: f.pp, Quota: f.quota, ResetToken: f.resetToken, Reassign: f.reassign}
	if cmd.Flags().Changed("admin") {
		u.Admin = &f.admin
	}
	return u.Run(context.Background(), c, cmd.OutOrStdout(), args, f.asJSON)
}
