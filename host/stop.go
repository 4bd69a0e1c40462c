package host

import (
	"context"
	"errors"
	"fmt"

	"rooda/host/interrupt"
)

// BudgetError ends a run that reached one of the host's run-wide budgets:
// exit code 2, like the iteration limit.
type BudgetError struct {
	Budget string // the flag that sets it: "--max-steps"
	Limit  string // its value
	What   string // what it counts
	// Spent is what the run had reached, when the budget says ("$2.13").
	Spent string
	// Message, when set, says it all instead.
	Message string
	// Untraced budgets count the run's loops or its time, not the
	// script's computation: the loop's log has said what reached it, and
	// the script's end names the line it stopped at, without a
	// traceback. --max-steps and --max-memory keep theirs, which points
	// at the computation.
	Untraced bool
}

func (e *BudgetError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("the run reached its budget of %s %s (%s)", e.Limit, e.What, e.Budget)
}

func (e *BudgetError) ExitCode() int { return 2 }

// budget is the BudgetError in err's chain, if any.
func budget(err error) *BudgetError {
	var b *BudgetError
	if errors.As(err, &b) {
		return b
	}
	return nil
}

// Exit is a script's exit(code, reason): it ends the script there, and
// the run with that code, the reason in the log and the record.
type Exit struct {
	Code   int
	Reason string
	// Pos is where exit() was called ("main.star:12"), which a dry run's
	// end names.
	Pos string
}

func (e *Exit) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("exit(%d)", e.Code)
	}
	return fmt.Sprintf("exit(%d): %s", e.Code, e.Reason)
}

func (e *Exit) ExitCode() int { return e.Code }

// StopCause is why ctx ended, as an error with the run's exit code: a
// budget (--max-duration) or an interrupt.
func StopCause(ctx context.Context) error { return interrupt.Stopped(ctx) }

// wrapped is err with another error it carries: its text is err's, and
// both are in its chain.
type wrapped struct {
	err   error
	extra error
}

func (w *wrapped) Error() string   { return w.err.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.err, w.extra} }
