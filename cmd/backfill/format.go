package main

import (
	"fmt"
)

// checkFormat accepts table (the default text), json or csv.
func checkFormat(format string) error {
	switch format {
	case "table", "json", "csv":
		return nil
	}
	return fmt.Errorf("--format: expected table, json or csv, found %q", format)
}

// checkProcsLoad refuses an explicit --procs below 1 or --load not above
// 0 (0 is also the flags' "not given" default, so only a changed flag is
// checked), naming what leaving the flag out means (procsOut, loadOut; an
// empty loadOut: the command has no --load).
func checkProcsLoad(changed func(string) bool, procs int, load float64, procsOut, loadOut string) error {
	if changed("procs") && procs <= 0 {
		return fmt.Errorf("--procs %d: the machine size must be at least 1 processor (leave --procs out %s)", procs, procsOut)
	}
	if loadOut != "" && changed("load") && !(load > 0) {
		return fmt.Errorf("--load %g: the offered load must be greater than 0, e.g. 0.9 (leave --load out %s)", load, loadOut)
	}
	return nil
}
