// Command plugin-policy shows a scheduling policy written outside the
// backfill repository (package firstfit) run through backfill's three
// paths: the simulator (sim.Run on the embedded KTH SP2 trace), the
// experiment workbench (a sweep declared in YAML, here with the policy
// beside EASY and two loads) and the live service (an in-process HTTP
// server with the policy, a job submitted through the client). See
// docs/library.md.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/backfill-hpc/backfill/experiment"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // the shipped policies (easy, …) for the comparison
	"github.com/backfill-hpc/backfill/service"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"

	"example.com/plugin-policy/firstfit"
)

func main() {
	firstfit.Register()
	dir, err := os.MkdirTemp("", "plugin-policy-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// 1. The simulator: the policy against EASY on the embedded trace.
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, spec := range []string{"firstfit", "easy"} {
		s, err := policy.New(spec, tr.Procs)
		if err != nil {
			log.Fatal(err)
		}
		res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs})
		if err != nil {
			log.Fatal(err)
		}
		sum := metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs, Tau: 10})
		fmt.Printf("simulate %-9s mean wait %9.1f s  max wait %8d s  mean bsld %7.2f\n", spec, sum.All.MeanWait, sum.All.MaxWait, sum.All.MeanBSLD)
	}

	// 2. The workbench: a sweep over two loads, results in a store that
	// `backfill results` and `backfill report` read.
	yaml := []byte(`name: plugin
workloads:
  - trace: builtin
    subset: {jobs: 2000}
    load: [0.7, 0.9]
policies: [firstfit, easy]
`)
	spec, err := experiment.Parse(yaml, filepath.Join(dir, "plugin.yaml"), experiment.ParseOptions{})
	if err != nil {
		log.Fatal(err)
	}
	plan, err := experiment.Expand(spec)
	if err != nil {
		log.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	rep, err := experiment.Execute(context.Background(), spec, plan, experiment.Options{Out: out, Workers: 2, Audit: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sweep: %d runs, %d failed; results in a store (backfill results DIR, backfill report DIR)\n", rep.Ran, rep.Failed)
	if rep.Failed > 0 {
		log.Fatalf("failed runs: %+v", rep.Failures)
	}

	// 3. The live service with the policy, on an in-process HTTP server.
	svc, err := service.Open(service.Config{Policy: "firstfit", Procs: 8, StateDir: filepath.Join(dir, "state"), AdminToken: "bf_example_admin"})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()
	stop := make(chan struct{})
	go svc.Run(stop)
	defer close(stop)
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	c := service.NewClient(srv.URL, "bf_example_admin")
	procs, est := 4, int64(3600)
	j, err := c.Submit(context.Background(), service.SubmitRequest{Procs: &procs, Estimate: &est, Name: "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("service (policy %s): job %d %s, state %s\n", svc.Policy(), j.ID, j.Name, j.State)
}
