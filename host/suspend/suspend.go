// Package suspend makes Ctrl+Z stop a run whole, and fg continue it.
//
// The terminal sends SIGTSTP to rooda's process group alone: each process
// rooda starts is in a session of its own, with no terminal to stop it.
// Left to the default action, rooda would stop and its agent run on
// unwatched, its timeouts counted in wall time. Watch catches SIGTSTP
// instead: it stops what rooda started and the clocks of their timeouts
// (process.Suspend), clears the status line, then stops rooda as the
// default action would, so that the shell reports the job stopped; once
// continued (fg, bg, kill -CONT) it continues them and draws the line
// again.
package suspend

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"rooda/host/process"
)

// Watcher catches SIGTSTP for one run.
type Watcher struct {
	mu         sync.Mutex
	hide, show func()
	signals    chan os.Signal
	done       chan struct{}
}

// Watch catches SIGTSTP until Stop. A SIGTSTP rooda was started ignoring
// stays ignored: whoever started it asked that it never stop.
func Watch() *Watcher {
	w := &Watcher{hide: func() {}, show: func() {}, signals: make(chan os.Signal, 1), done: make(chan struct{})}
	if signal.Ignored(syscall.SIGTSTP) {
		return w
	}
	signal.Notify(w.signals, syscall.SIGTSTP)
	go w.loop()
	return w
}

// Around has hide called as the run stops, once its processes have, and
// show as it goes on, once they do: the status line's.
func (w *Watcher) Around(hide, show func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hide, w.show = hide, show
}

// Stop gives SIGTSTP back its default action.
func (w *Watcher) Stop() {
	signal.Stop(w.signals)
	select {
	case <-w.done:
	default:
		close(w.done)
	}
}

func (w *Watcher) loop() {
	for {
		select {
		case <-w.signals:
			w.suspend()
		case <-w.done:
			return
		}
	}
}

// suspend stops the run's processes, then rooda, and returns once rooda
// is continued, having continued them.
func (w *Watcher) suspend() {
	w.mu.Lock()
	hide, show := w.hide, w.show
	w.mu.Unlock()
	process.Suspend()
	hide()
	stopSelf()
	process.Resume()
	show()
}
