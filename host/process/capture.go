package process

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// capture takes the agent's output from its pipe and keeps its newest
// bytes in a ring, as cat reads a pipe: a blocking read(2) on a thread of
// its own, each read taking what the pipe holds, up to the end of the
// ring's buffer (at most 128 KiB once it is full). Go's network poller would
// wait in epoll instead, and a pipe that was ever polled wakes its reader
// on every write, not only when it was empty: an agent printing in 8 KiB
// pieces then costs a wake-up, and a goroutine switch, a piece. A reader
// that keeps up releases each of the agent's pages as soon as it is
// written, and the pipe hands that page, still in the caches, to the
// agent's next write (docs/design.md, "Capture": why this beat splicing
// the pages away, and pausing between reads).
//
// Once the agent's group is gone the output ends at once (the pipe's
// last writer is gone) unless a process that escaped the group still
// holds the pipe: finish then waits at most a silence of drainTime and a
// grace period in all, and gives up. A blocking read cannot be
// cancelled: on Linux rooda ends it with a byte of its own, written into
// the pipe through /proc; elsewhere it is left to end when that process
// writes or exits.
type capture struct {
	f    *os.File // the read end, blocking: Go's poller never sees it
	idle *watchdog
	done chan struct{} // closed when the output is read to its end
	// reading is when the read under way began, as time since began, or
	// -1 between reads: how long rooda has waited for output.
	began   time.Time
	reading atomic.Int64

	// streaming guards tee: once finish gave up, nothing more is
	// streamed, for the stream's owner takes it back when Run returns.
	streaming sync.Mutex
	tee       io.Writer

	mu     sync.Mutex // guards ring, gaveUp and ended against finish
	ring   *Ring
	gaveUp bool
	ended  bool // the reader is done
	// pending is how much of the ring's kept bytes the read under way may
	// overwrite (the oldest, once the ring is full).
	pending int
}

// maxReadInPlace bounds a read into the oldest bytes of a full ring, as
// does an eighth of the ring: a read given up on may still land there,
// and what it may overwrite is no longer kept. cat reads 128 KiB at a
// time.
const maxReadInPlace = 128 << 10

func newCapture(f *os.File, ring *Ring, idle *watchdog, tee io.Writer) *capture {
	c := &capture{f: f, ring: ring, idle: idle, tee: tee, done: make(chan struct{}), began: time.Now()}
	c.reading.Store(-1)
	return c
}

// run reads until the end of the output, or until finish gave up.
func (c *capture) run() {
	defer close(c.done)
	defer c.f.Close()
	defer c.release()
	for {
		space, ok := c.next()
		if !ok {
			return
		}
		c.reading.Store(int64(time.Since(c.began)))
		n, err := c.f.Read(space)
		c.reading.Store(-1)
		if n > 0 && !c.took(space[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

// release notes that the reader is done: finish can no longer give up.
func (c *capture) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
}

// next is where the next read goes, unless finish gave up.
func (c *capture) next() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUp {
		return nil, false
	}
	space := c.ring.space()
	if c.ring.full() {
		space = space[:min(len(space), maxReadInPlace, max(c.ring.limit/8, 1))]
		c.pending = len(space)
	}
	return space, true
}

// took takes in the bytes just read, unless finish gave up meanwhile.
func (c *capture) took(b []byte) bool {
	c.idle.reset()
	c.stream(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUp {
		return false
	}
	c.ring.advance(len(b))
	c.pending = 0
	return true
}

// stream writes b to the stream, unless finish gave up. It holds only
// its own lock: a slow terminal must not keep finish from giving up.
func (c *capture) stream(b []byte) {
	c.streaming.Lock()
	defer c.streaming.Unlock()
	if c.tee != nil {
		if _, err := c.tee.Write(b); err != nil {
			c.tee = nil // a closed stdout ends the streaming, not the capture
		}
	}
}

// finish waits for the end of the output once the agent's group is gone:
// each silence at most drainTime, all of it at most limit, so that a
// process that escaped and holds the pipe cannot hold rooda, while output
// still streaming is read to its end. It returns what the ring kept.
func (c *capture) finish(limit time.Duration) (kept []byte, total, dropped int64) {
	if !c.drained(limit) {
		if kept, total, ok := c.giveUp(); ok {
			c.streaming.Lock()
			c.tee = nil
			c.streaming.Unlock()
			// Only now, nothing more streamed: the byte that ends the
			// read under way, which would otherwise hold the ring, and a
			// thread, until the process holding the pipe writes or exits.
			wakeRead(c.f)
			c.f.Close() // closed for good once that read returns
			return kept, total, total - int64(len(kept))
		}
	}
	<-c.done
	return c.ring.Bytes(), c.ring.Total(), c.ring.Dropped()
}

// giveUp gives up the read under way, unless the output ended meanwhile,
// and returns a copy of what is kept: that read may still write into the
// ring, in its oldest bytes (pending) alone.
func (c *capture) giveUp() (kept []byte, total int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil, 0, false
	}
	c.gaveUp = true
	return c.ring.copyBut(c.pending), c.ring.Total(), true
}

// waited is how long the read under way has waited for output; 0
// between reads.
func (c *capture) waited() time.Duration {
	began := c.reading.Load()
	if began < 0 {
		return 0
	}
	return time.Since(c.began) - time.Duration(began)
}

// drained waits for the end of the output, and reports whether it came
// before a silence of drainTime (counted from now at the earliest) or
// the end of limit.
func (c *capture) drained(limit time.Duration) bool {
	start := time.Now()
	for {
		quiet := min(c.waited(), time.Since(start))
		wait := min(drainTime-quiet, limit-time.Since(start))
		if wait <= 0 {
			// One last look: the end may have come with the last read.
			select {
			case <-c.done:
				return true
			default:
				return false
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-c.done:
			t.Stop()
			return true
		case <-t.C:
		}
	}
}
