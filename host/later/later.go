// Package later does a piece of work in a goroutine of its own while its
// caller goes on. Work asked for again while it is being done is done
// once more after, not once for each ask, and Wait returns once none is
// left. A run's record uses it for what an iteration's end need not wait
// for before the next agent starts: run.json's write and the journal's
// fsync (host/runlog, host/journal).
package later

import "sync"

// Work is one piece of work, done later.
type Work struct {
	do   func() error
	mu   sync.Mutex
	done *sync.Cond
	// busy is set while the work's goroutine runs; again asks it to do
	// the work once more; err is the first failure since it was taken.
	busy, again bool
	err         error
}

// New is the work do does.
func New(do func() error) *Work {
	w := &Work{do: do}
	w.done = sync.NewCond(&w.mu)
	return w
}

// Ask has the work done soon: now, in a goroutine of its own, or once
// more after the time it is being done.
func (w *Work) Ask() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy {
		w.again = true
		return
	}
	w.busy = true
	go w.run()
}

// run does the work until it was not asked for again meanwhile.
func (w *Work) run() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.busy {
		w.again = false
		w.mu.Unlock()
		err := w.do()
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		w.busy = w.again
	}
	w.done.Broadcast()
}

// Wait returns once no work asked for is left to do, with Err.
func (w *Work) Wait() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.busy {
		w.done.Wait()
	}
	return w.takeErr()
}

// Err is the first time the work failed since Err or Wait last said one:
// each failure is said once.
func (w *Work) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.takeErr()
}

func (w *Work) takeErr() error {
	err := w.err
	w.err = nil
	return err
}
