// Package interrupt turns SIGINT and SIGTERM into the end of a run: the
// first cancels the run's context, so the loop stops the agent's process
// group (SIGTERM, a grace period, SIGKILL) and reports the run as
// interrupted; the second closes Kill, so the group is killed at once.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Signal is the cause of an interrupted context: the signal received.
type Signal struct{ os.Signal }

func (s Signal) Error() string {
	if sig, ok := s.Signal.(syscall.Signal); ok {
		switch sig {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		}
	}
	return s.Signal.String()
}

// Watcher owns the signal handling of one run.
type Watcher struct {
	// Kill is closed by the second signal.
	Kill   <-chan struct{}
	ch     chan os.Signal
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Watch starts catching SIGINT and SIGTERM. The returned context ends at
// the first, with a Signal as its cause. Stop must be called when the run
// is over, to give the signals back.
func Watch(parent context.Context) (context.Context, *Watcher) {
	ctx, cancel := context.WithCancelCause(parent)
	kill := make(chan struct{})
	w := &Watcher{Kill: kill, ch: make(chan os.Signal, 2), cancel: cancel, done: make(chan struct{})}
	signal.Notify(w.ch, syscall.SIGINT, syscall.SIGTERM)
	go w.loop(kill)
	return ctx, w
}

func (w *Watcher) loop(kill chan<- struct{}) {
	select {
	case sig := <-w.ch:
		w.cancel(Signal{sig})
	case <-w.done:
		return
	}
	select {
	case <-w.ch:
		close(kill)
	case <-w.done:
	}
}

// Stop stops catching the signals and ends the context.
func (w *Watcher) Stop() {
	signal.Stop(w.ch)
	close(w.done)
	w.cancel(context.Canceled)
}
