// Package session owns one run of rooda from its start to its exit
// status, for a YAML procedure, a built-in one and a script alike: the
// signals that interrupt it, the record of what it sent, the run-wide
// budgets, the processes it leaves, how it ended and what it says last.
//
// It is also the state a script's builtins reach, as starkit's plugins
// reach theirs: iterate(), run() and agent() find the session of the
// runtime that runs them (FromThread) and ask it to run loops and
// commands under the run's rules. package host is the Starlark runtime
// alone; the command line only parses and wires.
package session

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/config"
	"rooda/host/interrupt"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/runlog"
	"rooda/host/statusline"
	"rooda/host/suspend"
	"rooda/host/telemetry"
	"rooda/host/units"
	"rooda/host/worktree"
)

// Options configure a run.
type Options struct {
	// Config is the merged configuration: procedures, aliases, defaults
	// and the command line's overrides.
	Config *config.Config
	// Name is what the record calls the run: the procedure's name, or the
	// script's path.
	Name string
	// Command is the command line that started the run, less --dry-run:
	// the record keeps it, and a dry run's "Ready to execute" shows it.
	Command []string
	// Stdout receives the agent's streamed output and dry-run reports;
	// Stderr the log, print() and the final report.
	Stdout, Stderr io.Writer
	// NoRecord keeps no record of the run.
	NoRecord bool
	// DryRun swaps the agent for a report: a loop is shown, not run, and
	// a script's run() runs nothing.
	DryRun bool
	// Describe, in a dry run, takes the place of the dry-run report: each
	// iterate() writes to it a few lines, its procedure and settings, for
	// `rooda info`.
	Describe io.Writer
	Budgets  Budgets
	// Now is the loops' clock; nil is the wall clock. Script tests fix it,
	// at a Clock they move.
	Now   func() time.Time
	Clock *Clock
	// Test is set in script tests, where only fake agents may run.
	Test bool
	// Kill, when closed, ends an agent's grace period at once. Start sets
	// it from its own signal watch.
	Kill <-chan struct{}
	// Resume, when set, is the record of the run this one resumes
	// (runlog.Resume): its journal answers the calls it holds, and the
	// run's budgets count what the run spent before. Force goes on live
	// from a call that differs from the journal's, instead of stopping;
	// AsLeft runs the iteration that was in flight on what its killed
	// try left, the workspace not put back as it began.
	Resume *runlog.Recorder
	Force  bool
	AsLeft bool
	// RunName, when set, is the name the caller gave the run, which a
	// later start under the same name finds (runlog.Named).
	RunName string
}

// Budgets bound a whole run, every loop of a script together. Each is
// off at 0. A budget reached ends the run with exit code 2.
type Budgets struct {
	// MaxSteps bounds the script's own Starlark computation.
	MaxSteps uint64
	// MaxTotalIterations bounds the iterations of every loop together.
	MaxTotalIterations int
	// MaxDuration bounds the run's wall time.
	MaxDuration time.Duration
	// MaxMemory bounds what a script holds, in bytes.
	MaxMemory int64
}

// Session is one run, and the state its builtins share.
type Session struct {
	opts Options
	ctx  context.Context
	stop func() // ends what Start began: the signal watch, the deadline
	// untilSignal makes a context that ends at the next signal: Start's
	// watch, nil for a session without one.
	untilSignal func(context.Context) (context.Context, context.CancelFunc)
	rec         *runlog.Recorder
	// rt is the runtime of the script, if the run is one.
	rt *host.Runtime
	// arguments are the typed arguments rooda info tells of the script
	// it describes (DescribeArguments).
	arguments string
	// mu guards what loops that run at once (parallel()) count: the
	// fields below it, up to worktrees.
	mu sync.Mutex
	// iterations counts the iterations of every loop so far, spent what
	// their agents used; reserved the iterations that loops running now
	// may still take of the run's budget.
	iterations int
	reserved   int
	spent      loop.Spend
	// last is how the script's loops ended, by the exit rule (ending.go):
	// its status "" before one ends.
	last ending
	// rehearsal is what a dry run found so far.
	rehearsal rehearsal
	// running are what the loops running now have spent so far.
	running map[*loopSpend]bool
	// worktrees are the run's git worktrees, nil before the first.
	worktrees *worktree.Set
	// noRecordID names the worktrees of a run that keeps no record.
	noRecordID string
	// started is when the run started, which relative time stamps count
	// from.
	started time.Time
	// status is the status line under the log, nil when there is none.
	status *statusline.Line
	// jobs is Start's watch of Ctrl+Z, nil for a session without one.
	jobs *suspend.Watcher
	// trace is the run's OpenTelemetry trace, nil when it exports none.
	trace *telemetry.Run
	// main counts the journaled calls of the threads that have no count
	// of their own: the script's main thread and those loading modules,
	// which run one at a time.
	main cursor
	// abort ends the run's context with a cause of the session's own: a
	// resume refused in one branch of parallel() stops the others.
	abort context.CancelCauseFunc
	// resumableEnd is set when the run ended so that it can be resumed.
	resumableEnd bool
	// lostWork names, by path, the worktrees a resume made afresh, their
	// branches gone: the work of their loops' iterations went with them.
	lostWork map[string]string
}

// New makes a session without a life of its own: no signals are caught
// and nothing is recorded. Script tests, the REPL, `rooda info` and
// `script check` use one per runtime; a run uses Start.
func New(ctx context.Context, opts Options) *Session {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	ctx, abort := context.WithCancelCause(ctx)
	return &Session{opts: opts, ctx: ctx, abort: abort, stop: func() {}, started: opts.now(), main: cursor{thread: "main"}}
}

// Start begins a run: from here on SIGINT and SIGTERM interrupt it (the
// first cancels its context, the second kills at once), Ctrl+Z stops it
// with its processes, and its duration budget runs. Close ends what Start began. The record starts when the
// run does: RunProcedure's once its checks pass, RunScript's at once.
func Start(parent context.Context, opts Options) *Session {
	ctx, watch := interrupt.Watch(parent)
	opts.Kill = watch.Kill
	cancel := context.CancelFunc(func() {})
	if d := opts.Budgets.MaxDuration; d > 0 {
		// The budget named is the one given, whatever a resume has left
		// of it.
		budget := &host.BudgetError{Budget: "--max-duration", Limit: units.Duration(d), What: "of run time", Untraced: true}
		if opts.Resume != nil {
			// The run's time before it was cut short counts.
			d -= opts.Resume.Elapsed()
		}
		ctx, cancel = context.WithDeadlineCause(ctx, time.Now().Add(d), budget)
	}
	s := New(ctx, opts)
	s.jobs = suspend.Watch()
	s.stop = func() { cancel(); watch.Stop(); s.jobs.Stop(); s.closeStatus() }
	s.untilSignal = watch.Next
	return s
}

// Close stops catching signals, ends the duration budget and clears the
// status line.
func (s *Session) Close() { s.stop() }

// Context is the run's context: it ends at an interrupt or at the
// duration budget, and context.Cause says which.
func (s *Session) Context() context.Context { return s.ctx }

// Kill is closed by a second interrupt: grace periods end at once.
func (s *Session) Kill() <-chan struct{} { return s.opts.Kill }

// DryRun reports whether loops are reported rather than run.
func (s *Session) DryRun() bool { return s.opts.DryRun }

// Config is the run's merged configuration.
func (s *Session) Config() *config.Config { return s.opts.Config }

// Log logs as the run does, at its level and in its format, for what is
// said outside the loop's own log.
func (s *Session) Log() *logging.Logger {
	log := logging.Configured(s.opts.Stderr, config.LogLevel.In(&s.opts.Config.Loop).V, s.logFormat())
	return log.WithTimestamps(config.LogTimestampFormat.In(&s.opts.Config.Loop).V, s.started)
}

// now is the run's clock: Now, else the wall clock.
func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// notes logs the session's own lines that stand apart from the progress
// log, written whatever its level: in text without a time stamp.
func (s *Session) notes() *logging.Logger {
	return logging.Configured(s.opts.Stderr, "debug", s.logFormat())
}

// logFormat is the run's log format: "json", or text.
func (s *Session) logFormat() string {
	if s.opts.Config == nil {
		return ""
	}
	return config.LogFormat.In(&s.opts.Config.Loop).V
}

// Report writes the error a run or a command ends with on stderr, in the
// log format ("text" or "json", whatever the level), and returns the exit
// code: the error's own (a loop's status, an interrupt, a budget), or 1
// for any other error, of usage, configuration or validation.
func Report(stderr io.Writer, format string, err error) int {
	code := 1
	var coder interface{ ExitCode() int }
	if errors.As(err, &coder) {
		code = coder.ExitCode()
	}
	logging.Configured(stderr, "error", format).Fail(err, code)
	return code
}

// localKey is the runtime's attachment under which builtins find the
// session.
const localKey = "rooda.session"

// FromThread is the session of the runtime that runs thread.
func FromThread(thread *starlark.Thread) *Session {
	s, _ := host.Attached(thread, localKey).(*Session)
	return s
}

// Attach makes s the session of rt's builtins, as host.Options.Attach.
func (s *Session) Attach(rt *host.Runtime) {
	s.rt = rt
	rt.Attach(localKey, s)
}

// ExitStatus ends the program with a code and no message: the run has
// already said how it ended.
type ExitStatus int

func (e ExitStatus) Error() string { return "" }
func (e ExitStatus) ExitCode() int { return int(e) }

// exit is the error a run that ended with exit code returns: none for 0.
func exit(code int) error {
	if code != 0 {
		return ExitStatus(code)
	}
	return nil
}

// TestClock is the time every script test starts at: its logs read the
// same every run, and the clock moves only when the test moves it.
var TestClock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is a script test's clock: TestClock until the test moves it
// (advance()). Loops read it for their durations and budgets, now() for
// the script.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewTestClock is a clock at TestClock.
func NewTestClock() *Clock { return &Clock{t: TestClock} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Now is the run's time: the wall clock, or a script test's clock.
func (s *Session) Now() time.Time { return s.opts.now() }

// Advance moves a script test's clock d forward; a run's clock is the
// wall clock, which nothing moves.
func (s *Session) Advance(d time.Duration) error {
	if s.opts.Clock == nil {
		return errors.New("advance() moves the clock of a script test; a run's clock is the wall clock")
	}
	s.opts.Clock.Advance(d)
	return nil
}

// ForTests gives each runtime of a script test a session of its own, as
// host.Options.Attach: one test's loops count nothing for the next, the
// clock is fixed, only fake agents run, and everything is written where
// the test's output is kept.
func ForTests(ctx context.Context, cfg *config.Config, kill <-chan struct{}) func(*host.Runtime) {
	return func(rt *host.Runtime) {
		out := rt.Stderr()
		clock := NewTestClock()
		s := New(ctx, Options{Config: cfg, Stdout: out, Stderr: out, Now: clock.Now, Clock: clock, Test: true, Kill: kill})
		s.Attach(rt)
	}
}
