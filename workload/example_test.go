package workload_test

import (
	"fmt"
	"strings"

	"github.com/backfill-hpc/backfill/workload"
)

// A three-job trace in the Standard Workload Format: the header gives the
// machine size; each line is one job (id, submit, wait, runtime,
// processors, …, requested time in field 9).
const tinySWF = `; MaxProcs: 4
1  0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1
2 10 0  50 2 -1 -1 2  60 -1 1 2 1 -1 1 -1 -1 -1
3 20 0  30 2 -1 -1 2  30 -1 1 1 1 -1 1 -1 -1 -1
`

func ExampleRead() {
	tr, err := workload.Read(strings.NewReader(tinySWF), "tiny.swf", workload.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d processors (%s), %d jobs\n", tr.Procs, tr.ProcsSource, len(tr.Jobs))
	for _, j := range tr.Jobs {
		fmt.Printf("job %d: submit %d, %d processors, estimate %d, runtime %d\n", j.SWFID, j.Submit, j.Procs, j.Estimate, j.Runtime)
	}
	// Output:
	// 4 processors (MaxProcs header), 3 jobs
	// job 1: submit 0, 4 processors, estimate 100, runtime 100
	// job 2: submit 10, 2 processors, estimate 60, runtime 50
	// job 3: submit 20, 2 processors, estimate 30, runtime 30
}
