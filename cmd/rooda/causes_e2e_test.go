package main

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
