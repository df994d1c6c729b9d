package audit

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Summary is the violations by kind, in kind order: "3 violations:
// capacity 1, fcfs-order 2".
func (r *Report) Summary() string {
	var parts []string
	for _, k := range r.Kinds() {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Counts[k]))
	}
	return fmt.Sprintf("%d violations: %s", r.Total(), strings.Join(parts, ", "))
}

// Listed is a kept violation as JSON shows it.
type Listed struct {
	Kind string `json:"kind"`
	Job  int64  `json:"swf_id"`
	Time int64  `json:"time"`
	Msg  string `json:"message"`
}

// Listed are the kept violations for JSON output (an empty list, not
// nil, when there is none).
func (r *Report) Listed() []Listed {
	vs := []Listed{}
	for _, v := range r.Violations {
		vs = append(vs, Listed{v.Kind, v.SWFID, v.Time, v.Msg})
	}
	return vs
}

// WriteCSV writes the kept violations as CSV: kind, swf_id, time,
// message.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"kind", "swf_id", "time", "message"}); err != nil {
		return err
	}
	for _, v := range r.Violations {
		if err := cw.Write([]string{v.Kind, strconv.FormatInt(v.SWFID, 10), strconv.FormatInt(v.Time, 10), v.Msg}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
