package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/machine"
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

// importOutputs returns the sidecar and names paths beside the SWF file.
func importOutputs(out string) (sidecar, names string) {
	base := strings.TrimSuffix(out, ".swf")
	return base + ".sidecar.csv", base + ".names.csv"
}

func runImport(cmd *cobra.Command, format string, files []string, f *importFlags) error {
	if f.out == "" || f.out == "-" {
		return fmt.Errorf("import: -o FILE.swf is required (the sidecar and names files are written beside it)")
	}
	// the outputs are written after the inputs are read: an output that is
	// an input would replace the site's accounting with its conversion
	sc, nm := importOutputs(f.out)
	for _, out := range []string{f.out, sc, nm} {
		ost, err := os.Stat(out)
		if err != nil {
			continue
		}
		for _, in := range files {
			if ist, err := os.Stat(in); err == nil && in != "-" && os.SameFile(ist, ost) {
				return fmt.Errorf("import: %s is an input; give -o another file", out)
			}
		}
	}
	loc, err := time.LoadLocation(f.tz)
	if err != nil {
		return fmt.Errorf("import: --tz %q: %v", f.tz, err)
	}
	if err := importMachine(f); err != nil {
		return err
	}
	opts := importer.Options{Lenient: f.lenient, Location: loc, SubmitFrom: f.submit, Procs: f.procs, Nodes: f.nodes,
		Computer: f.computer, Installation: f.installation}
	im, err := readAccounting(cmd.InOrStdin(), format, files, opts)
	if err != nil {
		return err
	}
	o := im.Prepare()
	sidecar, names := importOutputs(f.out)
	conv := fmt.Sprintf("backfill import %s %s; sidecar %s; names %s", format, strings.Join(files, " "), sidecar, names)
	if err := writeFile(f.out, func(w io.Writer) error { return importer.WriteSWF(w, o, conv) }); err != nil {
		return err
	}
	if err := writeFile(sidecar, func(w io.Writer) error { return importer.WriteSidecar(w, o) }); err != nil {
		return err
	}
	if err := writeFile(names, func(w io.Writer) error { return importer.WriteNames(w, o) }); err != nil {
		return err
	}
	ew := cmd.ErrOrStderr()
	for _, r := range o.Rules {
		fmt.Fprintln(ew, r)
	}
	fmt.Fprintf(ew, "wrote %s (%d jobs), %s, %s\n", f.out, o.Len(), sidecar, names)
	return nil
}

// importMachine takes the machine size (and name) from --machine.
func importMachine(f *importFlags) error {
	if f.machine != "" {
		if f.procs > 0 || f.nodes > 0 {
			return fmt.Errorf("import: --machine gives the machine size; leave out --procs and --nodes")
		}
		m, err := machine.Load(f.machine)
		if err != nil {
			return err
		}
		f.procs, f.nodes = int64(m.Procs()), int64(len(m.Nodes))
		if f.computer == "" && m.Name != "" {
			f.computer = m.Name
		}
	}
	return nil
}

// readAccounting reads the accounting files (- for stdin) of format slurm
// (one sacct dump) or pbs (any number of logs).
func readAccounting(stdin io.Reader, format string, files []string, opts importer.Options) (*importer.Import, error) {
	open := func(name string) (io.Reader, func(), error) {
		if name == "-" {
			return bufio.NewReader(stdin), func() {}, nil
		}
		fh, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		return fh, func() { fh.Close() }, nil
	}
	var im *importer.Import
	var err error
	switch format {
	case "slurm":
		if len(files) != 1 {
			return nil, fmt.Errorf("import slurm: one FILE (or -) expected, got %d", len(files))
		}
		r, done, err := open(files[0])
		if err != nil {
			return nil, err
		}
		im, err = importer.ReadSacct(r, files[0], opts)
		done()
		if err != nil {
			return nil, err
		}
	case "pbs":
		var in []importer.PBSInput
		for _, name := range files {
			r, done, err := open(name)
			if err != nil {
				return nil, err
			}
			defer done()
			in = append(in, importer.PBSInput{Name: name, R: r})
		}
		im, err = importer.ReadPBS(in, opts)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("import: unknown format %q (want slurm or pbs)", format)
	}
	return im, nil
}
