package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"rooda/host/config"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/internal/golden"
)

// TestDigestLayout: the facts of an iteration, and of its checks, as the
// next prompt states them.
func TestDigestLayout(t *testing.T) {
	t.Chdir(t.TempDir()) // not a git repository
	checks := []config.Check{{Name: "tests", Run: "echo FAIL: TestLogin; exit 1"}, {Name: "vet", Run: "true && true"}, {Name: "both", Run: "true && false"}}
	d := newDigest(context.Background(), checks, nil)
	d.IterationStarted(loop.Request{Iteration: 1})
	d.IterationFinished(&loop.Iteration{
		Number:   1,
		Outcome:  loop.OutcomeFailure,
		Cause:    loop.CauseSignalFailure,
		Signals:  loop.Signals{Failure: true},
		Result:   process.Result{ExitCode: 139, Signal: "SIGSEGV"},
		Duration: 12300 * time.Millisecond,
	})
	var log strings.Builder
	golden.Check(t, "digest", d.text(logging.New(&log, logging.Info)))
	if !strings.Contains(log.String(), "] Check tests: failed, exit code 1 (echo FAIL: TestLogin; exit 1)\n") {
		t.Errorf("log:\n%s", log.String())
	}
}
