package progress

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/experiment"
)

func TestSweepLogLines(t *testing.T) {
	var buf bytes.Buffer
	d := NewSweep(&buf, "log")
	r := &experiment.Run{ID: "abc", Label: "kth", Config: experiment.Config{Policy: "easy"}}
	d.Event(experiment.Event{Kind: experiment.RunStarted, Run: r, Total: 2})
	d.Event(experiment.Event{Kind: experiment.RunDone, Run: r, Done: 1, Total: 2, Elapsed: 1500 * time.Millisecond})
	d.Event(experiment.Event{Kind: experiment.RunDone, Run: r, Done: 2, Failed: 1, Total: 2, Err: errors.New("boom\nstack")})
	d.Finish()
	re := regexp.MustCompile(`^\[1/2\] ok abc kth .*\(1\.5s, eta \d+s\)\n\[2/2\] FAILED abc kth .*\(0\.0s\): boom\n$`)
	if !re.MatchString(buf.String()) {
		t.Fatalf("log lines %q", buf.String())
	}
	buf.Reset()
	n := NewSweep(&buf, "none")
	n.Event(experiment.Event{Kind: experiment.RunDone, Run: r, Done: 1, Total: 2})
	n.Finish()
	if buf.Len() != 0 {
		t.Errorf("mode none wrote %q", buf.String())
	}
}
