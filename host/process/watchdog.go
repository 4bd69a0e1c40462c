package process

import (
	"io"
	"sync"
	"time"
)

// watchdog fires once its output has been silent for its limit: every
// byte read puts it off. It is how an agent that waits forever on a dead
// network, printing nothing, is told from one that works: by what it
// writes, as it writes it, not by polling files.
type watchdog struct {
	limit time.Duration
	timer *time.Timer
	once  sync.Once
	bark  chan struct{}
}

// newWatchdog starts a watchdog of limit; with a limit of 0 it never
// fires.
func newWatchdog(limit time.Duration) *watchdog {
	d := &watchdog{limit: limit, bark: make(chan struct{})}
	if limit > 0 {
		d.timer = time.AfterFunc(limit, func() { d.once.Do(func() { close(d.bark) }) })
	}
	return d
}

// fired is closed when the output has been silent for the limit; nil,
// which never is, when there is no limit.
func (d *watchdog) fired() <-chan struct{} {
	if d.timer == nil {
		return nil
	}
	return d.bark
}

// reset puts it off by a whole limit from now.
func (d *watchdog) reset() {
	if d.timer != nil {
		d.timer.Reset(d.limit)
	}
}

// stop ends its watch: the agent is gone.
func (d *watchdog) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

// watched is a reader whose every read of a byte resets the watchdog.
type watched struct {
	r   io.Reader
	dog *watchdog
}

func (w watched) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if n > 0 {
		w.dog.reset()
	}
	return n, err
}
