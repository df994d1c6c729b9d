package metrics

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Row is one labelled Summary, typically one policy, in a comparison.
type Row struct {
	Label string
	S     Summary
}

// Fixed-decimal formatting shared by the table and the CSV.
func secs(x float64) string  { return strconv.FormatFloat(x, 'f', 1, 64) }
func ratio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
func pct(x float64) string   { return strconv.FormatFloat(100*x, 'f', 2, 64) }
func itoa(x int) string      { return strconv.Itoa(x) }
func i64(x int64) string     { return strconv.FormatInt(x, 10) }

// TableOptions tune WriteTableWith.
type TableOptions struct {
	// Human prints durations as "4d 02h", "1h 53m", "12m 30s", "45 s"
	// instead of seconds.
	Human bool
}

// WriteTable prints rows as an aligned text table: a first block with the
// overall metrics (policy, jobs, mean/median/p90/p99/max wait, mean
// response, mean bounded slowdown, utilization in %, makespan, killed) and,
// after a blank line, a second block with the short/long split (jobs, mean
// wait, mean response and mean bounded slowdown per class); a third block
// with the prediction accuracy follows when some row planned with
// predictions (Summary.Prediction). Every header names its unit; every
// duration is printed in seconds with one decimal, slowdowns and
// utilization with two; what a run without jobs does not have (means,
// percentiles, and utilization and makespan without a schedule) is "—". The label column is left-aligned, the others
// right-aligned.
func WriteTable(w io.Writer, rows []Row) error { return WriteTableWith(w, rows, TableOptions{}) }

// WriteTableWith is WriteTable with options.
func WriteTableWith(w io.Writer, rows []Row, opt TableOptions) error {
	d, u := secs, " (s)"
	if opt.Human {
		d, u = HumanDuration, ""
	}
	di := func(x int64) string { return d(float64(x)) }
	overall := [][]string{{"policy", "jobs", "mean wait" + u, "median wait" + u, "p90 wait" + u, "p99 wait" + u,
		"max wait" + u, "mean resp" + u, "mean bsld", "util %", "makespan" + u, "killed"}}
	split := [][]string{{"policy", "short jobs", "short wait" + u, "short resp" + u, "short bsld",
		"long jobs", "long wait" + u, "long resp" + u, "long bsld"}}
	for _, r := range rows {
		a, sh, lo := r.S.All, r.S.Short, r.S.Long
		line := []string{r.Label, itoa(a.Jobs), d(a.MeanWait), d(a.MedianWait),
			d(a.P90Wait), d(a.P99Wait), di(a.MaxWait), d(a.MeanResponse), ratio(a.MeanBSLD),
			pct(r.S.Utilization), di(r.S.Makespan), itoa(a.Killed)}
		// no measured job: no means or percentiles; no schedule at all
		// (makespan 0): no utilization or makespan. "—", not 0.0
		if a.Jobs == 0 {
			for i := 2; i <= 8; i++ {
				line[i] = "—"
			}
		}
		if r.S.Makespan == 0 {
			line[9], line[10] = "—", "—"
		}
		overall = append(overall, line)
		// an empty class has no mean: "—", not 0.0 (as the report)
		cls := func(s Stats) []string {
			if s.Jobs == 0 {
				return []string{"0", "—", "—", "—"}
			}
			return []string{itoa(s.Jobs), d(s.MeanWait), d(s.MeanResponse), ratio(s.MeanBSLD)}
		}
		split = append(split, append(append([]string{r.Label}, cls(sh)...), cls(lo)...))
	}
	bw := bufio.NewWriter(w)
	writeAligned(bw, overall)
	bw.WriteByte('\n')
	writeAligned(bw, split)
	if pred := predictionBlock(rows); pred != nil {
		bw.WriteByte('\n')
		writeAligned(bw, pred)
	}
	if adm := admissionBlock(rows); adm != nil {
		bw.WriteByte('\n')
		writeAligned(bw, adm)
	}
	return bw.Flush()
}

// HumanDuration writes seconds as "45 s", "12m 30s", "3h 05m" or
// "2d 04h" (rounded to the second; the two largest units).
func HumanDuration(x float64) string {
	s := int64(math.Round(x))
	neg := ""
	if s < 0 {
		neg, s = "-", -s
	}
	switch {
	case s < 60:
		return fmt.Sprintf("%s%d s", neg, s)
	case s < 3600:
		return fmt.Sprintf("%s%dm %02ds", neg, s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%s%dh %02dm", neg, s/3600, s/60%60)
	}
	return fmt.Sprintf("%s%dd %02dh", neg, s/86400, s/3600%24)
}

// admissionBlock is the fourth block of WriteTable, present only when
// some row has AdmissionStats: jobs with a deadline, unadmitted jobs and
// processor-seconds in % (all jobs, then deadline jobs), deadline misses,
// utilization, and the mean response and bounded slowdown of the
// non-deadline jobs.
func admissionBlock(rows []Row) [][]string {
	has := false
	for _, r := range rows {
		has = has || r.S.Admission != nil
	}
	if !has {
		return nil
	}
	cells := [][]string{{"policy", "deadline jobs", "unadmitted %", "unadm. work %", "unadm. dl %", "unadm. dl work %",
		"misses", "util %", "non-dl jobs", "non-dl resp (s)", "non-dl bsld"}}
	for _, r := range rows {
		a := r.S.Admission
		if a == nil {
			cells = append(cells, []string{r.Label, "0", "-", "-", "-", "-", "-", pct(r.S.Utilization), "-", "-", "-"})
			continue
		}
		cells = append(cells, []string{r.Label, itoa(a.DeadlineJobs), pct(a.Unadmitted), pct(a.UnadmittedWork),
			pct(a.UnadmittedDeadline), pct(a.UnadmittedDeadlineWork), itoa(a.Misses), pct(r.S.Utilization),
			itoa(a.NonDeadline.Jobs), secs(a.NonDeadline.MeanResponse), ratio(a.NonDeadline.MeanBSLD)})
	}
	return cells
}

// predictionBlock is the third block of WriteTable, present only when
// some row has predictions: jobs with a prediction, mean absolute error,
// under-prediction rate in %, corrections and corrected jobs.
func predictionBlock(rows []Row) [][]string {
	has := false
	for _, r := range rows {
		has = has || r.S.Prediction != nil
	}
	if !has {
		return nil
	}
	cells := [][]string{{"policy", "predicted jobs", "pred MAE (s)", "under %", "corrections", "corrected jobs"}}
	for _, r := range rows {
		p := r.S.Prediction
		if p == nil {
			cells = append(cells, []string{r.Label, "0", "-", "-", "-", "-"})
			continue
		}
		cells = append(cells, []string{r.Label, itoa(p.Jobs), secs(p.MAE), pct(p.Under), itoa(p.Corrections), itoa(p.Corrected)})
	}
	return cells
}

// writeAligned writes cells with two spaces between columns, the first
// column left-aligned and padded, the others right-aligned, no trailing
// blanks. Widths count runes.
func writeAligned(w *bufio.Writer, cells [][]string) {
	var width []int
	for _, row := range cells {
		for j, c := range row {
			if j >= len(width) {
				width = append(width, 0)
			}
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	for _, row := range cells {
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-len([]rune(c)))
			switch {
			case j == 0 && j == len(row)-1:
				w.WriteString(c)
			case j == 0:
				w.WriteString(c + pad)
			default:
				w.WriteString("  " + pad + c)
			}
		}
		w.WriteByte('\n')
	}
}

// jsonRow is the JSON form of a Row: the label under "policy", followed by
// the Summary's fields.
type jsonRow struct {
	Policy string `json:"policy"`
	Summary
}

// WriteJSON writes rows as an indented JSON array, one object per row with
// the key "policy" (the label) followed by the Summary fields in snake_case
// ("all", "short" and "long" Stats objects, "utilization" as a fraction,
// "makespan", "first_submit", "last_end", "excluded"). Numbers keep full
// precision; the output is deterministic.
func WriteJSON(w io.Writer, rows []Row) error {
	out := make([]jsonRow, len(rows))
	for i, r := range rows {
		out[i] = jsonRow{Policy: r.Label, Summary: r.S}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// statsColumns names the CSV columns of one Stats, without class prefix.
var statsColumns = []string{"jobs", "mean_wait", "median_wait", "p90_wait", "p99_wait",
	"max_wait", "mean_response", "mean_bsld", "killed"}

func statsCells(s Stats) []string {
	return []string{itoa(s.Jobs), secs(s.MeanWait), secs(s.MedianWait), secs(s.P90Wait),
		secs(s.P99Wait), i64(s.MaxWait), secs(s.MeanResponse), ratio(s.MeanBSLD), itoa(s.Killed)}
}

// admissionColumns are appended to the CSV when some row has
// AdmissionStats (percentages for the fractions).
var admissionColumns = []string{"deadline_jobs", "rejected", "rejected_deadline", "unadmitted_pct",
	"unadmitted_work_pct", "unadmitted_deadline_pct", "unadmitted_deadline_work_pct", "deadline_misses",
	"non_deadline_jobs", "non_deadline_mean_wait", "non_deadline_mean_response", "non_deadline_mean_bsld",
	"deadline_mean_response", "deadline_mean_bsld"}

func admissionCells(a *AdmissionStats) []string {
	if a == nil {
		out := make([]string, len(admissionColumns))
		for i := range out {
			out[i] = "0"
		}
		return out
	}
	return []string{itoa(a.DeadlineJobs), itoa(a.Rejected), itoa(a.RejectedDeadline), pct(a.Unadmitted),
		pct(a.UnadmittedWork), pct(a.UnadmittedDeadline), pct(a.UnadmittedDeadlineWork), itoa(a.Misses),
		itoa(a.NonDeadline.Jobs), secs(a.NonDeadline.MeanWait), secs(a.NonDeadline.MeanResponse), ratio(a.NonDeadline.MeanBSLD),
		secs(a.Deadline.MeanResponse), ratio(a.Deadline.MeanBSLD)}
}

// CSVHeader returns the columns WriteCSV writes: policy; the all-jobs
// Stats (jobs, mean_wait, median_wait, p90_wait, p99_wait, max_wait,
// mean_response, mean_bsld, killed); utilization_pct, makespan,
// first_submit, last_end, excluded; then the same Stats columns prefixed
// short_ and long_. When some row has AdmissionStats, WriteCSV appends
// the admission columns (deadline_jobs, rejected, rejected_deadline,
// unadmitted_pct, unadmitted_work_pct, unadmitted_deadline_pct,
// unadmitted_deadline_work_pct, deadline_misses, non_deadline_jobs,
// non_deadline_mean_wait, non_deadline_mean_response,
// non_deadline_mean_bsld, deadline_mean_response, deadline_mean_bsld).
func CSVHeader() []string {
	h := []string{"policy"}
	h = append(h, statsColumns...)
	h = append(h, "utilization_pct", "makespan", "first_submit", "last_end", "excluded")
	for _, class := range []string{"short_", "long_"} {
		for _, c := range statsColumns {
			h = append(h, class+c)
		}
	}
	return h
}

// WriteCSV writes a header line (CSVHeader) and one line per row, with the
// same fixed decimals as WriteTable.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	adm := false
	for _, r := range rows {
		adm = adm || r.S.Admission != nil
	}
	head := CSVHeader()
	if adm {
		head = append(head, admissionColumns...)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Label}
		rec = append(rec, statsCells(r.S.All)...)
		rec = append(rec, pct(r.S.Utilization), i64(r.S.Makespan), i64(r.S.FirstSubmit),
			i64(r.S.LastEnd), itoa(r.S.Excluded))
		rec = append(rec, statsCells(r.S.Short)...)
		rec = append(rec, statsCells(r.S.Long)...)
		if adm {
			rec = append(rec, admissionCells(r.S.Admission)...)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
