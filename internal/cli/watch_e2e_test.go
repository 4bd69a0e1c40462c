package cli

import (
	"strings"
	"testing"
	"time"
)

// A decoded agent is watched by its events, not its bytes: a refused
// login stops it at once, retries do not put off model_timeout, and a
// tool call waits for idle_timeout alone.

// claudeLines are lines of claude's stream-json, as its decoder reads
// them.
const (
	claudeInit       = `{"type":"system","subtype":"init","session_id":"s","tools":["Bash"],"model":"claude-opus-4-8"}` + "\n"
	claude401        = `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":542.8,"error_status":401,"error":"authentication_failed","session_id":"s"}` + "\n"
	claudeToolCall   = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 4"}}]},"session_id":"s"}` + "\n"
	claudeToolResult = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"slept"}]},"session_id":"s"}` + "\n"
	claudeText       = `{"type":"assistant","message":{"content":[{"type":"text","text":"Looking at it."}]},"session_id":"s"}` + "\n"
	claudeSuccess    = `{"type":"assistant","message":{"content":[{"type":"text","text":"Done. <promise>SUCCESS</promise>"}]},"session_id":"s"}` + "\n"
	codexReconnect   = `{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}`
)

// TestRefusedLoginStopsTheAgentAtOnce: claude's first retry of a 401
// ends the iteration as it is read, not after the ten retries claude
// would make (the fake agent would wait two minutes), and the run ends
// with exit 1 and the fix.
func TestRefusedLoginStopsTheAgentAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": claudeInit + claude401, "delay": "120s"})
	o := w.runAlias("claude-stream-json", "build", "-n", "3", "--failure-threshold", "3")
	o.expect(t, 1,
		"WARN: Iteration 1/3: its CLI said it cannot succeed (retry 1/10 in 500ms: 401 authentication_failed), so it was stopped at once; ",
		" [auth]\n",
		"ERROR: Iteration 1/3: the agent cannot log in (HTTP 401 authentication_failed); no further iteration of this loop starts. Log claude in",
		"ERROR: Aborting: the agent cannot log in (1 iteration completed")
	if m := w.meta(1); m.Cause != "auth" || m.TimedOut {
		t.Errorf("meta.json: %+v", m)
	}
}

// TestReconnectsDoNotPutOffTheModelWait: codex reconnecting every 200ms
// (every minute, for ever, when its server is down) is stopped at
// model_timeout; -v shows each reconnect, the repeats counted. (The
// outage it shows would then be waited out: max_limit_wait none makes it
// the failure this test looks at.)
func TestReconnectsDoNotPutOffTheModelWait(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"tick": "200ms", "tick_for": "120s", "tick_line": codexReconnect})
	o := w.runAlias("codex-json", "build", "-n", "2", "--failure-threshold", "1", "--model-timeout", "2s", "--max-limit-wait", "none", "-v")
	o.expect(t, 1,
		"WARN: Iteration 1/2: waiting on the model: no text, tool call or tokens for 2s (model_timeout), only ",
		" retries by its CLI (the last: retry: waiting for network (Connection failed: error sending request)); ",
		" [network]\n", "ERROR: Aborting after 1 consecutive failure (")
	if !strings.Contains(o.stdout, "retry: waiting for network (Connection failed: error sending request)\n") ||
		!strings.Contains(o.stdout, "retry: waiting for network (Connection failed: error sending request) (×3, ") {
		t.Errorf("-v shows:\n%s", o.stdout)
	}
}

// TestModelAndToolWaits: with model_timeout 1s, an agent whose tool runs
// 4s is not stopped (only idle_timeout applies to a tool), while one that
// waits 4s on its model is, cause model_timeout; with idle_timeout 1s the
// tool's wait is stopped, cause idle, the tool named.
func TestModelAndToolWaits(t *testing.T) {
	t.Parallel()
	slowTool := step{"output": claudeInit + claudeToolCall, "delay": "4s", "after": claudeToolResult + claudeSuccess}
	slowModel := step{"output": claudeInit + claudeText, "delay": "4s", "after": claudeSuccess}
	for _, tc := range []struct {
		name  string
		agent step
		args  []string
		code  int
		want  []string
	}{
		{"tool", slowTool, []string{"--model-timeout", "1s"}, 0, []string{"Success: the agent signaled SUCCESS in iteration 1/1"}},
		{"model", slowModel, []string{"--model-timeout", "1s"}, 1, []string{"WARN: Iteration 1/1: waiting on the model: no text, tool call or tokens for 1s (model_timeout); ", " [model_timeout]\n"}},
		{"tool limit", slowTool, []string{"--model-timeout", "1m", "--idle-timeout", "1s"}, 1, []string{"WARN: Iteration 1/1: waiting on a tool: Bash (sleep 4) had no result for 1s (idle_timeout); ", " [idle]\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tc.agent)
			o := w.runAlias("claude-stream-json", append([]string{"build", "-n", "1", "--failure-threshold", "1"}, tc.args...)...)
			o.expect(t, tc.code, tc.want...)
			if tc.code != 0 && o.took > 30*time.Second {
				t.Errorf("took %s", o.took)
			}
		})
	}
}
