package main

import (
	"fmt"
	"io"

	"github.com/backfill-hpc/backfill/metrics"
)

// parseClassRules parses the --classes values.
func parseClassRules(specs []string) ([]metrics.ClassRule, error) {
	var rules []metrics.ClassRule
	for _, s := range specs {
		r, err := metrics.ParseClassRule(s)
		if err != nil {
			return nil, fmt.Errorf("--classes: %w", err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// writeClassTables prints, for each rule, one table with the per-class
// metrics of every run.
func writeClassTables(w io.Writer, rules []metrics.ClassRule, runs []simRun, opt metrics.Options) error {
	for _, rule := range rules {
		rows := make([]metrics.ClassRow, len(runs))
		for i, r := range runs {
			rows[i] = metrics.ClassRow{Label: r.res.Policy, Classes: metrics.Classes(r.res.Outcomes, opt, rule)}
		}
		fmt.Fprintln(w)
		if err := metrics.WriteClassTable(w, rule, rows); err != nil {
			return err
		}
	}
	return nil
}
