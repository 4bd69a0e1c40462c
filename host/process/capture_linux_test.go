package process

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestPausesOnlyWhereThePipeHoldsThePause: the capture of an agent's
// pipe pauses between short reads only in a pipe large enough that the
// agent does not wait meanwhile: rooda asks for such a pipe, and one it
// could not enlarge (a user's pipe-user-pages-soft reached) gets none.
func TestPausesOnlyWhereThePipeHoldsThePause(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	switch capacity := pipeCapacity(r); {
	case capacity == 0:
		t.Fatal("the pipe's capacity unknown")
	case capacity < pausingPipe:
		t.Skipf("SKIPPED: this system gives a pipe of %d bytes, not 1 MiB (fs.pipe-max-size, pipe-user-pages-soft)", capacity)
	}
	if c := newCapture(r, NewRing(1), newWatchdog(0), nil); c.pause != gatherPause {
		t.Errorf("a pipe of 1 MiB: pause %v, want %v", c.pause, gatherPause)
	}
	if _, err := unix.FcntlInt(r.Fd(), unix.F_SETPIPE_SZ, 64<<10); err != nil {
		t.Fatal(err)
	}
	if c := newCapture(r, NewRing(1), newWatchdog(0), nil); c.pause != 0 {
		t.Errorf("a pipe of 64 KiB, which 8 KiB pieces at 2 GB/s fill in 32 µs: pause %v", c.pause)
	}
}
