package process

import "syscall"

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
	defer kin.mu.Unlock()
	if kin.suspended {
		return
	}
	kin.suspended = true
	for _, p := range kin.started {
		p.pause()
	}
}

// Resume continues what Suspend stopped, and their clocks.
func Resume() {
	kin.mu.Lock()
	defer kin.mu.Unlock()
	if !kin.suspended {
		return
	}
	kin.suspended = false
	for _, p := range kin.started {
		p.resume()
	}
}

// pause stops the process's group with SIGSTOP, which it cannot catch or
// ignore, and what left the group: its cgroup frozen, which holds them
// all, else each found by its tag. Then the clocks.
func (p *started) pause() {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGSTOP)
	p.freezeLeft(true)
	p.idle.pause()
	p.limit.pause()
}

// resume undoes pause: the clocks go on where they stopped.
func (p *started) resume() {
	p.freezeLeft(false)
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT)
	p.idle.resume()
	p.limit.resume()
}

// freezeLeft stops (or continues) what left the process's group.
func (p *started) freezeLeft(stop bool) {
	if p.cgroup != nil && p.cgroup.freeze(stop) {
		return
	}
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	for _, e := range escapees(p.tag) {
		syscall.Kill(e.pid, sig)
	}
}
