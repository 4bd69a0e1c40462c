package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rooda/host/agentstream"
	"rooda/host/logging"
	"rooda/host/units"
)

// An iteration whose agent hit a limit, or could not reach its model's
// server, is not a failure while it can be waited out: the same iteration
// runs again after a wait, and the waits of one iteration together stay
// within Config.MaxLimitWait. A limit that says when it resets is waited
// for until then. A limit that does not, and an outage, are waited out
// by a backoff: 30 s first, doubling to at most 10 min. The CLIs have
// already retried for seconds to minutes before they give up, so a first
// wait shorter than that would mostly meet the same outage; an outage
// lasts minutes to hours, and with 10 min at most between tries a server
// that comes back is used again within 10 min, at the cost of a CLI's
// start (a request refused costs no tokens) every 10 min.
const (
	firstBackoff = 30 * time.Second
	maxBackoff   = 10 * time.Minute
)

// A CLI may name its reset rounded: codex's "try again at 3:05 PM" is the
// reset's time with its seconds cut off, so the limit ends somewhere in
// that minute, and waiting to the minute's end costs up to a minute more
// than the limit (a 20 s limit was waited 1 m 15 s). Such a limit is
// tried again early: firstProbe after the minute begins (or after the
// try, when it has begun), then after 20 s, 40 s, …, never past the
// minute's end, where the last try is as before. A limit of 20 s costs at
// most 40 s of waiting wherever it falls in the minute; a try too early
// costs a CLI's start and a refused request, no tokens.
const firstProbe = 10 * time.Second

// An agent that ends at once without a byte of output, again and again,
// is not working: it may be misconfigured, or have nothing to do. Such
// iterations that count no failure (the failure threshold ends a run of
// failures) would otherwise follow one another as fast as processes
// start, without end in an unlimited loop. From the third in a row on,
// the loop waits before the next: 1 s, doubling to at most 1 min, so
// that a loop spinning costs a start a minute, and one that finds work
// again after a silent spell resumes within a minute.
const (
	quickIteration = time.Second
	freeSpins      = 2
	firstSpinWait  = time.Second
	maxSpinWait    = time.Minute
)

// LimitWait is a wait before an iteration's agent runs again, as it
// begins: for a usage or rate limit to reset, or, when the agent named no
// reset or could not reach its server, a backoff. The iteration runs
// again at Until.
type LimitWait struct {
	Iteration int
	Agent     string
	// Cause is the CLI's (agentstream): usage_limit, rate_limited,
	// overloaded or network.
	Cause string
	Until time.Time
	Wait  time.Duration
	// Backoff is set when rooda chose the wait: no reset was read.
	Backoff bool
	// Early is set for a wait that ends before the limit surely resets:
	// the CLI named its reset rounded, and the limit may be over sooner.
	Early bool
	// Waited is what the iteration waited before this wait.
	Waited time.Duration
	// Again is set for a backoff that follows another of the same
	// iteration, and for a wait for a reset that follows an early try of
	// it: those told of the first (a notifier) know of it.
	Again bool
	// Message is the log's line of it.
	Message string
	// Account is set for a wait for the agent's account (Cause
	// account_limited or account_paused): a limit another loop met, or
	// the breaker's pause, shared through Config.Accounts.
	Account string
}

// waits are the waits of one iteration so far.
type waits struct {
	total    time.Duration
	backoffs int
	probes   int
	// reset is set when the last wait was for a reset: a limit still
	// there once it has reset is not waited for again.
	reset bool
	// early is set when the last wait ended before its limit surely
	// reset (LimitWait.Early).
	early bool
}

// add counts wait, waited in full.
func (w *waits) add(wait LimitWait) {
	w.total += wait.Wait
	w.reset, w.early = !wait.Backoff && !wait.Early, wait.Early
	if wait.Backoff {
		w.backoffs++
	}
	if wait.Early {
		w.probes++
	}
}

// waitFor is how long to wait before running it's agent again, after a
// try that ended as it (its agent's outcome already judged) did; false
// when the try stands: the iteration's agent succeeded, failed for
// another cause, or the waits are spent, which it says.
func (r *runner) waitFor(it *Iteration, w waits) (LimitWait, bool) {
	sum := it.Decoded
	// A CLI that met a limit, waited it out itself and then signaled
	// success (opencode does) has done the iteration's work: it is not
	// run again.
	if sum == nil || it.StartErr != nil || it.Outcome == OutcomeSuccess {
		return LimitWait{}, false
	}
	limit := sum.Cause == agentstream.CauseUsageLimit || sum.Cause == agentstream.CauseRateLimited
	if limit {
		r.shareLimit(it)
	}
	if limit && !sum.ResetAt.IsZero() {
		return r.resetWait(it, w)
	}
	if it.Outcome != OutcomeFailure || (it.Cause != CauseNetwork && it.Cause != CauseRateLimited) {
		return LimitWait{}, false
	}
	return r.backoff(it, w)
}

// resetWait waits for a limit to reset at the time the CLI named, when
// the waits of the iteration then stay within MaxLimitWait; false when it
// is later, or when a limit that had reset before this try is still there
// (a reset already past is tried again at once, once). A reset named
// rounded is tried early (probeAt).
func (r *runner) resetWait(it *Iteration, w waits) (LimitWait, bool) {
	sum, now := it.Decoded, r.cfg.Now()
	wait := max(sum.ResetAt.Sub(now), 0)
	label, what := r.label(it.Number), causeWords(sum)
	if wait == 0 && w.reset {
		r.logger().Warnf("Iteration %s: %s: %s; it was to reset at %s, and is still there", label, agentName(it), what, sum.ResetAt.Local().Format("15:04:05"))
		return LimitWait{}, false
	}
	if limit := r.cfg.MaxLimitWait; limit == 0 || w.total+wait > limit {
		r.logger().Warnf("Iteration %s: %s: %s; it resets at %s, beyond max_limit_wait (%s)%s", label, agentName(it), what, sum.ResetAt.Local().Format("15:04"), limitWords(limit), waitedWords(w.total))
		return LimitWait{}, false
	}
	lw := LimitWait{Until: sum.ResetAt, Wait: wait, Waited: w.total, Again: w.early}
	note := ""
	if at, ok := probeAt(now, sum, w.probes); ok {
		lw.Until, lw.Wait, lw.Early = at, at.Sub(now), true
		note = fmt.Sprintf(" (it resets between %s and %s)", sum.ResetEarliest.Local().Format("15:04:05"), sum.ResetAt.Local().Format("15:04:05"))
	}
	lw.Message = fmt.Sprintf("Iteration %s: %s: %s; waiting until %s, %s, then running iteration %s again%s", label, agentName(it), what, lw.Until.Local().Format("15:04:05"), units.Duration(lw.Wait), label, note)
	return r.waiting(it, lw), true
}

// probeAt is when to try a limit again early, its reset named rounded
// (sum.ResetEarliest before sum.ResetAt): firstProbe after the earliest
// it may reset, or after now once that is past, doubling with each early
// try; false when the reset is exact, or the try would not be before
// the limit surely resets.
func probeAt(now time.Time, sum *agentstream.Summary, probes int) (time.Time, bool) {
	rounding := sum.ResetAt.Sub(sum.ResetEarliest)
	if sum.ResetEarliest.IsZero() || rounding <= 0 {
		return time.Time{}, false
	}
	from := sum.ResetEarliest
	if now.After(from) {
		from = now
	}
	at := from.Add(backoffStep(probes, firstProbe, rounding))
	return at, at.Before(sum.ResetAt)
}

// waitedWords says what the iteration waited already, if anything.
func waitedWords(waited time.Duration) string {
	if waited == 0 {
		return ""
	}
	return fmt.Sprintf(", with %s waited already", units.Duration(waited.Round(time.Second)))
}

// backoff waits out an outage, or a limit whose reset the CLI did not
// name: the next wait of the backoff, or what is left of MaxLimitWait if
// less; false once it is spent.
func (r *runner) backoff(it *Iteration, w waits) (LimitWait, bool) {
	label, what := r.label(it.Number), causeWords(it.Decoded)
	limit := r.cfg.MaxLimitWait
	left := limit - w.total
	if left <= 0 {
		if limit > 0 {
			r.logger().Warnf("Iteration %s: %s: %s; waited %s, all of max_limit_wait: giving up", label, agentName(it), what, units.Duration(w.total.Round(time.Second)))
		}
		return LimitWait{}, false
	}
	wait := min(backoffStep(w.backoffs, firstBackoff, maxBackoff), left)
	return r.waiting(it, LimitWait{Until: r.cfg.Now().Add(wait), Wait: wait, Backoff: true, Waited: w.total, Again: w.backoffs > 0,
		Message: fmt.Sprintf("Iteration %s: %s: %s; waiting %s before running iteration %s again (total waited %s, up to %s)",
			label, agentName(it), what, units.Duration(wait.Round(time.Second)), label, units.Duration(w.total.Round(time.Second)), limitWords(limit))}), true
}

// waiting completes a wait of it's, logs it and tells Config.LimitWaiting.
func (r *runner) waiting(it *Iteration, w LimitWait) LimitWait {
	w.Iteration, w.Agent, w.Cause = it.Number, agentName(it), string(it.Decoded.Cause)
	if w.Cause == "" {
		w.Cause = string(it.Decoded.FailureCause())
	}
	r.logger().Event(logging.Warn, "limit_wait", []any{"iteration", w.Iteration, "agent", w.Agent, "cause", w.Cause,
		"until", w.Until.UTC().Format(time.RFC3339), "wait_seconds", w.Wait.Seconds(), "backoff", w.Backoff, "waited_seconds", w.Waited.Seconds()}, "%s", w.Message)
	if r.cfg.LimitWaiting != nil {
		r.cfg.LimitWaiting(w)
	}
	return w
}

// causeWords names what the CLI hit: "usage limit", "network", and for
// a limit with no reset, says so.
func causeWords(sum *agentstream.Summary) string {
	cause := sum.Cause
	if cause == "" || cause == agentstream.CauseOther {
		cause = sum.FailureCause()
	}
	what := strings.ReplaceAll(string(cause), "_", " ")
	if cause != agentstream.CauseNetwork && sum.ResetAt.IsZero() {
		what += ", no reset time given"
	}
	return what
}

func limitWords(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return units.Duration(d.Round(time.Second))
}

// backoffStep is the wait after n waits: first, doubled n times, at most
// most.
func backoffStep(n int, first, most time.Duration) time.Duration {
	d := first
	for range n {
		if d >= most/2 {
			return most
		}
		d *= 2
	}
	return min(d, most)
}

// spinWait is how long to wait after it before the next iteration: after
// freeSpins quick iterations in a row that printed nothing and failed
// nothing, a wait that doubles with each more; 0 otherwise.
func (r *runner) spinWait(it *Iteration) time.Duration {
	if r.cfg.NoSpinWait || it.Duration >= quickIteration || it.Result.Total > 0 || it.StartErr != nil || it.Outcome != OutcomeContinue {
		r.spins = 0
		return 0
	}
	r.spins++
	if r.spins <= freeSpins {
		return 0
	}
	wait := backoffStep(r.spins-freeSpins-1, firstSpinWait, maxSpinWait)
	if it.Replayed {
		return wait // counted, as it was, but not waited again (Run)
	}
	r.logger().Event(logging.Warn, "spin_wait", []any{"iteration", it.Number, "in_a_row", r.spins, "wait_seconds", wait.Seconds()},
		"Iteration %s: the agent ended at once without output, %d iterations in a row; waiting %s before the next",
		r.label(it.Number), r.spins, units.Duration(wait))
	return wait
}

// sleep waits d on Config.Sleep, or the wall clock; false when ctx ended
// first.
func (r *runner) sleep(ctx context.Context, d time.Duration) bool {
	if r.cfg.Sleep != nil {
		return r.cfg.Sleep(ctx, d) == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
