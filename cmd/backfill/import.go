package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/workload/importer"
)

type importFlags struct {
	out          string
	lenient      bool
	tz           string
	submit       string
	procs        int64
	nodes        int64
	computer     string
	installation string
	machine      string
}

func newImport() *cobra.Command {
	f := &importFlags{}
	cmd := &cobra.Command{
		Use:   "import slurm|pbs FILE...",
		Short: "Turn a site's Slurm (sacct) or PBS/Torque accounting into an SWF workload",
		Long: `import reads a site's own accounting records and writes a Standard Workload
Format file (the Parallel Workloads Archive's header conventions), a sidecar
CSV with what SWF cannot hold (original job id, state, partition, account,
QOS or queue, GPUs, node counts, memory) and a CSV mapping user, group,
account, partition and queue names to the numbers in the SWF file. For
-o site.swf: site.swf, site.sidecar.csv, site.names.csv.

Slurm: FILE (or - for standard input) is the output of

  ` + importer.SacctCommand + `

(set --starttime to the period wanted; the header line may be kept, and then
the columns may come in any order). Job steps are folded into their job,
heterogeneous job components into one job, pending array ranges such as
123_[5-9] expand to one job per task; see docs/workload.md for the rules
field by field and the state table.

PBS: FILE... are accounting logs (server_priv/accounting/YYYYMMDD), in time
order; E records become jobs.

Every record is written, folded or dropped, each counted by reason in the
SWF header. A malformed record is an error naming FILE:LINE and the field;
with --lenient it is skipped and counted.`,
		Example: `  TZ=UTC sacct --allusers --duplicates --parsable2 --noheader --starttime=2024-01-01 --endtime=now \
    --format=JobID,JobIDRaw,State,Submit,Eligible,Start,End,Elapsed,Timelimit,User,Group,Account,Partition,QOS,NNodes,NCPUS,ReqTRES,AllocTRES > dump.txt
  backfill import slurm dump.txt -o site.swf --machine site.yaml   # or --procs 4096 --nodes 128
  backfill import pbs /var/spool/pbs/server_priv/accounting/202403* -o site.swf`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, args[0], args[1:], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "output SWF file (required); the sidecar and names files are written beside it")
	fl.BoolVar(&f.lenient, "lenient", false, "skip malformed records, counting them as warnings, instead of failing")
	fl.StringVar(&f.tz, "tz", "UTC", "time zone of times written without one (sacct's YYYY-MM-DDTHH:MM:SS): UTC, Local or an IANA name such as Europe/Paris")
	fl.StringVar(&f.submit, "submit", "eligible", "SWF submit time: eligible (the later of Submit and Eligible) or submit")
	fl.Int64Var(&f.procs, "procs", 0, "the machine's processor count, for the MaxProcs header (default: left out)")
	fl.Int64Var(&f.nodes, "nodes", 0, "the machine's node count, for the MaxNodes header (default: left out)")
	fl.StringVar(&f.machine, "machine", "", "a machine file (YAML, as for simulate --machine): MaxProcs and MaxNodes from it")
	fl.StringVar(&f.computer, "computer", "", "Computer header (the machine)")
	fl.StringVar(&f.installation, "installation", "", "Installation header (the site)")
	return cmd
}

func runImport(cmd *cobra.Command, format string, files []string, f *importFlags) error {
	return importer.Run(cmd.InOrStdin(), cmd.ErrOrStderr(), importer.RunConfig{Format: format, Files: files, Out: f.out,
		TZ: f.tz, Machine: f.machine, Options: importer.Options{Lenient: f.lenient, SubmitFrom: f.submit,
			Procs: f.procs, Nodes: f.nodes, Computer: f.computer, Installation: f.installation}})
}
