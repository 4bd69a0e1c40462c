package host

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host/logging"
)

// DefaultMaxSteps bounds a script's own computation: generous for any
// procedure, small enough to stop a runaway loop in seconds.
const DefaultMaxSteps = 100_000_000

// Options configure one run of a script.
type Options struct {
	// Predeclared are the names every module sees: the builtins.
	Predeclared starlark.StringDict
	// TestPredeclared makes the names of script tests, with which Check
	// checks a *_test.star file; nil checks it with Predeclared. A
	// function, so that a check of no test file makes none.
	TestPredeclared func() starlark.StringDict
	// Signatures are the parameters of the predeclared functions, by
	// name ("iterate", "assert.eq"), with which Check checks their calls.
	Signatures map[string][]Param
	// Libraries maps a library's name to its directory: load("@name//x.star").
	Libraries map[string]string
	// Unready maps a library that is named but cannot be loaded now to
	// why, which loading from it says (a git library rooda info found
	// not fetched).
	Unready map[string]string
	// Stdlib is the embedded standard library: load("@rooda//x.star").
	Stdlib fs.FS
	// MaxSteps bounds the Starlark computation; 0 means DefaultMaxSteps.
	MaxSteps uint64
	// Stderr receives print() and the host's messages.
	Stderr io.Writer
	// WorkDir is where paths are shown from; "" is the working directory.
	WorkDir string

	// Kill, when closed, is a second interrupt: a script stuck in one
	// step is abandoned (see Abandon).
	Kill <-chan struct{}
	// PrintJSON makes print() a "print" event of the JSON log, so that
	// stderr stays one object per line.
	PrintJSON bool
	// Attach, when set, is called with the runtime as New makes it: the
	// run's session attaches itself there (see Runtime.Attach), and a
	// script test's runtimes get a session each.
	Attach func(*Runtime)
	// MaxMemory is the run's memory budget in bytes; 0 means none.
	MaxMemory int64
	// Abandon ends the run at once, with err, when the script cannot be
	// stopped at a step: it went over its memory budget inside one huge
	// step, or it is still inside one a moment after a second interrupt.
	// The caller reports err, finishes the record, stops every process
	// and exits. Without it the step runs to its end.
	Abandon func(err error)
	// Loaded, when set, is told of each module as it is loaded, the
	// script first, with its source: a durable run journals what it ran.
	Loaded func(display string, src []byte) error
}

// Runtime runs one script: one thread for the script, every module it
// loads and every callback, so that one step budget and one cancellation
// cover them all.
type Runtime struct {
	thread   *starlark.Thread
	opts     Options
	resolver resolver
	cache    map[string]*module
	loading  []Location // the modules being loaded, outermost first
	files    map[string]Location
	maxSteps uint64
	// main is the key of the script Run runs; "" in tests.
	main string
	// mainDisplay is how messages name that script.
	mainDisplay string
	// memory is the memory budget's watch while a script runs.
	memory *memoryWatch
	// running is set while Run runs the script; whoever clears it, the
	// script's end or abandon, reports how the run ended.
	running atomic.Bool
	// ended is closed when Run returns.
	ended chan struct{}
	// library is what the standard library's modules define, for hints;
	// made once, by libraryNames.
	library     map[string]string
	libraryOnce sync.Once
	// attached are the values Attach kept, which Fork's threads get too.
	attached map[string]any
	// forks are the threads Fork made that still run, which the memory
	// budget cancels with the script's.
	forksMu sync.Mutex
	forks   map[*starlark.Thread]bool
}

// module is a loaded module, or why it could not load; both are cached.
type module struct {
	globals starlark.StringDict
	err     error
}

// localKey is the thread-local key under which the Runtime is found by
// builtins; contextKey is the run's context.Context, under the key that
// go.starlark.net's REPL uses too.
const (
	localKey   = "rooda.runtime"
	contextKey = "context"
)

// New prepares a run.
func New(opts Options) (*Runtime, error) {
	if opts.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.WorkDir = wd
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	r := &Runtime{
		opts:     opts,
		resolver: resolver{workDir: opts.WorkDir, libraries: opts.Libraries, unready: opts.Unready, embedded: opts.Stdlib},
		cache:    map[string]*module{},
		files:    map[string]Location{},
		maxSteps: opts.MaxSteps,
	}
	if r.maxSteps == 0 {
		r.maxSteps = DefaultMaxSteps
	}
	r.thread = r.newThread("rooda", r.load)
	if opts.Attach != nil {
		opts.Attach(r)
	}
	return r, nil
}

// Attach keeps v for the builtins under key, as starkit's plugins keep
// their state: they find it with Attached. It must be called before the
// runtime runs anything.
func (r *Runtime) Attach(key string, v any) {
	r.thread.SetLocal(key, v)
	if r.attached == nil {
		r.attached = map[string]any{}
	}
	r.attached[key] = v
}

// Fork makes a thread for a function that runs beside the script's own
// thread (parallel()): its own step budget, as large as the script's, the
// builtins' attachments, and ctx, whose end cancels it. Every value it
// can reach must be frozen (go.starlark.net's rule for values shared by
// threads). It cannot load modules: they load at the top of a file, on
// the script's thread. done releases it, and gives err, the error the
// thread's function ended with, the step budget's error when it ran out
// of steps.
func (r *Runtime) Fork(ctx context.Context, name string) (thread *starlark.Thread, done func(err error) error) {
	th := r.newThread(name, func(*starlark.Thread, string) (starlark.StringDict, error) {
		return nil, fmt.Errorf("load() cannot run in a function that parallel() runs")
	})
	th.SetLocal(contextKey, ctx)
	r.forksMu.Lock()
	if r.forks == nil {
		r.forks = map[*starlark.Thread]bool{}
	}
	r.forks[th] = true
	r.forksMu.Unlock()
	stop := context.AfterFunc(ctx, func() { th.Cancel("interrupted") })
	return th, func(err error) error {
		stop()
		r.forksMu.Lock()
		delete(r.forks, th)
		r.forksMu.Unlock()
		if err != nil && th.ExecutionSteps() >= r.maxSteps {
			err = &wrapped{err, r.stepsBudget()}
		}
		return err
	}
}

// newThread is a thread of the runtime, loading with load: its print,
// its checkpoints (the step and memory budgets), and in its locals the
// runtime and what Attach kept.
func (r *Runtime) newThread(name string, load func(*starlark.Thread, string) (starlark.StringDict, error)) *starlark.Thread {
	th := &starlark.Thread{Name: name, Load: load, Print: r.print, OnMaxSteps: r.checkpoint}
	// The step limit is where the next checkpoint comes; it is never 0,
	// which go.starlark.net reads as "cancel at once" on a thread already
	// used.
	th.SetMaxExecutionSteps(min(checkEvery, r.maxSteps))
	// Thread locals are set before anything runs, as go.starlark.net
	// requires: builtins find the runtime there.
	th.SetLocal(localKey, r)
	for k, v := range r.attached {
		th.SetLocal(k, v)
	}
	return th
}

// cancelForks cancels every thread Fork made that still runs.
func (r *Runtime) cancelForks(reason string) {
	r.forksMu.Lock()
	defer r.forksMu.Unlock()
	for th := range r.forks {
		th.Cancel(reason)
	}
}

// Attached is what was attached under key to the runtime that runs
// thread, or nil.
func Attached(thread *starlark.Thread, key string) any { return thread.Local(key) }

// print is the scripts' print(): a line on stderr, or, when the log is
// JSON, a "print" event, so that stderr stays one object per line.
func (r *Runtime) print(thread *starlark.Thread, msg string) {
	if r.opts.PrintJSON {
		pos := callerPosition(thread)
		logging.New(r.opts.Stderr, logging.Debug).AsJSON().Event(logging.Info, "print", []any{"file", pos.Filename(), "line", pos.Line}, "%s", msg)
		return
	}
	fmt.Fprintln(r.opts.Stderr, msg)
}

// callerPosition is where the script called the builtin that is running:
// the innermost frame of Starlark code, past print() and the guard that
// wraps it.
func callerPosition(thread *starlark.Thread) syntax.Position {
	for i := 1; i < thread.CallStackDepth(); i++ {
		if pos := thread.CallFrame(i).Pos; pos.Filename() != "<builtin>" {
			return pos
		}
	}
	return syntax.Position{}
}

// FromThread is the Runtime that runs thread.
func FromThread(thread *starlark.Thread) *Runtime {
	r, _ := thread.Local(localKey).(*Runtime)
	return r
}

// Context is the run's context, which every blocking builtin honours.
func Context(thread *starlark.Thread) context.Context {
	if ctx, ok := thread.Local(contextKey).(context.Context); ok {
		return ctx
	}
	return context.Background()
}

// Run executes the script at path until it ends, fails, runs out of steps
// or ctx ends. Its error is formatted for the user (see Error).
func (r *Runtime) Run(ctx context.Context, path string) error {
	root, err := r.resolver.root(path)
	if err != nil {
		return err
	}
	r.thread.SetLocal(contextKey, ctx)
	// Cancelling the thread stops Starlark code at its next step; the
	// blocking builtins watch ctx themselves.
	stop := context.AfterFunc(ctx, func() {
		r.thread.Cancel("interrupted")
		go r.abandonIfStuck(ctx)
	})
	defer stop()
	r.main, r.mainDisplay = root.key(), root.Display
	r.ended = make(chan struct{})
	defer close(r.ended)
	r.running.Store(true)
	r.watchMemory()
	_, err = r.exec(root)
	if !r.running.CompareAndSwap(true, false) {
		select {} // the run was abandoned: Abandon ends the process
	}
	err = r.stopWatchingMemory(err)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		err = &wrapped{err, StopCause(ctx)}
	}
	if r.thread.ExecutionSteps() >= r.maxSteps {
		err = &wrapped{err, r.stepsBudget()}
	}
	return newError(err, r.hints())
}

// stepsBudget is the error of a thread that ran out of steps.
func (r *Runtime) stepsBudget() *BudgetError {
	return &BudgetError{Budget: "--max-steps", Limit: fmt.Sprint(r.maxSteps), What: "Starlark steps"}
}

// load is the thread's load(): module as written in the file that is
// loading it.
func (r *Runtime) load(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	from := r.files[thread.CallFrame(0).Pos.Filename()]
	loc, err := r.resolver.resolve(from, module)
	if err != nil {
		return nil, err
	}
	return r.exec(loc)
}

// exec runs a module once per run: later loads get the cached globals or
// error. The root script comes through here too, so a cycle back to it is
// found rather than run twice.
func (r *Runtime) exec(loc Location) (starlark.StringDict, error) {
	key := loc.key()
	if m, ok := r.cache[key]; ok {
		return m.globals, m.err
	}
	if chain := cycleIn(r.loading, loc); chain != "" {
		return nil, fmt.Errorf("load cycle: %s", chain)
	}
	src, err := r.resolver.read(Context(r.thread), loc)
	if err == nil && r.opts.Loaded != nil {
		err = r.opts.Loaded(loc.Display, src)
	}
	if err != nil {
		return nil, err
	}
	r.files[loc.Display] = loc
	r.loading = append(r.loading, loc)
	globals, err := starlark.ExecFileOptions(FileOptions, r.thread, loc.Display, src, r.predeclared(loc))
	r.loading = r.loading[:len(r.loading)-1]
	r.cache[key] = &module{globals, err}
	return globals, err
}

// Load loads a module as a script in the working directory would:
// Load("@rooda//termination.star") gives the standard library's globals.
func (r *Runtime) Load(module string) (starlark.StringDict, error) {
	from := onDisk("", filepath.Join(r.opts.WorkDir, "<load>"))
	loc, err := r.resolver.resolve(from, module)
	if err != nil {
		return nil, err
	}
	globals, err := r.exec(loc)
	if err != nil {
		return nil, newError(err, r.hints())
	}
	return globals, nil
}

// predeclared is what the module at loc sees: the run's names, and
// __main__, True only in the script rooda was asked to run, so that a
// script can be a library too: "if __main__: main()".
func (r *Runtime) predeclared(loc Location) starlark.StringDict {
	d := make(starlark.StringDict, len(r.opts.Predeclared)+1)
	for k, v := range r.opts.Predeclared {
		d[k] = v
	}
	d[mainName] = starlark.Bool(r.main != "" && loc.key() == r.main)
	return d
}

// mainName is the predeclared bool that tells the script rooda runs from
// the modules it loads.
const mainName = "__main__"

// Stderr is where print() and the host's messages go.
func (r *Runtime) Stderr() io.Writer { return r.opts.Stderr }
