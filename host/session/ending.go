package session

import (
	"errors"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/loop"
	"rooda/host/runlog"
)

// The exit rule of a script that runs to its end: its status, and exit
// code, are those of its last statement that ran loops, in program order
// on the script's own thread: an iterate()'s status, or for a parallel()
// the worst status of its functions' loops (loop.Worst), each function
// counting its own last loop. Which loop of a parallel() ended last has
// no say: the exit does not depend on timing. A script that calls
// exit(code, reason) ends with that code instead (RunScript).

// endingKey is the thread-local slot of a function parallel() runs: how
// its last loop ended, which parallel() reads when every function has
// returned. The script's main thread has none: its ending is the
// session's.
const endingKey = "rooda.ending"

// ending is how a thread's last loop ended, or the run: its status, the
// log's line of it, and why, as the record keeps it (its reason, and the
// figures of a budget it reached).
type ending struct {
	status  loop.Status
	message string
	why     string
	budget  *runlog.Budget
}

// ended keeps res as the latest ending of thread's loops: the session's
// (the run's status) on the script's thread, its slot on a thread of
// parallel().
func (s *Session) ended(thread *starlark.Thread, res loop.Result) {
	s.endedWith(thread, endingOf(res))
}

// endingOf is how a loop that ended as res did ends a run.
func endingOf(res loop.Result) ending {
	return ending{res.Status, res.Message, res.Why, budgetOf(res.Err)}
}

// errorEnding is how err ended a run: its status, and the error's words
// for its reason; a budget's own words (not the script's position before
// them) and its figures.
func errorEnding(err error) ending {
	e := ending{status: statusOf(err), message: err.Error(), why: err.Error()}
	var b *host.BudgetError
	if errors.As(err, &b) {
		e.why, e.budget = b.Error(), budgetOf(b)
	}
	return e
}

// budgetOf is the budget err says was reached, as the record keeps it:
// the setting or flag, its limit and what was reached; nil for none.
func budgetOf(err error) *runlog.Budget {
	var loopBudget *loop.BudgetError
	var runBudget *host.BudgetError
	var refused *loop.RefusedError
	switch {
	case errors.As(err, &loopBudget):
		return &runlog.Budget{Name: loopBudget.Setting, Limit: loopBudget.Limit, Reached: loopBudget.Spent}
	case errors.As(err, &refused):
		return &runlog.Budget{Name: refused.Budget, Limit: refused.Limit, Reached: refused.Reached}
	case errors.As(err, &runBudget) && runBudget.Budget != "":
		return &runlog.Budget{Name: runBudget.Budget, Limit: runBudget.Limit, Reached: runBudget.Spent}
	}
	return nil
}

func (s *Session) endedWith(thread *starlark.Thread, e ending) {
	if slot, ok := thread.Local(endingKey).(*ending); ok {
		*slot = e
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = e
}

// worst is the worst of the endings of parallel()'s functions, those that
// ran a loop; ok is false when none did.
func worst(slots []*ending) (e ending, ok bool) {
	for _, slot := range slots {
		if slot.status == "" {
			continue
		}
		if !ok || loop.Worst(e.status, slot.status) != e.status {
			e, ok = *slot, true
		}
	}
	return e, ok
}
