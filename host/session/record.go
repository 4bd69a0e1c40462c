package session

import (
	"context"
	"errors"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/interrupt"
	"rooda/host/journal"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/runlog"
)

// startRecord starts the record of the run, unless it is a dry run or
// asked not to be recorded; a record that cannot be written is a warning,
// not the end of the run.
func (s *Session) startRecord() {
	if s.opts.DryRun || s.opts.NoRecord {
		return
	}
	if rec := s.opts.Resume; rec != nil {
		s.Log().Infof("Resuming run %s: what its journal holds is answered from it, nothing of it runs again", rec.ID())
		if w := rec.Warning(); w != "" {
			s.Log().Warnf("%s", w) // what a forced resume runs again
		}
		rec.OnWarning(func(w string) { s.Log().Warnf("%s", w) })
		s.rec = rec
		return
	}
	rec, err := runlog.Start(RunsDir(s.opts.Config), s.opts.Name, s.opts.Command, keepRuns(s.opts.Config), s.opts.RunName)
	if err != nil {
		s.Log().Warnf("no record of this run: %v", err)
		return
	}
	if w := rec.Warning(); w != "" {
		s.Log().Warnf("%s", w)
	}
	rec.OnWarning(func(w string) { s.Log().Warnf("%s", w) })
	s.rec = rec
}

// RunsDir is where runs are recorded: loop.runs_dir, else .rooda/runs
// in the workspace.
func RunsDir(cfg *config.Config) string {
	return engine.RunsDir(&cfg.Loop)
}

// keepRuns is how many records are kept: loop.keep_runs, else 50.
func keepRuns(cfg *config.Config) int {
	if keep := config.KeepRuns.In(&cfg.Loop); keep.Set {
		return keep.V
	}
	return runlog.DefaultKeep
}

// record is the record of a loop about to start, as the engine takes
// it: nil when the run keeps none. Each loop has its own, so that loops
// that run at once each record their own iterations.
func (s *Session) record(name string, key journal.Key) *runlog.LoopRecord {
	if s.rec == nil {
		return nil
	}
	rec := s.rec.NewLoop(name, key)
	if s.rt == nil {
		// A procedure's run: no script sees its iterations, and its
		// resume need not read them back whole.
		rec.Unseen()
	}
	return rec
}

// recordedLoopName is the name the record of a resumed run gives the
// loop at key; false when there is none to keep.
func (s *Session) recordedLoopName(key journal.Key) (string, bool) {
	if s.rec == nil {
		return "", false
	}
	return s.rec.LoopName(key)
}

// runEnd is how a run ended: its status, its exit code (the status's,
// or a script's exit()), the log's line of it, and why: the record's
// reason (a script's exit(code, reason) included) and the budget it
// reached, if one.
type runEnd struct {
	status  loop.Status
	code    int
	message string
	reason  string
	budget  *runlog.Budget
}

// finish writes how the run ended, says if the record is incomplete,
// tells loop.notify's command (the message says how it ended), and
// returns the exit status, the record's.
func (s *Session) finish(e ending) error {
	return s.finishWith(runEnd{status: e.status, code: e.status.ExitCode(), message: e.message, reason: e.why, budget: e.budget})
}

// finishWith is finish with an exit code of the script's own.
func (s *Session) finishWith(end runEnd) error {
	// A run interrupted, or whose resume was refused, is resumed later:
	// its worktrees are its resume's.
	s.resumableEnd = s.rec != nil && end.status == loop.Interrupted
	if s.rec != nil {
		if by := s.interruptedBy(); end.status == loop.Interrupted && by != "" {
			s.rec.InterruptedBy(by)
		}
		s.rec.FinishWith(end.status, end.code, end.reason, end.budget)
		if err := s.rec.Err(); err != nil {
			s.notes().Line(logging.Warn, "record_incomplete", []any{"dir", s.rec.Dir(), "error", err.Error()},
				"the record of this run in %s is incomplete: %v", s.rec.Dir(), err)
		}
	}
	s.endTrace(end)
	// A notifier stopped by a signal is a warning: the run ended as the
	// record says, and its exit code says the same.
	s.notifyFinished(end)
	return exit(end.code)
}

// interruptedBy names the signal that interrupted the run, "" if none
// did.
func (s *Session) interruptedBy() string {
	var sig interrupt.Signal
	if errors.As(context.Cause(s.ctx), &sig) {
		return sig.Error()
	}
	return ""
}

// stopStragglers stops what the run's agents left running where nothing
// told whose it was (no cgroup, its environment cleared), and says so in
// the run's log.
func (s *Session) stopStragglers() {
	if left := process.StopStragglers(); len(left) > 0 {
		s.Log().Warnf("stopped %s still running below rooda as the run ended: %s", process.Count(len(left)), process.List(left))
	}
}

// failed finishes the record of a run that err ended.
func (s *Session) failed(err error) { s.finish(errorEnding(err)) }
