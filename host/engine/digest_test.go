package engine

import (
	"context"
	"testing"
	"time"

	"rooda/host/agent"
	"rooda/host/config"
	"rooda/host/loop"
	"rooda/internal/golden"
)

// TestDigestLayout: the facts of an iteration, and of its checks, as the
// next prompt states them.
func TestDigestLayout(t *testing.T) {
	t.Chdir(t.TempDir()) // not a git repository
	checks := []config.Check{{Name: "tests", Run: "sh -c 'echo FAIL: TestLogin; exit 1'"}, {Name: "vet", Run: "true"}}
	d := newDigest(context.Background(), checks, nil)
	d.IterationStarted(loop.Request{Iteration: 1})
	d.IterationFinished(&loop.Iteration{
		Number:   1,
		Outcome:  loop.Failed,
		Signals:  loop.Signals{Failure: true},
		Result:   agent.Result{ExitCode: 139, Signal: "SIGSEGV"},
		Duration: 12300 * time.Millisecond,
	})
	golden.Check(t, "digest", d.text)
}
