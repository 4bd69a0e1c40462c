package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
)

// stuckLedger is a ledger whose lock another process holds: each call
// takes took on the loop's clock, then fails; calls counts them.
type stuckLedger struct {
	s     *script
	took  time.Duration
	calls int
}

func (l *stuckLedger) fail() error {
	l.calls++
	l.s.clock = l.s.clock.Add(l.took)
	return errors.New("ledger.json.lock: held by another process for 1s")
}

func (l *stuckLedger) Hold(context.Context, int) (AccountHold, error) { return AccountHold{}, l.fail() }

func (l *stuckLedger) Limited(context.Context, int, string, time.Time) error { return l.fail() }

func (l *stuckLedger) Reserve(context.Context, int) (func(Spend) error, error) { return nil, l.fail() }

// TestFailedLedgerIsTurnedOff: a ledger that fails is asked once, said
// once, and left alone for the rest of the run; the time it took is not
// the iteration's duration.
func TestFailedLedgerIsTurnedOff(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{took: time.Second}}}
	cfg := s.config(3, 3, &log)
	ledger := &stuckLedger{s: s, took: 10 * time.Second}
	cfg.Accounts = ledger
	res := Run(context.Background(), cfg)
	if res.Iterations != 3 || s.calls != 3 {
		t.Fatalf("%d iterations, %d tries\n%s", res.Iterations, s.calls, log.String())
	}
	if ledger.calls != 1 {
		t.Errorf("the ledger was asked %d times after it failed, want once\n%s", ledger.calls, log.String())
	}
	if n := strings.Count(log.String(), "the accounts' ledger: "); n != 1 {
		t.Errorf("the ledger's failure said %d times, want once\n%s", n, log.String())
	}
	if res.Last.Duration != time.Second || res.Stats.Max != time.Second {
		t.Errorf("last iteration took %s, the longest %s; want the agent's 1s", res.Last.Duration, res.Stats.Max)
	}
}

// TestSlowLedgerIsNotTheIterationsDuration: the time a working ledger
// takes before and after the agent's try is not the iteration's; the
// iteration knows the account the ledger named.
func TestSlowLedgerIsNotTheIterationsDuration(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{took: time.Second}}}
	cfg := s.config(1, 3, &log)
	cfg.Accounts = &slowLedger{s: s}
	res := Run(context.Background(), cfg)
	if res.Last.Duration != time.Second {
		t.Errorf("the iteration took %s, want the agent's 1s\n%s", res.Last.Duration, log.String())
	}
	if res.Last.Account != "claude:3f9a" {
		t.Errorf("the iteration's account: %q, want the ledger's (traces carry it)", res.Last.Account)
	}
}

// slowLedger answers every call after 3 s on the loop's clock.
type slowLedger struct{ s *script }

func (l *slowLedger) Hold(context.Context, int) (AccountHold, error) {
	l.s.clock = l.s.clock.Add(3 * time.Second)
	return AccountHold{Account: "claude:3f9a"}, nil
}

func (l *slowLedger) Limited(context.Context, int, string, time.Time) error { return nil }

func (l *slowLedger) Reserve(context.Context, int) (func(Spend) error, error) {
	return func(Spend) error { l.s.clock = l.s.clock.Add(3 * time.Second); return nil }, nil
}

// limits is a ledger that keeps the limits written to it.
type limits struct{ met []string }

func (l *limits) Hold(context.Context, int) (AccountHold, error) { return AccountHold{}, nil }

func (l *limits) Limited(_ context.Context, n int, cause string, until time.Time) error {
	l.met = append(l.met, fmt.Sprintf("%d %s %v", n, cause, until.IsZero()))
	return nil
}

func (l *limits) Reserve(context.Context, int) (func(Spend) error, error) {
	return func(Spend) error { return nil }, nil
}

// TestLimitWithoutResetIsWritten: a rate limit whose CLI names no reset
// is written to the ledger too, for the breaker to count.
func TestLimitWithoutResetIsWritten(t *testing.T) {
	var log strings.Builder
	limited := &agentstream.Summary{Format: agentstream.Codex, Cause: agentstream.CauseRateLimited, Err: "429 Too Many Requests"}
	s := &script{steps: []step{{exit: 1, decoded: limited}, {decoded: said(success)}}}
	cfg := s.config(1, 3, &log)
	ledger := &limits{}
	cfg.Accounts = ledger
	Run(context.Background(), cfg)
	if fmt.Sprint(ledger.met) != "[1 rate_limited true]" {
		t.Errorf("limits written: %q\n%s", ledger.met, log.String())
	}
}
