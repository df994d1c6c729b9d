package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
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

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// writeCSV writes a header and rows.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// writeFile creates path and writes it through a buffer with fill; an
// error names the file.
func writeFile(path string, fill func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := newBufWriter(fh)
	if err := fill(bw); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return fh.Close()
}

// newBufWriter is a 64 KiB buffered writer on w.
func newBufWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 1<<16) }
