package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"rooda/host"
	"rooda/host/interrupt"
	"rooda/host/loop"
)

// TestStatusOfAnError: the status a failed run records is the one whose
// exit code the process ends with, so run.json's status and exit code
// agree with what the shell saw.
func TestStatusOfAnError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want loop.Status
	}{
		{interrupt.Error{Cause: context.Canceled}, loop.Interrupted},
		{fmt.Errorf("in main.star: %w", interrupt.Error{Cause: context.Canceled}), loop.Interrupted},
		{&host.BudgetError{Budget: "--max-steps", Limit: "10", What: "Starlark steps"}, loop.OverBudget},
		{fmt.Errorf("stopped: %w", &host.BudgetError{Message: "over"}), loop.OverBudget},
		{errors.New("undefined: x"), loop.Errored},
	} {
		got := statusOf(tc.err)
		if got != tc.want {
			t.Errorf("statusOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
		want := 1
		var coder interface{ ExitCode() int }
		if errors.As(tc.err, &coder) {
			want = coder.ExitCode()
		}
		if got.ExitCode() != want {
			t.Errorf("%v: status %q exits %d, the error %d", tc.err, got, got.ExitCode(), want)
		}
	}
}

// TestExitOfAStatus: a run that ended well returns no error; any other
// ending returns its exit code, with no message of its own.
func TestExitOfAStatus(t *testing.T) {
	if err := exit(loop.Success.ExitCode()); err != nil {
		t.Errorf("success: %v", err)
	}
	if err := exit(loop.Finished.ExitCode()); err != nil {
		t.Errorf("a script without a loop: %v", err)
	}
	var status ExitStatus
	if err := exit(loop.MaxIters.ExitCode()); !errors.As(err, &status) || status.ExitCode() != 2 || err.Error() != "" {
		t.Errorf("max-iters: %v", err)
	}
}

type codedError struct{ code int }

func (e codedError) Error() string { return "coded" }
func (e codedError) ExitCode() int { return e.code }

// TestReportExitCode: an error that carries its exit code, however deep,
// ends the process with it; any other is 1.
func TestReportExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{errors.New("plain"), 1},
		{codedError{130}, 130},
		{errors.Join(errors.New("context"), codedError{2}), 2},
	} {
		if got := Report(io.Discard, "text", tc.err); got != tc.want {
			t.Errorf("Report(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
