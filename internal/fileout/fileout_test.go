package fileout

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: the filled bytes reach the file; a fill error names the file;
// a file that cannot be created is an error.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello\n" {
		t.Fatalf("file holds %q", b)
	}
	err := Write(p, func(io.Writer) error { return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("fill error: %v", err)
	}
	if err := Write(filepath.Join(dir, "missing", "b.txt"), func(io.Writer) error { return nil }); err == nil {
		t.Fatal("no error for a file in a missing directory")
	}
}
