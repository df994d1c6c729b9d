// Package progress shows the progress of long commands on standard error.
//
// On a terminal it draws a bar; off a terminal it prints nothing (Jobs),
// one line per finished cell (Cells) or per finished run of a sweep
// (Sweep), so that logs and CI output stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Jobs is a bar of jobs ended on standard error, silent when standard
// error is not a terminal. Safe for concurrent use; a nil *Jobs does
// nothing.
type Jobs struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

// NewJobs is the bar of total jobs, described by what ("simulating").
func NewJobs(total int64, what string) *Jobs {
	p := &Jobs{}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("jobs"),
			progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Add counts n more jobs ended.
func (p *Jobs) Add(n int64) {
	if p == nil || p.bar == nil {
		return
	}
	p.mu.Lock()
	_ = p.bar.Add64(n)
	p.mu.Unlock()
}

// Finish ends the bar (and clears it).
func (p *Jobs) Finish() {
	if p == nil || p.bar == nil {
		return
	}
	p.mu.Lock()
	_ = p.bar.Finish()
	p.mu.Unlock()
}

// Cells reports the finished cells of a computation called name (a
// reproduction) on standard error: a bar on a terminal (a new one when
// the total changes or done is 1), else one line per cell with the
// elapsed time. The first function is called after each cell; the
// second ends the display.
func Cells(name string) (func(done, total int, cell string), func()) {
	return cells(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())), name)
}

func cells(w io.Writer, tty bool, name string) (func(done, total int, cell string), func()) {
	t0 := time.Now()
	if !tty {
		return func(done, total int, cell string) {
			fmt.Fprintf(w, "reproduce %s: %d/%d %s (%.0f s)\n", name, done, total, cell, time.Since(t0).Seconds())
		}, func() {}
	}
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	lastTotal := -1
	p := func(done, total int, cell string) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil || total != lastTotal || done == 1 {
			if bar != nil {
				_ = bar.Finish()
			}
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
				progressbar.OptionSetDescription(name), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
			lastTotal = total
		}
		_ = bar.Set(done)
	}
	return p, func() {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			_ = bar.Finish()
		}
	}
}
