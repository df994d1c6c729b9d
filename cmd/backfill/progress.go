package main

import (
	"bufio"
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr, silent when stderr is not a
// terminal (so logs and CI output stay clean). Safe for concurrent use.
type progress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func newProgress(total int64, what string) *progress {
	p := &progress{}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("jobs"),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100_000_000),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *progress) add(n int64) {
	if p == nil || p.bar == nil {
		return
	}
	p.mu.Lock()
	_ = p.bar.Add64(n)
	p.mu.Unlock()
}

func (p *progress) finish() {
	if p == nil || p.bar == nil {
		return
	}
	p.mu.Lock()
	_ = p.bar.Finish()
	p.mu.Unlock()
}

func newBufWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 1<<16) }
