package process

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// TestOutputReadToItsEnd: what the agent's end of the pipe is given is
// read whole, in the order written, and the read after its last writer
// closes is the end.
func TestOutputReadToItsEnd(t *testing.T) {
	r, w := output(t)
	go func() {
		for range 64 {
			w.Write(make([]byte, 8<<10))
		}
		w.Close()
	}()
	data, err := io.ReadAll(r)
	if err != nil || len(data) != 64*8<<10 {
		t.Errorf("read %d bytes, %v; want %d and the end", len(data), err, 64*8<<10)
	}
}

// TestDrainWakesAWaitingRead: a read waiting with no deadline for a
// writer that never writes (a process that escaped the agent's group
// and holds the pipe) is woken by drain, and the reading ends at its
// limit; what was written before is still read.
func TestDrainWakesAWaitingRead(t *testing.T) {
	r, w := output(t)
	defer w.Close() // the escaped writer, until the test ends
	w.Write([]byte("last words\n"))
	done := make(chan error, 1)
	var got []byte
	go func() {
		var err error
		got, err = io.ReadAll(r)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the reader now waits in poll
	r.drain(time.Second)
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) || string(got) != "last words\n" {
			t.Errorf("read %q, %v; want the last words, then the deadline", got, err)
		}
	case <-time.After(hangGuard):
		t.Fatal("drain did not wake the read")
	}
}

// output is a pipe as an agent's output is, closed when t ends.
func output(t *testing.T) (*outputReader, *os.File) {
	t.Helper()
	r, w, err := newOutput()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, w
}
