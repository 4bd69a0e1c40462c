package process

import (
	"sync"
	"time"
)

// deadline passes once a process has run for its limit: the time it
// spent stopped with rooda (Ctrl+Z, Suspend) does not count, so that a
// run stopped for an hour does not find its agent timed out at fg.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer // nil without a limit
	end    time.Time   // when it passes, while running
	left   time.Duration
	paused bool
	done   chan struct{}
}

// newDeadline starts a deadline of limit; with a limit of 0 it never
// passes.
func newDeadline(limit time.Duration) *deadline {
	d := &deadline{done: make(chan struct{})}
	if limit > 0 {
		d.end = time.Now().Add(limit)
		d.timer = time.AfterFunc(limit, func() { close(d.done) })
	}
	return d
}

// passed is closed once the limit is reached; nil, which never is, when
// there is no limit.
func (d *deadline) passed() <-chan struct{} {
	if d.timer == nil {
		return nil
	}
	return d.done
}

// pause stops the clock, keeping what is left of the limit. A deadline
// already passed stays passed.
func (d *deadline) pause() {
	if d.timer == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.paused && d.timer.Stop() {
		d.paused, d.left = true, time.Until(d.end)
	}
}

// resume starts the clock again with what was left of the limit.
func (d *deadline) resume() {
	if d.timer == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused {
		d.paused, d.end = false, time.Now().Add(d.left)
		d.timer.Reset(d.left)
	}
}

// stop ends it for good: the process is gone. A later resume does not
// start it again.
func (d *deadline) stop() {
	if d.timer == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.timer.Stop()
	d.paused = false
}
