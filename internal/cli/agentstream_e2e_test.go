package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// transcript is one of host/agentstream's recorded outputs of a CLI.
func transcript(t *testing.T, format, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "host", "agentstream", "testdata", format, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runAlias runs rooda with the fake agent behind an alias whose output is
// format, as the built-in aliases of the real CLIs are.
func (w *workspace) runAlias(format string, args ...string) outcome {
	w.t.Helper()
	return w.wait(w.startAlias(format, args...))
}

// startAlias starts what runAlias runs.
func (w *workspace) startAlias(format string, args ...string) started {
	w.t.Helper()
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: "+format+"}\nloop:\n  ai_cmd_alias: fake\n"+w.extraConfig)
	cmd := exec.Command(binary(w.t), append([]string{"run"}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	return w.start(cmd)
}

// metaJSON is the meta.json of the run's iteration n, as a map.
func (w *workspace) metaJSON(n int) map[string]any {
	w.t.Helper()
	found, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "000"+string(rune('0'+n)), "meta.json"))
	if len(found) != 1 {
		w.t.Fatalf("meta.json of iteration %d: %v", n, found)
	}
	data := readText(w.t, found[0])
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		w.t.Fatal(err)
	}
	return m
}

// TestDecodedOutput: with a claude stream-json alias, a SUCCESS the
// agent wrote escaped in JSON and followed by more text ends the loop;
// -v shows the transcript, not the JSON; tokens and the CLI's cost are in
// the progress line, meta.json, run.json, and the record keeps the
// transcript beside the raw output.
func TestDecodedOutput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "tool_call_success")})
	o := w.runAlias("claude-stream-json", "build", "-n", "3", "-v")
	o.expect(t, 0, "Iteration 1/3 completed in ", "(success) · 178 tokens, $0.00029\n", "Spent: 178 tokens, $0.00029 (input 143, output 35, cache read 0, cache write 0)")
	if strings.Contains(o.stdout, `"type":"assistant"`) || !strings.Contains(o.stdout, "→ Bash: echo hi > f.txt") {
		t.Errorf("-v shows:\n%s", o.stdout)
	}
	m := w.metaJSON(1)
	spent, _ := m["spent"].(map[string]any)
	if m["format"] != "claude-stream-json" || m["model"] != "claude-opus-4-8" || spent["cost_usd"] != 0.000285 || spent["input_tokens"] != 143.0 {
		t.Errorf("meta.json: %v", m)
	}
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	dir := filepath.Dir(runs[0])
	kept := readText(t, filepath.Join(dir, "iterations", "0001", "transcript.txt"))
	raw := readText(t, filepath.Join(dir, "iterations", "0001", "output.txt"))
	if !strings.Contains(kept, "→ Bash: echo hi > f.txt") || !strings.Contains(raw, `"total_cost_usd":0.000285`) {
		t.Errorf("transcript.txt:\n%s\noutput.txt:\n%s", kept, raw)
	}
	run := readText(t, runs[0])
	if !strings.Contains(run, `"cost_usd": 0.000285`) {
		t.Errorf("run.json: %s", run)
	}
}

// TestEchoedPromptInAToolResult: a tool result that holds the prompt's
// signal lines is not the agent saying them. They are unescaped here, as
// JSON allows: the raw line holds both signals, which only decoding
// keeps from counting.
func TestEchoedPromptInAToolResult(t *testing.T) {
	t.Parallel()
	echo := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(transcript(t, "claude-stream-json", "prompt_echo_in_tool_result"))
	w := newWorkspace(t, step{"output": echo})
	w.runAlias("claude-stream-json", "build", "-n", "1").expect(t, 2, "Iteration 1/1 completed in ", "(continue)")
}

// TestLoginFailureEndsTheRun: a CLI that is not logged in ends the run in
// its first iteration, whatever the failure threshold, with the CLI's
// words and the fix.
func TestLoginFailureEndsTheRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "not_logged_in"), "exit": 1})
	o := w.runAlias("claude-stream-json", "build", "-n", "5", "--failure-threshold", "3")
	o.expect(t, 1, "[auth]", "> Not logged in · Please run /login", "ERROR: Iteration 1/5: the agent cannot log in (Not logged in · Please run /login); no further iteration of this loop starts. Log claude in (claude, then /login) or set ANTHROPIC_API_KEY", "(1 iteration completed")
	if m := w.metaJSON(1); m["cause"] != "auth" {
		t.Errorf("meta.json: %v", m)
	}
}

// TestUsageLimitIsWaitedFor: a usage limit that resets in a couple of
// seconds is waited for and the same iteration runs again: the loop
// succeeds in iteration 2 with no failure counted, the log says what it
// waited for, and what the try that hit the limit cost counts.
func TestUsageLimitIsWaitedFor(t *testing.T) {
	t.Parallel()
	limit := strings.NewReplacer("1795446000", "{{unix+2}}", `"total_cost_usd":0,`, `"total_cost_usd":0.001,`).Replace(transcript(t, "claude-stream-json", "usage_limit_reset"))
	w := newWorkspace(t,
		step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")},
		step{"output": limit, "exit": 1, "again": step{"output": transcript(t, "claude-stream-json", "tool_call_success")}})
	o := w.runAlias("claude-stream-json", "build", "-n", "5", "--failure-threshold", "1")
	o.expect(t, 0, "WARN: Iteration 2/5: fake: usage limit; waiting until ", ", then running iteration 2/5 again", "Iteration 2/5 completed in ", "(success)")
	if strings.Contains(o.stderr, "failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	limitCost, successCost := 0.001, 0.000285
	if spent, _ := w.metaJSON(2)["spent"].(map[string]any); spent["cost_usd"] != limitCost+successCost {
		t.Errorf("iteration 2 spent %v, want the limit's $0.001 and the success's $0.000285", spent)
	}
}

// TestUsageLimitWaitInterrupted: Ctrl+C during a limit's wait (ten
// minutes) ends the run at once, exit 130.
func TestUsageLimitWaitInterrupted(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+600}}")
	w := newWorkspace(t, step{"output": limit, "exit": 1})
	s := w.startAlias("claude-stream-json", "build", "-n", "1")
	w.waitForLog(s, ", then running iteration 1/1 again", "rooda never waited for the limit")
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Interrupted")
	if o.took > 30*time.Second {
		t.Errorf("took %s: the wait went on", o.took)
	}
}

// TestUsageLimitBeyondTheWait: a limit that resets after max_limit_wait
// is a failure, cause rate_limited, and says so.
func TestUsageLimitBeyondTheWait(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+7200}}")
	w := newWorkspace(t, step{"output": limit, "exit": 1})
	o := w.runAlias("claude-stream-json", "build", "-n", "1", "--max-limit-wait", "1h", "--failure-threshold", "1")
	o.expect(t, 1, "beyond max_limit_wait (1h)", "[rate_limited]", "> You've hit your session limit · resets 3pm (UTC)")
}

// TestUsageLimitAlreadyReset: a limit whose reset is already past is
// tried again at once, and, still there, is a failure, cause
// rate_limited: never a run that tries again without end.
func TestUsageLimitAlreadyReset(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "1000000000")
	w := newWorkspace(t, step{"output": limit, "exit": 1})
	o := w.runAlias("claude-stream-json", "build", "-n", "1", "--failure-threshold", "1")
	o.expect(t, 1, ", then running iteration 1/1 again", "fake: usage limit; it was to reset at ", ", and is still there", "[rate_limited]")
}

// TestCostBudget: max_cost_usd ends the run, status budget, exit 2, once
// what the agents spent reaches it.
func TestCostBudget(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")})
	o := w.runAlias("claude-stream-json", "build", "-n", "10", "--max-cost-usd", "0.00025")
	o.expect(t, 2, "Budget reached: the run's agents spent $0.0003, reaching max_cost_usd $0.00025 (3 iterations completed")
}

// TestModelPricesPriceTokens: a CLI that reports no cost (codex) is priced
// by model_prices, by the alias's name when the CLI names no model.
func TestModelPricesPriceTokens(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "codex-json", "tool_call_success")})
	w.extraConfig = "model_prices:\n  fake: {input: 1, output: 10, cache_read: 0.1}\n"
	o := w.runAlias("codex-json", "build", "-n", "1")
	// 1000 input at $1/M, 345 output at $10/M, 200 cached at $0.1/M.
	o.expect(t, 0, "(success) · 1,545 tokens, $0.0045")
}
