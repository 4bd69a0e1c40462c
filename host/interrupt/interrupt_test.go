package interrupt

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// guard bounds a wait that must end; it is not a measure of speed.
const guard = 10 * time.Second

// TestFirstCancelsSecondKills sends this test process real signals: the
// first ends the context with the signal as its cause, the second closes
// Kill.
func TestFirstCancelsSecondKills(t *testing.T) {
	ctx, w := Watch(context.Background())
	defer w.Stop()
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(guard):
		t.Fatal("the first signal did not end the context")
	}
	var sig Signal
	if !errors.As(context.Cause(ctx), &sig) || sig.Error() != "SIGTERM" {
		t.Errorf("cause %v", context.Cause(ctx))
	}
	select {
	case <-w.Kill:
		t.Fatal("Kill closed after one signal")
	default:
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case <-w.Kill:
	case <-time.After(guard):
		t.Fatal("the second signal did not close Kill")
	}
}

// TestEveryStopInterrupts: a hang-up (the terminal closed) and a quit
// (Ctrl+\) end the run as the others do, the signal named; a quit is not
// left to Go's runtime, which would dump the stacks and exit at once.
func TestEveryStopInterrupts(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGHUP, "SIGHUP"}, {syscall.SIGQUIT, "SIGQUIT"}} {
		ctx, w := Watch(context.Background())
		syscall.Kill(syscall.Getpid(), tc.sig)
		select {
		case <-ctx.Done():
		case <-time.After(guard):
			t.Fatalf("%s did not end the context", tc.name)
		}
		if got := context.Cause(ctx).Error(); got != tc.name {
			t.Errorf("cause %q, want %q", got, tc.name)
		}
		w.Stop()
	}
}

// TestNextEndsAtTheNextSignal: a context Next makes after the first
// signal ends at the next one, with it as its cause; one made before a
// signal, and cancelled, is left alone.
func TestNextEndsAtTheNextSignal(t *testing.T) {
	ctx, w := Watch(context.Background())
	defer w.Stop()
	_, cancelled := w.Next(context.Background())
	cancelled()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-ctx.Done()
	next, cancel := w.Next(context.Background())
	defer cancel()
	select {
	case <-next.Done():
		t.Fatal("Next's context ended before another signal")
	default:
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case <-next.Done():
	case <-time.After(guard):
		t.Fatal("the next signal did not end Next's context")
	}
	if got := context.Cause(next).Error(); got != "SIGTERM" {
		t.Errorf("cause %q", got)
	}
	if err := Stopped(next); err.Error() != "interrupted by SIGTERM" {
		t.Errorf("Stopped: %v", err)
	}
}
