package process

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// splicer is what a capture needs to splice the output into a pipeStore:
// the store, and an eventfd that wakes the wait for output when finish
// gives up.
type splicer struct {
	store *pipeStore
	wake  int
}

// newSplicer returns a splicer keeping limit bytes, or nil where the
// output is better read (see newPipeStore).
func newSplicer(limit int) *splicer {
	store := newPipeStore(limit)
	if store == nil {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		store.close()
		return nil
	}
	return &splicer{store: store, wake: wake}
}

// spliceAll moves the output into the store until its end, or until
// finish gives up (false, for both). When the store can take no more, what it
// kept goes into the ring, and the reads go on from there (true).
func (c *capture) spliceAll() bool {
	fd := int(c.f.Fd())
	waitedLong := true
	for {
		c.mu.Lock()
		if c.gaveUp {
			c.mu.Unlock()
			return false
		}
		n, err := c.splice.store.take(fd)
		if errors.Is(err, errStoreRefused) {
			c.splice.store.into(c.ring)
			c.splice.store = nil
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		switch {
		case n > 0:
			c.idle.reset()
			if c.pause > 0 && n < gather && !waitedLong {
				pause(c.pause)
			}
			waitedLong = false
		case err == unix.EAGAIN:
			waitedLong = c.await(fd)
		default:
			return false // the end, or a pipe that failed: what was taken is kept
		}
	}
}

// await waits for output on fd, or for finish to give up, and reports
// whether it waited long enough that what comes next is news, not a
// flood's next piece.
func (c *capture) await(fd int) (long bool) {
	began := time.Since(c.began)
	c.reading.Store(int64(began))
	defer c.reading.Store(-1)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(c.splice.wake), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			break
		}
	}
	return time.Since(c.began)-began >= streamingFast
}

// wakeAwait ends the wait for output: finish gave up.
func (s *splicer) wakeAwait() {
	unix.Write(s.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
}

// closeWake closes the eventfd once the capture is done: finish reads the
// store out.
func (s *splicer) closeWake() { unix.Close(s.wake) }
