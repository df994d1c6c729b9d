package experiment

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"time"
)

func TestDisplayLogLines(t *testing.T) {
	var buf bytes.Buffer
	d := NewDisplay(&buf, "log")
	r := &Run{ID: "abc", Label: "kth", Config: Config{Policy: "easy"}}
	d.Event(Event{Kind: RunStarted, Run: r, Total: 2})
	d.Event(Event{Kind: RunDone, Run: r, Done: 1, Total: 2, Elapsed: 1500 * time.Millisecond})
	d.Event(Event{Kind: RunDone, Run: r, Done: 2, Failed: 1, Total: 2, Err: errors.New("boom\nstack")})
	d.Finish()
	re := regexp.MustCompile(`^\[1/2\] ok abc kth .*\(1\.5s, eta \d+s\)\n\[2/2\] FAILED abc kth .*\(0\.0s\): boom\n$`)
	if !re.MatchString(buf.String()) {
		t.Fatalf("log lines %q", buf.String())
	}
	buf.Reset()
	n := NewDisplay(&buf, "none")
	n.Event(Event{Kind: RunDone, Run: r, Done: 1, Total: 2})
	n.Finish()
	if buf.Len() != 0 {
		t.Errorf("mode none wrote %q", buf.String())
	}
}
