package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeminiQuotaIsWaitedFor: gemini's quota error, as gemini 0.61.0
// prints it when its limit resets more than five minutes ahead (it ends
// "…or switch to another /auth method"), is a usage limit whose reset is
// the event's time plus the delay it names: rooda waits for it and runs
// the same iteration again, with no failure counted and no login fix.
func TestGeminiQuotaIsWaitedFor(t *testing.T) {
	t.Parallel()
	quota := regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(transcript(t, "gemini-stream-json", "quota_real"), `"timestamp":"{{now}}"`)
	quota = strings.ReplaceAll(quota, "590s", "3s")
	// gemini exits with the status, 429, modulo 256.
	w := newWorkspace(t, step{"output": quota, "exit": 173, "again": step{"output": transcript(t, "gemini-stream-json", "tool_call_success")}})
	o := w.runAlias("gemini-stream-json", "build", "-n", "3", "--failure-threshold", "1")
	o.expect(t, 0, "WARN: Iteration 1/3: fake: usage limit; waiting until ", ", then running iteration 1/3 again", "Iteration 1/3 completed in ", "(success)")
	if strings.Contains(o.stderr, "cannot log in") || strings.Contains(o.stderr, "failure") {
		t.Errorf("read as a login failure, or a failure counted:\n%s", o.stderr)
	}
}

// TestLastWordsSkipStackFrames: a failed gemini whose stderr ends in a
// stack trace (its server down) is quoted by the error above the trace,
// not by the trace's frames.
func TestLastWordsSkipStackFrames(t *testing.T) {
	t.Parallel()
	stderr := "Attempt 4 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request\n" +
		"    at file:///cli/bundle/chunk-JDPZ4CE3.js:267671:13\n" +
		"    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n" +
		"    at async Models.generateContent (file:///cli/bundle/chunk-JDPZ4CE3.js:268643:16)\n" +
		"    at async retryWithBackoff (file:///cli/bundle/chunk-JDPZ4CE3.js:308039:23)\n"
	w := newWorkspace(t, step{"output": `{"type":"init","timestamp":"2026-11-26T07:34:37.416Z","session_id":"s","model":"auto"}` + "\n", "stderr": stderr, "exit": 1})
	o := w.runAlias("gemini-stream-json", "build", "-n", "1", "--failure-threshold", "1", "--max-limit-wait", "none")
	o.expect(t, 1, "  > retry 4: exception TypeError: fetch failed sending request\n")
	if strings.Contains(o.stderr, "> at ") {
		t.Errorf("the last words quote a stack frame:\n%s", o.stderr)
	}
}
