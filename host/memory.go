package host

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"

	"rooda/host/membudget"
)

// checkEvery is how many Starlark steps run between two checkpoints while
// memory is plentiful; near the budget, every step is one. Between two
// checkpoints a script can at most double what it holds twice (s = s + s
// takes three steps or more), which keeps it under the budget from below
// the Guard's "near" (an eighth of it); a checkpoint costs a few
// nanoseconds, and at 8 steps the loop that makes them runs no slower.
const checkEvery = 8

// overrunGrace is how long a script over its memory budget has to reach
// its next step, where the cancellation stops it with its own traceback.
// A script still inside one step by then is in a single huge operation
// whose copy goes on filling memory: the run is ended at once (Abandon).
const overrunGrace = 5 * time.Millisecond

// memoryWatch is a script's memory budget as it runs.
type memoryWatch struct {
	guard *membudget.Guard
	// over is the reading that went over the budget; nil before.
	over atomic.Pointer[membudget.Over]
	// stack is where the script was at its latest checkpoint near the
	// budget, for a stop in the middle of a step.
	stack atomic.Pointer[starlark.CallStack]
}

// checkpoint runs on the script's thread every few steps (OnMaxSteps):
// it keeps the step budget, and near the memory budget notes where the
// script is, step by step.
func (r *Runtime) checkpoint(thread *starlark.Thread) {
	if thread.Steps >= r.maxSteps {
		thread.Cancel("too many steps")
		return
	}
	every := uint64(checkEvery)
	if r.memory != nil && r.memory.guard.Checkpoint() {
		stack := thread.CallStack()
		r.memory.stack.Store(&stack)
		every = 1
	}
	thread.SetMaxExecutionSteps(min(thread.Steps+every, r.maxSteps))
}

// watchMemory starts the memory budget of a run, if it has one.
func (r *Runtime) watchMemory() {
	if r.opts.MaxMemory <= 0 {
		return
	}
	w := &memoryWatch{}
	r.memory = w
	w.guard = membudget.Start(r.opts.MaxMemory, func(o membudget.Over) {
		w.over.Store(&o)
		r.thread.Cancel("over the memory budget")
		r.cancelForks("over the memory budget")
		time.AfterFunc(overrunGrace, func() { r.abandon(r.overrunError(w)) })
	})
}

// abandon ends the run at once with err, unless the script ended first:
// exactly one of the two reports how the run ended (see Run).
func (r *Runtime) abandon(err error) {
	if r.opts.Abandon != nil && r.running.CompareAndSwap(true, false) {
		r.opts.Abandon(err)
	}
}

// stopWatchingMemory ends the watch, and gives err the budget's error
// when the script went over it.
func (r *Runtime) stopWatchingMemory(err error) error {
	w := r.memory
	if w == nil {
		return err
	}
	if last, over := w.guard.Stop(); over && w.over.Load() == nil {
		// The last step went over, sooner than a tick.
		w.over.Store(&last)
	}
	r.memory = nil
	switch o := w.over.Load(); {
	case o != nil && err != nil:
		return &wrapped{err, r.memoryBudgetError(*o)}
	case o != nil:
		return r.overrunError(w)
	}
	return err
}

func (r *Runtime) memoryBudgetError(o membudget.Over) *BudgetError {
	limit := membudget.Human(r.opts.MaxMemory)
	msg := fmt.Sprintf("the run went over its memory budget of %s (--max-memory): the script held %s", limit, membudget.Human(o.Used))
	if o.Stack() {
		msg = fmt.Sprintf("the script's stack took %s, over the %s rooda allows it: a value nested too deep to walk (str, %%-formatting, fail)",
			membudget.Human(o.Stacks), membudget.Human(membudget.StackLimit))
	}
	return &BudgetError{Budget: "--max-memory", Limit: limit, Message: msg}
}

// overrunError is the error of a script stopped in the middle of a step,
// at the place its last checkpoint saw.
func (r *Runtime) overrunError(w *memoryWatch) error {
	var stack starlark.CallStack
	if s := w.stack.Load(); s != nil {
		stack = *s
	}
	b := r.memoryBudgetError(*w.over.Load())
	if len(stack) == 0 {
		// Over inside one step taken while memory was plentiful, before a
		// checkpoint noted where the script was: only the script can be
		// named.
		b.Message = r.mainDisplay + ": " + b.Message + " (inside one step; where in the script is not known)"
	}
	return newError(&wrapped{&starlark.EvalError{Msg: b.Error(), CallStack: stack}, b}, r.hints())
}

// stuckGrace is how long a script has to stop after a second interrupt
// (which kills the agent's group at once, so that iterate() returns):
// one still inside a step then is stuck in a builtin that walks a huge
// value, and the run is abandoned rather than left hanging.
const stuckGrace = 2 * time.Second

// abandonIfStuck abandons the run when a second interrupt comes and the
// script does not stop within stuckGrace.
func (r *Runtime) abandonIfStuck(ctx context.Context) {
	if r.opts.Abandon == nil || r.opts.Kill == nil {
		return
	}
	select {
	case <-r.opts.Kill:
	case <-r.ended:
		return
	}
	select {
	case <-time.After(stuckGrace):
		r.abandon(newError(&wrapped{errors.New("the script did not stop after a second interrupt; rooda ends it"), StopCause(ctx)}, r.hints()))
	case <-r.ended:
	}
}

// Collect collects what the script left, at its memory budget's pace,
// between two steps of the script: iterate() is one step, however many
// iterations it runs, so no checkpoint comes while it runs, and an agent
// that prints megabytes would otherwise leave them all uncollected until
// the loop ends. The session calls it as each iteration ends, on the
// script's thread, between two agents, where a collection waits for
// nothing.
func (r *Runtime) Collect() {
	if r.memory != nil {
		r.memory.guard.Checkpoint()
	}
}
