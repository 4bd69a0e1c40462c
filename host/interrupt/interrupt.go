// Package interrupt turns SIGINT, SIGTERM, SIGHUP and SIGQUIT into the
// end of a run: the first cancels the run's context, so the loop stops the
// agent's process group (SIGTERM, a grace period, SIGKILL) and reports the
// run as interrupted; the second closes Kill, so the group is killed at
// once.
//
// The agent runs in a session of its own, so the terminal's Ctrl+C,
// Ctrl+\ and hang-up reach rooda alone: rooda must pass them on, or the
// agent outlives it. SIGQUIT is caught too, as a stop: left to Go's
// runtime, it would dump every goroutine's stack into the log and exit at
// once, the record left "running" and the agent's group alive. A signal
// rooda was started ignoring (SIGHUP under nohup) stays ignored.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// stops are the signals that interrupt a run.
var stops = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// caught are the stops rooda was not started ignoring. Under nohup a
// hang-up must not end the run, nor Ctrl+C a job a script started in the
// background; catching them would undo what was asked (os/signal's
// Notify un-ignores SIGHUP and SIGINT).
func caught() []os.Signal {
	var sigs []os.Signal
	for _, sig := range stops {
		if !signal.Ignored(sig) {
			sigs = append(sigs, sig)
		}
	}
	return sigs
}

// Signal is the cause of an interrupted context: the signal received.
type Signal struct{ os.Signal }

// Error is the signal's name, as kill -l gives it: "SIGQUIT".
func (s Signal) Error() string {
	if sig, ok := s.Signal.(syscall.Signal); ok {
		if name := unix.SignalName(sig); name != "" {
			return name
		}
	}
	return s.Signal.String()
}

// Error is why work stopped at a signal before it was done: exit code
// 130, as a shell reports a command Ctrl+C ended.
type Error struct{ Cause error }

func (e Error) Error() string {
	if e.Cause == nil {
		return "interrupted"
	}
	return "interrupted by " + e.Cause.Error()
}

func (e Error) ExitCode() int { return 130 }

// Watcher owns the signal handling of one run.
type Watcher struct {
	// Kill is closed by the second signal.
	Kill   <-chan struct{}
	ch     chan os.Signal
	pipe   chan os.Signal
	cancel context.CancelCauseFunc
	done   chan struct{}
	// next are the contexts Next made that are still waiting.
	mu   sync.Mutex
	next map[*context.CancelCauseFunc]bool
}

// Watch starts catching SIGINT, SIGTERM, SIGHUP and SIGQUIT, less those
// rooda was started ignoring. The returned context ends at the first,
// with a Signal as its cause. Stop must be called when the run is over,
// to give the signals back.
//
// It also catches SIGPIPE, which is then never acted on: a write to a
// closed stdout or stderr (rooda -v | head) fails with EPIPE instead of
// killing rooda and leaving the agent running. Catching it, unlike
// ignoring it, is not inherited by the agent.
func Watch(parent context.Context) (context.Context, *Watcher) {
	ctx, cancel := context.WithCancelCause(parent)
	kill := make(chan struct{})
	w := &Watcher{Kill: kill, ch: make(chan os.Signal, 2), pipe: make(chan os.Signal, 1), cancel: cancel, done: make(chan struct{}), next: map[*context.CancelCauseFunc]bool{}}
	signal.Notify(w.ch, caught()...)
	signal.Notify(w.pipe, syscall.SIGPIPE)
	go w.loop(kill)
	return ctx, w
}

func (w *Watcher) loop(kill chan<- struct{}) {
	for received := 1; ; received++ {
		select {
		case sig := <-w.ch:
			switch received {
			case 1:
				w.cancel(Signal{sig})
			case 2:
				close(kill)
			}
			w.endNext(Signal{sig})
		case <-w.done:
			return
		}
	}
}

// Next returns a context that ends at the next signal, with a Signal as
// its cause, or when parent does: for what must still be done after the
// run's context ended (telling a notifier how an interrupted run ended),
// and which a signal must still stop. The cancel function must be called
// when the work is over.
func (w *Watcher) Next(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	w.mu.Lock()
	w.next[&cancel] = true
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		delete(w.next, &cancel)
		w.mu.Unlock()
		cancel(context.Canceled)
	}
}

// endNext ends the contexts Next made with the signal.
func (w *Watcher) endNext(sig Signal) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for cancel := range w.next {
		(*cancel)(sig)
		delete(w.next, cancel)
	}
}

// Stopped is why ctx ended, as an error with an exit code: its cause when
// that has one (a run's duration budget), else an interrupt (130).
func Stopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	var coded interface{ ExitCode() int }
	if errors.As(cause, &coded) {
		return cause
	}
	return Error{Cause: cause}
}

// Stop stops catching the signals and ends the context.
func (w *Watcher) Stop() {
	signal.Stop(w.ch)
	signal.Stop(w.pipe)
	close(w.done)
	w.cancel(context.Canceled)
}

// Budget is the run-wide budget that ended ctx (its cause has an exit
// code of its own and is no interrupt: --max-duration), or nil when ctx
// goes on or an interrupt ended it.
func Budget(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if err := Stopped(ctx); !errors.As(err, new(Error)) {
		return err
	}
	return nil
}
