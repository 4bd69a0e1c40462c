package session

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rooda/host"
	"rooda/host/interrupt"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/scriptargs"
)

// RunScript runs the script at path with the run's signals, record and
// budgets, and returns its exit status: by the exit rule (ending.go), 0
// if it ran no loop, the code it gave exit(), or its error, which
// carries its own. options gives the
// runtime's options once the record has started, so that what it does
// (fetching libraries) is part of the run, and its failure recorded.
func (s *Session) RunScript(path string, options func() (host.Options, error)) error {
	// Before the record: a malformed endpoint is an error of the settings.
	if err := s.startTrace(strings.TrimSuffix(filepath.Base(cmp.Or(s.opts.Name, path)), ".star")); err != nil {
		return err
	}
	// While the signals are still caught, after the record is finished.
	defer s.stopStragglers()
	// Once its loops have ended, however the run ends; cut short (an
	// error, an interrupt, a budget) unless the script ran to its end.
	cut := true
	defer func() { s.closeWorktrees(cut) }()
	s.showStatus()
	s.startRecord()
	s.pruneDeadWorktrees()
	opts, err := options()
	var rt *host.Runtime
	if err == nil {
		rt, err = s.Runtime(opts)
	}
	if err != nil {
		// An interrupt may end the fetching of a library.
		s.failed(err)
		return err
	}
	if err := rt.Run(s.ctx, path); err != nil {
		var exit *host.Exit
		if errors.As(err, &exit) {
			// The script ended itself: what it had not merged is kept,
			// as when a run is cut short. A dry run's end is told still:
			// its loops, and where the script exited.
			if s.opts.DryRun {
				if err := s.endRehearsal(exit); err != nil {
					return err
				}
			}
			return s.exited(exit)
		}
		s.failed(err)
		return err
	}
	cut = false
	if s.opts.DryRun {
		if err := s.endRehearsal(nil); err != nil {
			return err
		}
	}
	end := s.last
	if end.status == "" {
		const none = "the script ended without running a loop"
		end = ending{status: loop.Finished, message: none, why: none}
	}
	return s.finish(end)
}

// exited ends a run whose script called exit(code, reason): the log says
// so (an error unless the code is 0), the record keeps the code and the
// reason, and the process exits with the code.
func (s *Session) exited(exit *host.Exit) error {
	level, msg := logging.Info, fmt.Sprintf("The script exited with code %d", exit.Code)
	if exit.Code != 0 {
		level = logging.Error
	}
	if exit.Reason != "" {
		msg += ": " + exit.Reason
	}
	s.Log().Event(level, "script_exited", []any{"exit_code", exit.Code, "reason", exit.Reason}, "%s", msg)
	// The reason is the script's own words, or, without them, the call.
	reason := cmp.Or(exit.Reason, exit.Error())
	return s.finishWith(runEnd{status: loop.Exited, code: exit.Code, message: msg, reason: reason})
}

// Runtime makes the runtime of a script this session runs (see
// RuntimeOptions).
func (s *Session) Runtime(opts host.Options) (*host.Runtime, error) {
	return host.New(s.RuntimeOptions(opts))
}

// RuntimeOptions are opts (the builtins, the libraries, the directory)
// with what the session gives a runtime: its builtins find the session,
// and it honours the run's interrupt, budgets and log format.
func (s *Session) RuntimeOptions(opts host.Options) host.Options {
	opts.Attach = s.Attach
	opts.Kill = s.opts.Kill
	opts.Stderr = s.opts.Stderr
	opts.MaxSteps, opts.MaxMemory = s.opts.Budgets.MaxSteps, s.opts.Budgets.MaxMemory
	opts.PrintJSON = s.logFormat() == "json"
	opts.Abandon = s.abandon
	opts.Loaded = s.loaded
	return opts
}

// abandon ends the run at once, when the script cannot be stopped at a
// step: it says why, finishes the record, stops every process and exits.
func (s *Session) abandon(err error) {
	code := Report(s.opts.Stderr, s.logFormat(), err)
	s.failed(err)
	process.KillAll()
	s.closeStatus()
	os.Exit(code)
}

// statusOf is how a run that ended in err ended.
func statusOf(err error) loop.Status {
	var budget *host.BudgetError
	switch {
	case errors.As(err, new(interrupt.Error)):
		return loop.Interrupted
	case errors.As(err, new(*DiffersError)), errors.As(err, new(*loop.ResumeError)), errors.As(err, new(*RetryError)):
		// A resume refused: the run is cut short still, and may be
		// resumed once the script or the record is as it was, or with
		// --force.
		return loop.Interrupted
	case errors.As(err, &budget):
		return loop.OverBudget
	}
	return loop.Errored
}

// DescribeScript writes what `rooda info` says of a script procedure to
// the session's Describe writer: the script's docstring, then each
// iterate() it asks for, with the settings its dry run would use. The
// session must be a dry run; the script runs, without arguments, to find
// them, and what else it prints is not shown. An error of the script is
// returned after what was found before it.
func (s *Session) DescribeScript(opts host.Options, path string) error {
	rt, err := s.Runtime(opts)
	if err != nil {
		return err
	}
	doc, err := host.Docstring(path)
	if err != nil {
		return err
	}
	w := s.opts.Describe
	if doc != "" {
		fmt.Fprint(w, "\nDescription:\n")
		for _, line := range strings.Split(doc, "\n") {
			fmt.Fprintln(w, strings.TrimRight("  "+line, " "))
		}
	}
	// The arguments are told before the loops, whichever the script
	// asks for first.
	var loops bytes.Buffer
	s.opts.Describe = &loops
	err = rt.Run(s.ctx, path)
	s.opts.Describe = w
	if s.arguments != "" {
		fmt.Fprintf(w, "\nArguments (after --):\n%s", s.arguments)
	}
	fmt.Fprintln(w, "\nLoops (as its dry run sees them, without arguments):")
	w.Write(loops.Bytes())
	if errors.As(err, new(*host.Exit)) {
		// exit() ends the script where it is: the loops before it are all.
		return nil
	}
	return err
}

// DescribeArguments tells rooda info the typed arguments the script
// declares with flags() at pos; nothing when the run is not describing.
func (s *Session) DescribeArguments(pos string, flags []scriptargs.Flag) {
	if s.opts.Describe == nil {
		return
	}
	width := 0
	for _, f := range flags {
		width = max(width, len(f.Usage()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  flags() at %s:\n", pos)
	for _, f := range flags {
		kind := strings.TrimPrefix(strings.TrimPrefix(f.Kind.Name(), "an "), "a ")
		fmt.Fprintf(&b, "    %-*s  %s\n", width, f.Usage(), kind)
	}
	s.arguments += b.String()
}
