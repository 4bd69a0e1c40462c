package later

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestAskedWhileBusyIsDoneOnceMore: asks that come while the work is
// being done are done once more after it, not once each, and Wait
// returns once they are.
func TestAskedWhileBusyIsDoneOnceMore(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	w := New(func() error {
		started <- struct{}{}
		<-release
		runs.Add(1)
		return nil
	})
	w.Ask()
	<-started // the first is being done
	for range 5 {
		w.Ask()
	}
	close(release)
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("the work was done %d times, want 2: once, and once more for the asks meanwhile", n)
	}
}

// TestFailureSaidOnce: a failure is said by the next Wait (or Err), and
// not again.
func TestFailureSaidOnce(t *testing.T) {
	fail := errors.New("disk full")
	w := New(func() error { return fail })
	w.Ask()
	if err := w.Wait(); !errors.Is(err, fail) {
		t.Fatalf("Wait said %v, want %v", err, fail)
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("the failure was said twice: %v", err)
	}
	if err := w.Err(); err != nil {
		t.Fatalf("Err said it again: %v", err)
	}
}
