// Package fileout writes an output file through a buffer.
//
// Write is the one way the commands' writers (simulate's output directory,
// the importer's SWF, sidecar and names files) create a file: a 64 KiB
// buffer, and a write or flush error that names the file.
package fileout

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Write creates path and fills it through a 64 KiB buffer with fill; an
// error while filling or flushing names path.
func Write(path string, fill func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(fh, 1<<16)
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
