package process

import (
	"sync"
	"sync/atomic"
	"time"
)

// watchdog fires once its output has been silent for its limit: every
// byte read puts it off. It is how an agent that waits forever on a dead
// network, printing nothing, is told from one that works: by what it
// writes, as it writes it, not by polling files.
//
// A read only notes when it happened: resetting a timer on each of them
// (one per 8 KiB an agent prints) costs more than the read. The timer goes
// off a limit after the last read it knows of, sees the later reads, and
// waits for what is left of the limit since the last of them: it fires
// exactly a limit after the output went silent, as a timer reset by every
// read would, and is looked at about once a limit.
type watchdog struct {
	limit time.Duration
	began time.Time
	last  atomic.Int64 // when the output was last read, as time since began
	mu    sync.Mutex   // guards timer and stopped
	timer *time.Timer
	// stopped keeps a look that races stop from setting the timer again.
	stopped bool
	once    sync.Once
	bark    chan struct{}

	// paused keeps it from setting the timer while the agent is stopped
	// with rooda (pause); pausedAt is when, as time since began.
	paused   bool
	pausedAt time.Duration
}

// newWatchdog starts a watchdog of limit; with a limit of 0 it never
// fires.
func newWatchdog(limit time.Duration) *watchdog {
	d := &watchdog{limit: limit, began: time.Now(), bark: make(chan struct{})}
	if limit > 0 {
		d.mu.Lock()
		d.timer = time.AfterFunc(limit, d.look)
		d.mu.Unlock()
	}
	return d
}

// look fires the watchdog if the output has been silent for the limit,
// and otherwise looks again when the limit since the last read is up.
func (d *watchdog) look() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused {
		return // resume looks again
	}
	silent := time.Since(d.began) - time.Duration(d.last.Load())
	if silent >= d.limit {
		d.once.Do(func() { close(d.bark) })
		return
	}
	if !d.stopped {
		d.timer.Reset(d.limit - silent)
	}
}

// fired is closed when the output has been silent for the limit; nil,
// which never is, when there is no limit.
func (d *watchdog) fired() <-chan struct{} {
	if d.limit <= 0 {
		return nil
	}
	return d.bark
}

// reset puts it off by a whole limit from now.
func (d *watchdog) reset() {
	if d.limit > 0 {
		d.last.Store(int64(time.Since(d.began)))
	}
}

// stop ends its watch: the agent is gone.
func (d *watchdog) stop() {
	if d.limit <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	d.timer.Stop()
}

// pause stops its clock while the agent is stopped with rooda (Ctrl+Z):
// time stopped is not silence.
func (d *watchdog) pause() {
	if d.limit <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.paused {
		d.paused, d.pausedAt = true, time.Since(d.began)
		d.timer.Stop()
	}
}

// resume starts its clock again: the output counts as silent for as long
// as it was when paused, and what was read while paused (what the agent
// wrote as it stopped) as read now.
func (d *watchdog) resume() {
	if d.limit <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.paused {
		return
	}
	d.paused = false
	now := time.Since(d.began)
	d.last.Store(min(d.last.Load()+int64(now-d.pausedAt), int64(now)))
	if !d.stopped {
		d.timer.Reset(0) // look: it sets the timer for what is left
	}
}
