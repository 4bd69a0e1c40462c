package agentstream

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestOpenCodeSilentLimitBound: a limit opencode's log names is a retry
// only while its reset is nearer than opencodeSilentLimit (opencode waits
// it out and goes on); from there on it is also the limit's error with
// its reset, for the loop to wait for. The lines are the real one of
// rate_limit_silent_real.jsonl with its wait changed.
func TestOpenCodeSilentLimitBound(t *testing.T) {
	real, err := os.ReadFile("testdata/opencode-json/rate_limit_silent_real.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	logged := time.Date(2026, 11, 28, 17, 53, 21, 74e6, time.UTC)
	for wait, isLimit := range map[string]bool{"9m59s": false, "10m0s": true, "2h0m0s": true} {
		line := strings.ReplaceAll(strings.TrimSpace(string(real)), "2h0m0s", wait)
		_, sum := decode(OpenCode, []byte(line+"\n"), 0)
		d, _ := time.ParseDuration(wait)
		if sum.Retries != 1 || sum.LastRetry.Delay != d || sum.LastRetry.Cause != CauseRateLimited {
			t.Errorf("%s: retries %d, last %+v", wait, sum.Retries, sum.LastRetry)
		}
		if got := !sum.ResetAt.IsZero(); got != isLimit || (isLimit && (!sum.ResetAt.Equal(logged.Add(d)) || sum.Cause != CauseRateLimited)) {
			t.Errorf("%s: the limit's error: cause %q, reset %s; want a limit: %v", wait, sum.Cause, sum.ResetAt, isLimit)
		}
	}
}

// TestOpenCodeRetriesNumbered: opencode's log numbers no attempt; the
// decoder counts the limits since the last event of the JSON stream (the
// real lines of usage_limit_short_real.jsonl: a limit, then the answer).
func TestOpenCodeRetriesNumbered(t *testing.T) {
	real, err := os.ReadFile("testdata/opencode-json/usage_limit_short_real.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	limit, answer, _ := strings.Cut(string(real), "\n")
	for input, attempt := range map[string]int{limit + "\n" + limit: 2, limit + "\n" + answer + limit: 1} {
		_, sum := decode(OpenCode, []byte(input+"\n"), 0)
		if sum.LastRetry.Attempt != attempt {
			t.Errorf("last retry %+v, want attempt %d, of:\n%s", sum.LastRetry, attempt, input)
		}
	}
}
