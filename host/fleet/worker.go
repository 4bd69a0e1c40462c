package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"rooda/host/ledger"
)

// Worker works the fleet's queued runs: each in a workspace of its own,
// by the rooda program, as `rooda run` or `rooda script run` would on
// its own, with the lease held while it goes on.
type Worker struct {
	Queue *Queue
	// Name says who the worker is in the runs' states: host and pid.
	Name string
	// Rooda is the rooda executable each run runs.
	Rooda string
	// Workspaces is the directory of the runs' workspaces, and Logs of
	// what each run's rooda printed.
	Workspaces, Logs string
	// Log is where the worker says what it takes and how each ended.
	Log io.Writer
	// Grace is how long a run stopped with SIGTERM has to end before
	// SIGKILL.
	Grace time.Duration
	// Ledger, when set, is the accounts' ledger the worker serves its
	// runs (serveLedger), in place of the file of their machine: the
	// loops of an account share its limits on every worker of the fleet.
	Ledger ledger.Store
	// ledgerAddr is where it serves it, ROODA_LEDGER's value.
	ledgerAddr string
	logMu      sync.Mutex
}

// Work works runs, slots at a time, until ctx ends. A run still going
// then is stopped and given back to the queue, for a worker to take up
// where it stopped.
func (w *Worker) Work(ctx context.Context, slots int) error {
	if w.Ledger != nil {
		addr, stop, err := serveLedger(w.Ledger)
		if err != nil {
			return fmt.Errorf("serving the accounts' ledger: %w", err)
		}
		defer stop()
		w.ledgerAddr = addr
	}
	errs := make(chan error, slots)
	for range slots {
		go func() { errs <- w.slot(ctx) }()
	}
	var all []error
	for range slots {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// slot takes one run after another. A server that cannot be reached
// (restarted, a network cut) is asked again every second, the client
// reconnecting meanwhile: a worker outlives its server's restarts.
func (w *Worker) slot(ctx context.Context) error {
	var said string
	for {
		l, err := w.Queue.Take(ctx, w.Name)
		if ctx.Err() != nil {
			if l != nil {
				l.Release(context.WithoutCancel(ctx), 0)
			}
			return nil
		}
		if err != nil {
			if err.Error() != said {
				w.say("taking a run: %v (trying again every second)", err)
				said = err.Error()
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		said = ""
		w.work(ctx, l)
	}
}

// work runs the run l holds to its end, or until the lease is lost or
// ctx ends, and writes what became of it.
func (w *Worker) work(ctx context.Context, l *Lease) {
	st := l.State()
	name := st.Run.Name
	w.say("%s: taken (attempt %d)", name, st.Attempt)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runDir atomic.Pointer[string] // the run's directory, once its workspace is made
	lost := l.Hold(runCtx, func() (Progress, bool) {
		if d := runDir.Load(); d != nil {
			return progressIn(*d)
		}
		return Progress{}, false
	})
	ws, err := workspace(runCtx, w.Workspaces, st.Run)
	if err == nil {
		err = l.Update(runCtx, func(s *State) { s.Workspace = ws })
	}
	if err != nil {
		w.end(ctx, l, Ending{Status: "error", ExitCode: 1}, err)
		return
	}
	dir := filepath.Join(ws, st.Run.Subdir)
	runDir.Store(&dir)
	next := whatNext(dir, st.Run)
	switch {
	case next.going:
		// A rooda of an earlier attempt still works here (its worker
		// paused, or cut off): it is not this worker's to touch, and
		// it stops once its worker finds the lease lost. Later.
		w.say("%s: record %s is still going here; given back for later", name, next.record)
		if err := l.Release(context.WithoutCancel(ctx), l.q.lease); err != nil {
			w.say("%s: not given back: %v", name, err)
		}
		return
	case next.ended != nil:
		// An earlier attempt ran to its end but lost its lease before
		// it could write it: the run is over, not to be run again.
		w.end(ctx, l, *next.ended, nil)
		return
	}
	argv := next.argv
	if next.record != "" {
		w.say("%s: resuming record %s", name, next.record)
	}
	done := make(chan runEnd, 1)
	go func() { done <- w.rooda(runCtx, dir, name, argv) }()
	var end runEnd
	select {
	case end = <-done:
	case err := <-lost:
		cancel()
		end = <-done
		if err != nil {
			w.say("%s: lease lost, run stopped: %v", name, err)
			return
		}
		// Hold stopped without a loss: the worker is stopping.
	case <-ctx.Done():
		end = <-done
	}
	if ctx.Err() != nil {
		// The worker stopped the run (interrupted, resumable) as it
		// stops: the run is not over.
		w.giveBack(ctx, l)
		return
	}
	w.end(ctx, l, end.Ending, end.err)
}

// giveBack releases a run its worker stopped, at once, for another to
// resume.
func (w *Worker) giveBack(ctx context.Context, l *Lease) {
	name := l.State().Run.Name
	if err := l.Release(context.WithoutCancel(ctx), 0); err != nil {
		w.say("%s: stopped, not given back: %v", name, err)
		return
	}
	w.say("%s: stopped, given back to the queue", name)
}

// end writes how the run ended and acknowledges it.
func (w *Worker) end(ctx context.Context, l *Lease, e Ending, cause error) {
	name := l.State().Run.Name
	if cause != nil {
		w.say("%s: %v", name, cause)
	}
	if err := l.End(context.WithoutCancel(ctx), e); err != nil {
		w.say("%s: ended %s, not written: %v", name, e.Status, err)
		return
	}
	w.say("%s: ended %s (exit %d)", name, e.Status, e.ExitCode)
}

func (w *Worker) say(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintf(w.Log, time.Now().Format("[15:04:05] ")+format+"\n", args...)
}
