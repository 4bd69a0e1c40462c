package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// A hangCase is how one CLI's hang is kept short: the model_timeout the
// case runs with, and the variables that shorten the CLI's own request
// timeout, where it has one, so that its retries come within the bound.
type hangCase struct {
	modelTimeout time.Duration
	env          []string
	// retries is set for the CLIs whose own request timeout comes within
	// modelTimeout: they try again, and the warning says the model hung.
	retries bool
}

// hangCases: claude gives a request up after API_TIMEOUT_MS (5 minutes
// without it); 61 s is a held try for rooda (tries of 60 s or more whose
// words do not tell are a hung model, host/engine's heldTry). gemini
// gives up after about 65 s, with no setting to shorten it. codex,
// opencode and copilot wait for the response's headers longer than any
// bound worth a test (codex's stream_idle_timeout_ms starts only once
// they come): they never retry a hang within it, and 30 s is the
// slowest start on a busy 2-core machine with room to spare.
var hangCases = map[string]hangCase{
	"claude":   {90 * time.Second, []string{"API_TIMEOUT_MS=61000"}, true},
	"gemini":   {90 * time.Second, nil, true},
	"codex":    {30 * time.Second, nil, false},
	"opencode": {30 * time.Second, nil, false},
	"copilot":  {30 * time.Second, nil, false},
}

// hangFailsAtTheModelTimeout: a server that takes the request and never
// answers is a hung model for every CLI, whatever its own retries: each
// iteration fails at model_timeout, cause model_timeout, none is waited
// out as an outage, and the run aborts at failure_threshold (2 here).
func hangFailsAtTheModelTimeout(t *testing.T, cli realcli.Installed) {
	c := hangCases[cli.Name]
	r := newRealRun(t, cli, modelserver.Hang())
	r.env = append(r.env, c.env...)
	o := r.buildWithin(2*c.modelTimeout+hangGuard, "-n", "3", "--failure-threshold", "2", "--model-timeout", c.modelTimeout.String())
	overdue := fmt.Sprintf("waiting on the model: no text, tool call or tokens for %s (model_timeout)", c.modelTimeout)
	o.expect(t, 1, "WARN: Iteration 1/3: "+overdue, "WARN: Iteration 2/3: "+overdue, "ERROR: Aborting after 2 consecutive failures (")
	if strings.Contains(o.stderr, " before running iteration ") {
		t.Errorf("a hang was waited out as an outage:\n%s", o.stderr)
	}
	if hung := strings.Contains(o.stderr, "a hung model, not an outage"); hung != c.retries {
		t.Errorf("the warning says the CLI retried a hung model: %v, want %v:\n%s", hung, c.retries, o.stderr)
	}
	for n := 1; n <= 2; n++ {
		m := r.meta(n)
		t.Logf("%s on a hang, iteration %d: %.1fs, cause %s", cli.Name, n, m.Duration, m.Cause)
		if m.TimedOut || m.Outcome != "failure" || m.Cause != "model_timeout" || m.Waited != 0 {
			t.Errorf("meta %d: %+v", n, m)
		}
	}
	t.Logf("%s on a hang: the run took %s; the warnings:\n%s", cli.Name, o.took.Round(100*time.Millisecond), warnings(o.logLines()))
}

// warnings are the log's warning lines.
func warnings(log string) string {
	var warned []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "WARN: ") {
			warned = append(warned, line)
		}
	}
	return strings.Join(warned, "\n")
}
