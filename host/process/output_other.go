//go:build !linux

package process

import (
	"os"
	"sync"
	"time"
)

// outputReader reads the agent's output pipe through Go's poller, where
// rooda has no poll-based reader of its own (see output_linux.go). Once
// the agent's group is gone, each read waits at most drainTime, and all
// of them together at most a grace period.
type outputReader struct {
	f        *os.File
	mu       sync.Mutex
	draining bool
	until    time.Time
}

// newOutput makes the pipe the agent writes its output to: rooda's end,
// and the agent's.
func newOutput() (*outputReader, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return &outputReader{f: r}, w, nil
}

func (d *outputReader) Read(b []byte) (int, error) {
	d.mu.Lock()
	if d.draining {
		d.f.SetReadDeadline(earliest(time.Now().Add(drainTime), d.until))
	}
	d.mu.Unlock()
	return d.f.Read(b)
}

// drain starts the bounded reading of what is left, and wakes a read that
// is waiting with no deadline.
func (d *outputReader) drain(limit time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.draining, d.until = true, time.Now().Add(limit)
	d.f.SetReadDeadline(time.Now().Add(drainTime))
}

// Close closes rooda's end of the pipe, once nothing reads it.
func (d *outputReader) Close() error { return d.f.Close() }
