package main

import (
	"fmt"

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
