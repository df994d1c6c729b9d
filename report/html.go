package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The page's assets, embedded at build time. echarts.min.js is Apache
// ECharts' dist file, copied from the npm package pinned in
// web/package-lock.json by web/update.sh (committed, so that `go build`
// alone works; TestBundleMatchesLockfile checks the version).
var (
	//go:embed web/echarts.min.js
	echartsJS string
	//go:embed web/echarts.version
	echartsVersion string
	//go:embed web/report.js
	reportJS string
	//go:embed web/report.css
	reportCSS string
	//go:embed web/page.html
	pageHTML string
)

// page is the parsed page template, parsed on first use: the commands
// that write no report (simulate, serve, ...) do not pay for it at start-up.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

// EChartsVersion is the version of the embedded Apache ECharts.
func EChartsVersion() string { return strings.TrimSpace(echartsVersion) }

type cell struct {
	Text string
	Best bool
}

type tableRow struct {
	// Label identifies the run; Name is shown (its short label when the
	// group has a column of its own).
	Label, Name, Group string
	Cells              []cell
}

type classRow struct {
	Run, Class, Jobs, MeanWait, MedianWait, MeanResp, MeanBSLD, Killed string
}

type classTable struct {
	Rule string
	Rows []classRow
}

type pageData struct {
	D       *Data
	CSS     template.CSS
	Rows    []tableRow
	Classes []classTable
	Traces  string
	Procs   string
	// Grouped: the runs are of several workloads or loads; the summary
	// shows each run's group and compares within groups.
	Grouped bool
}

func fmtNum(x float64, digits int) string {
	s := strconv.FormatFloat(x, 'f', digits, 64)
	// thousands separators on the integer part
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// WriteHTML writes the self-contained page: the rendered tables, the
// embedded ECharts, the data as JSON, and the page's script. The page
// makes no network request (its Content-Security-Policy forbids any).
func WriteHTML(w io.Writer, d *Data) error {
	pd := pageData{D: d, CSS: template.CSS(reportCSS)}
	for i, run := range d.Runs {
		tr := tableRow{Label: run.Label, Name: run.Label, Group: run.GroupName}
		if run.GroupName != "" && run.Short != "" {
			tr.Name = run.Short
		}
		pd.Grouped = pd.Grouped || run.GroupName != ""
		for c, col := range d.Summary.Columns {
			tr.Cells = append(tr.Cells, cell{Text: fmtNum(d.Summary.Rows[i][c], col.Digits), Best: slices.Contains(d.Summary.Best[c], i)})
		}
		pd.Rows = append(pd.Rows, tr)
	}
	for _, ct := range d.Classes {
		t := classTable{Rule: ct.Rule}
		for r, run := range ct.Runs {
			for c, label := range ct.Labels {
				s := ct.Stats[r][c]
				if s.Jobs == 0 { // an empty class has no mean: "—", not 0.0
					t.Rows = append(t.Rows, classRow{Run: run, Class: label, Jobs: "0", MeanWait: "—", MedianWait: "—", MeanResp: "—", MeanBSLD: "—", Killed: "—"})
					continue
				}
				t.Rows = append(t.Rows, classRow{Run: run, Class: label, Jobs: fmtNum(float64(s.Jobs), 0),
					MeanWait: fmtNum(s.MeanWait, 1), MedianWait: fmtNum(s.MedianWait, 1), MeanResp: fmtNum(s.MeanResponse, 1),
					MeanBSLD: fmtNum(s.MeanBSLD, 2), Killed: fmtNum(float64(s.Killed), 0)})
			}
		}
		pd.Classes = append(pd.Classes, t)
	}
	var traces, procs []string
	for _, r := range d.Runs {
		if r.Trace != "" && !slices.Contains(traces, r.Trace) {
			traces = append(traces, r.Trace)
		}
		if p := strconv.Itoa(r.Procs); r.Procs > 0 && !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	pd.Traces, pd.Procs = strings.Join(traces, ", "), strings.Join(procs, ", ")

	bw := bufio.NewWriterSize(w, 1<<20)
	if err := page().Execute(bw, pd); err != nil {
		return err
	}
	for _, s := range []string{echartsJS, reportJS} {
		if strings.Contains(strings.ToLower(s), "</script") {
			return fmt.Errorf("report: an embedded script contains </script")
		}
	}
	fmt.Fprintf(bw, "<script>/* Apache ECharts %s, Apache License 2.0, https://echarts.apache.org */\n", EChartsVersion())
	bw.WriteString(echartsJS)
	bw.WriteString("\n</script>\n<script type=\"application/json\" id=\"report-data\">")
	enc := json.NewEncoder(bw) // escapes <, > and &: the JSON cannot close the script element
	if err := enc.Encode(d); err != nil {
		return err
	}
	bw.WriteString("</script>\n<script>\n")
	bw.WriteString(reportJS)
	bw.WriteString("</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// DataJSON returns the data as indented JSON, as golden tests compare it.
func DataJSON(d *Data) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
