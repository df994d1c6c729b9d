package workload

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// ApplyPriorities sets the user and political priorities (job.Request.UP
// and PP, Talby & Feitelson §2.3) of jobs from a source spec:
//
//   - "" or "none": every job UP = PP = 0 (the paper's §5.2 setting);
//   - "every:N": every N-th job (N-th, 2N-th, … in submission order) gets
//     UP = PP = 1, the rest 0 (§5.3 uses N = 5);
//   - "csv:FILE": a CSV file with header job_id,up,pp (job_id is the SWF
//     job number; pp may be -inf for a job over its quota); jobs not listed
//     keep 0;
//   - "user:FILE", "group:FILE", "queue:FILE", "partition:FILE": a CSV with
//     header id,up,pp mapping the SWF user, group, queue or partition
//     number to priorities (political priorities are usually per group).
//
// Priorities must lie in [0, 1] (pp may also be -inf). Errors name the
// file and line.
func ApplyPriorities(jobs []job.Job, spec string) error {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "", "none":
		for i := range jobs {
			jobs[i].UP, jobs[i].PP = 0, 0
		}
		return nil
	case "every":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return fmt.Errorf("priorities %q: expected every:N with N ≥ 1", spec)
		}
		for i := range jobs {
			if (i+1)%n == 0 {
				jobs[i].UP, jobs[i].PP = 1, 1
			} else {
				jobs[i].UP, jobs[i].PP = 0, 0
			}
		}
		return nil
	case "csv", "user", "group", "queue", "partition":
		if arg == "" {
			return fmt.Errorf("priorities %q: expected %s:FILE", spec, kind)
		}
		table, err := readPriorityCSV(arg, kind == "csv")
		if err != nil {
			return err
		}
		for i := range jobs {
			j := &jobs[i]
			var key int64
			switch kind {
			case "csv":
				key = j.SWFID
			case "user":
				key = int64(j.User)
			case "group":
				key = int64(j.Group)
			case "queue":
				key = int64(j.Queue)
			case "partition":
				key = int64(j.Partition)
			}
			if p, ok := table[key]; ok {
				j.UP, j.PP = p[0], p[1]
			} else {
				j.UP, j.PP = 0, 0
			}
		}
		return nil
	}
	return fmt.Errorf("priorities %q: expected none, every:N, csv:FILE, user:FILE, group:FILE, queue:FILE or partition:FILE", spec)
}

func readPriorityCSV(path string, byJob bool) (map[int64][2]float64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.FieldsPerRecord = 3
	r.Comment = '#'
	r.TrimLeadingSpace = true
	idName := "id"
	if byJob {
		idName = "job_id"
	}
	out := map[int64][2]float64{}
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (expected %s,up,pp)", path, err, idName)
		}
		if first {
			if rec[0] != idName || rec[1] != "up" || rec[2] != "pp" {
				return nil, fmt.Errorf("%s:%d: expected the header %s,up,pp, found %s", path, line, idName, strings.Join(rec, ","))
			}
			continue
		}
		id, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: expected an integer, found %q", path, line, idName, rec[0])
		}
		up, err1 := strconv.ParseFloat(rec[1], 64)
		pp, err2 := strconv.ParseFloat(rec[2], 64)
		switch {
		case err1 != nil || up < 0 || up > 1 || math.IsNaN(up):
			return nil, fmt.Errorf("%s:%d: up: expected a number in [0,1], found %q", path, line, rec[1])
		case err2 != nil || math.IsNaN(pp) || (pp < 0 && !math.IsInf(pp, -1)) || pp > 1:
			return nil, fmt.Errorf("%s:%d: pp: expected a number in [0,1] or -inf, found %q", path, line, rec[2])
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: %s %d listed twice", path, line, idName, id)
		}
		out[id] = [2]float64{up, pp}
	}
	return out, nil
}
