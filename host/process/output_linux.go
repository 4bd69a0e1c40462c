package process

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// outputReader reads the agent's output pipe the way cat does: a read
// that finds the pipe empty sleeps in the kernel (poll) on the reading
// goroutine's own thread, not in Go's network poller, whose wake-ups
// (epoll, then the scheduler handing the goroutine back) cost an agent
// that prints in small pieces a fifth to a half more time than the pipe
// itself (BenchmarkFlood/8KiB).
//
// Once the agent's group is gone, the only writers left are processes
// that escaped it (setsid); from then on each read waits at most
// drainTime, and all of them together at most a grace period, so such a
// process cannot hold rooda, while output still in the pipe is read to
// its end however slowly it is streamed.
type outputReader struct {
	fd   int // the pipe's read end, non-blocking
	wake int // an eventfd drain writes to, waking a read that waits with no deadline

	mu       sync.Mutex
	draining bool
	until    time.Time
}

// newOutput makes the pipe the agent writes its output to: rooda's end,
// and the agent's, which is an ordinary blocking pipe. The pipe is
// widened to 1 MiB (F_SETPIPE_SZ) where the kernel allows, so that an
// agent printing fast wakes rooda a sixteenth as often.
func newOutput() (*outputReader, *os.File, error) {
	var ends [2]int
	if err := unix.Pipe2(ends[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err == nil {
		err = unix.SetNonblock(ends[0], true)
	}
	if err != nil {
		unix.Close(ends[0])
		unix.Close(ends[1])
		if wake >= 0 {
			unix.Close(wake)
		}
		return nil, nil, err
	}
	unix.FcntlInt(uintptr(ends[0]), unix.F_SETPIPE_SZ, 1<<20)
	return &outputReader{fd: ends[0], wake: wake}, os.NewFile(uintptr(ends[1]), "|agent output"), nil
}

func (r *outputReader) Read(b []byte) (int, error) {
	var deadline time.Time // none until the draining gives one
	for {
		n, err := unix.Read(r.fd, b)
		switch {
		case err == nil && n == 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case err != unix.EAGAIN && err != unix.EINTR:
			return 0, &os.PathError{Op: "read", Path: "agent output", Err: err}
		case err == unix.EINTR:
			continue
		}
		if deadline.IsZero() {
			deadline = r.deadline()
		}
		wait := -1 // no deadline: until the pipe has something, or drain wakes it
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			wait = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		if r.poll(wait) {
			deadline = time.Time{} // woken by drain: the deadline is drain's now
		}
	}
}

// poll waits up to wait milliseconds (-1: no limit) for the pipe to have
// something or its writers to be gone, or for drain, and reports whether
// drain woke it.
func (r *outputReader) poll(wait int) (woken bool) {
	fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}, {Fd: int32(r.wake), Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, wait); err != nil {
		return false // EINTR: the caller reads again and waits again
	}
	if fds[1].Revents&unix.POLLIN != 0 {
		var count [8]byte
		unix.Read(r.wake, count[:])
		return true
	}
	return false
}

// deadline is when the read going on must end, once draining: zero
// before.
func (r *outputReader) deadline() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.draining {
		return time.Time{}
	}
	return earliest(time.Now().Add(drainTime), r.until)
}

// drain starts the bounded reading of what is left, and wakes a read that
// is waiting with no deadline.
func (r *outputReader) drain(limit time.Duration) {
	r.mu.Lock()
	r.draining, r.until = true, time.Now().Add(limit)
	r.mu.Unlock()
	one := [8]byte{1} // an eventfd adds this 8-byte count; any count but 0 wakes poll
	unix.Write(r.wake, one[:])
}

// Close closes rooda's end of the pipe, once nothing reads it.
func (r *outputReader) Close() error {
	unix.Close(r.wake)
	return unix.Close(r.fd)
}
