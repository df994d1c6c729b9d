package slurm

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
)

// ReadSidecar reads the sidecar CSV that `backfill import slurm` writes
// beside an imported SWF file (docs/workload.md: job_number, user,
// account, partition, queue, …) and returns a Resolver that gives each job
// (by its SWF job number, Request.SWFID) its user, account, partition and
// QOS (the queue column) names; jobs not in the file fall back to
// DefaultResolver.
func ReadSidecar(path string) (Resolver, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSidecar(f, path)
}

// ParseSidecar is ReadSidecar on a reader (name for errors).
func ParseSidecar(r io.Reader, name string) (Resolver, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: expected the sidecar header (job_number,…): %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"job_number", "user", "account", "partition", "queue"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s:1: the header has no column %q (want the sidecar of backfill import)", name, need)
		}
	}
	infos := map[int64]Info{}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if len(rec) < len(head) {
			return nil, fmt.Errorf("%s:%d: expected %d fields, found %d", name, line, len(head), len(rec))
		}
		n, err := strconv.ParseInt(rec[col["job_number"]], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: job_number: expected an integer, found %q", name, line, rec[col["job_number"]])
		}
		in := Info{User: rec[col["user"]], Account: rec[col["account"]], QOS: rec[col["queue"]], Partition: rec[col["partition"]]}
		if in.Account == "" {
			in.Account = "none"
		}
		if in.QOS == "" {
			in.QOS = "normal"
		}
		infos[n] = in
	}
	return func(j *job.Request) Info {
		if in, ok := infos[j.SWFID]; ok {
			return in
		}
		return DefaultResolver(j)
	}, nil
}
