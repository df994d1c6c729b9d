package importer

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/backfill-hpc/backfill/internal/fileout"
	"github.com/backfill-hpc/backfill/machine"
)

// RunConfig is what the import command asks for: the accounting Format
// (slurm or pbs) and Files (- for standard input), the SWF file Out, the
// time zone name TZ (UTC, Local or an IANA name), an optional Machine file
// giving the machine size and name, and the reading Options (their
// Location is set from TZ).
type RunConfig struct {
	Format  string
	Files   []string
	Out     string
	TZ      string
	Machine string
	Options
}

// OutputPaths returns the sidecar and names paths beside the SWF file out:
// for site.swf, site.sidecar.csv and site.names.csv.
func OutputPaths(out string) (sidecar, names string) {
	base := strings.TrimSuffix(out, ".swf")
	return base + ".sidecar.csv", base + ".names.csv"
}

// Run reads the accounting of c (stdin for the file -), writes the SWF,
// sidecar and names files, and reports the folding and dropping rules and
// the files written on stderr. An output that is one of the inputs is
// refused before anything is read.
func Run(stdin io.Reader, stderr io.Writer, c RunConfig) error {
	if c.Out == "" || c.Out == "-" {
		return fmt.Errorf("import: -o FILE.swf is required (the sidecar and names files are written beside it)")
	}
	// the outputs are written after the inputs are read: an output that is
	// an input would replace the site's accounting with its conversion
	sc, nm := OutputPaths(c.Out)
	for _, out := range []string{c.Out, sc, nm} {
		ost, err := os.Stat(out)
		if err != nil {
			continue
		}
		for _, in := range c.Files {
			if ist, err := os.Stat(in); err == nil && in != "-" && os.SameFile(ist, ost) {
				return fmt.Errorf("import: %s is an input; give -o another file", out)
			}
		}
	}
	loc, err := time.LoadLocation(c.TZ)
	if err != nil {
		return fmt.Errorf("import: --tz %q: %v", c.TZ, err)
	}
	if err := c.loadMachine(); err != nil {
		return err
	}
	opts := c.Options
	opts.Location = loc
	im, err := ReadAccounting(stdin, c.Format, c.Files, opts)
	if err != nil {
		return err
	}
	o := im.Prepare()
	conv := fmt.Sprintf("backfill import %s %s; sidecar %s; names %s", c.Format, strings.Join(c.Files, " "), sc, nm)
	if err := fileout.Write(c.Out, func(w io.Writer) error { return WriteSWF(w, o, conv) }); err != nil {
		return err
	}
	if err := fileout.Write(sc, func(w io.Writer) error { return WriteSidecar(w, o) }); err != nil {
		return err
	}
	if err := fileout.Write(nm, func(w io.Writer) error { return WriteNames(w, o) }); err != nil {
		return err
	}
	for _, r := range o.Rules {
		fmt.Fprintln(stderr, r)
	}
	fmt.Fprintf(stderr, "wrote %s (%d jobs), %s, %s\n", c.Out, o.Len(), sc, nm)
	return nil
}

// loadMachine takes the machine size (and name, when Computer is empty)
// from the Machine file; with it, Procs and Nodes must be left at 0.
func (c *RunConfig) loadMachine() error {
	if c.Machine != "" {
		if c.Procs > 0 || c.Nodes > 0 {
			return fmt.Errorf("import: --machine gives the machine size; leave out --procs and --nodes")
		}
		m, err := machine.Load(c.Machine)
		if err != nil {
			return err
		}
		c.Procs, c.Nodes = int64(m.Procs()), int64(len(m.Nodes))
		if c.Computer == "" && m.Name != "" {
			c.Computer = m.Name
		}
	}
	return nil
}

// ReadAccounting reads the accounting files (- for stdin) of format slurm
// (one sacct dump) or pbs (any number of logs).
func ReadAccounting(stdin io.Reader, format string, files []string, opts Options) (*Import, error) {
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
	var im *Import
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
		im, err = ReadSacct(r, files[0], opts)
		done()
		if err != nil {
			return nil, err
		}
	case "pbs":
		var in []PBSInput
		for _, name := range files {
			r, done, err := open(name)
			if err != nil {
				return nil, err
			}
			defer done()
			in = append(in, PBSInput{Name: name, R: r})
		}
		im, err = ReadPBS(in, opts)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("import: unknown format %q (want slurm or pbs)", format)
	}
	return im, nil
}
