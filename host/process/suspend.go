package process

import (
	"syscall"
	"time"
)

// Ctrl+Z stops rooda alone: the terminal sends SIGTSTP to its foreground
// process group, and each process rooda starts is in a session of its
// own. rooda passes the stop on (Suspend) before it stops itself, and
// continues them (Resume) when it is continued, or an agent would run on
// unwatched while rooda is stopped, and its timeouts, counted in wall
// time, would find it overdue at fg.

// Suspend stops every process rooda started and what escaped their groups,
// and the clocks of their timeouts, until Resume. A process that starts
// in between is stopped as it starts.
func Suspend() {
	kin.mu.Lock()
	if kin.suspended {
		kin.mu.Unlock()
		return
	}
	kin.suspended = true
	noteSuspended(time.Now())
	list := kin.list()
	for _, p := range list {
		p.pause()
	}
	kin.mu.Unlock()
	// What left the groups is looked for without the lock, which the
	// search takes.
	for _, p := range list {
		p.holdLeft(true)
	}
}

// Resume continues what Suspend stopped, and their clocks.
func Resume() {
	kin.mu.Lock()
	if !kin.suspended {
		kin.mu.Unlock()
		return
	}
	kin.suspended = false
	noteResumed(time.Now())
	list := kin.list()
	kin.mu.Unlock()
	for _, p := range list {
		p.holdLeft(false)
		p.resume()
	}
}

// list is what rooda started and still waits for; f.mu is held.
func (f *family) list() []*started {
	list := make([]*started, 0, len(f.started))
	for _, p := range f.started {
		list = append(list, p)
	}
	return list
}

// pause stops the process's group with SIGSTOP, which it cannot catch or
// ignore, then the clocks of its timeouts.
func (p *started) pause() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGSTOP)
	p.idle.pause()
	p.limit.pause()
}

// resume continues the group, and the clocks where they stopped.
func (p *started) resume() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT)
	p.idle.resume()
	p.limit.resume()
}

// holdLeft stops (or continues) what left the process's group: each in
// its cgroup, which holds them all, else each found by its tag (a kernel
// that cannot freeze a cgroup has the tags stop them, and what they stop
// is in the cgroup to continue).
func (p *started) holdLeft(stop bool) {
	switch {
	case p.cgroup != nil && stop && p.cgroup.stopAll():
		return
	case p.cgroup != nil && !stop:
		p.cgroup.continueAll()
		return
	}
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	for _, pid := range tagged(p.tag) {
		syscall.Kill(pid, sig)
	}
}
