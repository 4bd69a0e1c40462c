package loop

import (
	"strings"
	"testing"

	"rooda/host/agentstream"
)

// TestLoginErrorSaysWhatTheCLISaid: its error, else the refusal it kept
// retrying, and the fix for that CLI.
func TestLoginErrorSaysWhatTheCLISaid(t *testing.T) {
	said := loginError(&Iteration{Decoded: &agentstream.Summary{Format: agentstream.Claude, Err: "Not logged in · Please run /login"}}).Error()
	retried := loginError(&Iteration{Decoded: &agentstream.Summary{Format: agentstream.Claude, Retries: 6,
		LastRetry: agentstream.Retry{Status: 401, Error: "authentication_failed"}}}).Error()
	for got, want := range map[string]string{
		said:    "the agent cannot log in (Not logged in · Please run /login); no further iteration starts. Log claude in",
		retried: "the agent cannot log in (HTTP 401 authentication_failed, retried 6 times); no further iteration starts.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
