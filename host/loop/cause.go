package loop

import (
	"fmt"
	"strings"

	"rooda/host/agentstream"
	"rooda/host/logging"
)

// Cause is why an iteration failed: a word a user, a script and a
// program reading the record can act on without parsing a message. Its
// values are the one vocabulary rooda names causes with: in the failure
// warning, the iteration_finished event, meta.json, the digest, it.cause
// and r.last.cause. An iteration that did not fail has none ("").
type Cause string

const (
	CauseSignalFailure Cause = "signal_failure" // the agent printed FAILURE
	CauseAgentFailed   Cause = "agent_failed"   // a non-zero exit, no signal
	CauseTimeout       Cause = "timeout"        // stopped at iteration_timeout
	CauseIdle          Cause = "idle"           // stopped after idle_timeout without output, or a tool's result
	CauseModelTimeout  Cause = "model_timeout"  // stopped after model_timeout waiting on the model
	CauseCrash         Cause = "crash"          // killed by a signal rooda did not send (SIGSEGV …)
	CauseNoStart       Cause = "no_start"       // the agent could not be started
	CauseProcedure     Cause = "procedure"      // a script's on_iteration declared failure
	// The causes an agent's decoded output gives: what the CLI itself
	// reported, which the exit code cannot tell apart.
	CauseRateLimited Cause = "rate_limited" // a rate or usage limit, the CLI's retries spent
	CauseAuth        Cause = "auth"         // a login or credential failure
	CauseNetwork     Cause = "network"      // the model's server could not be reached
)

// Causes are the causes of a failure, in the order the README's table
// lists them.
var Causes = []Cause{
	CauseSignalFailure, CauseAgentFailed, CauseTimeout, CauseIdle, CauseModelTimeout, CauseCrash, CauseNoStart,
	CauseProcedure, CauseRateLimited, CauseAuth, CauseNetwork,
}

// agentCause is why the agent's own outcome (MatrixOutcome) is a
// failure, or "" when it is none. A cause already given (by a decoder
// of the agent's structured output) is kept: the CLI knows better than
// its exit code. Otherwise the first that holds, in the matrix's order:
// what rooda did to the agent comes before what the agent said, and what
// it said before how it ended.
func agentCause(it *Iteration) Cause {
	res, decoded := it.Result, decodedCause(it.Decoded)
	switch {
	case it.Outcome != OutcomeFailure:
		return ""
	case it.Cause != "":
		return it.Cause
	case it.StartErr != nil:
		return CauseNoStart
	case decoded != "" && !heldAcrossRetries(it, decoded):
		// What the CLI said went wrong beats how rooda had to stop it: a
		// login retried until the idle timeout is a login failure.
		return decoded
	case it.Stop != nil && it.Stop.Cause != "":
		return it.Stop.Cause
	case res.Idle:
		return CauseIdle
	case res.TimedOut:
		return CauseTimeout
	case it.Signals.Failure:
		return CauseSignalFailure
	case res.Signal != "":
		// rooda signals an agent only on a timeout or an interrupt, and
		// an interrupted iteration is never judged.
		return CauseCrash
	}
	return CauseAgentFailed
}

// heldAcrossRetries reports whether the agent was stopped at
// model_timeout while its CLI said it retried for want of a response:
// the watch that stopped it timed the tries and found that they reached a
// server which never answered (host/engine's watch; it stops an outage
// with cause network). A hung model is a failure, not an outage to wait
// out, whatever the CLI's words.
func heldAcrossRetries(it *Iteration, decoded Cause) bool {
	return decoded == CauseNetwork && it.Stop != nil && it.Stop.Cause == CauseModelTimeout
}

// finalCause is the cause once the procedure has judged: its declared
// failure is its own; an iteration it turned into anything else has none.
func finalCause(it *Iteration) Cause {
	switch {
	case it.Outcome != OutcomeFailure:
		return ""
	case it.Overridden:
		return CauseProcedure
	}
	return it.Cause
}

// decodedCause is the cause a decoded output gives a failure, or "".
func decodedCause(sum *agentstream.Summary) Cause {
	if sum == nil {
		return ""
	}
	switch sum.FailureCause() {
	case agentstream.CauseAuth:
		return CauseAuth
	case agentstream.CauseRateLimited, agentstream.CauseUsageLimit, agentstream.CauseOverloaded:
		return CauseRateLimited
	case agentstream.CauseNetwork:
		return CauseNetwork
	}
	return ""
}

// LoginError ends a loop whose agent cannot log in: no later iteration
// could, so none starts. A procedure's loop is its run; a script's is
// one iterate(), and the script goes on.
type LoginError struct {
	Said string             // what the CLI said, if it said anything
	CLI  agentstream.Format // whose fix to give
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("the agent %s; no further iteration of this loop starts. %s", e.cannot(), agentstream.LoginFix(e.CLI))
}

// cannot is "cannot log in", with what the CLI said.
func (e *LoginError) cannot() string {
	if e.Said != "" {
		return "cannot log in (" + e.Said + ")"
	}
	return "cannot log in"
}

// loginError is the LoginError of it, with what its CLI said: its error,
// else the refusal it was retrying (claude retries a 401 ten times, over
// three minutes; rooda stops it at the first).
func loginError(it *Iteration) error {
	d := it.Decoded
	if d == nil {
		return &LoginError{}
	}
	said := d.Err
	if r := d.LastRetry; said == "" && r.Cause == agentstream.CauseAuth {
		said = r.Error // codex: "unexpected status 401 Unauthorized: …"
		if r.Status != 0 {
			said = fmt.Sprintf("HTTP %d %s", r.Status, r.Error)
		}
		if d.Retries > 1 {
			said += fmt.Sprintf(", retried %d times", d.Retries)
		}
	}
	return &LoginError{Said: said, CLI: d.Format}
}

// takeOut takes the agent of an iteration that cannot log in or cannot
// start out of a loop's rotation (Config.TakeOut), saying so once, and reports
// whether the loop goes on with the others. An agent alone, or the last
// one in, ends the loop as before: aborted for a login, a failure
// counted for a start.
func (r *runner) takeOut(it *Iteration) bool {
	if r.cfg.TakeOut == nil || it.Cause != CauseAuth && it.Cause != CauseNoStart {
		return false
	}
	left := r.cfg.TakeOut(it.Agent, it.Number)
	if len(left) == 0 {
		return false
	}
	why, fix := "cannot start", ""
	if it.Cause == CauseAuth {
		login := loginError(it).(*LoginError)
		why, fix = login.cannot(), " "+agentstream.LoginFix(login.CLI)
	}
	r.logger().Event(logging.Warn, "agent_taken_out", []any{"iteration", it.Number, "agent", agentName(it), "cause", string(it.Cause)},
		"Iteration %s: %s %s: taken out of the rotation for the rest of the loop; the loop goes on with %s.%s", r.label(it.Number), agentName(it), why, strings.Join(left, ", "), fix)
	return true
}
