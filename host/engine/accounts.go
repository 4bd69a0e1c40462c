package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"rooda/host/config"
	"rooda/host/ledger"
	"rooda/host/loop"
	"rooda/host/process"
)

// aliasAccounts are the accounts the aliases name (account:), by their
// command line split and joined by NULs: an iteration's argv finds its
// alias's account there.
func aliasAccounts(aliases map[string]config.Value[config.Alias]) map[string]string {
	out := map[string]string{}
	for _, a := range aliases {
		if a.V.Account == "" {
			continue
		}
		if argv, err := process.Split(a.V.Line); err == nil {
			out[strings.Join(argv, "\x00")] = a.V.Account
		}
	}
	return out
}

// argvOf is the command line iteration n's agent runs.
func (p *Plan) argvOf(n int) []string {
	if c := p.chosenFor(n); c != nil {
		return c.argv
	}
	if len(p.Rotation) > 0 {
		return of(p, p.Rotation, n)
	}
	return p.Argv
}

// accountOf names the account iteration n's agent spends from: its
// alias's account:, else its CLI and its credential's fingerprint
// (ledger.Account).
func (p *Plan) accountOf(n int) string {
	argv := p.argvOf(n)
	if len(argv) == 0 {
		return ""
	}
	if name, ok := p.aliasAccounts[strings.Join(argv, "\x00")]; ok {
		return name
	}
	return ledger.Account(argv[0], os.Getenv)
}

// accounts is the loop's side of the accounts' ledger (loop.Accounts):
// iteration n's account, its entry in store.
type accounts struct {
	p       *Plan
	store   ledger.Store
	breaker ledger.Breaker
	// loop names the loop in the entries it writes.
	loop string
	now  func() time.Time
}

func (a accounts) Hold(ctx context.Context, n int) (loop.AccountHold, error) {
	account := a.p.accountOf(n)
	e, err := ledger.Get(ctx, a.store, account)
	h := e.Held(account, a.now())
	return loop.AccountHold{Account: account, Until: h.Until, Paused: h.Paused, Cause: h.Cause, By: h.By}, err
}

func (a accounts) Limited(ctx context.Context, n int, cause string, until time.Time) error {
	_, err := ledger.Hit(ctx, a.store, a.p.accountOf(n), a.loop, cause, until, a.now(), a.breaker)
	return err
}

// accounts is the loop's side of out.Ledger.
func (p *Plan) accounts(out Output) accounts {
	now := out.Now
	if now == nil {
		now = time.Now
	}
	return accounts{p: p, store: out.Ledger, now: now, breaker: breakerOf(p.Settings),
		loop: fmt.Sprintf("%s (pid %d)", cmp.Or(out.Loop, p.Procedure.Name), os.Getpid())}
}

// breakerOf is the breaker the settings ask for.
func breakerOf(s *config.Settings) ledger.Breaker {
	return ledger.Breaker{Hits: config.BreakerHits.In(s).V, Window: config.BreakerWindow.In(s).V, Backoff: config.BreakerBackoff.In(s).V}
}

func (a accounts) Reserve(ctx context.Context, n int) (func(loop.Spend) error, error) {
	res, err := ledger.Reserve(ctx, a.store, a.p.accountOf(n))
	var refused *ledger.RefusedError
	if errors.As(err, &refused) {
		return nil, &loop.RefusedError{Iteration: n, Budget: refused.Entry + "'s " + refused.Setting, Limit: refused.Limit, Reached: refused.Counted, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return func(spent loop.Spend) error {
		return res.Settle(context.WithoutCancel(ctx), ledger.Amount{USD: spent.CostUSD, Tokens: spent.TotalTokens()})
	}, nil
}
