package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"rooda/host/engine"
	"rooda/host/interrupt"
	"rooda/host/journal"
	"rooda/host/loop"
)

// RunProcedure runs a YAML procedure, a built-in one or one of the
// configuration's: its checks, then its dry run or its loop, and returns
// the run's exit status (nil for 0).
func (s *Session) RunProcedure(req engine.Request) error {
	// The checks may wait for a pipe's writer, which an interrupt ends.
	plan, err := engine.Prepare(s.ctx, req)
	switch {
	case s.ctx.Err() != nil:
		return interrupt.Error{Cause: context.Cause(s.ctx)}
	case err != nil:
		return err
	}
	if s.opts.DryRun {
		return plan.DryRun(s.opts.Stdout, s.opts.Command)
	}
	if err := plan.Err(); err != nil {
		return fmt.Errorf("cannot run %s:\n\n%w", req.Name, err)
	}
	// Before the record: a malformed endpoint is an error of the settings.
	if err := s.startTrace(req.Name); err != nil {
		return err
	}
	// While the signals are still caught, after the record is finished.
	defer s.stopStragglers()
	s.showStatus()
	s.startRecord()
	key, err := s.startLoop(nil, "procedure", "", req.Name, append(plan.Settings.Values(), loopFacts(plan, "")...))
	if err != nil {
		s.failed(err)
		return err
	}
	res := s.execute(s.ctx, plan, s.output(plan, "", "", key))
	s.count(res, 0, nil)
	if errors.As(res.Err, new(*loop.ResumeError)) {
		s.failed(res.Err)
		return res.Err
	}
	return s.finish(endingOf(res))
}

// count adds a loop that ended to the run: its iterations (in place of
// the reserved ones its start held), what its agents spent (no longer
// counted as a running loop's); a loop whose agent cannot log in is told
// to loop.notify's command. How it ended is the script's (ended).
func (s *Session) count(res loop.Result, reserved int, spending *loopSpend) {
	s.mu.Lock()
	s.iterations += res.Iterations
	s.reserved -= reserved
	delete(s.running, spending)
	s.spent = s.spent.Add(res.Spent)
	s.mu.Unlock()
	s.notifyLoginFailed(res)
}

// output is where the engine writes, and what it tells of a loop of
// plan, named name when several run at once (parallel()), "" for none,
// whose agents work in dir ("" rooda's working directory).
func (s *Session) output(plan *engine.Plan, name, dir string, key journal.Key) engine.Output {
	out := engine.Output{Stdout: s.opts.Stdout, Stderr: s.opts.Stderr, Kill: s.opts.Kill, Now: s.opts.Now, Started: s.started, LimitWaiting: s.notifyLimitWait, Loop: name, Dir: dir, AsLeft: s.opts.AsLeft}
	if store := accountsLedger(); store != nil {
		out.Ledger = store
	}
	if rec := s.record(name, key); rec != nil {
		out.Record, out.Replay = rec, s.standing(rec.Replay(), dir)
	}
	if clock := s.opts.Clock; clock != nil {
		// A script test waits out a limit on its own clock, at once.
		out.Sleep = func(ctx context.Context, d time.Duration) error {
			clock.Advance(d)
			return ctx.Err()
		}
	}
	// Loops at once share the status line: it names the loop that started last.
	return s.statusOutput(out, cmp.Or(name, plan.Procedure.Name))
}

// alsoOnLimitWait has fn told of each of the loop's limit waits, before
// what out already tells of them (the notifier).
func alsoOnLimitWait(out *engine.Output, fn func(loop.LimitWait)) {
	then := out.LimitWaiting
	out.LimitWaiting = func(w loop.LimitWait) {
		fn(w)
		if then != nil {
			then(w)
		}
	}
}
