package session

import (
	"errors"
	"fmt"

	"rooda/host/config"

	"rooda/host/loop"

	"rooda/host"
	"rooda/host/engine"
)

// The run-wide budgets (Budgets) are kept in three places, by what they
// count: the runtime counts Starlark steps and memory (host.Options), the
// run's context carries the deadline (Start), and the session counts what
// the loops spend, here, before and after each loop. A budget of the
// loops' spending (iterations today; cost and tokens as agents report
// them) is a field of Budgets, a count in Session, a cap or a check
// below, and a host.BudgetError naming its flag when reached.

// capIterations lowers the plan's iteration limit to what the run-wide
// budget has left, and says whether it did. The loop reserves its limit
// until it ends (count): loops that run at once (parallel()) share the
// budget without going over it together, the earlier ones first.
func (s *Session) capIterations(plan *engine.Plan) (capped bool, reserved int, err error) {
	budget := s.opts.Budgets.MaxTotalIterations
	if budget <= 0 {
		return false, 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	left := budget - s.iterations - s.reserved
	if left <= 0 {
		return false, 0, s.iterationBudget()
	}
	if max := plan.Settings.MaxIterations.V; max == 0 || max > left {
		plan.Settings.MaxIterations.V = left
		capped = true
	}
	s.reserved += plan.Settings.MaxIterations.V
	return capped, plan.Settings.MaxIterations.V, nil
}

func (s *Session) iterationBudget() error {
	return &host.BudgetError{Budget: "--max-total-iterations", Limit: fmt.Sprint(s.opts.Budgets.MaxTotalIterations), What: "iterations", Untraced: true}
}

// loopSpend is what one running loop's agents have spent so far: the
// cost and token budgets count it for the loops that run beside it.
type loopSpend struct {
	s     *Session
	spent loop.Spend
}

// startSpending registers a loop about to run, whose spending the others
// see as it goes.
func (s *Session) startSpending() *loopSpend {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := &loopSpend{s: s}
	if s.running == nil {
		s.running = map[*loopSpend]bool{}
	}
	s.running[l] = true
	return l
}

// elsewhere is what the run spent but in this loop: loops that ended, and
// what those running beside it have spent by now.
func (l *loopSpend) elsewhere() loop.Spend {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	total := l.s.spent
	for other := range l.s.running {
		if other != l {
			total = total.Add(other.spent)
		}
	}
	return total
}

func (l *loopSpend) IterationStarted(loop.Request) {}

func (l *loopSpend) IterationFinished(it *loop.Iteration) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.spent = l.spent.Add(it.Spent)
}

// runBudget is the budget a loop reached (its Err) as the run's, which
// ends the script: the loop's words, and its figures for the record.
func runBudget(reached error) *host.BudgetError {
	b := &host.BudgetError{Message: reached.Error(), Untraced: true}
	var loopBudget *loop.BudgetError
	var refused *loop.RefusedError
	switch {
	case errors.As(reached, &loopBudget):
		b.Budget, b.Limit, b.Spent = loopBudget.Setting, loopBudget.Limit, loopBudget.Spent
	case errors.As(reached, &refused):
		// A budget of the fleet's: the user's, never the script's own.
		b.Budget, b.Limit, b.Spent = refused.Budget, refused.Limit, refused.Reached
	}
	return b
}

// ownBudget says whether the budget a loop reached (its Err) is one its
// script gave iterate(): the script's own bound, which iterate() returns
// to it as status budget. A budget the user gave (the command line, the
// environment, the configuration) is the run's, and ends it.
func ownBudget(plan *engine.Plan, reached error) bool {
	var b *loop.BudgetError
	if !errors.As(reached, &b) {
		return false
	}
	var src config.Source
	switch b.Setting {
	case config.MaxCostUSD.Key:
		src = config.MaxCostUSD.In(plan.Settings).Source
	case config.MaxTokens.Key:
		src = config.MaxTokens.In(plan.Settings).Source
	case config.MaxDuration.Key:
		src = config.MaxDuration.In(plan.Settings).Source
	}
	return src.Tier == config.Script
}
