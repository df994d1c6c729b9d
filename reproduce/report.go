// Package reproduce runs the papers' experiments and returns them as data.
//
// It runs the experiments of the papers the project
// implements and returns them as data: the tables of our figures and, for
// every published claim, the paper's figure beside ours with a verdict.
//
// Each reproduction (Kresource, QoPS, Slack, Estimates, MQLook) takes a
// typed configuration and returns a *Report. The command line prints a
// report with WriteText; tests check its Claims directly. A verdict is one
// of three (docs/reproductions.md argues each):
//
//   - Reproduced: our runs agree with the claim in the paper's setting as
//     far as the paper states it;
//   - ReproducedUnder: the claim holds under a setting the paper does not
//     state (Claim.Setting says which, and how sensitive the claim is);
//   - NotReproduced: the claim fails in every setting we tried; Claim.Setting
//     gives the evidence that our implementation follows the text.
package reproduce

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/backfill-hpc/backfill/internal/dist"
)

// Verdict is the outcome of checking one published claim.
type Verdict int

const (
	// Reproduced: the claim holds in our runs.
	Reproduced Verdict = iota + 1
	// ReproducedUnder: the claim holds under a stated setting of a
	// parameter the paper leaves open.
	ReproducedUnder
	// NotReproduced: the claim does not hold; the evidence is stated.
	NotReproduced
	// Informational: a figure printed beside the paper's without a claim
	// to decide (e.g. an absolute value the paper's setting cannot match).
	Informational
)

// String is the verdict as printed.
func (v Verdict) String() string {
	switch v {
	case Reproduced:
		return "reproduced"
	case ReproducedUnder:
		return "reproduced under a stated setting"
	case NotReproduced:
		return "not reproduced"
	case Informational:
		return "for information"
	}
	return "unknown"
}

// Estimate is a mean over N replications with the half-width of its 95 %
// confidence interval (Student t with N − 1 degrees of freedom; 0 when N
// is 1).
type Estimate struct {
	Mean, CI float64
	N        int
}

// String renders the estimate as "m ± ci" (or "m" for one replication)
// with one decimal.
func (e Estimate) String() string {
	if e.N < 2 {
		return fmt.Sprintf("%+.1f", e.Mean)
	}
	return fmt.Sprintf("%+.1f ± %.1f", e.Mean, e.CI)
}

// MeanCI is the mean of xs with its 95 % confidence interval.
func MeanCI(xs []float64) Estimate {
	n := float64(len(xs))
	e := Estimate{N: len(xs)}
	if len(xs) == 0 {
		e.Mean = math.NaN()
		return e
	}
	for _, x := range xs {
		e.Mean += x / n
	}
	if len(xs) < 2 {
		return e
	}
	v := 0.0
	for _, x := range xs {
		v += (x - e.Mean) * (x - e.Mean) / (n - 1)
	}
	t := dist.StudentTQuantile(0.975, n-1)
	e.CI = t * math.Sqrt(v/n)
	return e
}

// Claim is one published statement with our figure beside it.
type Claim struct {
	// ID names the claim for tests and cross-references ("kres.bl-vs-ff").
	ID string
	// Where is the claim's place in the paper ("§3.3", "Figure 4").
	Where string
	// Text is the paper's statement.
	Text string
	// Published is the paper's figure, as the paper gives it ("" when the
	// paper states the claim in words only).
	Published string
	// Ours is our figure, in the same terms.
	Ours string
	// Value is our main number when there is one (with its interval over
	// the replications); nil otherwise.
	Value *Estimate
	// Verdict is the outcome.
	Verdict Verdict
	// Setting is, for ReproducedUnder, the setting under which the claim
	// holds and how sensitive it is; for NotReproduced, the evidence that
	// the implementation follows the text; otherwise an optional note.
	Setting string
}

// Table is a table of figures, already formatted.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Notes are printed under the table.
	Notes []string
}

// AddRow appends a row of cells formatted with fmt.Sprint.
func (t *Table) AddRow(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.Rows = append(t.Rows, row)
}

// Cell is the cell of the row whose first cell is row, in the column
// headed col ("" when there is none).
func (t *Table) Cell(row, col string) string {
	c := -1
	for i, h := range t.Header {
		if h == col {
			c = i
			break
		}
	}
	if c < 0 {
		return ""
	}
	for _, r := range t.Rows {
		if len(r) > c && r[0] == row {
			return r[c]
		}
	}
	return ""
}

// Section is a titled part of a report: text, tables and claims in the
// order they are printed.
type Section struct {
	Title string
	Items []any // string, *Table or *Claim
}

// Text appends a paragraph.
func (s *Section) Text(format string, args ...any) {
	s.Items = append(s.Items, fmt.Sprintf(format, args...))
}

// Table appends a table and returns it.
func (s *Section) Table(title string, header ...string) *Table {
	t := &Table{Title: title, Header: header}
	s.Items = append(s.Items, t)
	return t
}

// Claim appends a claim and returns it.
func (s *Section) Claim(c Claim) *Claim {
	p := &c
	s.Items = append(s.Items, p)
	return p
}

// Report is the result of one reproduction.
type Report struct {
	// Title names the paper.
	Title string
	// Setup describes what was run.
	Setup    []string
	Sections []*Section
	// Notes are printed at the end (missing traces, timings).
	Notes []string
}

// Section appends a section and returns it.
func (r *Report) Section(title string) *Section {
	s := &Section{Title: title}
	r.Sections = append(r.Sections, s)
	return s
}

// Claims are all the report's claims in order.
func (r *Report) Claims() []*Claim {
	var out []*Claim
	for _, s := range r.Sections {
		for _, it := range s.Items {
			if c, ok := it.(*Claim); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// Claim is the claim with the given id, or nil.
func (r *Report) Claim(id string) *Claim {
	for _, c := range r.Claims() {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Tables are all the report's tables in order.
func (r *Report) Tables() []*Table {
	var out []*Table
	for _, s := range r.Sections {
		for _, it := range s.Items {
			if t, ok := it.(*Table); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// Table is the first table whose title starts with prefix, or nil.
func (r *Report) Table(prefix string) *Table {
	for _, t := range r.Tables() {
		if strings.HasPrefix(t.Title, prefix) {
			return t
		}
	}
	return nil
}

// WriteText prints the report as aligned text: the setup, each section's
// paragraphs, tables and claims, the verdicts, and the notes.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, r.Title)
	for _, l := range r.Setup {
		fmt.Fprintln(ew, l)
	}
	for _, s := range r.Sections {
		if s.Title != "" {
			fmt.Fprintf(ew, "\n== %s ==\n", s.Title)
		}
		for _, it := range s.Items {
			switch x := it.(type) {
			case string:
				fmt.Fprintf(ew, "\n%s\n", x)
			case *Table:
				x.write(ew)
			case *Claim:
				x.write(ew)
			}
		}
	}
	if cs := r.Claims(); len(cs) > 0 {
		fmt.Fprintln(ew, "\n== Verdicts ==")
		fmt.Fprintln(ew)
		tw := tabwriter.NewWriter(ew, 2, 4, 2, ' ', 0)
		for _, c := range cs {
			if c.Verdict == Informational {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Verdict, c.Where)
		}
		tw.Flush()
	}
	for _, n := range r.Notes {
		fmt.Fprintf(ew, "\n%s\n", n)
	}
	return ew.err
}

func (t *Table) write(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "\n%s\n", t.Title)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	if len(t.Header) > 0 {
		fmt.Fprintln(tw, strings.Join(t.Header, "\t")+"\t")
	}
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
	for _, n := range t.Notes {
		fmt.Fprintln(w, n)
	}
}

func (c *Claim) write(w io.Writer) {
	fmt.Fprintf(w, "\n  [%s] paper (%s): %s\n", c.ID, c.Where, c.Text)
	if c.Published != "" {
		fmt.Fprintf(w, "    published: %s\n", c.Published)
	}
	fmt.Fprintf(w, "    ours: %s\n", c.Ours)
	fmt.Fprintf(w, "    verdict: %s", c.Verdict)
	if c.Setting != "" {
		fmt.Fprintf(w, " — %s", c.Setting)
	}
	fmt.Fprintln(w)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
