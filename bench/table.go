package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Table lays out measurements as rows printed as each run finishes, in
// fixed columns known before the first run: each column as wide as its
// header (numbers at least 8 characters), the trace and policy columns
// as their longest name; cells are right-aligned, two spaces apart.
type Table struct {
	widths []int
}

// NewTable is the table of runs of policies on the trace files (paths).
func NewTable(files, policies []string) *Table {
	header := tableHeader()
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = max(utf8.RuneCountInString(h), 8)
	}
	for _, file := range files {
		widths[0] = max(widths[0], utf8.RuneCountInString(filepath.Base(file)))
	}
	widths[4] = max(widths[4], utf8.RuneCountInString(LoadOnly))
	for _, p := range policies {
		widths[4] = max(widths[4], utf8.RuneCountInString(p))
	}
	return &Table{widths: widths}
}

func tableHeader() []string { return strings.Split(strings.TrimSuffix(TableHeader, "\t"), "\t") }

// Header is the table's header line.
func (t *Table) Header() string { return align(tableHeader(), t.widths) }

// Row is l's line (Line.TableRow; simulated says whether the run
// simulated, i.e. its policy was not "none").
func (t *Table) Row(l Line, simulated bool) string {
	return align(strings.Split(strings.TrimSuffix(l.TableRow(simulated), "\t"), "\t"), t.widths)
}

// ErrorRow is the line of a failed run of policy: its trace, the policy
// and the error, which may run past the columns.
func (t *Table) ErrorRow(l Line, policy string) string {
	return align([]string{l.Trace, "", "", l.Offered, policy, "error: " + l.Error}, t.widths)
}

// align right-aligns cells to widths, two spaces apart; a cell wider than
// its column pushes the rest of the row right; the last cell, when it is
// an error message, is not aligned; trailing blanks are cut.
func align(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		if i == len(cells)-1 && strings.HasPrefix(c, "error: ") {
			b.WriteString(c)
			break
		}
		if i < len(widths) {
			b.WriteString(strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(c))))
		}
		b.WriteString(c)
	}
	return strings.TrimRight(b.String(), " ")
}

// Status is the progress of a bench run on standard error: one line
// rewritten in place on a terminal, else a line at most every 30 s.
type Status struct {
	w     io.Writer
	tty   bool
	last  time.Time
	shown bool
}

// NewStatus is the status display on w (a terminal when w is one).
func NewStatus(w io.Writer) *Status {
	s := &Status{w: w, last: time.Now()}
	if fd, ok := w.(interface{ Fd() uintptr }); ok {
		s.tty = term.IsTerminal(int(fd.Fd()))
	}
	return s
}

// Show prints the status line (on a terminal, or when 30 s have passed
// since the row began or the last line).
func (s *Status) Show(format string, args ...any) {
	if s.tty {
		fmt.Fprintf(s.w, "\r\033[K"+format, args...)
		s.shown = true
		return
	}
	if now := time.Now(); now.Sub(s.last) >= 30*time.Second {
		fmt.Fprintf(s.w, format+"\n", args...)
		s.last = now
	}
}

// Clear removes the status line from a terminal, and starts the next
// row's 30 s.
func (s *Status) Clear() {
	s.last = time.Now()
	if s.tty && s.shown {
		fmt.Fprint(s.w, "\r\033[K")
		s.shown = false
	}
}

// ParseLoads is the offered loads of --loads: each "orig" (0: the trace's
// arrival times) or a number greater than 0; none given: def alone (the
// value of --load, 0 when not set).
func ParseLoads(loads []string, def float64) ([]float64, error) {
	if len(loads) == 0 {
		return []float64{def}, nil
	}
	var out []float64
	for _, s := range loads {
		if s == "orig" {
			out = append(out, 0)
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("--loads %q: want orig or an offered load greater than 0, e.g. 0.95", s)
		}
		out = append(out, x)
	}
	return out, nil
}

// Offered is Line.Offered for an offered load (0: the original, "").
func Offered(load float64) string {
	if load > 0 {
		return strconv.FormatFloat(load, 'g', -1, 64)
	}
	return ""
}

// Baseline is EASY's simulation time (wall and CPU) on one trace and
// load, once measured.
type Baseline struct{ easy, easyCPU float64 }

// Relate records l's times if pol is easy, and sets l.XEasy once EASY's
// time is known: SimCPUSec over EASY's (SimSec over EASY's when either CPU
// time is missing), or LimitSec over EASY's SimSec (a lower bound, wall
// over wall) for a run stopped at its limit; nothing for the loading-only
// run.
func (b *Baseline) Relate(l *Line, pol string) {
	if pol == "easy" && l.SimSec > 0 {
		b.easy, b.easyCPU = l.SimSec, l.SimCPUSec
	}
	if b.easy == 0 || pol == "none" {
		return
	}
	switch {
	case l.LimitSec > 0:
		l.XEasy = l.LimitSec / b.easy
	case l.SimCPUSec > 0 && b.easyCPU > 0:
		l.XEasy = l.SimCPUSec / b.easyCPU
	case l.SimSec > 0:
		l.XEasy = l.SimSec / b.easy
	}
}

// WriteLines writes the lines of a bench run in format json (an object
// with the tool's version, the runs and the keys of extra, indented) or
// csv (CSVHeader, then a row a line); the table format is printed as the
// runs go (Table).
func WriteLines(w io.Writer, format, version string, lines []Line, extra map[string]any) error {
	switch format {
	case "json":
		m := map[string]any{"version": version, "runs": lines}
		for k, v := range extra {
			m[k] = v
		}
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write(CSVHeader)
		for _, l := range lines {
			_ = cw.Write(l.CSV())
		}
		cw.Flush()
		return cw.Error()
	}
	return nil
}
