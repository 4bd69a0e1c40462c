package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
	"rooda/host/process"
)

// outage is what a CLI that could not reach its server says.
func outage() *agentstream.Summary {
	return &agentstream.Summary{Format: agentstream.Codex, Cause: agentstream.CauseNetwork, Err: "stream disconnected before completion"}
}

// said is a decoded output whose agent said text.
func said(text string) *agentstream.Summary {
	return &agentstream.Summary{Format: agentstream.Codex, Text: text}
}

// waitRun runs the loop, its agent named codex, with the waits told to
// LimitWaiting kept.
func waitRun(t *testing.T, max, threshold int, limit time.Duration, steps ...step) (Result, string, *script, []LimitWait) {
	t.Helper()
	var log strings.Builder
	s := &script{steps: steps}
	cfg := s.config(max, threshold, &log)
	cfg.Turn = func(int) (Turn, error) { return Turn{Agent: "codex"}, nil }
	cfg.MaxLimitWait = limit
	var told []LimitWait
	cfg.LimitWaiting = func(w LimitWait) { told = append(told, w) }
	res := Run(context.Background(), cfg)
	return res, log.String(), s, told
}

// TestOutageIsWaitedOut: an agent that cannot reach its server runs the
// same iteration again after a backoff, 30 s then doubling, and the
// iteration that then succeeds counts no failure; the log, and
// LimitWaiting, say each wait as it begins.
func TestOutageIsWaitedOut(t *testing.T) {
	down := step{exit: 1, took: 2 * time.Second, decoded: outage()}
	res, log, s, told := waitRun(t, 5, 1, 6*time.Hour, down, down, down, step{decoded: said(success)})
	if res.Status != Success || res.Iterations != 1 || res.Last.ConsecutiveFailures != 0 || s.calls != 4 {
		t.Fatalf("status %s after %d iterations, %d tries, %d failures\n%s", res.Status, res.Iterations, s.calls, res.Last.ConsecutiveFailures, log)
	}
	if fmt.Sprint(s.slept) != "[30s 1m0s 2m0s]" || res.Last.Waited != 3*time.Minute+30*time.Second || res.Last.Duration != 6*time.Second {
		t.Errorf("slept %v; the iteration waited %s and took %s", s.slept, res.Last.Waited, res.Last.Duration)
	}
	for _, want := range []string{
		"WARN: Iteration 1/5: codex: network; waiting 30s before running iteration 1/5 again (total waited 0s, up to 6h)\n",
		"WARN: Iteration 1/5: codex: network; waiting 1m before running iteration 1/5 again (total waited 30s, up to 6h)\n",
		"WARN: Iteration 1/5: codex: network; waiting 2m before running iteration 1/5 again (total waited 1m30s, up to 6h)\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "failure") {
		t.Errorf("a failure was logged:\n%s", log)
	}
	if len(told) != 3 || told[0].Cause != "network" || !told[0].Backoff || told[0].Again || !told[1].Again || told[2].Wait != 2*time.Minute || told[2].Agent != "codex" {
		t.Errorf("LimitWaiting was told %+v", told)
	}
}

// TestBackoffIsCapped: the backoff doubles to 10 minutes and stays there.
func TestBackoffIsCapped(t *testing.T) {
	down := step{exit: 1, decoded: outage()}
	_, _, s, _ := waitRun(t, 1, 1, 6*time.Hour, down, down, down, down, down, down, down, step{})
	if got := fmt.Sprint(s.slept); got != "[30s 1m0s 2m0s 4m0s 8m0s 10m0s 10m0s]" {
		t.Errorf("waits %s", got)
	}
}

// TestOutageBeyondMaxLimitWait: the waits of an outage stay within
// max_limit_wait, the last cut to what is left; once it is spent, the
// iteration is a failure, cause network, and the log says it gave up.
func TestOutageBeyondMaxLimitWait(t *testing.T) {
	res, log, s, _ := waitRun(t, 3, 1, 2*time.Minute, step{exit: 1, decoded: outage()})
	if fmt.Sprint(s.slept) != "[30s 1m0s 30s]" || s.calls != 4 {
		t.Errorf("waits %v, %d tries", s.slept, s.calls)
	}
	if res.Status != Aborted || res.Iterations != 1 || res.Last.Cause != CauseNetwork || res.Last.Waited != 2*time.Minute {
		t.Errorf("status %s after %d, cause %q, waited %s", res.Status, res.Iterations, res.Last.Cause, res.Last.Waited)
	}
	for _, want := range []string{"codex: network; waited 2m, all of max_limit_wait: giving up\n", "[network]\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	// max_limit_wait none: no wait at all.
	res, _, s, _ = waitRun(t, 3, 1, 0, step{exit: 1, decoded: outage()})
	if len(s.slept) != 0 || res.Last.Cause != CauseNetwork {
		t.Errorf("none: waits %v, cause %q", s.slept, res.Last.Cause)
	}
}

// TestLimitWithoutResetIsWaitedOut: a rate or usage limit whose reset the
// CLI did not name is waited out by the same backoff; one with a reset is
// waited for until then.
func TestLimitWithoutResetIsWaitedOut(t *testing.T) {
	for _, cause := range []agentstream.Cause{agentstream.CauseRateLimited, agentstream.CauseUsageLimit, agentstream.CauseOverloaded} {
		limited := &agentstream.Summary{Format: agentstream.Copilot, Cause: cause, Err: "429 Rate limit reached"}
		res, log, s, told := waitRun(t, 2, 1, time.Hour, step{exit: 1, decoded: limited}, step{decoded: said("done")})
		what := strings.ReplaceAll(string(cause), "_", " ")
		want := "codex: " + what + ", no reset time given; waiting 30s before running iteration 1/2 again (total waited 0s, up to 1h)\n"
		if res.Iterations != 2 || res.Last.ConsecutiveFailures != 0 || fmt.Sprint(s.slept) != "[30s]" || !strings.Contains(log, want) {
			t.Errorf("%s: %d iterations, %d failures, waits %v\n%s", cause, res.Iterations, res.Last.ConsecutiveFailures, s.slept, log)
		}
		if len(told) != 1 || told[0].Cause != string(cause) || !told[0].Backoff {
			t.Errorf("%s: told %+v", cause, told)
		}
	}
}

// TestOnlyFailuresOfAnOutageWait: an agent that succeeded although its
// CLI retried a dropped connection, and a text agent that failed, run
// once: there is nothing to wait out.
func TestOnlyFailuresOfAnOutageWait(t *testing.T) {
	retried := outage()
	retried.Cause, retried.Text = "", success
	retried.LastRetry = agentstream.Retry{Cause: agentstream.CauseNetwork}
	for name, st := range map[string]step{
		"succeeded":   {decoded: retried},
		"text":        {exit: 1, out: "connection refused"},
		"auth":        {exit: 1, decoded: &agentstream.Summary{Cause: agentstream.CauseAuth, Err: "401"}},
		"exit_failed": {exit: 1, decoded: said("I give up")},
	} {
		_, log, s, _ := waitRun(t, 1, 3, time.Hour, st)
		if s.calls != 1 || len(s.slept) != 0 {
			t.Errorf("%s: %d tries, waits %v\n%s", name, s.calls, s.slept, log)
		}
	}
}

// TestInterruptDuringAnOutageWait: an interrupt during the wait ends the
// run at once, interrupted, with no other try.
func TestInterruptDuringAnOutageWait(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{exit: 1, decoded: outage()}, {decoded: said(success)}}}
	cfg := s.config(3, 3, &log)
	ctx, cancel := context.WithCancelCause(context.Background())
	cfg.Sleep = func(context.Context, time.Duration) error {
		cancel(errors.New("SIGINT"))
		return context.Canceled
	}
	res := Run(ctx, cfg)
	if res.Status != Interrupted || res.Status.ExitCode() != 130 || s.calls != 1 || res.Iterations != 0 {
		t.Errorf("status %s, %d tries, %d iterations\n%s", res.Status, s.calls, res.Iterations, log.String())
	}
}

// TestSpinningLoopBacksOff: iterations that end at once without output
// and fail nothing wait, from the third in a row, 1 s doubling, before
// the next, and say so; one with output starts the count again.
func TestSpinningLoopBacksOff(t *testing.T) {
	silent := step{took: 20 * time.Millisecond}
	steps := []step{silent, silent, silent, silent, silent, {out: "working", took: 20 * time.Millisecond}, silent, silent, silent, {out: success}}
	res, log, s := run(t, 0, 3, steps...)
	if res.Status != Success || res.Iterations != 10 {
		t.Fatalf("status %s after %d", res.Status, res.Iterations)
	}
	if got := fmt.Sprint(s.slept); got != "[1s 2s 4s 1s]" {
		t.Errorf("waits %s, want 1s 2s 4s after iterations 3 to 5, and 1s after 9", got)
	}
	for _, want := range []string{
		"WARN: Iteration 3: the agent ended at once without output, 3 iterations in a row; waiting 1s before the next\n",
		"WARN: Iteration 5: the agent ended at once without output, 5 iterations in a row; waiting 4s before the next\n",
		"WARN: Iteration 9: the agent ended at once without output, 3 iterations in a row; waiting 1s before the next\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestSpinWaitIsCapped: the wait doubles to a minute and stays there.
func TestSpinWaitIsCapped(t *testing.T) {
	_, _, s := run(t, 12, 3, step{took: time.Millisecond})
	if got := fmt.Sprint(s.slept); got != "[1s 2s 4s 8s 16s 32s 1m0s 1m0s 1m0s]" {
		t.Errorf("waits %s", got)
	}
}

// TestNoSpinWaitForFailuresOrSlowOrStandIns: failures (the threshold ends
// them), iterations of a second or more, and a script test's stand-in
// agent (NoSpinWait) never wait.
func TestNoSpinWaitForFailuresOrSlowOrStandIns(t *testing.T) {
	if _, _, s := run(t, 6, 10, step{exit: 1}); len(s.slept) != 0 {
		t.Errorf("failures waited %v", s.slept)
	}
	if _, _, s := run(t, 6, 3, step{took: time.Second}); len(s.slept) != 0 {
		t.Errorf("iterations of 1s waited %v", s.slept)
	}
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(6, 3, &log)
	cfg.NoSpinWait = true
	Run(context.Background(), cfg)
	if len(s.slept) != 0 {
		t.Errorf("a stand-in agent waited %v", s.slept)
	}
}

// TestInterruptDuringASpinWait: an interrupt during the wait ends the
// run at once, interrupted, and starts no other iteration.
func TestInterruptDuringASpinWait(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(10, 3, &log)
	ctx, cancel := context.WithCancelCause(context.Background())
	cfg.Sleep = func(context.Context, time.Duration) error {
		cancel(errors.New("SIGINT"))
		return context.Canceled
	}
	res := Run(ctx, cfg)
	if res.Status != Interrupted || res.Iterations != 3 || s.calls != 3 {
		t.Errorf("status %s after %d iterations, %d calls\n%s", res.Status, res.Iterations, s.calls, log.String())
	}
}

// limitedRun runs one iteration of the loop, its agent named codex, each
// try taking a second: while limited(now) gives a summary, the try ends
// with it, a failure; then the agent signals success. It gives the
// times the tries began.
func limitedRun(t *testing.T, start time.Time, maxWait time.Duration, limited func(now time.Time) *agentstream.Summary) (Result, string, *script, []LimitWait, []time.Time) {
	t.Helper()
	var log strings.Builder
	s := &script{steps: []step{{took: time.Second, decoded: said(success)}}}
	cfg := s.config(1, 1, &log)
	s.clock = start
	cfg.Turn = func(int) (Turn, error) { return Turn{Agent: "codex"}, nil }
	cfg.MaxLimitWait = maxWait
	var tries []time.Time
	cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
		tries = append(tries, s.now())
		if sum := limited(s.now()); sum != nil {
			s.calls++
			s.clock = s.clock.Add(time.Second)
			return Reply{Result: process.Result{ExitCode: 1}, Decoded: sum}, nil
		}
		return s.agent(ctx, req)
	}
	var told []LimitWait
	cfg.LimitWaiting = func(w LimitWait) { told = append(told, w) }
	res := Run(context.Background(), cfg)
	return res, log.String(), s, told, tries
}

// codexUntil is codex's usage limit that ends at over, as codex names it
// while it lasts: the minute of over, its seconds cut off.
func codexUntil(over time.Time) func(now time.Time) *agentstream.Summary {
	return func(now time.Time) *agentstream.Summary {
		if !now.Before(over) {
			return nil
		}
		minute := over.Truncate(time.Minute)
		return &agentstream.Summary{Format: agentstream.Codex, Cause: agentstream.CauseUsageLimit, Err: "You've hit your usage limit.",
			ResetEarliest: minute, ResetAt: minute.Add(time.Minute)}
	}
}

func total(waits []time.Duration) (sum time.Duration) {
	for _, w := range waits {
		sum += w
	}
	return sum
}

// TestMinuteRoundedResetIsTriedEarly: a limit of 20 s whose reset codex
// names to the minute costs at most 40 s of waiting, wherever in the
// minute it begins (at 10:00:00, the minute named ends 60 s later), and
// no failure; the log says when it resets at the latest.
func TestMinuteRoundedResetIsTriedEarly(t *testing.T) {
	ten := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	for second := range 60 {
		start := ten.Add(time.Duration(second) * time.Second)
		res, log, s, _, _ := limitedRun(t, start, 6*time.Hour, codexUntil(start.Add(20*time.Second)))
		if res.Status != Success || res.Last.ConsecutiveFailures != 0 || total(s.slept) > 40*time.Second || res.Last.Waited != total(s.slept) {
			t.Errorf("from %s: status %s, %d failures, waits %v\n%s", start.Format("15:04:05"), res.Status, res.Last.ConsecutiveFailures, s.slept, log)
		}
	}
	_, log, _, _, _ := limitedRun(t, ten, 6*time.Hour, codexUntil(ten.Add(20*time.Second)))
	if want := "WARN: Iteration 1/1: codex: usage limit; waiting until 10:00:11, 10s, then running iteration 1/1 again (it resets between 10:00:00 and 10:01:00)\n"; !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}

// TestMinuteRoundedResetEndsAtTheMinute: a limit that lasts to the end of
// the minute codex names is tried early, then again at the minute's end,
// not later, with no failure; a notifier hears of the first wait only.
func TestMinuteRoundedResetEndsAtTheMinute(t *testing.T) {
	ten := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	end := ten.Add(time.Minute)
	res, log, _, told, tries := limitedRun(t, ten, 6*time.Hour, codexUntil(end.Add(-time.Millisecond)))
	if res.Status != Success || res.Last.ConsecutiveFailures != 0 || len(tries) < 3 {
		t.Fatalf("status %s, %d failures, tries at %v\n%s", res.Status, res.Last.ConsecutiveFailures, tries, log)
	}
	if last := tries[len(tries)-1]; !last.Equal(end) || !tries[len(tries)-2].Before(end) {
		t.Errorf("tries at %v; the last should be at the minute's end, %s", tries, end)
	}
	for i, w := range told {
		last := i == len(told)-1
		if w.Early == last || w.Again != (i > 0) || w.Until.After(end) || (last && !w.Until.Equal(end)) {
			t.Errorf("wait %d of %d told %+v", i+1, len(told), w)
		}
	}
}

// TestMinuteRoundedResetStillThere: a limit still there at the end of the
// minute codex names, naming it again, is not waited for again: the
// iteration fails, cause rate_limited.
func TestMinuteRoundedResetStillThere(t *testing.T) {
	ten := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	sameMinute := codexUntil(ten.Add(30 * time.Second))
	res, log, _, _, tries := limitedRun(t, ten, 6*time.Hour, func(time.Time) *agentstream.Summary { return sameMinute(ten) })
	if res.Status != Aborted || res.Last.Cause != CauseRateLimited || !tries[len(tries)-1].Equal(ten.Add(time.Minute)) {
		t.Errorf("status %s, cause %q, tries at %v\n%s", res.Status, res.Last.Cause, tries, log)
	}
	if want := "codex: usage limit; it was to reset at 10:01:00, and is still there\n"; !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}

// TestResetsMovingForwardStayWithinMaxLimitWait: a CLI that names a later
// reset on every try, exact or to the minute, is waited for while the
// iteration's waits together stay within max_limit_wait; the wait that
// would pass it is not begun, and the iteration fails, cause
// rate_limited, the log saying what was waited already.
func TestResetsMovingForwardStayWithinMaxLimitWait(t *testing.T) {
	ten := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	exact := func(now time.Time) *agentstream.Summary {
		return &agentstream.Summary{Format: agentstream.Claude, Cause: agentstream.CauseUsageLimit, ResetAt: now.Add(time.Hour)}
	}
	rounded := func(now time.Time) *agentstream.Summary { return codexUntil(now.Add(time.Hour))(now) }
	for name, later := range map[string]func(time.Time) *agentstream.Summary{"exact": exact, "rounded": rounded} {
		limit := 150 * time.Minute
		calls := 0
		res, log, s, _, _ := limitedRun(t, ten, limit, func(now time.Time) *agentstream.Summary {
			if calls++; calls > 20 { // unbounded waits end here, not in a hang
				return nil
			}
			return later(now)
		})
		if total(s.slept) > limit || total(s.slept) < limit-time.Hour || res.Last.Waited != total(s.slept) {
			t.Errorf("%s: waits %v, %s in all, the iteration waited %s; want within %s", name, s.slept, total(s.slept), res.Last.Waited, limit)
		}
		if res.Status != Aborted || res.Last.Cause != CauseRateLimited || res.Last.ConsecutiveFailures != 1 {
			t.Errorf("%s: status %s, cause %q, %d failures", name, res.Status, res.Last.Cause, res.Last.ConsecutiveFailures)
		}
		want := fmt.Sprintf("codex: usage limit; it resets at %s, beyond max_limit_wait (2h30m), with %s waited already\n",
			res.Last.Decoded.ResetAt.Local().Format("15:04"), total(s.slept).Round(time.Second))
		if !strings.Contains(log, want) || !strings.Contains(log, "[rate_limited]") {
			t.Errorf("%s: log lacks %q:\n%s", name, want, log)
		}
	}
}

// TestEarlyTryEndingPastTheMinute: an early try that began before the
// minute codex names ended, and ended after it, still limited, has not
// met the limit after its reset: it is tried again at once.
func TestEarlyTryEndingPastTheMinute(t *testing.T) {
	ten := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	// The first try ends at 10:00:49.5, the early one begins at 10:00:59.5.
	start := ten.Add(48*time.Second + 500*time.Millisecond)
	res, log, _, _, tries := limitedRun(t, start, 6*time.Hour, codexUntil(ten.Add(59*time.Second+900*time.Millisecond)))
	if res.Status != Success || len(tries) != 3 || !tries[2].Equal(ten.Add(time.Minute+500*time.Millisecond)) {
		t.Errorf("status %s, tries at %v\n%s", res.Status, tries, log)
	}
}

// TestLimitWaitedOutByTheCLIThenSuccess: a CLI that reported a usage
// limit with its reset, waited it out itself and then signaled SUCCESS
// is not run again for that limit: the loop ends in success, at once.
func TestLimitWaitedOutByTheCLIThenSuccess(t *testing.T) {
	sum := said(success)
	sum.Cause, sum.Err, sum.ResetAt = agentstream.CauseUsageLimit, "You've hit your usage limit.", time.Date(2026, 1, 1, 11, 0, 0, 0, time.Local) // an hour after the script's clock starts
	res, log, s, told := waitRun(t, 3, 1, 6*time.Hour, step{decoded: sum})
	if res.Status != Success || s.calls != 1 || len(told) != 0 || len(s.slept) != 0 {
		t.Errorf("%s after %d calls, waits %v told %v:\n%s", res.Status, s.calls, s.slept, told, log)
	}
}
