package loop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOneIterationFailureIsAborted: a loop allowed fewer iterations than
// its failure threshold, whose every iteration failed, is aborted (exit
// 1), not max-iters; one whose last iteration alone failed is max-iters.
func TestOneIterationFailureIsAborted(t *testing.T) {
	res, log, _ := run(t, 1, 3, step{out: failure})
	if res.Status != Aborted || res.Status.ExitCode() != 1 || !strings.Contains(log, "(failure, consecutive: 1/1)") || !strings.Contains(log, "Aborting after 1 consecutive failure (") {
		t.Errorf("max 1, threshold 3, FAILURE: %s\n%s", res.Status, log)
	}
	res, log, _ = run(t, 2, 3, step{exit: 1})
	if res.Status != Aborted || res.Iterations != 2 {
		t.Errorf("max 2, threshold 3, failing twice: %s after %d\n%s", res.Status, res.Iterations, log)
	}
	res, log, _ = run(t, 3, 3, step{}, step{}, step{exit: 1})
	if res.Status != MaxIters {
		t.Errorf("max 3, only the last failing: %s\n%s", res.Status, log)
	}
}

// TestStopVerdict: "stop" ends the loop at once, stopped, exit 0, without
// counting a failure; its reason is in the log and the result.
func TestStopVerdict(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{exit: 1}}}
	cfg := s.config(10, 3, &log)
	cfg.Verdict = func(it *Iteration) (Decision, error) {
		if it.Number == 2 {
			return Decision{Outcome: OutcomeStop, Reason: "spent enough"}, nil
		}
		return Decision{}, nil
	}
	res := Run(context.Background(), cfg)
	if res.Status != Stopped || res.Status.ExitCode() != 0 || res.Iterations != 2 || res.Reason != "spent enough" {
		t.Fatalf("status %s (exit %d) after %d, reason %q\n%s", res.Status, res.Status.ExitCode(), res.Iterations, res.Reason, log.String())
	}
	if res.Last.Outcome != OutcomeStop || res.Last.ConsecutiveFailures != 1 || res.Last.Cause != "" {
		t.Errorf("last: outcome %s, consecutive %d, cause %q", res.Last.Outcome, res.Last.ConsecutiveFailures, res.Last.Cause)
	}
	for _, want := range []string{
		"Iteration 2/10: the procedure's on_iteration declared stop (spent enough); the agent's outcome was failure\n",
		"Stopped: the procedure ended the loop in iteration 2/10 (spent enough) (total: 0s)",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in\n%s", want, log.String())
		}
	}
}

// TestVerdictReasons: an abort's reason ends the summary; a reason given
// with the agent's own outcome is logged too; a verdict that did not end
// the loop leaves the loop no reason.
func TestVerdictReasons(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: success}}}
	cfg := s.config(10, 3, &log)
	cfg.Verdict = func(*Iteration) (Decision, error) {
		return Decision{Outcome: OutcomeAbort, Reason: "over budget"}, nil
	}
	res := Run(context.Background(), cfg)
	if res.Status != Aborted || res.Reason != "over budget" || !strings.Contains(log.String(), "Aborting: the procedure said abort (over budget) (1 iteration completed") {
		t.Errorf("abort: %s, %q\n%s", res.Status, res.Reason, log.String())
	}
	log.Reset()
	cfg.Verdict = func(*Iteration) (Decision, error) {
		return Decision{Outcome: OutcomeSuccess, Reason: "tests pass"}, nil
	}
	res = Run(context.Background(), cfg)
	if res.Status != Success || res.Reason != "tests pass" || !strings.Contains(log.String(), "declared success (tests pass); the agent's outcome was success") {
		t.Errorf("success with a reason: %s, %q\n%s", res.Status, res.Reason, log.String())
	}
	log.Reset()
	s.steps = []step{{}}
	cfg.Verdict = func(*Iteration) (Decision, error) {
		return Decision{Outcome: OutcomeContinue, Reason: "not yet"}, nil
	}
	res = Run(context.Background(), cfg)
	if res.Status != MaxIters || res.Reason != "" || res.Last.Reason != "not yet" {
		t.Errorf("continue with a reason: %s, loop's reason %q, iteration's %q", res.Status, res.Reason, res.Last.Reason)
	}
}

// TestMaxDuration: the loop's own duration budget ends it, status
// budget, as the iteration that passes it ends.
func TestMaxDuration(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{took: 40 * time.Second}}}
	cfg := s.config(10, 3, &log)
	cfg.Budget.MaxDuration = time.Minute
	res := Run(context.Background(), cfg)
	var budget *BudgetError
	if res.Status != OverBudget || res.Iterations != 2 || !errors.As(res.Err, &budget) || budget.Setting != "max_duration" {
		t.Fatalf("status %s after %d, %v\n%s", res.Status, res.Iterations, res.Err, log.String())
	}
	if want := "Budget reached: the loop ran 1m20s, reaching max_duration 1m (2 iterations completed"; !strings.Contains(log.String(), want) {
		t.Errorf("no %q in\n%s", want, log.String())
	}
}

// runBudget stands for a run-wide budget that ends a context: its own
// exit code, no interrupt.
type runBudget struct{}

func (runBudget) Error() string {
	return "the run reached its budget of 1s of run time (--max-duration)"
}
func (runBudget) ExitCode() int { return 2 }

// TestRunBudgetIsNoInterrupt: a context ended by a run-wide budget ends
// the loop with status budget, saying so, not "Interrupted by".
func TestRunBudgetIsNoInterrupt(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(10, 3, &log)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(runBudget{})
	res := Run(ctx, cfg)
	if res.Status != OverBudget || !strings.Contains(log.String(), "Budget reached: the run reached its budget of 1s of run time (--max-duration) (0 iterations completed") || strings.Contains(log.String(), "Interrupted") {
		t.Errorf("status %s\n%s", res.Status, log.String())
	}
	ctx, stop := context.WithCancel(context.Background())
	stop()
	if res := Run(ctx, cfg); res.Status != Interrupted {
		t.Errorf("cancelled: %s", res.Status)
	}
}

// TestWorst: loops that ran at once end together as the worst of them,
// whatever their order.
func TestWorst(t *testing.T) {
	for _, tc := range []struct {
		in   []Status
		want Status
	}{
		{[]Status{Success, Aborted}, Aborted},
		{[]Status{Aborted, Success}, Aborted},
		{[]Status{MaxIters, Success, Stopped}, MaxIters},
		{[]Status{Stopped, Success}, Stopped},
		{[]Status{OverBudget, Aborted, MaxIters}, Aborted},
		{nil, ""},
	} {
		if got := Worst(tc.in...); got != tc.want {
			t.Errorf("Worst(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
