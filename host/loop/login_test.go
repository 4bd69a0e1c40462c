package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rooda/host/agentstream"
)

// TestLoginErrorSaysWhatTheCLISaid: its error, else the refusal it kept
// retrying, and the fix for that CLI.
func TestLoginErrorSaysWhatTheCLISaid(t *testing.T) {
	said := loginError(&Iteration{Decoded: &agentstream.Summary{Format: agentstream.Claude, Err: "Not logged in · Please run /login"}}).Error()
	retried := loginError(&Iteration{Decoded: &agentstream.Summary{Format: agentstream.Claude, Retries: 6,
		LastRetry: agentstream.Retry{Status: 401, Error: "authentication_failed", Cause: agentstream.CauseAuth}}}).Error()
	// codex names no status of its own, only in its words.
	reconnect := loginError(&Iteration{Decoded: &agentstream.Summary{Format: agentstream.Codex, Retries: 1,
		LastRetry: agentstream.Retry{Attempt: 1, Max: 5, Error: "unexpected status 401 Unauthorized: Incorrect API key provided", Cause: agentstream.CauseAuth}}}).Error()
	for got, want := range map[string]string{
		said:      "the agent cannot log in (Not logged in · Please run /login); no further iteration of this loop starts. Log claude in",
		retried:   "the agent cannot log in (HTTP 401 authentication_failed, retried 6 times); no further iteration of this loop starts.",
		reconnect: "the agent cannot log in (unexpected status 401 Unauthorized: Incorrect API key provided); no further iteration of this loop starts. Log codex in",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestLoginFailureEndsTheLoop: an iteration whose agent cannot log in
// aborts the loop at once, whatever failures the threshold still allows,
// with the login error; a failure of another cause does not.
func TestLoginFailureEndsTheLoop(t *testing.T) {
	for _, tc := range []struct {
		cause  agentstream.Cause
		status Status
		ran    int
	}{
		{agentstream.CauseAuth, Aborted, 1},
		{agentstream.CauseOther, Aborted, 5},
	} {
		var log strings.Builder
		s := &script{steps: []step{{out: "error", exit: 1}}}
		cfg := s.config(10, 5, &log)
		inner := cfg.Agent
		cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
			reply, err := inner(ctx, req)
			reply.Decoded = &agentstream.Summary{Format: agentstream.Claude, Err: "refused", Cause: tc.cause}
			return reply, err
		}
		res := Run(context.Background(), cfg)
		var login *LoginError
		if res.Status != tc.status || res.Iterations != tc.ran || errors.As(res.Err, &login) != (tc.cause == agentstream.CauseAuth) {
			t.Errorf("cause %s: %s after %d iterations (%v), want %s after %d; log:\n%s", tc.cause, res.Status, res.Iterations, res.Err, tc.status, tc.ran, log.String())
		}
	}
}

// TestRotationGoesOnPastALoginFailure: in a rotation, an agent that
// cannot log in is taken out (Config.TakeOut), the log says so once
// with the fix, and the loop goes on with the others; when none is left
// the loop aborts with the login error, as one agent's does.
func TestRotationGoesOnPastALoginFailure(t *testing.T) {
	for _, tc := range []struct {
		left   []string
		status Status
		ran    int
	}{
		{[]string{"codex", "gemini"}, MaxIters, 4},
		{nil, Aborted, 1},
	} {
		var log strings.Builder
		s := &script{steps: []step{{out: "error", exit: 1}, {out: "ok"}}}
		cfg := s.config(4, 5, &log)
		inner := cfg.Agent
		cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
			reply, err := inner(ctx, req)
			if req.Iteration == 1 {
				reply.Decoded = &agentstream.Summary{Format: agentstream.Claude, Err: "Invalid API key", Cause: agentstream.CauseAuth}
			}
			return reply, err
		}
		cfg.Turn = func(n int) (Turn, error) {
			return Turn{Agent: []string{"claude", "codex", "gemini", "codex"}[n-1]}, nil
		}
		var out []string
		cfg.TakeOut = func(agent string, n int) []string {
			out = append(out, agent)
			return tc.left
		}
		res := Run(context.Background(), cfg)
		if res.Status != tc.status || res.Iterations != tc.ran || len(out) != 1 || out[0] != "claude" {
			t.Errorf("left %v: %s after %d iterations, taken out %v; log:\n%s", tc.left, res.Status, res.Iterations, out, log.String())
		}
		said := strings.Count(log.String(), "claude cannot log in (Invalid API key): taken out of the rotation for the rest of the loop; the loop goes on with codex, gemini. Log claude in")
		if wentOn := tc.left != nil; wentOn != (said == 1) {
			t.Errorf("left %v: the log says it %d times:\n%s", tc.left, said, log.String())
		}
	}
}
