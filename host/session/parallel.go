package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/journal"
	"rooda/host/worktree"
)

// Call is one function parallel() runs: Fn called with Args, on a thread
// of its own.
type Call struct {
	Fn   starlark.Callable
	Args starlark.Tuple
}

// The thread-local keys of a loop's thread: loopKey holds the *branch of
// a function parallel() runs when several run at once, whose loops name
// themselves on the log's lines; iteratingKey is set while an iterate()
// of the thread runs.
const (
	loopKey      = "rooda.loop"
	iteratingKey = "rooda.iterating"
)

// Parallel runs each call on a thread of its own, at most max at once (0
// is all of them), and returns their results, frozen, in order. Each
// thread has its own step budget; the run's interrupt, duration and
// iteration budgets cover them all. Every value the functions can reach —
// their arguments, their closures and their modules' globals — is frozen
// first, as go.starlark.net requires of values that threads share: a
// function that would change a shared list fails instead of racing.
// An error of one function does not stop the others: Parallel waits for
// every one, then fails with the errors of those that failed. Once all
// have returned, the worst way their loops ended is the caller's (the
// exit rule, ending.go), whichever ended last. In a dry
// run they run one after another, so that their reports do not
// interleave.
func (s *Session) Parallel(thread *starlark.Thread, calls []Call, max int) ([]starlark.Value, error) {
	if thread.Local(iteratingKey) != nil {
		return nil, errors.New("parallel() cannot be called while a loop runs (from on_iteration or a context function)")
	}
	rt := host.FromThread(thread)
	if rt == nil {
		return nil, errors.New("parallel() needs a script's runtime")
	}
	for _, c := range calls {
		freezeReachable(c)
	}
	key, err := s.startParallel(thread, calls)
	if err != nil {
		return nil, err
	}
	if max <= 0 || max > len(calls) {
		max = len(calls)
	}
	if s.opts.DryRun {
		max = 1
	}
	ctx := host.Context(thread)
	names := &loopNames{taken: map[string]int{}}
	results := make([]starlark.Value, len(calls))
	errs := make([]error, len(calls))
	endings := make([]*ending, len(calls))
	slots := make(chan struct{}, max)
	var wg sync.WaitGroup
	for i, c := range calls {
		// Taken before the goroutine starts, so that the functions start
		// in their order: one by one, they run in it.
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			endings[i] = &ending{}
			var named *branch
			if max > 1 {
				named = &branch{number: i + 1, fn: c.Fn.Name(), names: names}
			}
			results[i], errs[i] = s.call(ctx, rt, c, i, named, endings[i], key)
		}()
	}
	wg.Wait()
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, &host.ParallelError{Index: i + 1, Name: calls[i].Fn.Name(), Err: err})
		}
	}
	if err := host.StopCause(ctx); ctx.Err() != nil {
		return nil, err
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	if e, ok := worst(endings); ok {
		s.endedWith(thread, e)
	}
	return results, nil
}

// call runs one function of parallel() on a thread of its own; named,
// its loops name themselves on each line of the log.
func (s *Session) call(ctx context.Context, rt *host.Runtime, c Call, i int, named *branch, end *ending, key journal.Key) (starlark.Value, error) {
	if ctx.Err() != nil {
		return nil, host.StopCause(ctx)
	}
	th, done := rt.Fork(ctx, fmt.Sprintf("parallel %d", i+1))
	th.SetLocal(endingKey, end)
	// Each branch counts its calls from its own place in the journal,
	// whatever the order the branches run in.
	th.SetLocal(cursorKey, &cursor{thread: journal.Branch(key, i+1)})
	if named != nil {
		th.SetLocal(loopKey, named)
	}
	v, err := starlark.Call(th, c.Fn, c.Args, nil)
	if err = done(err); err != nil {
		return nil, err
	}
	v.Freeze()
	return v, nil
}

// branch is one function of a parallel() whose functions run at once,
// as its loops are named on the log's lines.
type branch struct {
	number int    // its place in parallel()'s list, from 1
	fn     string // its name
	names  *loopNames
}

// loopNames are the names the loops of one parallel() call took, each to
// the number of the function whose loop took it first (0: another
// function's, as a resumed record says, not yet known which).
type loopNames struct {
	mu    sync.Mutex
	taken map[string]int
}

// loopName is what the log calls a loop of the branch: the loop's name,
// its worktree's (unique in the run) else its procedure's, or the
// function's when it has none. A name another function's loop took
// first is told apart by this function's number ("build#2"); the loops
// of one function, which run one after the other, may share one.
func (b *branch) loopName(procedure string, wt *worktree.Worktree) string {
	name := cmp.Or(procedure, b.fn)
	if wt != nil {
		name = wt.Name
	}
	b.names.mu.Lock()
	defer b.names.mu.Unlock()
	if first, taken := b.names.taken[name]; taken && first != b.number {
		return fmt.Sprintf("%s#%d", name, b.number)
	}
	b.names.taken[name] = b.number
	return name
}

// keepName is the name a resumed run's record gives the loop of the
// branch, which the branch takes in place of the one loopName gave it:
// "build" is its own from then on, and "build#2" says that another's
// loop has "build", so that a later loop of the branch named build is
// told apart as it was.
func (b *branch) keepName(recorded string) string {
	b.names.mu.Lock()
	defer b.names.mu.Unlock()
	base, told := strings.CutSuffix(recorded, fmt.Sprintf("#%d", b.number))
	switch _, taken := b.names.taken[base]; {
	case recorded == "":
	case !told:
		b.names.taken[recorded] = b.number
	case !taken:
		b.names.taken[base] = 0 // another function's, not yet known which
	}
	return recorded
}

// freezeReachable freezes what a call can reach: its function (defaults
// and closure), its arguments, and the globals of the function's module.
func freezeReachable(c Call) {
	c.Fn.Freeze()
	c.Args.Freeze()
	if fn, ok := c.Fn.(*starlark.Function); ok {
		for _, v := range fn.Globals() {
			v.Freeze()
		}
	}
}
