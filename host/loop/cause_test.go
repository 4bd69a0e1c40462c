package loop

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"rooda/host/agentstream"
)

// TestEveryFailureHasACause: each way an agent fails gives its cause, in
// the iteration, at the end of the failure's warning and in the
// iteration_finished event; an iteration that did not fail has none.
func TestEveryFailureHasACause(t *testing.T) {
	for _, tc := range []struct {
		name string
		step step
		want Cause
	}{
		{"exit_code", step{out: "oops", exit: 3}, CauseAgentFailed},
		{"failure_signal", step{out: failure, exit: 1}, CauseSignalFailure},
		{"timeout", step{out: failure, timeout: true, exit: 143, killedBy: "SIGTERM"}, CauseTimeout},
		{"no_start", step{noStart: true}, CauseNoStart},
		{"crash", step{exit: 139, killedBy: "SIGSEGV"}, CauseCrash},
		{"continue", step{}, ""},
		{"success_despite_exit", step{out: success, exit: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, log, _ := run(t, 1, 3, tc.step)
			if res.Last.Cause != tc.want {
				t.Errorf("cause %q, want %q\n%s", res.Last.Cause, tc.want, log)
			}
			warned := strings.Contains(log, "] WARN: Iteration 1/1: ") && strings.Contains(log, " ["+string(tc.want)+"]\n")
			if warned != (tc.want != "") {
				t.Errorf("the warning and its cause %q:\n%s", tc.want, log)
			}
		})
	}
}

// TestProcedureCause: on_iteration sees the agent's cause; the failure it
// declares is the procedure's; an iteration it turns into anything else
// has no cause.
func TestProcedureCause(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{exit: 2}}}
	cfg := s.config(1, 3, &log)
	var seen Cause
	cfg.Verdict = func(it *Iteration) (Decision, error) {
		seen = it.Cause
		return Decision{Outcome: OutcomeContinue}, nil
	}
	if res := Run(context.Background(), cfg); seen != CauseAgentFailed || res.Last.Cause != "" {
		t.Errorf("on_iteration saw %q; the iteration's cause is %q\n%s", seen, res.Last.Cause, log.String())
	}
	s.steps = []step{{}}
	cfg.Verdict = func(it *Iteration) (Decision, error) { return Decision{Outcome: OutcomeFailure}, nil }
	res := Run(context.Background(), cfg)
	if res.Last.Cause != CauseProcedure || !strings.Contains(log.String(), "declared failure; the agent's outcome was continue [procedure]\n") {
		t.Errorf("cause %q\n%s", res.Last.Cause, log.String())
	}
}

// TestCauseInTheEvent: the JSON event of a finished iteration carries its
// cause.
func TestCauseInTheEvent(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{exit: 1}}}
	cfg := s.config(1, 3, &log)
	cfg.Log.AsJSON()
	Run(context.Background(), cfg)
	if !strings.Contains(log.String(), `"event":"iteration_finished","message":"Iteration 1/1 completed in 0s (failure, consecutive: 1/1)","iteration":1,"outcome":"failure","cause":"agent_failed"`) {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestCauseTableInTheDocs: the table of docs/running.md of causes names every
// cause, in order, and no other.
func TestCauseTableInTheDocs(t *testing.T) {
	readme, err := os.ReadFile("../../docs/running.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(readme), "<!-- causes table:")
	if !found {
		t.Fatal("docs/running.md has no causes table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		got = append(got, m[1])
	}
	want := fmt.Sprint(Causes)
	if fmt.Sprint(got) != want {
		t.Errorf("the table of docs/running.md lists %v, want %s", got, want)
	}
}

// TestLoginErrorSays: the login failure quotes the CLI when it said
// something, and never stands in words of its own for it.
func TestLoginErrorSays(t *testing.T) {
	said := (&LoginError{Said: "Not logged in", CLI: "claude-stream-json"}).Error()
	silent := (&LoginError{CLI: "claude-stream-json"}).Error()
	if !strings.HasPrefix(said, "the agent cannot log in (Not logged in); no further iteration of this loop starts. Log claude in") ||
		!strings.HasPrefix(silent, "the agent cannot log in; no further iteration of this loop starts. Log claude in") {
		t.Errorf("%q\n%q", said, silent)
	}
}

// TestHungModelIsNoOutage: an agent stopped at model_timeout while its
// CLI retried requests that got no response has a hung model (the watch
// timed its tries: an outage it stops with cause network): the iteration
// fails model_timeout, which counts, where the CLI's words alone (a
// network retry) would have it waited out. A login refused is still the
// CLI's to say, and a network retry without such a stop still an outage.
func TestHungModelIsNoOutage(t *testing.T) {
	retrying := &agentstream.Summary{Format: agentstream.Claude, LastRetry: agentstream.Retry{Attempt: 2, Max: 10, Cause: agentstream.CauseNetwork}, Retries: 2}
	refused := &agentstream.Summary{Format: agentstream.Claude, LastRetry: agentstream.Retry{Status: 401, Cause: agentstream.CauseAuth}, Retries: 1}
	modelTimeout := &Stop{Cause: CauseModelTimeout, Why: "waiting on the model"}
	for _, tc := range []struct {
		name    string
		decoded *agentstream.Summary
		stop    *Stop
		want    Cause
	}{
		{"held_tries", retrying, modelTimeout, CauseModelTimeout},
		{"outage", retrying, &Stop{Cause: CauseNetwork}, CauseNetwork},
		{"cli_gave_up", retrying, nil, CauseNetwork},
		{"login_refused", refused, modelTimeout, CauseAuth},
	} {
		it := &Iteration{Outcome: OutcomeFailure, Decoded: tc.decoded, Stop: tc.stop}
		if got := agentCause(it); got != tc.want {
			t.Errorf("%s: cause %q, want %q", tc.name, got, tc.want)
		}
	}
}
