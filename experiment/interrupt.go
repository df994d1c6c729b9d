package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// ExecuteUntilSignal is Execute for the sweep command: the first Ctrl-C
// (SIGINT) or SIGTERM lets the runs in progress finish and starts no new
// one, saying so on stderr; a second one ends the process. opt.OnEvent,
// if set, still sees every event.
func ExecuteUntilSignal(stderr io.Writer, spec *Spec, plan *Plan, opt Options) (*Report, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var mu sync.Mutex
	running := 0
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
		mu.Lock()
		n := running
		mu.Unlock()
		if n > 0 {
			fmt.Fprintf(stderr, "\ninterrupted: no new run starts; waiting for the %d run(s) in progress (Ctrl-C again to quit now; finished runs are kept)\n", n)
		}
	}()
	onEvent := opt.OnEvent
	opt.OnEvent = func(e Event) {
		mu.Lock()
		if e.Kind == RunStarted {
			running++
		} else {
			running--
		}
		mu.Unlock()
		if onEvent != nil {
			onEvent(e)
		}
	}
	return Execute(ctx, spec, plan, opt)
}
