package progress

import (
	"bytes"
	"regexp"
	"testing"
)

func TestCellsOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	p, done := cells(&buf, false, "slack")
	p(1, 2, "easy on KTH")
	p(2, 2, "slack on KTH")
	done()
	re := regexp.MustCompile(`^reproduce slack: 1/2 easy on KTH \(\d+ s\)\nreproduce slack: 2/2 slack on KTH \(\d+ s\)\n$`)
	if !re.MatchString(buf.String()) {
		t.Fatalf("lines %q", buf.String())
	}
}

func TestCellsOnTerminalDrawsABar(t *testing.T) {
	var buf bytes.Buffer
	p, done := cells(&buf, true, "slack")
	p(1, 2, "a")
	p(2, 2, "b")
	done()
	if !bytes.Contains(buf.Bytes(), []byte("slack")) || !bytes.Contains(buf.Bytes(), []byte("(1/2)")) {
		t.Fatalf("bar output %q", buf.String())
	}
}

func TestNilJobsDoesNothing(t *testing.T) {
	var p *Jobs
	p.Add(3)
	p.Finish()
	q := NewJobs(10, "x") // stderr is not a terminal under go test
	q.Add(3)
	q.Finish()
}
