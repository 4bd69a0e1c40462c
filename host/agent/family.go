package agent

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// rooda's family: the processes it started and those it adopted.
//
// As the subreaper of its agents (PR_SET_CHILD_SUBREAPER), rooda inherits
// every process an agent orphans — a "setsid sleep 300 &", a daemon's
// double fork — whatever session or group it moved to. Such a process
// escaped the agent's process group, so stopping the group does not stop
// it; it is found instead through /proc, as a descendant of rooda that
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
	started map[int]*process
	tags    int
}

var kin = family{started: map[int]*process{}}

// startTracked starts p's command as a child os/exec will wait for. The
// lock keeps the reaper from seeing the new child before it is known.
func (f *family) startTracked(p *process) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.cmd.Start(); err != nil {
		return err
	}
	f.started[p.cmd.Process.Pid] = p
	return nil
}

// forget is called once os/exec has waited for p: its pid is free again,
// and may already belong to a newer child, which stays known.
func (f *family) forget(p *process) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started[p.cmd.Process.Pid] == p {
		delete(f.started, p.cmd.Process.Pid)
	}
}

// newTag names one agent run: rooda's pid keeps the tags of a rooda that
// an agent runs apart from its own.
func (f *family) newTag() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tags++
	return fmt.Sprintf("%d.%d", os.Getpid(), f.tags)
}

// Process is one process rooda found and stopped.
type Process struct {
	PID  int
	Name string // the command's name, as the kernel keeps it
}

func (p Process) String() string { return fmt.Sprintf("%d %s", p.PID, p.Name) }

// ProcessList names processes as "pid name, …".
func ProcessList(list []Process) string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}

// StopStragglers stops every process still running below rooda — one
// that escaped an agent's group and cleared its environment, so no tag
// tells whose it is — and returns them. rooda calls it as it exits: none
// of its processes outlives it.
func StopStragglers() []Process {
	found, _, _ := stopTagged("", DefaultGrace, nil)
	return found
}
