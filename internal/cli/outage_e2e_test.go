package cli

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// codexServerDown is what codex prints when its server cannot be
// reached: it reconnects, then gives up.
const codexServerDown = `{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a54"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses))"}
{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses))"}
{"type":"error","message":"stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)"}
{"type":"turn.failed","error":{"message":"stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)"}}
`

// TestOutageIsWaitedOut: an agent whose server cannot be reached runs the
// same iteration again after a wait, which the log, the notifier and the
// record say; the iteration then succeeds with no failure counted, even
// at a failure threshold of 1.
func TestOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": codexServerDown, "exit": 1, "again": step{"output": transcript(t, "codex-json", "tool_call_success")}})
	w.extraConfig = w.notifier("")
	o := w.runAlias("codex-json", "build", "-n", "3", "--failure-threshold", "1", "--max-limit-wait", "2s")
	o.expect(t, 0, "WARN: Iteration 1/3: fake: network; waiting 2s before running iteration 1/3 again (total waited 0s, up to 2s)\n",
		"Iteration 1/3 completed in ", "(success)")
	if strings.Contains(o.stderr, "failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	if m := w.metaJSON(1); m["waited"] != 2.0 || m["outcome"] != "success" {
		t.Errorf("meta.json: %v", m)
	}
	notices := w.notices()
	if len(notices) != 2 || notices[0]["event"] != "limit_wait" || notices[0]["cause"] != "network" || notices[0]["backoff"] != true ||
		notices[0]["wait_seconds"] != 2.0 || notices[0]["status"] != "waiting" {
		t.Errorf("notices: %v", notices)
	}
}

// TestOutageBeyondTheWait: once max_limit_wait is spent, the iteration is
// a failure, cause network, and the log says rooda gave up.
func TestOutageBeyondTheWait(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": codexServerDown, "exit": 1})
	o := w.runAlias("codex-json", "build", "-n", "3", "--failure-threshold", "1", "--max-limit-wait", "1s")
	o.expect(t, 1, "fake: network; waiting 1s before running iteration 1/3 again", "fake: network; waited 1s, all of max_limit_wait: giving up",
		"[network]", "(failure, consecutive: 1/1)")
	if m := w.metaJSON(1); m["cause"] != "network" || m["waited"] != 1.0 {
		t.Errorf("meta.json: %v", m)
	}
}

// TestOutageWaitInterrupted: Ctrl+C during an outage's wait (30 s) ends
// the run at once, exit 130.
func TestOutageWaitInterrupted(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": codexServerDown, "exit": 1})
	s := w.startAlias("codex-json", "build", "-n", "1")
	w.waitForLog(s, "fake: network; waiting 30s before running iteration 1/1 again (total waited 0s, up to 6h)", "rooda never waited for the network")
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Interrupted")
	if o.took > 25*time.Second {
		t.Errorf("took %s: the wait went on", o.took)
	}
}

// TestSpinningAgentBacksOff: an unlimited loop whose agent exits at once
// without output waits before each iteration from the fourth on, 1 s
// then doubling, and says so; Ctrl+C during a wait ends it at once. The
// loop is stopped during its third wait (4 s), before a sixth iteration
// could start.
func TestSpinningAgentBacksOff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	s := w.start(w.command("build", "--unlimited"))
	w.waitForLog(s, "without output, 5 iterations in a row; waiting 4s before the next", "the loop never backed off")
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Iteration 3: the agent ended at once without output, 3 iterations in a row; waiting 1s before the next",
		"Iteration 4: the agent ended at once without output, 4 iterations in a row; waiting 2s before the next", "Interrupted")
	if w.ran(6) {
		t.Error("a sixth iteration started")
	}
}

// TestLimitWithoutResetIsWaitedOut: a 429 that claude's retries did not
// get past, with no reset time, is waited out like an outage and the
// same iteration runs again: no failure is counted.
func TestLimitWithoutResetIsWaitedOut(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "retry_then_rate_limited"), "exit": 1,
		"again": step{"output": transcript(t, "claude-stream-json", "tool_call_success")}})
	o := w.runAlias("claude-stream-json", "build", "-n", "2", "--failure-threshold", "1", "--max-limit-wait", "1s")
	o.expect(t, 0, "WARN: Iteration 1/2: fake: rate limited, no reset time given; waiting 1s before running iteration 1/2 again (total waited 0s, up to 1s)\n",
		"(success)")
	if strings.Contains(o.stderr, "failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
}
