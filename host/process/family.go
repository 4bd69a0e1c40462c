package process

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"rooda/host/shown"
)

// rooda's family: the processes it started and those it adopted.
//
// As the subreaper of its agents (PR_SET_CHILD_SUBREAPER), rooda inherits
// every process an agent orphans — a "setsid sleep 300 &", a daemon's
// double fork — whatever session or group it moved to. Such a process
// escaped the agent's process group, so stopping the group does not stop
// it; it is found instead in the agent's cgroup (cgroup_linux.go) where
// rooda can make one, else through /proc, as a descendant of rooda that
// carries the agent's tag in its environment (TagVariable), and stopped
// after the group. Orphans that exit become rooda's zombies: the reaper
// collects every one that os/exec is not waiting for.

// TagVariable is set in each agent's environment to a value of its own,
// which the processes it starts inherit; it tells which of rooda's
// descendants came from which agent.
const TagVariable = "ROODA_PROCESS_TAG"

// family knows which of rooda's children os/exec is waiting for, so the
// reaper leaves them alone: reaping one would steal its exit status.
type family struct {
	mu      sync.Mutex
	started map[int]*started
	tags    int
	self    uint64 // rooda's start time, in its tags
	// suspended is set from Suspend to Resume: what starts then is
	// stopped as it starts.
	suspended bool
}

var kin = family{started: map[int]*started{}}

// startTracked starts p's command as a child os/exec will wait for. The
// lock keeps the reaper from seeing the new child before it is known.
func (f *family) startTracked(p *started) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	// A guard that cannot start is the end of a confined start, which
	// would have no death signal; another keeps its own.
	if p.guarded() {
		if err := theGuard.starting(p, f.started); err != nil && p.confine != nil {
			return err
		}
	}
	if err := p.startOn(); err != nil {
		if p.guarded() {
			theGuard.ended(p)
		}
		return err
	}
	f.started[p.cmd.Process.Pid] = p
	if p.guarded() {
		theGuard.started(p)
	}
	if f.suspended {
		p.pause()
	}
	return nil
}

// startOn starts p's command, from a thread that p.confine confines
// first where it is set. That thread serves nothing else and ends once
// the process has started (Go ends a thread whose goroutine exits locked
// to it), before startOn returns and so before the process reads its
// prompt: no thread of rooda is left in the process's Landlock domain,
// where the process could signal or ptrace it.
func (p *started) startOn() error {
	if p.confine == nil {
		return p.cmd.Start()
	}
	done := make(chan confinedStart)
	go startConfined(p, done, nil)
	r := <-done
	threadGone(r.thread)
	return r.err
}

// confinedStart is how a confined thread's start went.
type confinedStart struct {
	thread int // the thread's id, 0 if it started nothing
	err    error
}

// guarded reports whether the guard watches p's process: every one
// where a guard program is known, for the guard stops what the process
// started too if rooda dies, and always one started from a confined
// thread, which has no death signal of its own.
func (p *started) guarded() bool { return p.confine != nil || len(guardPrograms) > 0 }

// forget is called once os/exec has waited for p: its pid is free again,
// and may already belong to a newer child, which stays known.
func (f *family) forget(p *started) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started[p.cmd.Process.Pid] == p {
		delete(f.started, p.cmd.Process.Pid)
	}
}

// newTag names one agent run, "pid.start.n": rooda's pid keeps the tags
// of a rooda that an agent runs apart from its own, and with its start
// time tells a later rooda whether the one that started the agent is
// gone (stale_linux.go).
func (f *family) newTag() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tags == 0 {
		f.self = StartTime(os.Getpid())
	}
	f.tags++
	return fmt.Sprintf("%d.%d.%d", os.Getpid(), f.self, f.tags)
}

// KillAll kills every process group rooda started, then what is left
// below rooda with no grace period (SIGTERM and SIGKILL back to back),
// for a run that must end now.
func KillAll() {
	kin.mu.Lock()
	for pid := range kin.started {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	kin.mu.Unlock()
	stopLeft(byTag(""), 0, nil)
	removeBaseCgroup()
}

// Found is one process rooda found and stopped.
type Found struct {
	PID  int
	Name string // the command's name, as the kernel keeps it
}

func (p Found) String() string { return fmt.Sprintf("%d %s", p.PID, p.Name) }

// Count says how many processes: "1 process", "2 processes".
func Count(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

// listLimit bounds the processes List names: enough to tell what they
// were (a server, a watcher, a build); an agent that forked a thousand
// would make a warning of tens of kilobytes on one line. The record of
// the iteration keeps every one.
const listLimit = 10

// List names processes as "pid name, …", the first listLimit of them,
// and then how many more: "… and 1,003 more processes".
func List(list []Found) string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.String()
	}
	return shown.List(names, listLimit, "processes")
}

// StopStragglers stops every process still running below rooda — one
// that escaped an agent's group and cleared its environment, so no tag
// tells whose it is — and returns them. rooda calls it as it exits: none
// of its processes outlives it.
func StopStragglers() []Found {
	found, _, _ := stopLeft(byTag(""), DefaultGrace, nil)
	removeBaseCgroup()
	theGuard.dismiss()
	return found
}

// Alive reports whether the process pid, started at start (StartTime),
// lives. A pid is reused once its process is gone: where the start time
// was recorded and can be read now, the two must agree. Where either is
// unknown (an older record, a system without /proc) the pid alone decides.
// A zombie — dead, not yet reaped by a parent that may never reap it —
// answers kill(pid, 0) as a live process does, but is gone.
func Alive(pid int, start uint64) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH || zombie(pid) {
		return false
	}
	now := StartTime(pid)
	return start == 0 || now == 0 || now == start
}

// leftovers are what an agent left running once its group was gone.
type leftovers interface {
	find() []proc
	// killAll kills them all, or does nothing where sending each SIGKILL
	// is all there is.
	killAll()
}

// byTag finds leftovers by the tag in their environment.
type byTag string

func (t byTag) find() []proc { return escapees(string(t)) }
func (t byTag) killAll()     {}

// stopLeft stops the leftovers, and those they start while being
// stopped: SIGTERM (once each), then SIGKILL after grace, or at once
// when kill is closed. It returns every process it found, whether
// SIGKILL was needed, and whether some survived even that.
func stopLeft(left leftovers, grace time.Duration, kill <-chan struct{}) (found []Found, killed, survived bool) {
	seen := map[int]bool{}
	// sweep signals what is left and reports whether nothing is.
	sweep := func(always syscall.Signal) bool {
		kin.reapOrphans()
		list := left.find()
		for _, p := range list {
			if !seen[p.pid] {
				seen[p.pid] = true
				found = append(found, Found{PID: p.pid, Name: p.name})
				syscall.Kill(p.pid, syscall.SIGTERM)
				syscall.Kill(p.pid, syscall.SIGCONT)
			}
			if always != 0 {
				syscall.Kill(p.pid, always)
			}
		}
		if len(list) > 0 && always == syscall.SIGKILL {
			left.killAll()
		}
		return len(list) == 0
	}
	defer func() { slices.SortFunc(found, func(a, b Found) int { return a.PID - b.PID }) }()
	if sweep(0) {
		return nil, false, false
	}
	if waitFor(func() bool { return sweep(0) }, grace, kill) {
		return found, false, false
	}
	gone := waitFor(func() bool { return sweep(syscall.SIGKILL) }, grace, nil)
	return found, true, !gone
}
