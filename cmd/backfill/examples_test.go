package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// The README's commands and every --help example must work: this test
// collects them, checks that each one names an existing command with
// existing flags and acceptable arguments, and runs them, in order, in a
// scratch directory where ../shared/traces and experiments/ resolve as in
// the repository. Examples that need a running service or a placeholder
// input are only parsed; long ones (also plot and report, which
// TestReportAndPlotCLI runs quickly) run with BACKFILL_LONG=1
// (internal/longtest; the traces directory must exist, else they are
// skipped), except the reproductions and bench (tens of minutes, covered
// by their own long tests), which run with BACKFILL_EXAMPLES_ALL=1.

// example is one command line of an example.
type example struct {
	source string   // "README.md:12" or "simulate --help"
	args   []string // after "backfill"
}

// examplesOf splits a shell line into backfill invocations: "a && b",
// environment assignments, comments and redirections removed.
func examplesOf(source, line string) []example {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSuffix(strings.TrimSpace(line), "&")
	var out []example
	for _, part := range strings.Split(line, "&&") {
		words := shellWords(part)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // BACKFILL_TOKEN=… prefix
		}
		switch {
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/backfill":
			words = words[3:]
		case len(words) > 0 && (words[0] == "backfill" || words[0] == "./backfill"):
			words = words[1:]
		default:
			continue
		}
		var args []string
		for i := 0; i < len(words); i++ {
			if words[i] == ">" { // a redirection: drop it and its file
				i++
				continue
			}
			args = append(args, words[i])
		}
		out = append(out, example{source, args})
	}
	return out
}

// shellWords splits on blanks, keeping single- and double-quoted words.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quote, in := rune(0), false
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

func readmeExamples(t *testing.T) []example {
	fh, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []example
	sc := bufio.NewScanner(fh)
	inCode, n := false, 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			out = append(out, examplesOf("README.md:"+strconv.Itoa(n), l)...)
		}
	}
	return out
}

func helpExamples() []example {
	var out []example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Example, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			out = append(out, examplesOf(c.CommandPath()+" --help", l)...)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot())
	return out
}

// parseOnly says why an example is not run by default ("" runs it).
func parseOnly(e example) string {
	line := strings.Join(e.args, " ")
	// placeholders: inputs that nothing in the examples creates (a site's
	// own accounting data: dump.txt, site.*, /var/spool)
	for _, p := range []string{"other-simulator.swf", "batsim_jobs.csv", "/scratch/", "experiment.yaml", "/var/lib", "DIR/", " DIR", "results/loads", "results/NAME", "other-host/",
		"dump.txt", "site.swf", "site.yaml", "/var/spool/"} {
		if strings.Contains(line, p) {
			return "placeholder"
		}
	}
	switch e.args[0] {
	case "serve", "user", "submit", "queue", "cancel", "loadgen":
		return "service"
	case "reproduce", "bench":
		if !strings.Contains(line, "--help") {
			return "very long"
		}
	case "sweep", "collect":
		if !strings.Contains(line, "--help") && !strings.Contains(line, "--dry-run") {
			return "long"
		}
	case "results":
		return "long" // reads the results of a sweep
	case "plot", "report":
		// drawing figures and HTML: TestReportAndPlotCLI runs both quickly
		if !strings.Contains(line, "--help") {
			return "long"
		}
	}
	for _, slow := range []string{"../shared/traces", "slack", "depth=all", "qops", "easy++", "--deadlines", "slurmconf="} {
		if strings.Contains(line, slow) {
			return "long"
		}
	}
	return ""
}

func TestExamples(t *testing.T) {
	all := append(readmeExamples(t), helpExamples()...)
	if len(all) < 40 {
		t.Fatalf("only %d examples found", len(all))
	}
	// every example names a command, its flags exist, its arguments fit
	for _, e := range all {
		root := newRoot()
		c, rest, err := root.Find(e.args)
		if err != nil || c == root {
			t.Errorf("%s: backfill %s: no such command (%v)", e.source, strings.Join(e.args, " "), err)
			continue
		}
		if err := c.ParseFlags(rest); err != nil && err != pflag.ErrHelp {
			t.Errorf("%s: backfill %s: %v", e.source, strings.Join(e.args, " "), err)
			continue
		}
		if help, _ := c.Flags().GetBool("help"); help {
			continue
		}
		if err := c.ValidateArgs(c.Flags().Args()); err != nil {
			t.Errorf("%s: backfill %s: %v", e.source, strings.Join(e.args, " "), err)
		}
	}
	if t.Failed() {
		return
	}

	// run them in a scratch directory laid out like the repository's
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	work := filepath.Join(scratch, "repo")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "experiments"), filepath.Join(work, "experiments")); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(repo, "..", "shared")
	if d := os.Getenv("BACKFILL_TRACES_DIR"); d != "" { // a traces directory elsewhere
		shared = filepath.Dir(d)
	}
	haveTraces := false
	if _, err := os.Stat(filepath.Join(shared, "traces")); err == nil {
		haveTraces = true
		if err := os.Symlink(shared, filepath.Join(scratch, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	long := !longtest.Short()
	veryLong := os.Getenv("BACKFILL_EXAMPLES_ALL") == "1"
	t.Chdir(work)
	ran := 0
	for _, e := range all {
		why := parseOnly(e)
		line := strings.Join(e.args, " ")
		switch {
		case why == "service" || why == "placeholder":
			continue
		case why == "long" && !long, why == "very long" && !veryLong:
			continue
		case strings.Contains(line, "../shared/traces") && !haveTraces:
			t.Logf("%s: backfill %s: skipped, no ../shared/traces (see the README's Traces)", e.source, line)
			continue
		}
		start := time.Now()
		out, err := run(t, e.args...)
		if err != nil {
			t.Errorf("%s: backfill %s: %v\n%.2000s", e.source, line, err, out)
		}
		if d := time.Since(start); d > 10*time.Second && why == "" {
			t.Logf("%s: backfill %s took %v: mark it long", e.source, line, d.Round(time.Second))
		}
		ran++
	}
	t.Logf("%d examples parsed, %d run", len(all), ran)
}
