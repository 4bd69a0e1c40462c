package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"rooda/host/journal"
	"rooda/host/ledger"
	"rooda/host/runlog"
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
	// Tracer, if not nil, makes a span of each run the worker takes,
	// the parent of the run's own trace (traces.go).
	Tracer trace.Tracer
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
	ctx, span := w.startRunSpan(ctx, l)
	defer span.End()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runDir atomic.Pointer[string] // the run's directory, once its workspace is made
	lost := l.Hold(runCtx, func() (Progress, bool) {
		if d := runDir.Load(); d != nil {
			return progressIn(*d)
		}
		return Progress{}, false
	})
	ws, made, err := workspace(runCtx, w.Workspaces, st.Run)
	if err == nil && st.Run.Repo != "" {
		ws, err = w.fromStore(runCtx, ws, made, st.Run)
	}
	if err == nil {
		err = l.Update(runCtx, func(s *State) { s.Workspace = ws })
	}
	// The claim comes after the state's write, a compare-and-set: a
	// worker that lost its lease before it claims learns it there, and
	// does not fence out the worker that holds the run. Until the claim
	// (the clone, the store's download, the rewind: docs/fleet.md, "What
	// the lease guarantees"), the worker this one took the run from can
	// still push. It comes before the look for a rooda still going here
	// too: a run given back for one keeps its claim, which fences out
	// that rooda's worker, lost anyway.
	var push *branchPush
	if err == nil && st.Run.Repo != "" {
		push = newBranchPush(runCtx, ws, st.Run, w.Name, st.Attempt)
		err = push.claim(runCtx)
	}
	if errors.Is(err, errClaimRefused) {
		// A worker that lost the run pushed since this clone was made,
		// and learns at its next renewal that it did. Given back for a
		// lease's time: the next take makes the clone again, and
		// claims from there.
		w.say("%s: not taken: %v; given back for later", name, err)
		if err := l.Release(context.WithoutCancel(ctx), l.q.lease); err != nil {
			w.say("%s: not given back: %v", name, err)
		}
		return
	}
	if err != nil {
		w.notTaken(ctx, l, err)
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
		span.AddEvent(eventGivenBack, trace.WithAttributes(attribute.String("rooda.fleet.record", next.record)))
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
		span.AddEvent(eventResumed, trace.WithAttributes(attribute.String("rooda.fleet.record", next.record)))
	}
	copying := w.writeThrough(runCtx, l, dir, push)
	env := w.runEnv(ctx, l.State())
	done := make(chan runEnd, 1)
	go func() { done <- w.rooda(runCtx, dir, name, argv, env) }()
	var end runEnd
	select {
	case end = <-done:
	case err := <-lost:
		cancel()
		end = <-done
		copying.stop()
		if err != nil {
			w.say("%s: lease lost, run stopped: %v", name, err)
			leaseLost(span, err)
			return
		}
		// Hold stopped without a loss: the worker is stopping.
	case err := <-copying.lost:
		// Another worker pushed the run's branch: this one's pushes
		// are refused from now on, its work stays here. Stopped and
		// given back, for a worker to go on from the remote.
		cancel()
		end = <-done
		copying.stop()
		w.say("%s: run lost, stopped: %v", name, err)
		leaseLost(span, err)
		w.giveBack(ctx, l)
		return
	case <-ctx.Done():
		end = <-done
	}
	copying.stop()
	err = copying.last(context.WithoutCancel(ctx))
	if isLost(err) {
		w.say("%s: run lost as it stopped, nothing more written: %v", name, err)
		leaseLost(span, err)
		return
	}
	if ctx.Err() != nil {
		// The worker stopped the run (interrupted, resumable) as it
		// stops: the run is not over.
		if err != nil {
			w.say("%s: its last writes: %v", name, err)
		}
		w.giveBack(ctx, l)
		return
	}
	ending, cause := afterLastWrites(end.Ending, err, st.Run.Repo != "")
	if cause == nil {
		cause = end.err
		if err != nil {
			w.say("%s: its record's last writes: %v", name, err)
		}
	}
	w.end(ctx, l, ending, cause)
}

// takeTries bounds the attempts at a run whose workspace could not be
// made: a clone or a read of the store that failed may pass (a network
// cut, a server restarting), a repository that is gone does not.
const takeTries = 5

// notTaken is what becomes of a run whose workspace could not be made
// (err): given back for a lease's time, for this worker or another to
// try again, until its attempts reach takeTries; then it ends in error.
func (w *Worker) notTaken(ctx context.Context, l *Lease, err error) {
	st := l.State()
	if isLost(err) || ctx.Err() != nil {
		w.say("%s: not taken: %v", st.Run.Name, err)
		if ctx.Err() != nil {
			l.Release(context.WithoutCancel(ctx), 0)
		}
		return
	}
	if st.Attempt >= takeTries {
		w.end(ctx, l, Ending{Status: "error", ExitCode: 1}, fmt.Errorf("%w (attempt %d of %d)", err, st.Attempt, takeTries))
		return
	}
	w.say("%s: %v; given back, tried again in %s (attempt %d of %d)", st.Run.Name, err, l.q.lease, st.Attempt, takeTries)
	if err := l.Release(context.WithoutCancel(ctx), l.q.lease); err != nil {
		w.say("%s: not given back: %v", st.Run.Name, err)
	}
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
	trace.SpanFromContext(ctx).AddEvent(eventGivenBack)
}

// end writes how the run ended and acknowledges it.
func (w *Worker) end(ctx context.Context, l *Lease, e Ending, cause error) {
	name := l.State().Run.Name
	if cause != nil {
		w.say("%s: %v", name, cause)
	}
	if err := l.End(context.WithoutCancel(ctx), e); err != nil {
		w.say("%s: ended %s, not written: %v", name, e.Status, err)
		leaseLost(trace.SpanFromContext(ctx), err)
		return
	}
	w.say("%s: ended %s (exit %d)", name, e.Status, e.ExitCode)
	endRunSpan(trace.SpanFromContext(ctx), e, cause)
}

// fromStore gives a clone workspace the run's records as the fleet's
// store has them: a clone made now (the run taken over from another
// machine, or never begun) gets them, and the refs rooda keeps of the
// newest; one this machine kept from an earlier attempt is made again
// if the run went on elsewhere since (the store's journal is not where
// its own begins, or the remote's branch is not where it last saw it),
// unless a rooda still goes in it.
func (w *Worker) fromStore(ctx context.Context, ws string, made bool, run Run) (string, error) {
	f := w.Queue.f
	runs := filepath.Join(ws, run.Subdir, runlog.DefaultDir)
	if !made {
		behind, err := f.behindStore(ctx, runs, run.Name)
		if err == nil && !behind {
			behind, err = remoteMoved(ctx, ws, run)
		}
		if err != nil || !behind || whatNext(filepath.Join(ws, run.Subdir), run).going {
			return ws, err
		}
		w.say("%s: the run went on elsewhere since this workspace's last attempt: made again", run.Name)
		if err := os.RemoveAll(ws); err != nil {
			return "", err
		}
		if ws, _, err = workspace(ctx, w.Workspaces, run); err != nil {
			return "", err
		}
	}
	// The clone is the agent's: a directory of the run's that is a link
	// committed there is not followed (downloadRecords checks below).
	if err := mkdirBelow(ws, run.Subdir); err != nil {
		return "", err
	}
	id, err := f.downloadRecords(ctx, run.Name, runs, filepath.Join(ws, run.Subdir))
	if err != nil || id == "" {
		return ws, err
	}
	w.say("%s: record %s taken from the fleet's store", run.Name, id)
	if err := fetchRecordRefs(ctx, ws, id); err != nil {
		return "", err
	}
	if past, err := rewindToJournal(ctx, ws, filepath.Join(runs, id), run); err != nil {
		return "", err
	} else if past != "" {
		w.say("%s: the branch was pushed past the store's journal: put back where its last iteration ended, %s kept as %s", run.Name, shortHash(past), pastJournalRef(run))
	}
	return ws, nil
}

// behindStore reports whether the store holds what runs does not: a
// newer record, or a journal of the same one that is not where runs's
// begins (more of it, or other entries: the run went on elsewhere from
// an earlier point). Journals are compared by content, not length: a
// longer journal here may hold entries the store replaced.
func (f *Fleet) behindStore(ctx context.Context, runs, name string) (bool, error) {
	stored, err := storedRecords(ctx, f.records, name)
	if err != nil {
		return false, err
	}
	sid := lastID(stored)
	if sid == "" {
		return false, nil
	}
	ids, _ := runlog.IDs(runs)
	lid := ""
	if len(ids) > 0 {
		lid = ids[len(ids)-1]
	}
	if sid != lid {
		return sid > lid, nil
	}
	theirs, err := f.storedJournal(ctx, name+"/"+sid+"/", stored[sid])
	if err != nil {
		return false, err
	}
	ours, err := readBelow(runs, filepath.Join(lid, journal.Name), journal.Limit)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return !bytes.HasPrefix(ours, theirs), nil
}

// copying is a run's record being written through to the store as its
// rooda goes, and its branch pushed for a run of a repository.
type copying struct {
	w       *Worker
	name    string
	runs    string                      // the workspace's runs directory
	held    func(context.Context) error // the lease's stillHeld
	rc      *recordCopy                 // once made from the store
	attempt int                         // the lease's
	push    *branchPush
	lost    chan error // a look that found the run lost says it here
	cancel  context.CancelFunc
	done    chan struct{}
}

// writeThrough starts writing the record of the run l holds, in dir of
// its workspace, through to the store, every writeThroughEvery, and
// pushing its branch by push (nil for a worktree's run). The copy
// starts from what the store holds: a look that cannot read it (the
// server out of reach a moment) tries again at the next, rather than
// leave the run unwritten, and its branch unpushed, for good.
func (w *Worker) writeThrough(ctx context.Context, l *Lease, dir string, push *branchPush) *copying {
	run := l.State().Run
	c := &copying{w: w, name: run.Name, runs: filepath.Join(dir, runlog.DefaultDir), held: l.stillHeld, attempt: l.State().Attempt, push: push, lost: make(chan error, 1), done: make(chan struct{})}
	ctx, c.cancel = context.WithCancel(ctx)
	go func() {
		defer close(c.done)
		var said string
		failed := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(nextLook(failed)):
			}
			err := c.look(ctx, false)
			if isLost(err) {
				c.lost <- err
				return
			}
			if err != nil {
				failed++
			} else {
				failed = 0
			}
			c.said(&said, err)
		}
	}()
	return c
}

// lookBackoff bounds the wait after looks that failed: a remote or a
// server out of reach is not asked five times a second, and is asked
// again within this once it answers.
const lookBackoff = 10 * time.Second

// nextLook is the wait before the next look after failed looks in a
// row: writeThroughEvery, doubled at each failure up to lookBackoff.
func nextLook(failed int) time.Duration {
	return min(writeThroughEvery<<min(failed, 16), lookBackoff)
}

// look writes what changed in the record since the last look, all of
// it if all (the run ended), making the copy first if it is not made.
func (c *copying) look(ctx context.Context, all bool) error {
	if c.rc == nil {
		rc, err := c.w.Queue.f.newRecordCopy(ctx, c.name, c.runs, c.held)
		if err != nil {
			return fmt.Errorf("reading what the fleet's store holds of the run: %w", err)
		}
		if c.push != nil {
			rc.beforeJournal = c.push.beforeJournal
		}
		rc.attempt = c.attempt
		c.rc = rc
	}
	return c.rc.sync(ctx, all)
}

// stop stops the looks, and waits for the one going on.
func (c *copying) stop() {
	c.cancel()
	<-c.done
}

// last writes what the run's rooda wrote last, as it stopped: the
// branch as it left it, then the record whole; nothing if the worker no
// longer holds the run (it paused past its lease, say).
func (c *copying) last(ctx context.Context) error {
	if err := c.held(ctx); err != nil {
		return err
	}
	if c.push != nil && c.rc != nil && c.rc.id != "" {
		if err := c.push.push(ctx, c.rc.id); err != nil {
			return err
		}
	}
	return c.look(ctx, true)
}

// isLost reports whether err, from a look or the last writes, says the
// worker no longer holds the run: its lease taken, or its branch pushed
// by another.
func isLost(err error) bool {
	return errors.Is(err, ErrRevisionMoved) || errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, errPushedOver)
}

// afterLastWrites is how a run that ended e ends once its last writes
// gave err: a run of a repository whose branch or record could not be
// written back (pushed) has its work on this machine alone, which no
// other worker can go on from; it is not a success, whatever its rooda
// said. A worktree's run keeps its commits in its checkout.
func afterLastWrites(e Ending, err error, repo bool) (Ending, error) {
	if err == nil || !repo {
		return e, nil
	}
	cause := fmt.Errorf("the run ended %s but its branch and record were not written back: %w", e.Status, err)
	e.Status, e.ExitCode = "error", max(e.ExitCode, 1)
	return e, cause
}

// said says err once, not again while it stays the same.
func (c *copying) said(said *string, err error) {
	switch {
	case err == nil:
		*said = ""
	case err.Error() != *said:
		*said = err.Error()
		c.w.say("%s: writing its record through: %v (trying again)", c.name, err)
	}
}

func (w *Worker) say(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintf(w.Log, time.Now().Format("[15:04:05] ")+format+"\n", args...)
}
