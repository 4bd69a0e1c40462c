package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rooda/host/agentstream"
	"rooda/host/logging"
	"rooda/host/units"
)

// Accounts is the ledger of the accounts the loop's agents spend from,
// shared with every other loop of those accounts (host/ledger): a limit
// one loop meets is waited for by all of them before their next try,
// instead of met by each, one failed try apiece.
type Accounts interface {
	// Hold is the wait the account of iteration n's agent asks before
	// its agent runs: a limit another loop met, or the breaker's pause;
	// zero Until when none.
	Hold(ctx context.Context, n int) (AccountHold, error)
	// Limited writes that iteration n's agent met a limit, cause, that
	// resets at until (zero, or past, when its CLI named no reset ahead).
	Limited(ctx context.Context, n int, cause string, until time.Time) error
	// Reserve reserves what iteration n is expected to cost against the
	// budgets its agent's account counts against, before it starts, and
	// returns how to settle it with what it spent; its error is a
	// refusal (the iteration cannot fit: the loop ends over budget), or
	// a ledger that failed (said, and the loop goes on).
	Reserve(ctx context.Context, n int) (settle func(Spend) error, err error)
}

// RefusedError is a reservation the accounts' ledger refused: the
// iteration is not started, and the loop ends over budget.
type RefusedError struct {
	Iteration int
	// Budget names the budget that refused it ("the fleet's
	// max_cost_usd"), Limit its ceiling, and Reached what was spent and
	// reserved against it, as the record keeps a budget reached.
	Budget, Limit, Reached string
	Err                    error
}

func (e *RefusedError) Error() string { return e.Err.Error() }

func (e *RefusedError) Unwrap() error { return e.Err }

// reserve reserves iteration it's expected cost (Accounts.Reserve), and
// returns how to settle it; nil and a *RefusedError when the budgets
// cannot fit it.
func (r *runner) reserve(ctx context.Context, it *Iteration) (func(Spend), error) {
	if r.accounts() == nil {
		return func(Spend) {}, nil
	}
	var settle func(Spend) error
	err := r.ledgerCall(func() (err error) {
		settle, err = r.cfg.Accounts.Reserve(ctx, it.Number)
		return err
	})
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, err
	case err != nil:
		r.warnLedger(it, err)
		return func(Spend) {}, nil
	}
	return func(spent Spend) {
		if r.ledgerOff {
			return
		}
		if err := r.ledgerCall(func() error { return settle(spent) }); err != nil {
			r.warnLedger(it, err)
		}
	}, nil
}

// AccountHold is an account's wait: until when, and why.
type AccountHold struct {
	Account string
	Until   time.Time
	// Paused is set for the breaker's pause; else a loop met a limit,
	// Cause, and By names that loop.
	Paused bool
	Cause  string
	By     string
}

// The causes of a wait for an account (LimitWait.Cause).
const (
	CauseAccountLimited = "account_limited"
	CauseAccountPaused  = "account_paused"
)

// awaitAccount waits, before a try of it's agent, while the agent's
// account is held. The wait is the iteration's like a wait for its own
// limit (Waited, the log's limit_wait, Config.LimitWaiting, within
// MaxLimitWait): no failure is counted. A hold beyond what is left of
// MaxLimitWait is not waited for: the agent runs, and meets the limit
// itself, as without a ledger. False when ctx ended in the wait.
func (r *runner) awaitAccount(ctx context.Context, it *Iteration, w *waits) bool {
	if r.accounts() == nil {
		return true
	}
	var last time.Time
	for {
		var h AccountHold
		err := r.ledgerCall(func() (err error) {
			h, err = r.cfg.Accounts.Hold(ctx, it.Number)
			return err
		})
		if err != nil {
			r.warnLedger(it, err)
			return true
		}
		it.Account = h.Account
		now := r.cfg.Now()
		wait := h.Until.Sub(now)
		if wait <= 0 || !h.Until.After(last) {
			return true
		}
		if limit := r.cfg.MaxLimitWait; limit == 0 || w.total+wait > limit {
			r.logger().Warnf("Iteration %s: account %s is %s until %s, beyond max_limit_wait (%s)%s; running the agent",
				r.label(it.Number), h.Account, heldWords(h), h.Until.Local().Format("15:04:05"), limitWords(limit), waitedWords(w.total))
			return true
		}
		r.accountWait(it, h, wait, w.total)
		if !r.sleep(ctx, wait) {
			return false
		}
		w.total += wait
		w.reset, w.early = false, false
		it.Waited, last = w.total, h.Until
	}
}

// accountWait logs a wait for it's account and tells Config.LimitWaiting.
func (r *runner) accountWait(it *Iteration, h AccountHold, wait, waited time.Duration) {
	label := r.label(it.Number)
	lw := LimitWait{Iteration: it.Number, Agent: agentName(it), Cause: CauseAccountLimited, Until: h.Until, Wait: wait, Waited: waited, Account: h.Account}
	if h.Paused {
		lw.Cause = CauseAccountPaused
	}
	lw.Message = fmt.Sprintf("Iteration %s: account %s is %s until %s; waiting %s before running %s",
		label, h.Account, heldWords(h), h.Until.Local().Format("15:04:05"), units.Duration(wait.Round(time.Second)), agentName(it))
	r.logger().Event(logging.Warn, "limit_wait", []any{"iteration", lw.Iteration, "agent", lw.Agent, "cause", lw.Cause, "account", h.Account,
		"until", lw.Until.UTC().Format(time.RFC3339), "wait_seconds", lw.Wait.Seconds(), "backoff", false, "waited_seconds", waited.Seconds()}, "%s", lw.Message)
	if r.cfg.LimitWaiting != nil {
		r.cfg.LimitWaiting(lw)
	}
}

// heldWords says why an account is held: "limited (usage limit, met by
// loop b)", "paused by the breaker".
func heldWords(h AccountHold) string {
	if h.Paused {
		return "paused by the breaker (too many limits met)"
	}
	why := "limited"
	switch {
	case h.Cause != "" && h.By != "":
		why += fmt.Sprintf(" (%s, met by %s)", words(h.Cause), h.By)
	case h.Cause != "":
		why += fmt.Sprintf(" (%s)", words(h.Cause))
	}
	return why
}

func words(cause string) string { return strings.ReplaceAll(cause, "_", " ") }

// shareLimit writes a limit that it's agent met to its account's entry:
// its reset, if ahead, for the other loops of the account to wait for;
// and, reset or not, a hit for the breaker to count.
func (r *runner) shareLimit(it *Iteration) {
	sum := it.Decoded
	if r.accounts() == nil {
		return
	}
	cause := string(sum.Cause)
	if cause == "" {
		cause = string(agentstream.CauseUsageLimit)
	}
	if err := r.ledgerCall(func() error { return r.cfg.Accounts.Limited(context.Background(), it.Number, cause, sum.ResetAt) }); err != nil {
		r.warnLedger(it, err)
	}
}

// accounts is the loop's ledger: nil without one, or once it failed.
func (r *runner) accounts() Accounts {
	if r.ledgerOff {
		return nil
	}
	return r.cfg.Accounts
}

// ledgerCall calls the ledger, and keeps how long it took out of the
// iteration's duration (ledgerTime): a slow ledger is not the agent's
// time.
func (r *runner) ledgerCall(call func() error) error {
	began := r.cfg.Now()
	err := call()
	r.ledgerTime += r.cfg.Now().Sub(began)
	return err
}

// warnLedger says, once, that the accounts' ledger cannot be read or
// written, and turns it off for the rest of the run: a ledger that failed
// once (a lock held by a stopped rooda, a fleet's server down) would
// make every later call wait as long again, for nothing.
func (r *runner) warnLedger(it *Iteration, err error) {
	r.ledgerOff = true
	if r.ledgerWarned {
		return
	}
	r.ledgerWarned = true
	r.logger().Warnf("Iteration %s: the accounts' ledger: %v; going on without it", r.label(it.Number), err)
}
